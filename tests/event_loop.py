"""Run a coroutine from a test, whatever the worker ran before.

The browser tests hold Playwright's sync API open for the whole pytest session, and
nbclient's sync wrappers can leave a loop marked running in the main thread. Either makes a
plain ``asyncio.run`` raise "cannot be called from a running event loop" in a later test on
the same xdist worker, so the tests that drive async libraries run their coroutine on a
fresh loop in a thread of its own, and Playwright's sync API (which refuses a thread whose
loop runs) is started the same way, with :func:`in_own_thread`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")


def in_own_thread(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` in a new thread, where no event loop runs; its value, or its error.

    >>> in_own_thread(max, 2, 3)
    3
    """
    with ThreadPoolExecutor(1, thread_name_prefix="test-own-thread") as pool:
        return pool.submit(function, *args).result()


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run *coroutine* to its end on a new event loop in its own thread and return its value.

    >>> async def two() -> int:
    ...     return 2
    >>> run(two())
    2
    """
    return in_own_thread(asyncio.run, coroutine)
