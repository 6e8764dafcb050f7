"""The run's folder for its kernels' sockets: short enough for a socket's path, wherever TMPDIR is."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from pathlib import Path

import pytest

from autograder.sandbox.kernels import SOCKET_PATH_MAX, make_sockets_root


def longest_socket(root) -> str:
    """The longest path a kernel of the run gives a socket: its folder, then ``kernel-5``."""
    folder = root / "autograder-ipc-abcdefgh"
    folder.mkdir()
    return str(folder / "kernel-5")


def bind(path: str) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(path)


def test_in_the_temp_folder_a_kernel_can_bind_its_sockets():
    short = Path(tempfile.mkdtemp(dir="/tmp"))  # pytest's tmp_path is itself too long
    root = make_sockets_root(str(short))
    try:
        assert root.parent == short and root.name.startswith(f"autograder-kernels-{os.getpid()}-")
        bind(longest_socket(root))
    finally:
        shutil.rmtree(short)


def test_a_temp_folder_too_long_for_a_socket_is_passed_over_for_tmp(tmp_path):
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    with pytest.raises(OSError):  # the real limit: in the long folder a socket cannot be made
        bind(longest_socket(deep))
    root = make_sockets_root(str(deep))
    try:
        assert str(root).startswith("/tmp/autograder-kernels-")
        path = longest_socket(root)
        assert len(path) <= SOCKET_PATH_MAX
        bind(path)
    finally:
        shutil.rmtree(root)
