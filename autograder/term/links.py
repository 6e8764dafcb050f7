"""nbgitpuller links: one click pulls the student edition into a student's hub home and opens a lesson.

A link is the hub's ``/hub/user-redirect/git-pull`` address with the repository, its
branch, the folder to clone into (``targetpath``) and the page to open (``urlpath``) as
query parameters; nbgitpuller's server extension clones the repository the first time
and merges new commits later without touching the student's own edits. This is the
link nbgitpuller's own link generator makes, for JupyterLab (``lab/tree/...``).
"""

from __future__ import annotations

import posixpath
import re
from urllib.parse import quote, urlencode, urlsplit

from autograder.errors import GradingSetupError

#: Where ``user-redirect`` sends the signed-in user: their own server.
GIT_PULL = "hub/user-redirect/git-pull"


def default_target(repository: str) -> str:
    """The folder nbgitpuller clones *repository* into when no ``targetpath`` is given: its name.

    >>> default_target("https://github.com/course/windowmem-student.git")
    'windowmem-student'
    >>> default_target("file:///srv/git/edition/")
    'edition'
    """
    name = posixpath.basename(urlsplit(repository).path.rstrip("/"))
    return re.sub(r"\.git$", "", name)


def nbgitpuller_link(
    hub: str, repository: str, path: str, *, branch: str = "main", target: str | None = None
) -> str:
    """The link that pulls *repository*'s *branch* into *target* and opens *path* in JupyterLab.

    *hub* is the hub's public address (``https://hub.example.edu``), *path* a notebook or
    folder of the repository (``course/03_window_buffer_memory.ipynb``).

    >>> nbgitpuller_link("https://hub.example.edu", "https://git.example.edu/windowmem.git",
    ...                  "course/03_window_buffer_memory.ipynb")  # doctest: +NORMALIZE_WHITESPACE
    'https://hub.example.edu/hub/user-redirect/git-pull?repo=https%3A%2F%2Fgit.example.edu%2Fwindowmem.git&branch=main&targetpath=windowmem&urlpath=lab%2Ftree%2Fwindowmem%2Fcourse%2F03_window_buffer_memory.ipynb'
    """
    parts = urlsplit(hub)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise GradingSetupError(
            f"the hub's address must start with http:// or https://, got {hub!r} "
            "(e.g. https://hub.example.edu)"
        )
    if not urlsplit(repository).scheme:
        raise GradingSetupError(
            f"the repository must be a URL students' servers can clone, got {repository!r} "
            "(e.g. https://github.com/you/windowmem-student.git or file:///srv/git/edition)"
        )
    relative = path.strip("/")
    if not relative or ".." in relative.split("/"):
        raise GradingSetupError(
            f"the path must be a file or folder inside the repository, got {path!r} "
            "(e.g. course/03_window_buffer_memory.ipynb)"
        )
    folder = target or default_target(repository)
    query = urlencode(
        {
            "repo": repository,
            "branch": branch,
            "targetpath": folder,
            "urlpath": f"lab/tree/{folder}/{relative}",
        },
        quote_via=quote,
        safe="",
    )
    return f"{hub.rstrip('/')}/{GIT_PULL}?{query}"
