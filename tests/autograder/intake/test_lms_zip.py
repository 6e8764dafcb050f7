"""An LMS zip's members: one that escapes its folder is refused, for the right student."""

from __future__ import annotations

from autograder.intake import lms_zip


def test_zip_members_that_escape_are_refused_for_the_right_student():
    import zipfile

    from nbgrader.plugins import FileNameCollectorPlugin

    collector = FileNameCollectorPlugin(named_regexp=lms_zip.layout_regexp("hw"))
    known = {"alice", "bob"}
    climb = lms_zip.member_problem(zipfile.ZipInfo("dl/alice/../bob/hw/a.ipynb"))
    assert "'..'" in climb
    assert lms_zip._owner("dl/alice/../bob/hw/a.ipynb", climb, known, collector) == "alice"
    absolute = lms_zip.member_problem(zipfile.ZipInfo("/bob/hw/a.ipynb"))
    assert lms_zip._owner("/bob/hw/a.ipynb", absolute, known, collector) is None
    link = zipfile.ZipInfo("dl/alice/hw/a.ipynb")
    link.external_attr = 0o120777 << 16
    assert "symbolic link" in lms_zip.member_problem(link)
    assert lms_zip.member_problem(zipfile.ZipInfo("dl/alice/hw/a.ipynb")) is None
