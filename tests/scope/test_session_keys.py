"""The session-key patterns: a key every request shares is flagged, with the reason."""

from __future__ import annotations

import pytest

from windowmem.scope.session_keys import (
    KEY_PATTERNS,
    PER_THREAD,
    PER_USER,
    SHARED,
    is_shared_key,
    shared_key_problem,
)


class TestSharedKeys:
    @pytest.mark.parametrize("template", ["global", "default", "chat_history", SHARED.template])
    def test_constant_keys_are_flagged_with_the_reason(self, template: str) -> None:
        assert is_shared_key(template)
        problem = shared_key_problem(template)
        assert problem is not None and "share one buffer" in problem and template in problem

    @pytest.mark.parametrize("pattern", [PER_USER, PER_THREAD])
    def test_varying_keys_are_not_flagged(self, pattern) -> None:
        assert not is_shared_key(pattern.template)
        assert shared_key_problem(pattern.template) is None

    def test_the_three_documented_patterns(self) -> None:
        assert [p.name for p in KEY_PATTERNS] == ["per-user", "per-thread", "shared"]
        assert [is_shared_key(p.template) for p in KEY_PATTERNS] == [False, False, True]
