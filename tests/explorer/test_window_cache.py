"""The window explorer's cache: one replay per window size."""

from __future__ import annotations

from windowmem.explorer.window_cache import ReplayCache
from windowmem.tokens import count_words


def test_replay_cache_computes_each_window_once(marta):
    cache = ReplayCache(marta, count_words)
    assert cache.views(5) is cache.views(5) and cache.views(5) is not cache.views(6)
