"""The nbgitpuller link: what nbgitpuller's handler reads back from it, and clear refusals."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from autograder import cli
from autograder.errors import GradingSetupError
from autograder.term.links import nbgitpuller_link

REPOSITORY = "https://git.example.edu/course/windowmem-student.git"
LESSON = "course/03_window_buffer_memory.ipynb"


def test_the_link_carries_what_nbgitpuller_reads():
    link = nbgitpuller_link("https://hub.example.edu/", REPOSITORY, LESSON, branch="term-1")
    parts = urlsplit(link)
    assert (parts.scheme, parts.netloc, parts.path) == (
        "https",
        "hub.example.edu",
        "/hub/user-redirect/git-pull",
    )
    # nbgitpuller's handler reads these four arguments (tornado decodes them as parse_qs does)
    assert parse_qs(parts.query) == {
        "repo": [REPOSITORY],
        "branch": ["term-1"],
        "targetpath": ["windowmem-student"],
        "urlpath": [f"lab/tree/windowmem-student/{LESSON}"],
    }


def test_a_target_folder_names_both_the_clone_and_the_page():
    query = parse_qs(
        urlsplit(nbgitpuller_link("http://127.0.0.1:8000", REPOSITORY, LESSON, target="wm")).query
    )
    assert query["targetpath"] == ["wm"]
    assert query["urlpath"] == [f"lab/tree/wm/{LESSON}"]


def test_a_hub_path_prefix_is_kept():
    link = nbgitpuller_link("https://uni.example.edu/jupyter", REPOSITORY, LESSON)
    assert urlsplit(link).path == "/jupyter/hub/user-redirect/git-pull"


@pytest.mark.parametrize(
    ("hub", "repository", "path", "said"),
    [
        ("hub.example.edu", REPOSITORY, LESSON, "http:// or https://"),
        (
            "https://hub.example.edu",
            "windowmem-student",
            LESSON,
            "a URL students' servers can clone",
        ),
        ("https://hub.example.edu", REPOSITORY, "../secrets", "inside the repository"),
        ("https://hub.example.edu", REPOSITORY, "/", "inside the repository"),
    ],
)
def test_unusable_arguments_are_refused_saying_what_to_give(hub, repository, path, said):
    with pytest.raises(GradingSetupError, match="e.g.") as error:
        nbgitpuller_link(hub, repository, path)
    assert said in str(error.value)


def test_the_command_prints_the_link(capsys):
    argv = ["link", LESSON, "--hub", "https://hub.example.edu", "--repository", REPOSITORY]
    assert cli.main(argv) == 0
    assert capsys.readouterr().out.strip() == nbgitpuller_link(
        "https://hub.example.edu", REPOSITORY, LESSON
    )


def test_the_command_refuses_a_bad_hub_with_status_2(capsys):
    argv = ["link", LESSON, "--hub", "hub.example.edu", "--repository", REPOSITORY]
    assert cli.main(argv) == 2
    assert capsys.readouterr().err.startswith("autograder link: the hub's address")
