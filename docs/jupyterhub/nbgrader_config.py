"""nbgrader's settings for every user of the course's hub: the exchange and the course id.

JupyterHub puts this file's folder on each user server's ``JUPYTER_CONFIG_PATH``
(``jupyterhub_config.py``); copying it to ``/etc/jupyter/nbgrader_config.py`` does the
same for every Jupyter on the machine. Students fetch, submit and fetch feedback through
the exchange from JupyterLab's Assignments panel; the instructor releases, collects and
returns through it with ``python -m autograder`` (docs/jupyterhub.md).
"""

import os

c = get_config()  # noqa: F821 - traitlets injects get_config into config files

#: The course id: the one the course repository's own nbgrader_config.py names.
c.CourseDirectory.course_id = "windowmem"
#: A folder every user can write to (mode 1777 or 777; nbgrader keeps each student's
#: submissions apart inside it).
c.Exchange.root = os.environ.get("WINDOWMEM_EXCHANGE", "/srv/nbgrader/exchange")
