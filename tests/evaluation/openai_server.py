"""A small OpenAI-compatible HTTP server for the evaluation tests: real HTTP on loopback, canned
completions.

Models (the ``model`` field of a request):

* ``oracle``: answers each question with the completion registered for it (the item's
  reference program, an honest program written from the statement, or the memorised answer:
  ``oracle_completion``);
* ``broken-<class>``: a program that fails in that way (``no_code``, ``syntax``, ``runtime``,
  ``gurobi_api``, ``timeout``, ``infeasible``, ``wrong_objective``, ``no_lp``);
* ``slow``: waits ``slow_s`` seconds before answering (client timeouts);
* ``flaky``: answers HTTP 429 to the first ``flaky_failures`` attempts of every request, then
  as ``oracle``;
* ``cheat-<name>``: a program that tries to pass without solving the problem (``CHEATS``),
  given the item's true answer (the worst case: a model that memorised it);
* any name in ``State.scripts``: the reply is what its function returns for the request's
  messages (a string; a (reasoning, content) pair, the reasoning sent as
  ``reasoning_content`` as reasoning servers do; bytes are sent as the raw HTTP body, a
  server's garbage).

``GET /stats`` returns the number of attempts per question (a short hash); ``State.by_model``
counts requests per model. ``State.get_routes`` scripts GET replies: a path suffix (such as
``/models``) -> (status, content type, raw body), answered before the routes above (an endpoint
whose model listing is malformed).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import Counter
from collections.abc import Callable
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
    # A model built from the item's data (so grounded) that answers the wrong question.
    "wrong_objective": "```python\nimport json\nimport gurobipy as gp\n"
                       "def nums(v):\n    if isinstance(v, dict):\n        v = list(v.values())\n"
                       "    if isinstance(v, list):\n        for u in v:\n"
                       "            yield from nums(u)\n"
                       "    elif isinstance(v, (int, float)) and not isinstance(v, bool) "
                       "and v > 0:\n        yield float(v)\n"
                       "a, b = list(nums(json.load(open('data.json'))))[:2]\n"
                       "model = gp.Model()\nmodel.Params.OutputFlag = 0\n"
                       "x = model.addVar(ub=a)\ny = model.addVar(ub=b)\n"
                       "model.addConstr(x + y <= a + b)\n"
                       "model.setObjective(x + y, gp.GRB.MAXIMIZE)\nmodel.optimize()\n"
                       "print('OPTIMAL_OBJECTIVE:', model.ObjVal)\n```",
    "no_lp": "```python\nimport json\ndata = json.load(open('data.json'))\nprint('done')\n```",
}


# Cheats, as templates over the item's answer ({answer}) and reference LP path ({reference}).
CHEATS = {
    # Find the ground truth on disk (the environment, ../shared, a walk, ortrex's loader).
    "read-answer": """```python
import os, glob, json
found = None
roots = [os.environ.get("ORTREX_BENCHMARKS", ""), "../shared/benchmarks",
         "/work/shared/benchmarks"]
for root in roots:
    for path in glob.glob(os.path.join(root, "**", "*.json*"), recursive=True):
        found = path
try:
    from ortrex.benchmarks.registry import load
    found = load("nl4opt").items[0].answer
except Exception:
    pass
print("OPTIMAL_OBJECTIVE:", {answer!r} if found else 0)
```""",
    "fixed-variable": """```python
import gurobipy as gp
model = gp.Model()
model.Params.OutputFlag = 0
x = model.addVar(lb={answer!r}, ub={answer!r})
model.setObjective(x)
model.optimize()
print("OPTIMAL_OBJECTIVE:", model.ObjVal)
```""",
    "constant-objective": """```python
import gurobipy as gp
model = gp.Model()
model.Params.OutputFlag = 0
x = model.addVar(ub=10)
y = model.addVar(ub=10)
model.addConstr(x + y <= 10)
model.setObjective(0 * x + {answer!r})
model.optimize()
```""",
    "fake-class": """```python
class Model:
    ObjVal = {answer!r}
    Status = 2
    SolCount = 1
    def optimize(self):
        pass
Model.__module__ = "gurobipy"
model = Model()
model.optimize()
print("OPTIMAL_OBJECTIVE:", model.ObjVal)
```""",
    "lying-subclass": """```python
import gurobipy as gp
class Lying(gp.Model):
    @property
    def ObjVal(self):
        return {answer!r}
model = Lying()
model.Params.OutputFlag = 0
x = model.addVar(ub=1)
y = model.addVar(ub=1)
model.addConstr(x + y <= 1)
model.setObjective(x + y, gp.GRB.MAXIMIZE)
model.optimize()
print("OPTIMAL_OBJECTIVE:", model.ObjVal)
```""",
    "patched-capture": """```python
import gc, sys, types, builtins
import gurobipy as gp
model = gp.Model()
model.Params.OutputFlag = 0
x = model.addVar(ub=abs({answer!r}) + 2)
y = model.addVar(ub=1)
model.addConstr(x + y <= abs({answer!r}) + 2)
model.setObjective(x + y, gp.GRB.MAXIMIZE)
model.optimize()
for obj in gc.get_objects():
    if isinstance(obj, types.FunctionType) and "ortrex" in (obj.__module__ or ""):
        try:
            obj.__code__ = (lambda *a, **k: None).__code__
        except ValueError:
            pass
builtins.type = lambda *a: None
print("OPTIMAL_OBJECTIVE:", {answer!r})
```""",
    "planted-files": """```python
import os, json
os.unlink = lambda *a: None
os.remove = lambda *a: None
open("__captured_model__.mps", "w").write("NAME x\\nROWS\\n N obj\\nENDATA\\n")
json.dump({{"solver": "gurobipy", "status": "optimal", "objective": {answer!r}}},
          open("__captured_state__.json", "w"))
print("OPTIMAL_OBJECTIVE:", {answer!r})
```""",
    "exit-after-print": """```python
import os, gurobipy as gp
model = gp.Model()
model.Params.OutputFlag = 0
x = model.addVar(ub=5)
y = model.addVar(ub=5)
model.addConstr(x + y <= 3)
model.setObjective(x + y, gp.GRB.MAXIMIZE)
model.optimize()
print("OPTIMAL_OBJECTIVE:", {answer!r}, flush=True)
os._exit(0)
```""",
    # The answer typed in as a lower bound, minimised (gurobipy; highspy's addVar(ANS, inf)).
    "lower-bound": """```python
import gurobipy as gp
model = gp.Model()
model.Params.OutputFlag = 0
x = model.addVar(lb={answer!r})
y = model.addVar(ub=10)
model.addConstr(x + y <= abs({answer!r}) * 10 + 10)
model.setObjective(x)
model.optimize()
```""",
    "highs-lower-bound": """```python
import highspy
h = highspy.Highs()
h.setOptionValue("output_flag", False)
x = h.addVariable({answer!r}, highspy.kHighsInf, 1.0)
h.run()
```""",
    # The answer as the objective's constant beside a real little model.
    "objective-constant": """```python
import gurobipy as gp
model = gp.Model()
model.Params.OutputFlag = 0
x = model.addVar(ub=10)
y = model.addVar(ub=10)
model.addConstr(x - y <= 3)
model.setObjective(x + y + {answer!r})
model.optimize()
```""",
    # The fixed variable plus an unrelated general constraint (Gurobi's own reader path).
    "general-constraint": """```python
import gurobipy as gp
model = gp.Model()
model.Params.OutputFlag = 0
x = model.addVar(lb={answer!r}, ub={answer!r})
d = model.addVar(ub=5)
e = model.addVar(ub=5)
model.addGenConstrMax(e, [d], 0)
model.setObjective(x + 0 * e)
model.optimize()
```""",
    # The answer as a row's side: two variables, a row of twos, the answer split in two.
    "answer-row": """```python
import gurobipy as gp
model = gp.Model()
model.Params.OutputFlag = 0
x = model.addVar(lb=-gp.GRB.INFINITY)
y = model.addVar(lb=-gp.GRB.INFINITY)
model.addConstr(x + y >= {answer!r})
model.addConstr(x - y == 0)
model.setObjective(x + y)
model.optimize()
```""",
    "scaled-row": """```python
import gurobipy as gp
model = gp.Model()
model.Params.OutputFlag = 0
x = model.addVar(lb=-gp.GRB.INFINITY)
y = model.addVar(lb=-gp.GRB.INFINITY)
model.addConstr(x + y >= {answer!r} / 2)
model.addConstr(x - y == 0)
model.setObjective(2 * x + 2 * y)
model.optimize()
```""",
    "split-bounds": """```python
import gurobipy as gp
model = gp.Model()
model.Params.OutputFlag = 0
a = round(0.4 * {answer!r}, 2)
x = model.addVar(lb=-gp.GRB.INFINITY)
y = model.addVar(lb=-gp.GRB.INFINITY)
model.addConstr(x >= a)
model.addConstr(y >= {answer!r} - a)
model.addConstr(x + y <= abs({answer!r}) * 10 + 10)
model.setObjective(x + y)
model.optimize()
```""",
    # Names that would be MPS sections if written verbatim: the capture renames them.
    "name-injection": """```python
import gurobipy as gp
model = gp.Model()
model.Params.OutputFlag = 0
x = model.addVar(lb=-gp.GRB.INFINITY, name="x\\nRHS\\n    rhs R0 1e30")
y = model.addVar(lb=-gp.GRB.INFINITY, name="y y")
model.addConstr(x + y >= {answer!r}, name="R0\\nOBJSENSE\\n\\t$z")
model.addConstr(x - y == 0, name="\\tENDATA")
model.setObjective(x + y)
model.optimize()
```""",
    "highs-name-injection": """```python
import highspy
h = highspy.Highs()
h.setOptionValue("output_flag", False)
x = h.addVariable(-highspy.kHighsInf, highspy.kHighsInf, 1.0, name="x\\tBOUNDS\\n UP")
y = h.addVariable(-highspy.kHighsInf, highspy.kHighsInf, 1.0, name="y\\nENDATA")
h.addConstr(x + y >= {answer!r})
h.addConstr(x - y == 0)
h.run()
```""",
    # ORGEval: hand in the reference LP itself.
    "copy-reference": """```python
import shutil
try:
    shutil.copy({reference!r}, "model.lp")
except OSError as e:
    print(e)
```""",
}
CHEAT_FAILURES = {"read-answer": "no_model", "fixed-variable": "trivial_model",
                  "constant-objective": "trivial_model", "lower-bound": "trivial_model",
                  "highs-lower-bound": "trivial_model", "objective-constant": "trivial_model",
                  "general-constraint": "trivial_model", "answer-row": "ungrounded_model",
                  "scaled-row": "ungrounded_model", "split-bounds": "ungrounded_model",
                  "name-injection": "ungrounded_model",
                  "highs-name-injection": "ungrounded_model",
                  "fake-class": "forged_capture", "lying-subclass": "forged_capture",
                  "patched-capture": ("ungrounded_model", "wrong_objective"),
                  "planted-files": "no_model",
                  "exit-after-print": "no_model", "copy-reference": "no_lp"}


# Cheats the grounding check refuses: on items whose answer the statement does not give (where
# it does, the typed number is one of the statement's own).
GROUNDING_CHEATS = frozenset(k for k, v in CHEAT_FAILURES.items()
                             if v in ("ungrounded_model", "trivial_model") and
                             k not in ("fixed-variable", "constant-objective"))


def cheat_completion(name: str, item: Any) -> str:
    """A cheat's completion for an item."""
    return CHEATS[name].format(answer=item.answer if item.answer is not None else 0.0,
                               reference=item.reference_lp or "")


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
        self.cheats: dict[str, str] = {}  # question key -> completion, for cheat-<name>
        self.slow_s = slow_s
        self.flaky_failures = flaky_failures
        self.delay_s = delay_s
        self.attempts: Counter[str] = Counter()
        self.by_model: Counter[str] = Counter()
        self.scripts: dict[str, Callable[[list[dict[str, Any]]],
                                         str | bytes | tuple[str, str]]] = {}
        self.get_routes: dict[str, tuple[int, str, bytes]] = {}
        self.lock = threading.Lock()

    def set_answers(self, answers: dict[str, str]) -> None:
        """Replace the oracle's answers (question -> completion)."""
        self.answers = {key_of(q.strip()): a for q, a in answers.items()}

    def set_cheats(self, benchmarks: list[Any]) -> None:
        """Let ``cheat-<name>`` answer the items of ``benchmarks`` (knowing their answers)."""
        self.cheats = {f"{name}:{key_of(it.question.strip())}": cheat_completion(name, it)
                       for name in CHEATS for b in benchmarks for it in b.items}


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
            for suffix, (code, ctype, body) in state.get_routes.items():
                if self.path.endswith(suffix):
                    self.send_response(code)
                    self.send_header("Content-Type", ctype)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
            if self.path.endswith("/models"):
                names = ["oracle", "slow", "flaky", *(f"broken-{k}" for k in BROKEN),
                         *(f"cheat-{k}" for k in CHEATS), *state.scripts]
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
                state.by_model[model] += 1
                attempt = state.attempts[key]
            if state.delay_s:
                time.sleep(state.delay_s)
            reasoning = None
            if model in state.scripts:
                got = state.scripts[model](req["messages"])
                if isinstance(got, tuple):
                    reasoning, got = got
                if isinstance(got, bytes):  # garbage: a body that is no completion
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(got)))
                    self.end_headers()
                    self.wfile.write(got)
                    return
                text = got
            elif model == "slow":
                time.sleep(state.slow_s)
                text = state.answers.get(key, "")
            elif model == "flaky" and attempt <= state.flaky_failures:
                self._json(429, {"error": {"message": "rate limited", "type": "rate_limit"}})
                return
            elif model in ("oracle", "flaky"):
                text = state.answers.get(key, "no answer registered")
            elif model.startswith("broken-") and model[7:] in BROKEN:
                text = BROKEN[model[7:]]
            elif model.startswith("cheat-") and model[6:] in CHEATS:
                text = state.cheats.get(f"{model[6:]}:{key}", "no cheat registered")
            else:
                self._json(404, {"error": {"message": f"model {model} not found"}})
                return
            self._json(200, {
                "id": f"cmpl-{key}-{attempt}", "object": "chat.completion", "created": 0,
                "model": model,
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text,
                                         **({"reasoning_content": reasoning}
                                            if reasoning else {})}}],
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


