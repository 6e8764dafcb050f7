"""Window memory speed: windowmem against LangChain on one long conversation, side by side.

Run it from the repository root (about a minute; figures printed, nothing asserted)::

    .venv/bin/python benchmarks/bench_window.py                 # 100,000 messages, window 50
    .venv/bin/python benchmarks/bench_window.py --messages 20000 --window 10

The conversation has N messages (N/2 turns of a user question and an assistant reply);
the window is 50 interactions, 100 messages, as n8n Simple Memory counts it. Each
contender plays one agent session turn by turn: load the window, then store the new
turn. Contenders:

* windowmem ``Memory(N8nSimpleMemory(50))``: ``load()``, then ``add(user(q), assistant(a))``;
  "window only" is ``Memory(..., keep_all=False)``, which keeps just the tail n8n can load;
  and the same with the messages built beforehand ("prebuilt"), to time store and load alone;
* windowmem ``iter_turn_views``: the full replay, building each turn's sent array,
  visible/partial turns and token count;
* LangChain ``ConversationBufferWindowMemory(k=50, return_messages=True)``
  (langchain-classic): ``load_memory_variables({})``, then ``save_context`` (or, prebuilt,
  ``chat_memory.add_messages``);
* windowmem replays under the newer products' models, with windows of the same length:
  OpenAI Agents SDK ``SessionSettings(limit=2k)`` items, LangGraph's ``pre_model_hook``
  trimming the input or the saved thread to ``2k`` messages, and LangChain's
  ``SummarizationMiddleware`` keeping ``2k`` messages once the thread reaches ``4k``;
* the real ``agents.SQLiteSession.get_items(limit=2k)`` (openai-agents), timed per call
  at a few stored sizes as trim_messages is (its add and read go through a thread pool);
* LangChain ``trim_messages(history, strategy="last", max_tokens=100, token_counter=len)``
  over the stored history, then the turn is appended. It copies and searches the whole
  history on every call, so the run would be quadratic: it is timed at a few history
  sizes and its full-run time is extrapolated from those measurements (said so below).

For each contender: the fastest of three fresh sessions, as CPU time per 1,000 turns at the start, the middle and the end of the
conversation (flat means the per-turn cost does not grow with the history), the whole
run, and the memory the session holds at the end (tracemalloc, measured in a separate
run because tracing slows Python down).
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc
import warnings
from collections.abc import Callable, Iterator

#: Turns per timed block.
BLOCK = 1_000
#: Fresh sessions timed per contender; each block reports its fastest run, to damp noise.
REPEATS = 3
#: History sizes (messages) at which one trim_messages call is timed.
TRIM_SIZES = (1_000, 10_000, 50_000, 100_000)
#: The machine is shared: CPU time of this process is steadier than wall-clock time.
CLOCK = time.process_time
#: Seconds spent timing trim_messages calls at each size (at least three calls).
TRIM_SECONDS = 0.5


def texts(turn_count: int) -> list[tuple[str, str]]:
    """Question and reply texts, fixed by their turn number (no randomness to seed)."""
    return [
        (
            f"Turn {i}: where is order #{6000 + i % 997}, and can it ship to Medellín?",
            f"Order #{6000 + i % 997} left the warehouse; Medellín takes {2 + i % 4} business days.",
        )
        for i in range(turn_count)
    ]


def blocks(turn_count: int) -> list[tuple[str, int, int]]:
    """The three timed stretches of turns: start, middle, end."""
    middle = turn_count // 2
    return [
        ("start", 0, BLOCK),
        ("middle", middle, middle + BLOCK),
        ("end", turn_count - BLOCK, turn_count),
    ]


def time_steps(step: Callable[[int], object], turn_count: int) -> dict[str, float]:
    """Run step(0..turn_count-1) in order; CPU seconds per timed block and for the whole run.

    As :mod:`timeit` does, the cyclic garbage collector is off while timing: its full
    collections walk every live object, which would charge one contender for the other's
    garbage and blur the per-turn cost this measures.
    """
    marks = sorted({0, turn_count, *(b for _, a, z in blocks(turn_count) for b in (a, z))})
    spans: dict[tuple[int, int], float] = {}
    gc.collect()
    gc.disable()
    try:
        started = CLOCK()
        for a, z in zip(marks, marks[1:]):
            t0 = CLOCK()
            for i in range(a, z):
                step(i)
            spans[(a, z)] = CLOCK() - t0
        total = CLOCK() - started
    finally:
        gc.enable()
    out = {name: spans[(a, z)] for name, a, z in blocks(turn_count)}
    out["total"] = total
    return out


def best_of(make_step: Callable[[], Callable[[int], object]], turn_count: int) -> dict[str, float]:
    """:func:`time_steps` on REPEATS fresh sessions; the fastest time of each block."""
    runs = [time_steps(make_step(), turn_count) for _ in range(REPEATS)]
    return {key: min(run[key] for run in runs) for key in runs[0]}


def iterator_step(views: Iterator[object]) -> Callable[[int], object]:
    """A step function that advances a generator yielding one item per turn."""
    return lambda _: next(views)


# --- the contenders ------------------------------------------------------------------


def windowmem_memory(
    pairs: list[tuple[str, str]], window: int, keep_all: bool = True
) -> Callable[[int], object]:
    from windowmem.messages import assistant, user
    from windowmem.policies.base import Memory
    from windowmem.policies.n8n import N8nSimpleMemory

    memory = Memory(N8nSimpleMemory(window), keep_all=keep_all)

    def step(i: int) -> object:
        loaded = memory.load()
        question, reply = pairs[i]
        memory.add(user(question), assistant(reply))
        return loaded

    return step


def windowmem_replay(pairs: list[tuple[str, str]], window: int) -> Iterator[object]:
    from windowmem.messages import assistant, user
    from windowmem.policies.n8n import N8nSimpleMemory
    from windowmem.replay import iter_turn_views

    messages = [m for q, a in pairs for m in (user(q), assistant(a))]
    return iter_turn_views(messages, N8nSimpleMemory(window))


def windowmem_memory_prebuilt(messages: list[object], window: int) -> Callable[[int], object]:
    from windowmem.policies.base import Memory
    from windowmem.policies.n8n import N8nSimpleMemory

    memory = Memory(N8nSimpleMemory(window))

    def step(i: int) -> object:
        loaded = memory.load()
        memory.add(messages[2 * i], messages[2 * i + 1])
        return loaded

    return step


def langchain_window(pairs: list[tuple[str, str]], window: int) -> Callable[[int], object]:
    from langchain_classic.memory import ConversationBufferWindowMemory

    memory = ConversationBufferWindowMemory(k=window, return_messages=True)

    def step(i: int) -> object:
        loaded = memory.load_memory_variables({})
        question, reply = pairs[i]
        memory.save_context({"input": question}, {"output": reply})
        return loaded

    return step


def langchain_window_prebuilt(messages: list[object], window: int) -> Callable[[int], object]:
    from langchain_classic.memory import ConversationBufferWindowMemory

    memory = ConversationBufferWindowMemory(k=window, return_messages=True)

    def step(i: int) -> object:
        loaded = memory.load_memory_variables({})
        memory.chat_memory.add_messages(messages[2 * i : 2 * i + 2])
        return loaded

    return step


def replay_setup_seconds(messages: list[object]) -> float:
    """The one-off work a replay does before its first turn: splitting the messages into turns."""
    from windowmem.conversation import as_conversation

    gc.disable()
    try:
        t0 = CLOCK()
        as_conversation(messages).interactions
        return CLOCK() - t0
    finally:
        gc.enable()


def langchain_history(pairs: list[tuple[str, str]]) -> list[object]:
    from langchain_core.messages import AIMessage, HumanMessage

    return [m for q, a in pairs for m in (HumanMessage(q), AIMessage(a))]


def trim_call(history: list[object], window: int) -> object:
    from langchain_core.messages import trim_messages

    return trim_messages(history, strategy="last", max_tokens=2 * window, token_counter=len)


def trim_per_call(
    pairs: list[tuple[str, str]], window: int, sizes: tuple[int, ...]
) -> dict[int, float]:
    """Seconds per trim_messages call with a history of each size (messages): the fastest call."""
    out = {}
    for size in sizes:
        history = langchain_history(pairs[: size // 2])
        times: list[float] = []
        while len(times) < 3 or sum(times) < TRIM_SECONDS:
            t0 = CLOCK()
            trim_call(history, window)
            times.append(CLOCK() - t0)
        out[size] = min(times)
    return out


def extrapolated_trim_run(per_call: dict[int, float], turn_count: int) -> float:
    """Σ over turns of the per-call time, interpolating linearly between measured sizes."""
    sizes = sorted(per_call)

    def at(messages: int) -> float:
        if messages <= sizes[0]:
            return per_call[sizes[0]] * max(messages, 1) / sizes[0]
        for lo, hi in zip(sizes, sizes[1:]):
            if messages <= hi:
                w = (messages - lo) / (hi - lo)
                return per_call[lo] * (1 - w) + per_call[hi] * w
        return per_call[sizes[-1]] * messages / sizes[-1]

    return sum(at(2 * t) for t in range(turn_count))


def newer_product_policies(window: int) -> dict[str, object]:
    """The newer products' models, each with a window of 2*window messages (or items)."""
    from windowmem.policies.langgraph import (
        LangChainSummarization,
        LangGraphTrimInput,
        LangGraphTrimState,
    )
    from windowmem.policies.openai_agents import OpenAIAgentsSession
    from windowmem.tokens import count_messages

    size = 2 * window
    return {
        "replay, openai-agents": OpenAIAgentsSession(size),
        "replay, langgraph trim input": LangGraphTrimInput(size, counter=count_messages),
        "replay, langgraph trim state": LangGraphTrimState(size, counter=count_messages),
        "replay, summarization": LangChainSummarization(
            size, trigger_tokens=None, trigger_messages=2 * size
        ),
    }


