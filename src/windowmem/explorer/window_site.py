"""Every state of a window explorer's controls, as compact data for the course website.

The website has no kernel. At build time :func:`window_site_data` replays each of the
explorer's conversations at every window its slider offers and records, for every turn,
what :func:`~.window_view.window_view` computes: the visible, partial and evicted turns,
the messages sent (as runs of indices into one message table per conversation), and the
token figures. ``website/_static/windowmem/window_explorer.js`` draws the same HTML as
:func:`~.window_html.render_window_html` from it; the fact box stays live there, because
whether a fact is in view is a substring test over the messages the data holds.
``tests/browser/test_site_live_browser.py`` compares the two renderings state by state.

Identical states (a window wider than the turns so far) are stored once: each
conversation's windows list indices into one table of distinct states.

>>> from windowmem.messages import user, assistant
>>> from windowmem.explorer.window_cache import ReplayCache
>>> chat = [user("u1"), assistant("a1"), user("u2"), assistant("a2"), user("u3")]
>>> data = conversation_states(ReplayCache(chat), max_window=1)

Turns 1 and 2 look the same at windows 0 (every message) and 1; turn 3 does not:

>>> data["windows"]
[[0, 1, 2], [0, 1, 3]]

At window 1, turn 3 sees turn 2 only, and sends messages 2 and 3 (``u2``, ``a2``, ``u3``):

>>> data["states"][3][:3], [m[1] for m in data["messages"]]
([[2, 1], [], [2, 3]], ['u1', 'a1', 'u2', 'a2', 'u3'])
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from windowmem.explorer.window_cache import ReplayCache
from windowmem.explorer.window_html import LABELLED_TIMELINE_TURNS, site_styles
from windowmem.messages import Message

#: What the site's explorer says in place of a view it cannot compute without a kernel.
NEEDS_KERNEL = (
    "A conversation of your own is replayed by windowmem in Python: run this lesson in "
    "JupyterLab (make course) to explore it."
)


def runs(numbers: Iterable[int]) -> list[int]:
    """*numbers* (ascending) as flat ``[first, count, first, count, …]`` runs.

    >>> runs([1, 2, 3, 7, 9, 10])
    [1, 3, 7, 1, 9, 2]
    """
    out: list[int] = []
    for number in numbers:
        if out and out[-2] + out[-1] == number:
            out[-1] += 1
        else:
            out += [number, 1]
    return out


class _MessageTable:
    """A conversation's messages, each with the turn it belongs to, numbered once."""

    def __init__(self) -> None:
        self.rows: list[list[Any]] = []
        self._index: dict[tuple[Message, int | None], int] = {}

    def index(self, message: Message, owner: int | None) -> int:
        key = (message, owner)
        if key not in self._index:
            self._index[key] = len(self.rows)
            self.rows.append([message.role.value, message.content, owner])
        return self._index[key]


def conversation_states(replays: ReplayCache, *, max_window: int) -> dict[str, Any]:
    """One conversation's states at windows 0 to *max_window*: messages, turns, states, windows.

    ``states`` rows are ``[visible runs, partial runs, sent runs, messages in the window,
    tokens this call, running bill]``; ``windows[w][t - 1]`` is the row of turn *t* at
    window *w*. The evicted turns are the earlier turns not visible
    (:attr:`windowmem.replay.TurnView.evicted_turns`), so they are not stored.
    """
    table = _MessageTable()
    conversation = replays.conversation
    for message in conversation.messages:
        if message.role.value == "system":
            table.index(message, None)
    turns = replays.turns
    turn_messages = [
        [table.index(message, turn.number) for message in turn.messages] for turn in turns
    ]
    previews = [turn.messages[0].short(48) if turn.messages else "" for turn in turns]
    rows: dict[str, int] = {}
    states: list[list[Any]] = []
    windows: list[list[int]] = []
    for window in range(max_window + 1):
        per_turn, bill = [], 0
        # What window_view arranges for each turn, read from the replay once per window
        # (window_view itself redraws the whole timeline for every turn).
        for view in replays.views(window):
            bill += view.input_tokens
            sent = [table.index(m, owner) for m, owner in zip(view.sent, view.sent_turns)]
            row = [
                runs(view.visible_turns),
                runs(view.partial_turns),
                runs(sent),
                len(view.window),
                view.input_tokens,
                bill,
            ]
            key = json.dumps(row)
            if key not in rows:
                rows[key] = len(states)
                states.append(row)
            per_turn.append(rows[key])
        windows.append(per_turn)
    return {
        "turn_count": len(turns),
        "compact": len(turns) > LABELLED_TIMELINE_TURNS,
        "messages": table.rows,
        "turns": turn_messages,
        "previews": previews,
        "states": states,
        "windows": windows,
    }


def window_site_data(
    caches: Mapping[str, ReplayCache],
    controls: Mapping[str, Any],
    facts: Mapping[str, str],
    counter_name: str,
    own: str,
) -> dict[str, Any]:
    """Everything the site's window explorer needs: its controls, their ranges and every state.

    *controls* says where they start (``start``, ``window``, ``turn``, ``fact``) and the
    window slider's top (``max_window``); *facts* maps a conversation to the fact the fact
    box takes when it is picked; *own* is the picker's entry for a conversation of the
    learner's, which the site cannot replay.
    """
    return {
        "kind": "window",
        "styles": site_styles(),
        **controls,
        "facts": dict(facts),
        "counter_name": counter_name,
        "own": own,
        "needs_kernel": NEEDS_KERNEL,
        "conversations": {
            name: conversation_states(cache, max_window=controls["max_window"])
            for name, cache in caches.items()
        },
    }
