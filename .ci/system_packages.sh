#!/usr/bin/env bash
# Installs the Debian packages the tests drive for real: Chromium for the browser tests,
# PostgreSQL and Redis for the shared-memory stores, bubblewrap for the autograder's
# per-student sandbox, and QEMU, Debian's kernel and a static busybox for the cgroup v2
# guest the sandbox is tested in (verify/cgroup2); git and sudo for the hub tier (tests/hub:
# nbgitpuller clones with git, the instructor grades through sudo on a cgroup v1 machine).
# Idempotent; quiet when all are there.
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
[ -x /usr/lib/postgresql/*/bin/initdb ] 2>/dev/null || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v git >/dev/null 2>&1 || need+=(git)
command -v sudo >/dev/null 2>&1 || need+=(sudo)
fc-list 2>/dev/null | grep -qi dejavu || need+=(fonts-dejavu-core)
command -v qemu-system-x86_64 >/dev/null 2>&1 || need+=(qemu-system-x86)
ls /boot/vmlinuz-* >/dev/null 2>&1 || need+=(linux-image-amd64)
# the guest has no libraries: its busybox must be the static build
dpkg-query -W -f='${Status}' busybox-static 2>/dev/null | grep -q "ok installed" || need+=(busybox-static)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "missing Debian packages: ${need[*]}; install them as root (apt-get install ${need[*]})" >&2
    exit 1
  fi
  echo "installing Debian packages: ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi
