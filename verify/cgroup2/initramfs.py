"""The guest's initramfs: a static busybox, the virtio and 9p modules, and an init script.

Written as a gzip-compressed ``newc`` cpio archive (the format the kernel unpacks), with
no tool but Python's standard library. The modules come from the host's
``/lib/modules/<release>/``, in the order the 9p share needs them loaded.
"""

from __future__ import annotations

import gzip
import io
import stat
from dataclasses import dataclass
from pathlib import Path

#: Modules the 9p share needs, in load order (each after those it depends on).
MODULES = (
    "virtio_ring",
    "virtio",
    "virtio_pci_modern_dev",
    "virtio_pci_legacy_dev",
    "virtio_pci",
    "netfs",
    "fscache",
    "9pnet",
    "9pnet_virtio",
    "9p",
)


@dataclass(frozen=True)
class Entry:
    """One member of the archive: a folder (no data) or a file, with its mode."""

    name: str
    mode: int
    data: bytes = b""


def newc(entries: list[Entry]) -> bytes:
    """The ``newc`` cpio archive of *entries*, trailer included.

    >>> archive = newc([Entry("init", stat.S_IFREG | 0o755, b"hi")])
    >>> archive[:6], archive.count(b"TRAILER!!!")
    (b'070701', 1)
    """
    out = io.BytesIO()
    for number, entry in enumerate([*entries, Entry("TRAILER!!!", 0)], start=1):
        name = entry.name.encode() + b"\0"
        fields = (number, entry.mode, 0, 0, 1, 0, len(entry.data), 0, 0, 0, 0, len(name), 0)
        out.write(b"070701" + b"".join(b"%08X" % f for f in fields) + name)
        out.write(b"\0" * (-out.tell() % 4))
        out.write(entry.data)
        out.write(b"\0" * (-out.tell() % 4))
    return out.getvalue()


def module_files(release: str, modules_root: Path = Path("/lib/modules")) -> list[Path]:
    """The host's ``.ko`` file for each of :data:`MODULES`, for kernel *release*."""
    folder = modules_root / release / "kernel"
    found = []
    for name in MODULES:
        matches = sorted(folder.rglob(f"{name}.ko"))
        if not matches:
            raise FileNotFoundError(
                f"module {name}.ko not found under {folder}: install linux-image-amd64 "
                "(bash .ci/system_packages.sh)"
            )
        found.append(matches[0])
    return found


def build(busybox: Path, init: str, modules: list[Path], settings: str) -> bytes:
    """The compressed initramfs: busybox, */init* (*init*), the *modules*, and */tier.env* (*settings*)."""
    folder = stat.S_IFDIR | 0o755
    entries = [Entry(name, folder) for name in ("bin", "dev", "proc", "sys", "modules")]
    entries += [
        Entry("bin/busybox", stat.S_IFREG | 0o755, busybox.read_bytes()),
        Entry("init", stat.S_IFREG | 0o755, init.encode()),
        Entry("tier.env", stat.S_IFREG | 0o644, settings.encode()),
    ]
    for module in modules:
        entries.append(
            Entry(f"modules/{module.stem}.ko", stat.S_IFREG | 0o644, module.read_bytes())
        )
    return gzip.compress(newc(entries), compresslevel=1)
