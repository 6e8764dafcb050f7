"""Report each modelled package against the newest version its registry serves (make check-versions).

Asks PyPI through ``pip index versions NAME`` and the npm registry through ``npm view NAME
version``, one look-up per modelled package, and prints
``windowmem.policies.package_versions.version_report``. Maven Central is not reachable
from this project's machines: Spring AI's rows say "not looked up". A newer release is
reported, never assumed to behave the same: re-run that package's differential tests
against it, update the model and ``MODELLED``, then bump the pin in pyproject.toml.

Exits 0 after printing; with ``--strict``, 1 when a package has a newer release or
could not be looked up.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys

from windowmem.policies.package_versions import MODELLED, Registry, stale, version_report

TIMEOUT = 60


def newest_from_pip(output: str) -> str | None:
    """The version in ``pip index versions``' first line, ``NAME (X.Y.Z)``.

    >>> newest_from_pip("openai-agents (0.24.0)\\nAvailable versions: 0.24.0, 0.23.1")
    '0.24.0'
    """
    match = re.match(r"\s*\S+ \(([^)]+)\)", output)
    return match.group(1) if match else None


def look_up(registry: Registry, package: str) -> str | None:
    """The newest version *registry* serves for *package*, or None when it could not be asked."""
    if registry is Registry.PYPI:
        command = [sys.executable, "-m", "pip", "index", "versions", package]
        parse = newest_from_pip
    elif registry is Registry.NPM and shutil.which("npm"):
        command = ["npm", "view", package, "version"]

        def parse(output: str) -> str | None:
            return output.strip() or None
    else:
        return None
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return parse(done.stdout) if done.returncode == 0 else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--strict", action="store_true", help="exit 1 on a newer or unknown version"
    )
    args = parser.parse_args(argv)
    newest = {m.package: look_up(m.registry, m.package) for m in MODELLED}
    rows = version_report(newest)
    print(f"{'registry':8}  {'package':42}  {'modelled':10}  status")
    for row in rows:
        print(f"{row.registry.value:8}  {row.package:42}  {row.modelled:10}  {row.status}")
        if row.status.startswith("newer"):
            print(f"{'':8}  re-run the tests of: {row.recheck}")
    unknown = [r for r in rows if r.status == "not looked up"]
    print(f"{len(stale(rows))} newer, {len(unknown)} not looked up, {len(rows)} packages")
    return 1 if args.strict and (stale(rows) or unknown) else 0


if __name__ == "__main__":
    sys.exit(main())
