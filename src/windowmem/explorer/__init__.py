"""The lessons' explorers, each a pure view and a thin ipywidgets layer, in pairs of modules.

* lesson 3's window explorer: :mod:`.window_cache` (replays), :mod:`.window_view` (one
  turn, as a frozen view), :mod:`.window_html` (its HTML), :mod:`.window_widgets`;
* lesson 6's token-budget explorer: :mod:`.budget_cache`, :mod:`.budget_view`,
  :mod:`.budget_html`, :mod:`.budget_widgets`;
* :mod:`.live` shows any of them (a static snapshot, then the live widgets) and
  :mod:`.self_check` gives feedback on a learner's predictions.

The widget modules import ipywidgets; nothing else here does, so the library never
needs it to load.
"""
