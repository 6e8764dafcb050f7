"""Turn an LMS zip download into nbgrader's submitted layout, one student's problems at a time.

File names are matched with nbgrader's own ``FileNameCollectorPlugin`` (its
``named_regexp`` groups ``student_id``, ``file_id``, ``timestamp``). The archive itself is
read here rather than by nbgrader's ``ExtractorPlugin``/``ZipCollectApp``, which unpack
every archive in place: there one bad member stops the whole class, a nested archive's
own paths decide where its files land (so one student's zip can write into another's
folder), and two files for one notebook silently overwrite each other. Here nothing is
extracted by path: each member is read into memory and written to a path the grader
builds, and

* a member whose name is absolute, climbs with ``..`` or is a link is refused, and so is
  its student (the one named before the ``..``), never the student it points at;
* a nested archive (one level) belongs to the student its own name matches, whatever
  paths it holds inside;
* two files that map to one student's notebook refuse that student, with both names;
* a member too large, or one that cannot be read, refuses its student only.
"""

from __future__ import annotations

import io
import re
import stat
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from autograder.errors import GradingSetupError
from autograder.sandbox.safe_files import real_folder, remove_path, write_bytes

#: Largest member read, in bytes (a notebook, or a student's nested archive).
MAX_MEMBER_BYTES = 50 * 1024 * 1024
#: A student id must be a plain folder name.
SAFE_ID = re.compile(r"^[A-Za-z0-9@][\w.@+-]{0,127}$")


def layout_regexp(assignment: str) -> str:
    """Files already laid out as ``<student_id>/<assignment>/<notebook>.ipynb`` inside the zip."""
    return rf"(?:.*/)?(?P<student_id>[^/]+)/{re.escape(assignment)}/(?P<file_id>[^/]+\.ipynb)$"


@dataclass(frozen=True)
class Collected:
    """Where the collected class is, and what was refused (by student, and for no one)."""

    submitted: Path
    refused: dict[str, str] = field(default_factory=dict)
    unclaimed: tuple[str, ...] = ()


def member_problem(info: zipfile.ZipInfo) -> str | None:
    """Why a member must not be extracted, or None.

    >>> member_problem(zipfile.ZipInfo("a/../b/x.ipynb"))
    "archive member 'a/../b/x.ipynb' climbs out of its folder with '..'"
    """
    name = info.filename
    if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
        return f"archive member {name!r} has an absolute path"
    if ".." in re.split(r"[/\\]", name):
        return f"archive member {name!r} climbs out of its folder with '..'"
    if stat.S_ISLNK(info.external_attr >> 16):
        return f"archive member {name!r} is a symbolic link"
    if info.file_size > MAX_MEMBER_BYTES:
        return f"archive member {name!r} is {info.file_size:,} bytes, over the {MAX_MEMBER_BYTES:,}-byte limit"
    return None


