"""Records: what grading leaves for the instructor and the students.

``gradebook`` merges each worker's scores into the class gradebook and ``server_gradebook``
publishes them to a shared PostgreSQL one; ``report`` writes ``grades.csv`` and its
summaries, ``changes`` what a re-run changed; ``final_grades``, ``canvas_grades`` and
``export`` the final grades for an LMS; ``feedback`` and ``hide_hidden_tests`` the feedback
returned to students.
"""
