"""The scope explorer's runs, each played once: by key choice, store and interval.

Moving the request slider only picks a call from a run already played; changing a menu
plays the script once for the new combination (and once per prefix, for the buffers a
call finds in the store).
"""

from __future__ import annotations

from windowmem.scope.agent_stores import StoreKind
from windowmem.scope.key_choices import key_choice
from windowmem.scope.shared_agent import ScriptRun, run_script
from windowmem.scope.support_desk import support_desk


class ScopeRuns:
    """Every run the explorer can show, each played once: by key choice, store and interval.

    >>> runs = ScopeRuns()
    >>> runs.run("constant", "sqlite", "nothing") is runs.run("constant", "sqlite", "nothing")
    True
    """

    def __init__(self, window: int = 5) -> None:
        self.window = window
        self._runs: dict[tuple[str, str, str, int | None], ScriptRun] = {}

    def run(
        self, choice: str, store: StoreKind, between: str, upto: int | None = None
    ) -> ScriptRun:
        """The script with *between* played under *choice* and *store* (only its first *upto* events if given)."""
        cache_key = (choice, store, between, upto)
        if cache_key not in self._runs:
            events = support_desk(between)
            if upto is not None:
                events = events[:upto]
            self._runs[cache_key] = run_script(
                events, key_choice(choice).template, store, window=self.window
            )
        return self._runs[cache_key]
