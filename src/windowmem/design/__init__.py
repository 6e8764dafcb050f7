"""Designing multi-turn conversations: windows in turns, anchor facts, rolling summaries.

Lesson 5's question. :mod:`~windowmem.design.units` converts a window between the units
products count in; :mod:`~windowmem.design.side_by_side` puts every product's agent on one
conversation; :mod:`~windowmem.design.anchor_facts` follows a fact that must never leave
the prompt; :mod:`~windowmem.design.rolling_summary` lays out an n8n rolling summary and
its bill.
"""