def sdk_session_per_call(window: int, sizes: tuple[int, ...]) -> dict[int, float]:
    """Seconds per ``SQLiteSession.get_items(limit=2*window)`` with each number of stored rows."""
    import asyncio

    from agents import SessionSettings, SQLiteSession

    async def measure() -> dict[int, float]:
        out = {}
        for size in sizes:
            session = SQLiteSession("bench", session_settings=SessionSettings(limit=2 * window))
            await session.add_items([{"role": "user", "content": f"m{i}"} for i in range(size)])
            times: list[float] = []
            while len(times) < 3 or sum(times) < TRIM_SECONDS:
                t0 = CLOCK()
                await session.get_items()
                times.append(CLOCK() - t0)
            out[size] = min(times)
            session.close()
        return out

    return asyncio.run(measure())


# --- memory ------------------------------------------------------------------------


def traced_bytes(build: Callable[[], object]) -> tuple[int, int, object]:
    """(held, peak) bytes allocated while *build* runs; the built object is kept alive."""
    gc.collect()
    tracemalloc.start()
    built = build()
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return held, peak, built


def session_memory(pairs: list[tuple[str, str]], window: int) -> dict[str, tuple[int, int]]:
    def run_steps(make: Callable[[], Callable[[int], object]]) -> Callable[[], object]:
        def build() -> object:
            step = make()
            for i in range(len(pairs)):
                step(i)
            return step

        return build

    def run_replay() -> object:
        # Stop on the last turn, so the replay's state is still alive when measured.
        views = windowmem_replay(pairs, window)
        for _ in range(len(pairs)):
            last = next(views)
        return views, last

    def run_trim_history() -> object:
        history = langchain_history(pairs)
        trim_call(history, window)
        return history

    out = {}
    for name, build in (
        ("windowmem Memory", run_steps(lambda: windowmem_memory(pairs, window))),
        (
            "windowmem Memory, window only",
            run_steps(lambda: windowmem_memory(pairs, window, keep_all=False)),
        ),
        ("windowmem replay", run_replay),
        ("LangChain window memory", run_steps(lambda: langchain_window(pairs, window))),
        ("LangChain trim_messages", run_trim_history),
    ):
        held, peak, built = traced_bytes(build)
        del built
        out[name] = (held, peak)
    return out


