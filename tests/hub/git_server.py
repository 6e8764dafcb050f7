"""A git server on loopback for the hub tier: ``git daemon`` serving the student edition read-only.

nbgitpuller clones as the student. A ``file://`` URL would make the student's git open a
repository another user owns, which git refuses ("dubious ownership"); a hub pulls from a
server anyway, so the test serves the edition the way a Git host does, with ``git daemon``
(``git://``, read-only) on a free loopback port, stopped by PID afterwards.
"""

from __future__ import annotations

import signal
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.browser.lab_harness import free_port
from tests.hub.started import wait_until_answering


@dataclass
class GitServer:
    """``git daemon`` serving the repositories under *base*: ``{url}/<folder name>``."""

    url: str
    process: subprocess.Popen
    log_path: Path

    def url_of(self, repository: Path) -> str:
        """The URL a client clones *repository* (a folder under the served base) from."""
        return f"{self.url}/{repository.name}"

    def stop(self) -> None:
        """Stop the daemon and its children (its own process group), by PID."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


def serve(base: Path, timeout_s: float = 30) -> GitServer:
    """Serve every repository under *base*, read-only, on a free 127.0.0.1 port."""
    port = free_port()
    log_path = base.parent / "git-daemon.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [
                "git",
                "daemon",
                "--reuseaddr",
                "--export-all",
                "--listen=127.0.0.1",
                f"--port={port}",
                f"--base-path={base}",
                str(base),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    server = GitServer(f"git://127.0.0.1:{port}", process, log_path)

    def answers() -> bool:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True

    try:
        wait_until_answering(
            process, answers, "git daemon", lambda: log_path.read_text(errors="replace"), timeout_s
        )
    except RuntimeError:
        server.stop()
        raise
    return server
