"""A small OpenAI-compatible HTTP server for the evaluation tests: real HTTP on loopback, canned
completions.

Models (the ``model`` field of a request):

* ``oracle``: answers each question with the completion registered for it (the item's
  reference program, or a program whose optimum is the ground truth);
* ``broken-<class>``: a program that fails in that way (``no_code``, ``syntax``, ``runtime``,
  ``gurobi_api``, ``timeout``, ``infeasible``, ``wrong_objective``, ``no_lp``);
* ``slow``: waits ``slow_s`` seconds before answering (client timeouts);
* ``flaky``: answers HTTP 429 to the first ``flaky_failures`` attempts of every request, then
  as ``oracle``.

``GET /stats`` returns the number of attempts per question (a short hash).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

BROKEN = {
    "no_code": "I would model this as a linear program, but I will not write code.",
    "syntax": "```python\nimport gurobipy as gp\ndef build(:\n    pass\n```",
    "runtime": "```python\nimport json\ndata = json.load(open('data.json'))\nx = 1 / 0\n```",
    "gurobi_api": "```python\nimport gurobipy as gp\nmodel = gp.Model()\n"
                  "model.Params.NoSuchParameter = 1\n```",
    "timeout": "```python\nwhile True:\n    pass\n```",
    "infeasible": "```python\nimport gurobipy as gp\nmodel = gp.Model()\n"
                  "model.Params.OutputFlag = 0\nx = model.addVar(lb=0, ub=1)\n"
                  "model.addConstr(x >= 2)\nmodel.setObjective(x)\nmodel.optimize()\n```",
    "wrong_objective": "```python\nimport gurobipy as gp\nmodel = gp.Model()\n"
                       "model.Params.OutputFlag = 0\nx = model.addVar(lb=-12345.5, ub=-12345.5)\n"
                       "model.setObjective(x)\nmodel.optimize()\n"
                       "print('OPTIMAL_OBJECTIVE:', model.ObjVal)\n```",
    "no_lp": "```python\nimport json\ndata = json.load(open('data.json'))\nprint('done')\n```",
}


def question_of(messages: list[dict[str, Any]]) -> str:
    """The question inside the last user message (after the template's ``Problem:``)."""
    text = messages[-1]["content"]
    return text.split("\nProblem:\n", 1)[-1].strip()


def key_of(question: str) -> str:
    """A short stable key of a question."""
    return hashlib.sha256(question.encode()).hexdigest()[:16]


class State:
    """The server's answers and counters."""

    def __init__(self, answers: dict[str, str], slow_s: float = 5.0, flaky_failures: int = 2,
                 delay_s: float = 0.0) -> None:
        self.answers: dict[str, str] = {}
        self.set_answers(answers)
        self.slow_s = slow_s
        self.flaky_failures = flaky_failures
        self.delay_s = delay_s
        self.attempts: Counter[str] = Counter()
        self.lock = threading.Lock()

    def set_answers(self, answers: dict[str, str]) -> None:
        """Replace the oracle's answers (question -> completion)."""
        self.answers = {key_of(q.strip()): a for q, a in answers.items()}


def _handler(state: State) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def _json(self, code: int, obj: Any) -> None:
            body = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            if code == 429:
                self.send_header("Retry-After", "0")
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            if self.path.endswith("/models"):
                names = ["oracle", "slow", "flaky", *(f"broken-{k}" for k in BROKEN)]
                self._json(200, {"object": "list", "data": [
                    {"id": n, "object": "model", "created": 0, "owned_by": "tests"}
                    for n in names]})
            elif self.path.endswith("/stats"):
                with state.lock:
                    self._json(200, dict(state.attempts))
            else:
                self._json(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            n = int(self.headers.get("Content-Length", 0))
            req = json.loads(self.rfile.read(n))
            model = req.get("model", "")
            key = key_of(question_of(req["messages"]))
            with state.lock:
                state.attempts[key] += 1
                attempt = state.attempts[key]
            if state.delay_s:
                time.sleep(state.delay_s)
            if model == "slow":
                time.sleep(state.slow_s)
                text = state.answers.get(key, "")
            elif model == "flaky" and attempt <= state.flaky_failures:
                self._json(429, {"error": {"message": "rate limited", "type": "rate_limit"}})
                return
            elif model in ("oracle", "flaky"):
                text = state.answers.get(key, "no answer registered")
            elif model.startswith("broken-") and model[7:] in BROKEN:
                text = BROKEN[model[7:]]
            else:
                self._json(404, {"error": {"message": f"model {model} not found"}})
                return
            self._json(200, {
                "id": f"cmpl-{key}-{attempt}", "object": "chat.completion", "created": 0,
                "model": model,
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

    return Handler


class Server:
    """The server on a free loopback port, in a daemon thread."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The OpenAI base URL."""
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> Server:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def oracle_completion(item: Any) -> str:
    """The oracle's answer to a benchmark item: its reference program, or (no reference
    program: NL4OPT, OptiBench) a program whose optimum is the ground truth."""
    if item.reference_code:
        return f"<think>Use the reference.</think>\n```python\n{item.reference_code}\n```\n"
    return ("<think>Known optimum.</think>\n```python\nimport gurobipy as gp\n"
            "model = gp.Model()\nmodel.Params.OutputFlag = 0\n"
            f"x = model.addVar(lb={item.answer!r}, ub={item.answer!r})\n"
            "model.setObjective(x)\nmodel.optimize()\n"
            "print('OPTIMAL_OBJECTIVE:', model.ObjVal)\n```\n")


def oracle_answers(benchmarks: list[Any]) -> dict[str, str]:
    """question -> oracle completion for every item of the benchmarks."""
    return {it.question: oracle_completion(it) for b in benchmarks for it in b.items}