# --- report ------------------------------------------------------------------------


def ms(seconds: float) -> str:
    return f"{seconds * 1000:9.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--messages", type=int, default=100_000, help="messages in the conversation (even)"
    )
    parser.add_argument("--window", type=int, default=50, help="window in interactions (n8n's k)")
    args = parser.parse_args()
    turn_count = args.messages // 2
    if turn_count < 3 * BLOCK:
        parser.error(
            f"--messages must be at least {6 * BLOCK} so that the three timed blocks do not overlap"
        )
    import langchain_classic.memory  # noqa: F401  (imported first: it resets warning filters)

    warnings.filterwarnings("ignore")  # LangChain's deprecation notices for the classic memories
    pairs = texts(turn_count)

    import platform
    import sys

    print(
        f"windowmem window benchmark: {args.messages:,} messages ({turn_count:,} turns), "
        f"window {args.window} interactions = {2 * args.window} messages"
    )
    print(
        f"Python {sys.version.split()[0]} on {platform.machine()}, {platform.processor() or 'cpu'}; "
        f"times are CPU time of this process, garbage collector off while timing\n"
    )

    from langchain_core.messages import AIMessage, HumanMessage

    from windowmem.messages import assistant, user

    ours = [m for q, a in pairs for m in (user(q), assistant(a))]
    theirs = [m for q, a in pairs for m in (HumanMessage(q), AIMessage(a))]
    timings = {
        "windowmem Memory": best_of(lambda: windowmem_memory(pairs, args.window), turn_count),
        "windowmem Memory, window only": best_of(
            lambda: windowmem_memory(pairs, args.window, keep_all=False), turn_count
        ),
        "LangChain window memory": best_of(
            lambda: langchain_window(pairs, args.window), turn_count
        ),
        "windowmem Memory, prebuilt": best_of(
            lambda: windowmem_memory_prebuilt(ours, args.window), turn_count
        ),
        "LangChain window, prebuilt": best_of(
            lambda: langchain_window_prebuilt(theirs, args.window), turn_count
        ),
        "windowmem replay": best_of(
            lambda: iterator_step(windowmem_replay(pairs, args.window)), turn_count
        ),
    }
    from windowmem.replay import iter_turn_views

    for label, policy in newer_product_policies(args.window).items():
        timings[label] = best_of(lambda: iterator_step(iter_turn_views(ours, policy)), turn_count)
    sizes = tuple(s for s in TRIM_SIZES if s <= args.messages) or (args.messages,)
    per_call = trim_per_call(pairs, args.window, sizes)
    setup = replay_setup_seconds(ours)

    print("ms per 1,000 turns                 start    middle       end   whole run (s)")
    for name, t in timings.items():
        print(f"{name:<30} {ms(t['start'])} {ms(t['middle'])} {ms(t['end'])}   {t['total']:9.2f}")
    # A block's middle turn is (a + z) / 2, when the history holds a + z messages.
    trim_blocks = {
        label: per_call[min(per_call, key=lambda size: abs(size - (a + z)))] * BLOCK
        for label, a, z in blocks(turn_count)
    }
    trim_total = extrapolated_trim_run(per_call, turn_count)
    print(
        f"{'LangChain trim_messages *':<30} {ms(trim_blocks['start'])} {ms(trim_blocks['middle'])} "
        f"{ms(trim_blocks['end'])}   {trim_total:9.2f}"
    )
    print(
        "\n* trim_messages was not run over the whole conversation: one call was timed "
        "(fastest of several) with a stored history of"
    )
    print("  " + ", ".join(f"{s:,} messages: {per_call[s] * 1e3:.2f} ms" for s in sizes))
    print("  Its blocks above use the measured size nearest to the block; its whole run is the sum")
    print("  over every turn of the per-call time interpolated linearly between those sizes.")
    sdk = sdk_session_per_call(args.window, sizes)
    print(
        f"  openai-agents SQLiteSession.get_items(limit={2 * args.window}), one call with a stored history of"
    )
    print("  " + ", ".join(f"{s:,} rows: {sdk[s] * 1e3:.2f} ms" for s in sizes))

    print(
        f"  The replay's start block includes its one-off split of the {args.messages:,} messages into turns,"
    )
    print(f"  {setup * 1e3:.1f} ms when timed on its own.\n")

    def ratio(slow: str, fast: str) -> str:
        a, b = timings[slow], timings[fast]
        return (
            f"{slow} / {fast}: {a['end'] / b['end']:.1f}x the time at the end, "
            f"{a['total'] / b['total']:.1f}x over the run"
        )

    print(
        ratio("LangChain window memory", "windowmem Memory")
        + "  (messages built from text on each turn)"
    )
    print(
        ratio("LangChain window memory", "windowmem Memory, window only")
        + "  (keeps only the loadable tail)"
    )
    print(
        ratio("LangChain window, prebuilt", "windowmem Memory, prebuilt")
        + "  (store and load only)"
    )
    print(
        ratio("LangChain window memory", "windowmem replay")
        + "  (replay also builds each turn's sent array)"
    )
    base = timings["windowmem Memory"]
    print(
        f"LangChain trim_messages / windowmem Memory: {trim_blocks['end'] / base['end']:.0f}x the time at the end, "
        f"{trim_total / base['total']:.0f}x over the run (extrapolated)\n"
    )

    print("memory held by one session at the end (tracemalloc)   held MB   peak MB")
    memory = session_memory(pairs, args.window)
    for name, (held, peak) in memory.items():
        print(f"{name:<52} {held / 1e6:8.3f}  {peak / 1e6:8.3f}")
    ours, theirs = memory["windowmem Memory"][0], memory["LangChain window memory"][0]
    print(f"LangChain window memory / windowmem Memory: {theirs / ours:.1f}x the memory")
    lean = memory["windowmem Memory, window only"][0]
    print(
        f"LangChain window memory / windowmem Memory, window only: {theirs / lean:.0f}x the memory"
    )
    print(
        "(every contender but 'window only' stores all messages, as n8n and LangChain do; the texts are"
    )
    print(" built before tracing and shared, so the figures are the cost of the session's objects)")


if __name__ == "__main__":
    main()