def collect_zip(
    archive: Path, assignment: str, into: Path, named_regexp: str | None = None
) -> Collected:
    """Collect *archive*'s notebooks as ``into/submitted/<student>/<assignment>/``.

    *named_regexp* is nbgrader's ``FileNameCollector.named_regexp``, matched against
    each member's path; the default accepts the submitted layout zipped as is.
    """
    from nbgrader.plugins import FileNameCollectorPlugin

    collector = FileNameCollectorPlugin(named_regexp=named_regexp or layout_regexp(assignment))
    remove_path(into)
    submitted = real_folder(into / "submitted")
    try:
        outer = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as error:
        raise GradingSetupError(f"{archive} is not a readable zip file: {error}") from error

    files: dict[tuple[str, str], list[tuple[str, bytes]]] = {}  # (student, file) -> sources
    refused: dict[str, str] = {}
    stamps: dict[str, str] = {}
    unclaimed: list[str] = []
    with outer:
        members = sorted(
            (m for m in outer.infolist() if not m.is_dir() and "__MACOSX" not in m.filename),
            key=lambda m: m.filename,
        )
        known = {
            info["student_id"]
            for m in members
            if (info := collector._match(m.filename)) and SAFE_ID.match(info["student_id"])
        }

        def refuse(owner: str | None, why: str) -> None:
            if owner is None:
                unclaimed.append(why)
            else:
                refused.setdefault(owner, why)

        for member in members:
            problem = member_problem(member)
            info = None if problem else collector._match(member.filename)
            if problem:
                refuse(_owner(member.filename, problem, known, collector), problem)
                continue
            if not info or not SAFE_ID.match(info["student_id"]):
                continue
            student = info["student_id"]
            try:
                data = outer.read(member)
            except Exception as error:  # noqa: BLE001 - a broken member is its student's problem
                refuse(student, f"archive member {member.filename!r} could not be read: {error}")
                continue
            if info.get("timestamp"):
                stamps[student] = str(info["timestamp"])[:100]
            name = PurePosixPath(str(info["file_id"])).name
            if name.lower().endswith(".zip"):
                for inner_name, inner_data, why in _nested(data, member.filename):
                    if why:
                        refuse(student, why)
                    elif inner_name.endswith(".ipynb"):
                        files.setdefault((student, inner_name), []).append(
                            (f"{member.filename}:{inner_name}", inner_data)
                        )
            elif name.endswith(".ipynb"):
                files.setdefault((student, name), []).append((member.filename, data))

    for (student, name), sources in sorted(files.items()):
        if student in refused:
            continue
        if len(sources) > 1:
            refused[student] = f"{len(sources)} files map to {name}: " + ", ".join(
                repr(s) for s, _ in sources
            )
            continue
        write_bytes(submitted / student / assignment / name, sources[0][1])
    for student in refused:
        remove_path(submitted / student)
    for student, stamp in stamps.items():
        if student not in refused and (submitted / student).is_dir():
            write_bytes(submitted / student / assignment / "timestamp.txt", stamp.encode())
    if not files and not refused:
        raise GradingSetupError(
            f"no notebooks in {archive} matched {collector.named_regexp!r}; give --zip-regexp with "
            "(?P<student_id>...) and (?P<file_id>...) groups for this LMS's file names"
        )
    return Collected(submitted, refused, tuple(unclaimed))


def _owner(name: str, problem: str, known: set[str], collector) -> str | None:
    """Whose refused member *name* is: never a student it merely points at.

    A member that climbs with ``..`` belongs to the known student named before the
    climb; a link or an oversized member to the student its name matches; an absolute
    path to no one (it is reported for the class).
    """
    if "absolute path" in problem:
        return None
    if "'..'" in problem:
        head = re.split(r"(?:^|[/\\])\.\.(?:[/\\]|$)", name, maxsplit=1)[0]
        return next((part for part in re.split(r"[/\\]", head) if part in known), None)
    info = collector._match(name)
    return info["student_id"] if info and info["student_id"] in known else None


def _nested(data: bytes, outer_name: str):
    """(name, bytes, problem) for each file of the nested archive *data*; one level only."""
    try:
        inner = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as error:
        yield "", b"", f"archive member {outer_name!r} is not a readable zip: {error}"
        return
    with inner:
        for member in sorted(inner.infolist(), key=lambda m: m.filename):
            if member.is_dir() or "__MACOSX" in member.filename:
                continue
            problem = member_problem(member)
            if problem:
                yield "", b"", f"inside {outer_name!r}: {problem}"
                continue
            name = PurePosixPath(member.filename).name
            if name.lower().endswith(".zip"):
                yield (
                    "",
                    b"",
                    f"inside {outer_name!r}: archives nested twice are not unpacked ({member.filename!r})",
                )
                continue
            try:
                yield name, inner.read(member), None
            except Exception as error:  # noqa: BLE001
                yield (
                    "",
                    b"",
                    f"inside {outer_name!r}: {member.filename!r} could not be read: {error}",
                )
