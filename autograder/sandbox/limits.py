"""The limits a sandboxed kernel runs under (memory, processes, file size), as the command line sets them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SandboxLimits:
    """What one student's kernel may use: memory (MiB, tmpfs files included), tasks, files."""

    memory_mb: int = 1024
    pids: int = 128  # threads count: an idle ipykernel has about ten
    open_files: int = 1024
    tmpfs_mb: int = 256

    def describe(self) -> str:
        """One line for the log and the README.

        >>> SandboxLimits().describe()
        'memory 1024 MiB, 128 processes/threads, 1024 open files, 256 MiB of files'
        """
        return (
            f"memory {self.memory_mb} MiB, {self.pids} processes/threads, "
            f"{self.open_files} open files, {self.tmpfs_mb} MiB of files"
        )
