"""A Jupyter session manager that is slow to list its sessions, for the harness's own tests.

JupyterLab lists the server's sessions before it starts a notebook's kernel. On a busy
machine that list can take seconds, and in that time the notebook's kernel indicator
already reads "idle" (its default) while the notebook has no kernel at all: a Run All
clicked then is dropped. Serving with this class (``--ServerApp.session_manager_class=
tests.browser.slow_sessions.SlowSessionManager``) makes that window wide on purpose.
"""

from __future__ import annotations

import asyncio
import os

from jupyter_server.services.sessions.sessionmanager import SessionManager

#: Seconds each listing waits: long enough that the window always takes in the harness's
#: clicks, even on a fast machine (4 s did not, once). The environment variable overrides it.
DELAY_S = float(os.environ.get("WINDOWMEM_SLOW_SESSIONS_S", "10"))


class SlowSessionManager(SessionManager):
    """jupyter_server's session manager, but every listing of the sessions waits first."""

    async def list_sessions(self) -> list[dict]:
        await asyncio.sleep(DELAY_S)
        return await super().list_sessions()
