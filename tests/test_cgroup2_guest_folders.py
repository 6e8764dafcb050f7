"""Which of this machine's folders the cgroup v2 guest binds back over its tmpfs folders.

The guest's init covers ``/tmp``, ``/home`` and the other folders its tests write to with a
fresh tmpfs. A clone under one of them (a maintainer's ``/home/ana/windowmem``, a CI
reproduction in ``/tmp``) showed the guest an empty folder, and the tier failed without
saying why. The boot itself is ``tests/cgroup2``; these checks need no QEMU.
"""

from __future__ import annotations

import pytest

from verify.cgroup2 import guest


def test_a_clone_under_a_covered_folder_is_kept_once_with_what_is_inside_it():
    assert guest.kept_folders(
        ["/home/ana/windowmem", "/home/ana/windowmem/.venv", "/home/ana/.pyenv/versions/3.11.7"]
    ) == ["/home/ana/.pyenv/versions/3.11.7", "/home/ana/windowmem"]
    assert guest.kept_folders(["/tmp/ci47/work/main", "/var/tmp/x"]) == [
        "/tmp/ci47/work/main",
        "/var/tmp/x",
    ]


def test_folders_the_guest_shows_anyway_are_not_bound_again():
    assert guest.kept_folders(["/work/main", "/usr", "/root/.pyenv/versions/3.11.7"]) == []
    # a name that only starts like a covered folder is not under it
    assert guest.kept_folders(["/tmpdata/main", "/homes/ana"]) == []


def test_a_covered_folder_itself_or_a_name_with_a_space_is_refused_saying_why(monkeypatch):
    monkeypatch.setattr(guest, "HERE", guest.Path("/tmp/verify/cgroup2"))
    monkeypatch.setattr(guest.sys, "prefix", "/tmp")
    with pytest.raises(ValueError, match="cannot keep /tmp itself"):
        guest._folders_to_keep()
    monkeypatch.setattr(guest.sys, "prefix", "/home/ana/my venv")
    with pytest.raises(ValueError, match="without spaces"):
        guest._folders_to_keep()


def test_the_init_covers_and_keeps_the_folders_guest_py_names():
    init = (guest.HERE / "init.sh").read_text()
    covering = init.index("for folder in $TIER_COVERED")
    assert init.index("for folder in $TIER_KEEP_FOLDERS") < covering  # bound aside first
    assert init.rindex("for folder in $TIER_KEEP_FOLDERS") > covering  # then back over it
