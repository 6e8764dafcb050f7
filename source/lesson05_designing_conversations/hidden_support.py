"""Lesson 5's hidden-test support (the judge loads it; students never receive it).

Part A's seeded execution logs (``_SEED``, ``_logs``, shared by both cells), the kinds of
message each run stores, the window a Context Window Length keeps, the smallest window
that still holds a recalled fact (``_expected_k``) and a window's price (``_expected_price``).
"""

# the hidden tests' one seeded generator (autograder/judge/seeded.py), shared by every assignment
from autograder.judge.seeded import drawer as _drawer

_type = (0).__class__.__class__

_list, _dict, _str = [].__class__, {}.__class__, "".__class__

_int = (0).__class__

_SEED = 2025


def _logs(seed, count):
    """*count* execution logs drawn from a seeded space: tool rounds, calls at once, failed runs."""
    _draw = _drawer(seed)
    _out = []
    for _ in range(count):
        _log = []
        for _run in range(1, 5 + _draw(5) + 1):
            _rounds = [
                [{"id": f"s{_run}{_r}{_c}", "result": "ok"} for _c in range((1, 1, 2, 3)[_draw(4)])]
                for _r in range((0, 0, 1, 1, 2, 3)[_draw(6)])
            ]
            _e = {"chatInput": f"q{_run}", "output": None if _draw(3) == 0 else f"a{_run}"}
            if _rounds:
                _e["tool_rounds"] = _rounds
            _log.append(_e)
        _out.append((_log, 1 + _draw(4), (1, 2, 3, 4, 6)[_draw(5)]))
    return _out


def _stored_kinds(log, upto):
    """The kinds of the messages n8n 2.41.1 has stored before run *upto* (AI Agent 3.1)."""
    _kinds = []
    for _e in log[: upto - 1]:
        if _e["output"] is not None:  # a run that failed writes nothing
            _last = _e["tool_rounds"][-1] if _e.get("tool_rounds") else []
            _kinds += ["user", *["call", "result"] * len(_last), "answer"]
    return _kinds


def _window(kinds, k):
    """The last 2 × k kinds (all for k = 0), a broken exchange at the start dropped."""
    _w = kinds if k == 0 else kinds[-2 * k :]
    while _w and (_w[0] == "result" or (_w[0] == "call" and (len(_w) < 2 or _w[1] != "result"))):
        _w = _w[1:]
    return _w


def _expected_k(log, recall):
    """The smallest k >= 1 whose every run's history holds the newest *recall* earlier answered runs whole."""
    _k = 1
    while True:
        _fits = True
        for _run in range(1, len(log) + 1):
            _sizes = [
                len(_stored_kinds([_e], 2)) for _e in log[: _run - 1] if _e["output"] is not None
            ]
            _need = sum(_sizes[max(0, len(_sizes) - recall) :])
            if len(_window(_stored_kinds(log, _run), _k)) < _need or 2 * _k < _need:
                _fits = False
        if _fits:
            return _k
        _k += 1


def _expected_price(log, k, tokens):
    """The history's tokens over every model call: one per tool round, and the last."""
    return sum(
        (len(_e.get("tool_rounds", [])) + 1)
        * sum(tokens[_m] for _m in _window(_stored_kinds(log, _run), k))
        for _run, _e in enumerate(log, start=1)
    )
