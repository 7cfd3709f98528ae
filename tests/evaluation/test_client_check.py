"""``Client.check`` on model listings of every shape: the parser over many bodies, a real client
against a loopback server, and ``ortrex eval`` (a real process) against an endpoint whose
``GET /v1/models`` answers ``{}``: one line, exit 2, no traceback."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from ortrex.served.client import Client, EndpointError, Sampling, served_models
from tests.conftest import run_cli
from tests.evaluation.openai_server import Server, State

GOOD = [
    ({"object": "list", "data": [{"id": "a", "object": "model"}, {"id": "b"}]}, ["a", "b"]),
    ({"data": []}, []),
    ([{"id": "a"}, {"id": "b"}], ["a", "b"]),
    (["a", "b"], ["a", "b"]),
    ({"data": ["a"]}, ["a"]),
    ({"models": [{"name": "llama3:8b", "model": "llama3:8b"}]}, ["llama3:8b"]),
    ({"models": [{"model": "m"}]}, ["m"]),
    ({"models": ["m", {"id": "n"}]}, ["m", "n"]),
    ({"data": None, "models": [{"id": "x"}]}, ["x"]),  # the first key that holds a list
    ({"data": [{"id": "", "name": "y"}]}, ["y"]),  # an empty id falls back to the name
    ([], []),
]


@pytest.mark.parametrize(("body", "names"), GOOD, ids=[json.dumps(b)[:40] for b, _ in GOOD])
def test_shapes_that_list_models(body: object, names: list[str]) -> None:
    assert served_models(json.dumps(body).encode()) == names


BAD = [
    (b"{}", "a JSON object with no model list"),
    (b'{"object": "list"}', "a JSON object with no model list"),
    (b'{"data": null}', 'a JSON object whose "data" is null, not a model list'),
    (b'{"data": {"id": "a"}}', 'a JSON object whose "data" is an object, not a model list'),
    (b'{"models": "a,b"}', 'a JSON object whose "models" is a string, not a model list'),
    (b'{"data": [1, 2]}', "a model list whose item 0 is a number, not a model name or object"),
    (b'["a", null]', "a model list whose item 1 is null, not a model name or object"),
    (b'[["a"]]', "a model list whose item 0 is a list, not a model name or object"),
    (b'[true]', "a model list whose item 0 is a boolean, not a model name or object"),
    (b'[""]', "a model list whose item 0 is an empty string, not a model name or object"),
    (b'{"data": [{"object": "model"}]}', 'item 0 has no "id", "name" or "model"'),
    (b'{"data": [{"id": 7}]}', 'item 0 has no "id", "name" or "model"'),
    (b'"gpt-4"', "a JSON string, not a model list"),
    (b"42", "a JSON number, not a model list"),
    (b"null", "a JSON null, not a model list"),
    (b"true", "a JSON boolean, not a model list"),
    (b"", "an empty body, not a JSON model list"),
    (b"  \n", "an empty body, not a JSON model list"),
    (b"<!DOCTYPE html><html><body>Login</body></html>", "an HTML page"),
    (b"\n<html><head></head></html>", "an HTML page"),
    (b"model-a\nmodel-b\n", "a body that is not JSON"),
    (b'{"data": [', "a body that is not JSON"),
    (b"\xff\xfe\x00garbage", "a body that is not JSON"),
    (b"[" * 100_000 + b"]" * 100_000, "JSON nested too deeply to read"),
]


@pytest.mark.parametrize(("body", "needle"), BAD, ids=[repr(b[:30]) for b, _ in BAD])
def test_shapes_that_do_not(body: bytes, needle: str) -> None:
    with pytest.raises(ValueError) as got:
        served_models(body)
    assert needle in str(got.value) and "\n" not in str(got.value)


def _check(url: str, model: str) -> str | None:
    """``Client.check`` of a real client: None when it passes, else the error's text."""
    async def go() -> str | None:
        client = Client(url, Sampling(model), None)
        try:
            await client.check()
            return None
        except EndpointError as exc:
            return str(exc)
        finally:
            await client.close()

    return asyncio.run(go())


