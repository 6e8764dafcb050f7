"""Grading: every student autograded in a worker process of its own, in parallel.

``grade_class`` plans the class and queues one job per student, ``scheduler`` runs the jobs
on every core under a wall clock, ``worker`` grades one student with nbgrader (``warmup``
pays nbgrader's one-off costs in the forkserver), ``guarded_execute`` and ``cap_output`` are
the preprocessors it adds, ``outcome`` what a worker reports back, ``student_rows`` the
``grades.csv`` rows made from it, and ``status`` the status a row can have.
"""
