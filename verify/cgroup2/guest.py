"""Boot a real cgroup v2 kernel under QEMU (software emulation) with this machine's files shared.

The guest is Debian's ``linux-image-amd64`` kernel with a busybox initramfs
(:mod:`verify.cgroup2.initramfs`). Its init (``init.sh``) mounts the cgroup v2 tree,
mounts this machine's ``/`` read-only over 9p, makes it the root and runs a script there,
so the project's venv, bubblewrap and util-linux run in the guest unchanged. A second 9p
share, writable, carries the results back. TCG, not KVM: on these machines a KVM guest
hung after the boot loader (nested virtualisation), and TCG needs nothing of the host.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from verify.cgroup2 import initramfs

HERE = Path(__file__).resolve().parent
QEMU = "qemu-system-x86_64"
BUSYBOX = Path("/bin/busybox")
#: The unprivileged user of the delegated runs (added to the guest's passwd copy).
TIER_USER, TIER_UID = "grading-ta", 4242


@dataclass(frozen=True)
class GuestRun:
    """What one boot gave: the console, the wall time, and the folder the guest wrote into."""

    console: str
    seconds: float
    results: Path

    def _read(self, name: str) -> str | None:
        try:
            return (self.results / name).read_text().strip()
        except OSError:
            return None

    @property
    def exit_code(self) -> int | None:
        """The guest script's exit status (None: it never finished)."""
        text = self._read("exit-code")
        return int(text) if text and text.lstrip("-").isdigit() else None

    @property
    def boot_seconds(self) -> float | None:
        """Seconds from the kernel's start to the shares being mounted (the guest's own clock)."""
        text = self._read("boot-seconds")
        return float(text) if text else None


def kernel() -> tuple[Path, str]:
    """The newest ``/boot/vmlinuz-*`` whose modules are installed, and its release."""
    for image in sorted(Path("/boot").glob("vmlinuz-*"), reverse=True):
        release = image.name.removeprefix("vmlinuz-")
        if (Path("/lib/modules") / release / "kernel").is_dir():
            return image, release
    raise FileNotFoundError(
        "no kernel in /boot with its modules in /lib/modules: "
        "install linux-image-amd64 (bash .ci/system_packages.sh)"
    )


def unavailable() -> str | None:
    """Why this machine cannot boot the guest, or None when it has every part."""
    if sys.platform != "linux" or os.uname().machine != "x86_64":
        return f"the guest is an x86_64 Linux kernel; this is {sys.platform} {os.uname().machine}"
    if shutil.which(QEMU) is None:
        return f"{QEMU} is not installed (bash .ci/system_packages.sh installs qemu-system-x86)"
    if not BUSYBOX.is_file():
        return f"{BUSYBOX} is missing (bash .ci/system_packages.sh installs busybox-static)"
    try:
        _, release = kernel()
        initramfs.module_files(release)
    except FileNotFoundError as error:
        return str(error)
    return None


def root_folders() -> list[str]:
    """Folders under ``/root`` the guest's users need (the venv's Python may live there)."""
    found = []
    for prefix in {sys.base_prefix, sys.prefix, str(HERE.parents[1])}:
        path = Path(prefix).resolve()
        if path.is_relative_to("/root"):
            top = Path("/root", path.relative_to("/root").parts[0])
            if str(top) not in found:
                found.append(str(top))
    return found


#: The folders the guest's init covers with a fresh tmpfs (init.sh), because the tests write there.
COVERED = ("/tmp", "/var/tmp", "/run", "/home", "/dev/shm")


def kept_folders(paths: list[str]) -> list[str]:
    """Of *paths*, those under a folder the guest covers with a tmpfs, less any inside another.

    The guest would not see them: a clone in ``/home`` or ``/tmp`` (where a maintainer or a
    reproduction of CI puts one) showed the guest an empty folder, and every run in it failed
    without saying why. The init binds each back over the tmpfs (``TIER_KEEP_FOLDERS``).

    >>> kept_folders(["/home/ana/windowmem/.venv", "/home/ana/windowmem", "/usr", "/tmp/ci/main"])
    ['/home/ana/windowmem', '/tmp/ci/main']
    >>> kept_folders(["/work/main", "/root/.pyenv/versions/3.11.7"])
    []
    """
    covered = [Path(folder) for folder in COVERED]
    found: list[Path] = []
    for path in sorted({Path(p) for p in paths}, key=lambda p: len(p.parts)):
        if any(path.is_relative_to(folder) for folder in covered) and not any(
            path.is_relative_to(kept) for kept in found
        ):
            found.append(path)
    return sorted(str(path) for path in found)


def _folders_to_keep() -> list[str]:
    """This machine's repository and Pythons, where the guest's tmpfs would hide them."""
    kept = kept_folders(
        [str(Path(p).resolve()) for p in (sys.base_prefix, sys.prefix, HERE.parents[1])]
    )
    for folder in kept:
        if folder in COVERED:
            raise ValueError(
                f"the guest cannot keep {folder} itself: its tests write there; clone the "
                "repository (and make its venv) in a folder below it or elsewhere"
            )
        if any(character.isspace() for character in folder):
            raise ValueError(
                f"the guest cannot keep {folder!r}: its init splits folder names on spaces; "
                "clone the repository (and make its venv) in a folder without spaces"
            )
    return kept


def boot(
    script: Path,
    results: Path,
    settings: dict[str, str],
    *,
    memory_mb: int = 4096,
    cpus: int = 2,
    timeout: float = 3600,
) -> GuestRun:
    """Boot the guest, run *script* (a path on this machine) in it as root, return what it gave.

    *settings* become shell variables of the guest's init and the script's environment;
    *results* (created) is the folder the guest sees as ``/mnt``.
    """
    image, release = kernel()
    results.mkdir(parents=True, exist_ok=True)
    env = {
        "TIER_SCRIPT": str(script),
        "TIER_USER": TIER_USER,
        "TIER_UID": str(TIER_UID),
        "TIER_ROOT_FOLDERS": " ".join(root_folders()),
        "TIER_KEEP_FOLDERS": " ".join(_folders_to_keep()),
        "TIER_COVERED": " ".join(COVERED),
        **settings,
    }
    lines = [f"export {key}={shlex.quote(value)}" for key, value in env.items()]
    ramdisk = results / "initramfs.gz"
    ramdisk.write_bytes(
        initramfs.build(
            BUSYBOX,
            (HERE / "init.sh").read_text(),
            initramfs.module_files(release),
            "\n".join(lines) + "\n",
        )
    )
    command = [
        QEMU,
        "-accel", "tcg,thread=multi",
        "-cpu", "max",
        "-smp", str(cpus),
        "-m", str(memory_mb),
        "-nographic",
        "-no-reboot",
        "-nic", "none",
        "-kernel", str(image),
        "-initrd", str(ramdisk),
        "-append", "console=ttyS0 quiet panic=-1 rdinit=/init",
        "-virtfs", "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap",
        "-virtfs", f"local,path={results},mount_tag=results,security_model=none",
    ]  # fmt: skip
    started = time.monotonic()
    log = results / "console.log"  # written as the guest goes, to follow a long run
    with (
        log.open("wb") as console,
        subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=console, stderr=subprocess.STDOUT
        ) as qemu,
    ):
        try:
            qemu.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            qemu.kill()
            qemu.wait()
            console.write(f"\n[killed: the guest ran past {timeout:g} s]\n".encode())
    return GuestRun(log.read_text(errors="replace"), time.monotonic() - started, results)