def _route(state: State, body: bytes, code: int = 200, ctype: str = "application/json"
           ) -> None:
    state.get_routes = {"/models": (code, ctype, body)}


def test_check_against_served_listings() -> None:
    state = State({})
    with Server(state) as srv:
        # The helper's own OpenAI-shaped listing: has it passes, lacks it is the old message.
        assert _check(srv.url, "oracle") is None
        got = _check(srv.url, "gpt-nope")
        assert got is not None and "model 'gpt-nope' is not served (served: oracle," in got
        # The variants, served for real.
        _route(state, b'{"models": [{"name": "llama3:8b"}, {"name": "qwen"}]}')
        assert _check(srv.url, "qwen") is None
        got = _check(srv.url, "gpt-nope")
        assert got == f"{srv.url}: model 'gpt-nope' is not served (served: llama3:8b, qwen)"
        _route(state, b'["a", "b"]')
        assert _check(srv.url, "b") is None
        _route(state, b'{"data": []}')  # an empty listing says nothing: the request will tell
        assert _check(srv.url, "anything") is None
        # A served name with a newline in it stays on one line in the message.
        _route(state, b'["evil\\nname"]')
        got = _check(srv.url, "other")
        assert got is not None and "\n" not in got and "evil name" in got
        # What is no listing: one line naming the endpoint and what was wrong.
        for body, needle in BAD[:3] + BAD[-6:-3]:
            _route(state, body, ctype="text/html" if b"html" in body else "application/json")
            got = _check(srv.url, "oracle")
            assert got == f"{srv.url}: GET /models answered {served_models_error(body)}"
            assert needle in got and "\n" not in got
        # The HTTP cases keep their behaviour: 404 is no listing, others are an error.
        _route(state, b"nothing here", code=404, ctype="text/plain")
        assert _check(srv.url, "oracle") is None
        _route(state, b"<html>forbidden</html>", code=403, ctype="text/html")
        assert _check(srv.url, "oracle") == (f"{srv.url}: the endpoint answered HTTP 403 to "
                                             f"GET /models")


def served_models_error(body: bytes) -> str:
    """The parser's error text for a body that is no listing."""
    try:
        served_models(body)
    except ValueError as exc:
        return str(exc)
    raise AssertionError(f"{body!r} parsed")


@pytest.mark.usefixtures("shared_benchmarks")
def test_eval_against_an_empty_object_listing_is_one_line_exit_2(tmp_path: Path) -> None:
    state = State({})
    _route(state, b"{}")
    with Server(state) as srv:
        out = tmp_path / "out"
        r = run_cli("eval", "--base-url", srv.url, "--model", "oracle", "--benchmarks",
                    "nl4opt", "--limit", "1", "--output", str(out), timeout=120)
        assert state.by_model == {}  # stopped before asking anything
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "Traceback" not in r.stderr and "TypeError" not in r.stderr
    assert srv.url in lines[0] and "GET /models answered a JSON object with no model list" in (
        lines[0])
    assert not out.exists()


def test_distill_and_clean_against_an_empty_object_listing_exit_2(
        tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    from tests.engine.flaws import shared_store

    def build(db: Path) -> None:  # the same store as tests/flywheel/test_flywheel_failures.py
        r = run_cli("pipeline", "--count", "2", "--families", "transportation", "--kinds",
                    "sft", "--forms", "DP,DT", "--size", "small", "--workers", "1", "--seed",
                    "3", "--db", str(db))
        assert r.returncode == 0, r.stderr

    db = shared_store(tmp_path_factory, "flywheel-small", build)
    state = State({})
    _route(state, b"{}")
    with Server(state) as srv:
        for cmd in (("distill",), ("clean", "--repair", "served")):
            r = run_cli(*cmd, "--base-url", srv.url, "--model", "m", "--db", str(db),
                        "--cache", str(tmp_path / "cache"), timeout=120)
            assert r.returncode == 2, (cmd, r.stdout, r.stderr)
            assert r.stderr.strip().splitlines() == [
                f"error: {srv.url}: GET /models answered a JSON object with no model list"], (
                    r.stderr)
        assert state.by_model == {}
    assert not (tmp_path / "cache").exists()
