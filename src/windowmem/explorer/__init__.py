"""Lesson 3's window explorer: a pure view of a replayed conversation (:mod:`.view`) and
the thin ipywidgets layer that wires sliders to it (:mod:`.widgets`, imported on demand
so the library never needs ipywidgets to load)."""
