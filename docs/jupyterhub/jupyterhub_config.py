"""A minimal JupyterHub for the windowmem course (JupyterHub 6, configurable-http-proxy 5).

Every student and instructor is a Linux user of the hub's machine with a home of their
own; the hub runs as root and starts each one's JupyterLab as that user (JupyterHub's
default LocalProcessSpawner). The course's Python environment (``pip install
'windowmem[course,hub]'``) is the one the hub runs in: each user's server and kernels use
it too. nbgrader's exchange is one folder every user can write to (see
``nbgrader_config.py`` beside this file). ``docs/jupyterhub.md`` walks through it all.

Start it as root from a folder that holds nothing else (the hub keeps its database and
cookie secret there)::

    jupyterhub -f /etc/jupyterhub/jupyterhub_config.py

The settings an instructor changes are read from environment variables, so this file can
be used as it is (the course's hub test, ``tests/hub/``, does):

* ``WINDOWMEM_HUB_URL``: where the hub listens (default ``http://:8000``, every address);
* ``WINDOWMEM_INSTRUCTORS`` and ``WINDOWMEM_STUDENTS``: user names, separated by spaces
  or commas (the instructors are the hub's admins);
* ``WINDOWMEM_EXCHANGE``: nbgrader's exchange (default ``/srv/nbgrader/exchange``);
* ``WINDOWMEM_JUPYTER_CONFIG``: the folder holding the course's ``nbgrader_config.py`` and
  ``jupyter_lab_config.json`` (default: this file's folder), put on every user server's
  ``JUPYTER_CONFIG_PATH``.
"""

import os
import sys
from pathlib import Path

c = get_config()  # noqa: F821 - JupyterHub injects get_config into its config file

HERE = Path(__file__).resolve().parent
#: The environment the hub runs in: users' servers run its jupyterhub-singleuser.
ENVIRONMENT_BIN = Path(sys.executable).parent


def _names(variable: str) -> set[str]:
    return set(os.environ.get(variable, "").replace(",", " ").split())


c.JupyterHub.bind_url = os.environ.get("WINDOWMEM_HUB_URL", "http://:8000")

# Who may sign in. The default authenticator is PAM (the users' Linux passwords); with an
# LMS, an LTI 1.3 authenticator replaces it (docs/jupyterhub.md, "Where LTI plugs in").
c.Authenticator.admin_users = _names("WINDOWMEM_INSTRUCTORS")
c.Authenticator.allowed_users = _names("WINDOWMEM_INSTRUCTORS") | _names("WINDOWMEM_STUDENTS")

# Each user's JupyterLab, in their home, from the course's environment.
c.Spawner.cmd = [str(ENVIRONMENT_BIN / "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.environment = {
    # the course's nbgrader_config.py (the exchange and the course id) and
    # jupyter_lab_config.json (no news pop-up, no update checks) for every user
    "JUPYTER_CONFIG_PATH": os.environ.get("WINDOWMEM_JUPYTER_CONFIG", str(HERE)),
    "WINDOWMEM_EXCHANGE": os.environ.get("WINDOWMEM_EXCHANGE", "/srv/nbgrader/exchange"),
    # nbgrader runs alembic through PATH, and kernels run "python": both from this environment
    "PATH": os.pathsep.join([str(ENVIRONMENT_BIN), "/usr/local/bin", "/usr/bin", "/bin"]),
}
# A busy machine starts a server in seconds; a class signing in at once needs longer.
c.Spawner.http_timeout = 120
c.Spawner.start_timeout = 120
