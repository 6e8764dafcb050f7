"""A real JupyterHub for the hub tier: started on free loopback ports, driven through its API, stopped by PID.

The hub runs the course's configuration (``docs/jupyterhub/jupyterhub_config.py``) through
``tests/hub/hub_test_config.py``, as root, in its own process group, with
configurable-http-proxy from npm (``.ci/hub_proxy.sh``). The test's service token starts a
user's server and opens a terminal in it (:func:`run_in_terminal`): a command typed there
runs as that user, in their own server, as an instructor's would.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from tests.browser.lab_harness import free_port
from tests.conftest import REPO_ROOT
from tests.event_loop import run
from tests.hub.started import wait_until_answering

#: The course's hub configuration, the one docs/jupyterhub.md gives instructors.
COURSE_CONFIG = REPO_ROOT / "docs" / "jupyterhub" / "jupyterhub_config.py"
TEST_CONFIG = Path(__file__).with_name("hub_test_config.py")
#: Where .ci/hub_proxy.sh installs configurable-http-proxy.
HUB_HOME = Path(os.environ.get("WINDOWMEM_HUB_HOME") or Path.home() / ".cache" / "windowmem-hub")
PROXY = HUB_HOME / "node_modules" / ".bin" / "configurable-http-proxy"


@dataclass
class Hub:
    """A running hub: its public *url*, the test's API *token*, the users' *password*, its log."""

    url: str
    token: str
    password: str
    process: subprocess.Popen
    log_path: Path
    started_s: float = field(default=0.0)

    def log_tail(self, chars: int = 4000) -> str:
        """The end of the hub's log (the proxy's and the users' servers' lines too)."""
        return self.log_path.read_text(errors="replace")[-chars:]

    def api(self, method: str, path: str, body: dict | None = None, timeout_s: float = 60):
        """Call the hub's REST API (``/hub/api`` + *path*) with the test's token; the decoded answer."""
        return self.request(method, f"{self.url}/hub/api{path}", body, timeout_s)

    def request(self, method: str, url: str, body: dict | None = None, timeout_s: float = 60):
        """One authenticated request to *url* (the hub or a user's server); the decoded JSON, or None."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            url, data=data, method=method, headers={"Authorization": f"token {self.token}"}
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                text = response.read().decode()
        except urllib.error.HTTPError as error:
            raise AssertionError(
                f"{method} {url} answered {error.code}: {error.read().decode(errors='replace')[:500]}"
                f"\nhub log:\n{self.log_tail()}"
            ) from None
        return json.loads(text) if text.strip() else None

    def start_server(self, user: str, timeout_s: float = 180) -> str:
        """Start *user*'s server (if it is not running) and wait until it is ready; its URL."""
        model = self.api("GET", f"/users/{user}")
        if not (model.get("servers", {}).get("", {}) or {}).get("ready"):
            self.request("POST", f"{self.url}/hub/api/users/{user}/server")
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            server = self.api("GET", f"/users/{user}").get("servers", {}).get("", {}) or {}
            if server.get("ready"):
                return f"{self.url}{server['url'].rstrip('/')}"
            time.sleep(0.5)
        raise AssertionError(
            f"{user}'s server was not ready within {timeout_s:g} s\nhub log:\n{self.log_tail()}"
        )

    def stop(self) -> None:
        """Stop the hub (it stops the proxy and the users' servers), then its process group, by PID."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=10)


def start_hub(
    state: Path,
    python: Path,
    instructors: list[str],
    students: list[str],
    exchange: Path,
    timeout_s: float = 120,
) -> Hub:
    """Start JupyterHub from the environment of *python*, its state in *state*; the users sign in with the returned password."""
    if not PROXY.exists():
        raise RuntimeError(
            f"configurable-http-proxy is not installed at {PROXY}: run `bash .ci/hub_proxy.sh` "
            "(make test does)"
        )
    port, token, password = free_port(), secrets.token_hex(24), secrets.token_urlsafe(12)
    bin_dir = str(python.parent)
    env = {
        **os.environ,
        "PATH": os.pathsep.join([bin_dir, os.environ.get("PATH", "")]),
        "WINDOWMEM_HUB_URL": f"http://127.0.0.1:{port}",
        "WINDOWMEM_INSTRUCTORS": " ".join(instructors),
        "WINDOWMEM_STUDENTS": " ".join(students),
        "WINDOWMEM_EXCHANGE": str(exchange),
        "WINDOWMEM_HUB_COURSE_CONFIG": str(COURSE_CONFIG),
        "WINDOWMEM_HUB_STATE": str(state),
        "WINDOWMEM_HUB_PASSWORD": password,
        "WINDOWMEM_HUB_PORT": str(free_port()),
        "WINDOWMEM_HUB_PROXY": str(PROXY),
        "WINDOWMEM_HUB_PROXY_API_PORT": str(free_port()),
        "WINDOWMEM_HUB_PROXY_TOKEN": secrets.token_hex(24),
        "WINDOWMEM_HUB_API_TOKEN": token,
    }
    log_path = state / "jupyterhub.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [str(Path(bin_dir) / "jupyterhub"), "-f", str(TEST_CONFIG)],
            cwd=state,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    hub = Hub(env["WINDOWMEM_HUB_URL"], token, password, process, log_path)
    try:
        hub.started_s = wait_until_answering(
            process,
            lambda: hub.api("GET", "/", timeout_s=5) is not None,
            "JupyterHub",
            hub.log_tail,
            timeout_s,
        )
    except RuntimeError:
        hub.stop()
        raise
    return hub


@dataclass(frozen=True)
class TerminalResult:
    """What a command typed into a user's terminal did: its exit *status* and what it printed."""

    status: int
    output: str


#: Printed after each command: its exit status (the echoed command line shows ``$?``, not digits).
_DONE = "__windowmem_done__"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")


def run_in_terminal(
    hub: Hub, server_url: str, command: str, timeout_s: float = 600
) -> TerminalResult:
    """Type *command* into a new terminal of the server at *server_url*, as its user; what it did.

    The terminal is the one JupyterLab's Terminal opens (jupyter_server's terminals API
    over its websocket); it is closed afterwards.
    """
    terminal = hub.request("POST", f"{server_url}/api/terminals")["name"]
    try:
        return run(_type_and_read(hub.token, server_url, terminal, command, timeout_s))
    finally:
        hub.request("DELETE", f"{server_url}/api/terminals/{terminal}")


async def _type_and_read(
    token: str, server_url: str, terminal: str, command: str, timeout_s: float
) -> TerminalResult:
    import asyncio

    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    url = server_url.replace("http://", "ws://", 1) + f"/terminals/websocket/{terminal}"
    socket = await websocket_connect(
        HTTPRequest(url, headers={"Authorization": f"token {token}"}, connect_timeout=60)
    )
    await socket.write_message(json.dumps(["stdin", f"{command}; echo {_DONE} $?\r"]))
    output: list[str] = []
    pattern = re.compile(rf"{_DONE} (\d+)")
    deadline = asyncio.get_running_loop().time() + timeout_s
    try:
        while True:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise AssertionError(
                    f"`{command}` did not finish within {timeout_s:g} s; it printed:\n"
                    + _ANSI.sub("", "".join(output))[-4000:]
                )
            message = await asyncio.wait_for(socket.read_message(), timeout=left)
            if message is None:
                raise AssertionError(
                    f"the terminal closed while `{command}` ran; it printed:\n"
                    + _ANSI.sub("", "".join(output))[-4000:]
                )
            kind, *content = json.loads(message)
            if kind == "stdout":
                output.append(content[0])
                found = pattern.search(_ANSI.sub("", "".join(output)))
                if found:
                    text = _ANSI.sub("", "".join(output))
                    return TerminalResult(int(found.group(1)), text[: found.start()])
    finally:
        socket.close()
