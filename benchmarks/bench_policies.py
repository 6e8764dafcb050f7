"""How fast each window policy is: one load over a long history, and a whole replay.

A replay adds a conversation's messages one at a time and loads the window after each,
as an agent does every turn. Prints figures; asserts nothing. Run on one core:

    taskset -c 0 .venv/bin/python benchmarks/bench_policies.py
"""

from __future__ import annotations

import random
import time

from windowmem.messages import Message, assistant, tool, user
from windowmem.policies import POLICIES, Memory, make_policy

#: The one seed for this benchmark's synthetic conversation.
SEED = 20261130
MESSAGES = 5000
WORDS = (
    "order",
    "refund",
    "empanadas",
    "Marta",
    "shipping",
    "size",
    "blue",
    "tracking",
    "Medellín",
    "today",
)


def synthetic_history(count: int, seed: int = SEED) -> list[Message]:
    """*count* messages of support chat: turns of user, sometimes a tool call and result, reply."""
    rng = random.Random(seed)
    text = lambda: " ".join(rng.choices(WORDS, k=rng.randint(3, 30)))  # noqa: E731
    messages: list[Message] = []
    call = 0
    while len(messages) < count:
        messages.append(user(text()))
        if rng.random() < 0.3:
            call += 1
            messages.extend([assistant("", [f"c{call}"]), tool(text(), f"c{call}")])
        messages.append(assistant(text()))
    return messages[:count]


def main() -> None:
    history = synthetic_history(MESSAGES)
    print(f"{MESSAGES} messages (seed {SEED}); sizes are each product's default")
    print(
        f"{'policy':<16}{'one load (µs)':>15}{'replay (ms)':>13}{'per message (µs)':>18}{'window':>8}"
    )
    for name in POLICIES:
        policy = make_policy(name)
        memory = Memory(policy)
        start = time.perf_counter()
        for message in history:
            memory.add(message)
            memory.load()
        replay = time.perf_counter() - start
        stored = memory.stored
        repeats = 200
        start = time.perf_counter()
        for _ in range(repeats):
            window = policy.load(stored)
        one_load = (time.perf_counter() - start) / repeats
        print(
            f"{name:<16}{one_load * 1e6:>15.1f}{replay * 1e3:>13.1f}"
            f"{replay / MESSAGES * 1e6:>18.1f}{len(window):>8}"
        )


if __name__ == "__main__":
    main()