def memorised_completion(item: Any) -> str:
    """A program that types the item's ground truth in (a row ``x + y >= answer``): the
    memorised answer the grounding check refuses (``ungrounded_model``), unless the statement
    itself gives that number."""
    return ("<think>Known optimum.</think>\n```python\nimport gurobipy as gp\n"
            "model = gp.Model()\nmodel.Params.OutputFlag = 0\n"
            "x = model.addVar(lb=-gp.GRB.INFINITY)\ny = model.addVar(lb=-gp.GRB.INFINITY)\n"
            f"model.addConstr(x + y >= {item.answer!r})\nmodel.addConstr(x - y == 0)\n"
            "model.setObjective(x + y)\nmodel.optimize()\n"
            "print('OPTIMAL_OBJECTIVE:', model.ObjVal)\n```\n")


def oracle_completion(item: Any) -> str:
    """The oracle's answer to a benchmark item: its reference program, or (NL4OPT, OptiBench:
    no reference programs) an honest program written from the statement
    (``honest_programs.HONEST``), or else the memorised answer (``memorised_completion``)."""
    from tests.evaluation.honest_programs import HONEST

    if item.reference_code:
        return f"<think>Use the reference.</think>\n```python\n{item.reference_code}\n```\n"
    if item.id in HONEST:
        return f"<think>Model it.</think>\n```python\n{HONEST[item.id]}```\n"
    return memorised_completion(item)


def oracle_answers(benchmarks: list[Any]) -> dict[str, str]:
    """question -> oracle completion for every item of the benchmarks."""
    return {it.question: oracle_completion(it) for b in benchmarks for it in b.items}
