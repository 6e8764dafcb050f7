"""Write the grader's results so that nothing found on disk can redirect them.

Every folder on the way from the output root down is checked: a symbolic link where a
folder should be (left by an earlier, unsandboxed run, or planted) is removed and a real
folder made in its place. The file itself is written to a fresh temporary file created
with ``O_EXCL | O_NOFOLLOW`` beside its destination, flushed, then renamed over it, so a
reader sees the old file or the new one and a link at the destination is replaced, not
followed.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


def real_folder(path: Path) -> Path:
    """Make *path* and its parents real folders (links replaced by folders); return it."""
    path = Path(path)
    if path.is_symlink():
        path.unlink()
    elif path.exists() and not path.is_dir():
        path.unlink()
    if not path.exists():
        if path.parent != path:
            real_folder(path.parent)
        path.mkdir()
    return path


def write_bytes(path: Path, data: bytes, *, durable: bool = True) -> None:
    """Atomically replace *path* with *data*, never writing through a link.

    *durable*: wait for the disk before the rename. Without it, a crash of the machine can
    leave the new file empty; for a file that lives only as long as one run (a cache) the
    wait buys nothing.
    """
    folder = real_folder(Path(path).parent)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{Path(path).name}.", dir=folder)
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
            file.flush()
            if durable:
                os.fsync(file.fileno())
        os.replace(temporary, path)  # rename replaces a link at *path* itself
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def remove_path(path: Path) -> None:
    """Remove *path*, a file, a link (not what it points to) or a folder; nothing if absent."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.exists():
        shutil.rmtree(path)


def replace_tree(source: Path, target: Path) -> None:
    """Replace the folder *target* with a copy of *source* (links inside are not followed)."""
    remove_path(target)
    if source.is_dir():
        real_folder(target.parent)
        shutil.copytree(source, target, symlinks=True, ignore_dangling_symlinks=True)
        for link in [p for p in target.rglob("*") if p.is_symlink()]:
            link.unlink()  # nbgrader writes none: a link here was not ours
