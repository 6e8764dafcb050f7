"""What outlives the session: the products' stores, and the events that break memory.

Lesson 4's question. :mod:`~windowmem.outlive.product_stores` opens a product's store from a
short spec; :mod:`~windowmem.outlive.store_scenarios` runs one conversation through each
store with restarts, scale-out and idle time; :mod:`~windowmem.outlive.expiry` says when
each store forgets a quiet conversation; :mod:`~windowmem.outlive.agent_process` and
:mod:`~windowmem.outlive.workers` run agents in real processes;
:mod:`~windowmem.outlive.concurrent_runs` and :mod:`~windowmem.outlive.overlapping_saves`
race two requests on one conversation.
"""
