"""How long one explorer update takes on a 500-turn conversation at window 50 (prints ms per update).

A frame at 60 Hz is 16.7 ms; the explorer should answer within one or two. Three kinds
of update are timed, each the pure work behind one widget event (no browser, no kernel
round trip):

* turn slider moved: the replay at this window is cached; build the view and its HTML;
* window slider moved to a size not seen before: replay the conversation at the new size
  (token counts of its messages already cached), then view and HTML;
* first view of a conversation: tokenise every message, replay, view and HTML.

Usage: ``python benchmarks/bench_explorer.py [--turns 500] [--window 50] [--repeats 30]``
"""

from __future__ import annotations

import argparse
import statistics
import time

from windowmem.examples import generated_support
from windowmem.explorer.window_cache import ReplayCache
from windowmem.explorer.window_html import render_window_html
from windowmem.explorer.window_view import window_view
from windowmem.tokens import count_text, qwen_counter

FRAME_MS = 1000 / 60


def ms(seconds: float) -> float:
    return seconds * 1000


def update(cache: ReplayCache, window: int, turn: int, fact: str) -> str:
    """One widget event's pure work: the view at (window, turn) and its HTML."""
    view = window_view(cache, window, turn, fact)
    return render_window_html(view, "Qwen tokens")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--window", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    conversation = generated_support(args.turns)
    counter = qwen_counter()
    counter(conversation.messages[0])  # load the vocabulary outside the timings

    count_text.cache_clear()
    started = time.perf_counter()
    cache = ReplayCache(conversation, counter)
    html = update(cache, args.window, args.turns, "#7781")
    first = ms(time.perf_counter() - started)

    turn_moves = []
    for i in range(args.repeats):
        turn = args.turns - i % 10  # the slider near its end, where the bill sums the most calls
        started = time.perf_counter()
        update(cache, args.window, turn, "#7781")
        turn_moves.append(ms(time.perf_counter() - started))

    window_moves = []
    for i in range(args.repeats):
        fresh = ReplayCache(conversation, counter)  # a size this cache has not seen
        window = args.window - i % 5
        started = time.perf_counter()
        update(fresh, window, args.turns, "#7781")
        window_moves.append(ms(time.perf_counter() - started))

    print(
        f"explorer update, {args.turns} turns ({len(conversation.messages)} messages), "
        f"window {args.window}, turn {args.turns}, HTML {len(html) / 1024:.0f} KiB"
    )
    print(
        f"  turn slider moved:    median {statistics.median(turn_moves):6.1f} ms  "
        f"max {max(turn_moves):6.1f} ms  ({statistics.median(turn_moves) / FRAME_MS:.1f} frames)"
    )
    print(
        f"  window slider moved:  median {statistics.median(window_moves):6.1f} ms  "
        f"max {max(window_moves):6.1f} ms  ({statistics.median(window_moves) / FRAME_MS:.1f} frames)"
    )
    print(f"  first view (cold):    {first:6.1f} ms  (tokenising every message once)")


if __name__ == "__main__":
    main()
