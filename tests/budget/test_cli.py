"""``windowmem budget``: JSON and table output, corpus selection, one-line errors with status 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from windowmem.budget import help_centre, run_task
from windowmem.budget.corpus import help_centre_folder
from windowmem.cli import main

BILL_KEYS = {
    "answered",
    "input_tokens",
    "output_tokens",
    "calls",
    "reads",
    "compactions",
    "peak",
    "task",
}


def budget_command(argv, capsys):
    """Run ``windowmem budget`` in-process, as the console script does."""
    status = main(["budget", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_json_holds_the_bill_and_the_task(capsys):
    status, out, err = budget_command(
        ["--budget", "1000", "--policy", "compact", "--format", "json"], capsys
    )
    data = json.loads(out)
    assert (status, err) == (0, "")
    assert BILL_KEYS <= set(data)
    expected = run_task(help_centre(), 1000, "compact")
    assert (
        data["task"] == list(expected.task) and data["input_tokens"] == expected.bill.input_tokens
    )
    assert data["corpus"] == "help-centre"


def test_corpus_by_name_folder_or_omitted_is_the_same_run(capsys):
    folder = help_centre_folder()
    outputs = []
    for corpus in ([], ["--corpus", "help-centre"], [str(folder)]):
        status, out, _ = budget_command(
            [*corpus, "--policy", "retrieve", "--format", "json"], capsys
        )
        assert status == 0
        outputs.append({k: v for k, v in json.loads(out).items() if k != "corpus"})
    assert outputs[0] == outputs[1] == outputs[2]


def test_table_and_trace(capsys):
    status, out, _ = budget_command(["--policy", "truncate", "--budget", "900", "--trace"], capsys)
    assert status == 0
    assert out.splitlines()[0].split() == ["corpus", "help-centre"]
    assert any(line.split()[:2] == ["policy", "truncate"] for line in out.splitlines())
    result = run_task(help_centre(), 900, "truncate")
    steps = [line for line in out.splitlines() if line[:4].strip().isdigit()]
    assert len(steps) == len(result.trace)


def test_questions_option_sets_the_task_size(capsys):
    _, out, _ = budget_command(["--questions", "4", "--format", "json"], capsys)
    assert len(json.loads(out)["task"]) == 4


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--policy", "forget"], "argument --policy: invalid choice: 'forget'"),
        (["--summariser", "sloppy"], "argument --summariser: invalid choice: 'sloppy'"),
        (["--budget", "0"], "argument --budget: must be at least 1"),
        (["--budget", "1.5k"], "argument --budget: must be a whole number"),
        (["--questions", "0"], "argument --questions: must be at least 1"),
        (["--seed", "-1"], "argument --seed: must be at least 0"),
        (["--format", "xml"], "argument --format: invalid choice: 'xml'"),
        (["missing.json"], "missing.json: no such file or folder"),
        (["help-centre", "--corpus", "help-centre"], "give the corpus once"),
    ],
)
def test_bad_input_exits_2_with_one_line_and_no_output(argv, message, capsys):
    status, out, err = budget_command(argv, capsys)
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("windowmem: error: ") and message in err, err


def test_a_corpus_with_a_bad_span(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text(
        json.dumps(
            {
                "articles": [{"text": "Open daily."}],
                "questions": [
                    {"article": 0, "question": "When?", "answer": "daily", "start": 0, "end": 5}
                ],
            }
        )
    )
    status, out, err = budget_command([str(path)], capsys)
    assert (status, out) == (2, "") and "fix the span" in err


def test_the_installed_command(tmp_path):
    run = [sys.executable, "-m", "windowmem", "budget"]
    done = subprocess.run(
        [*run, "--policy", "compact", "--format", "json"], capture_output=True, text=True
    )
    assert done.returncode == 0 and json.loads(done.stdout)["policy"] == "compact"
    failed = subprocess.run([*run, "--policy", "nope"], capture_output=True, text=True)
    assert (failed.returncode, failed.stdout, failed.stderr.count("\n")) == (2, "", 1)


def test_reference_corpus_from_the_command_line(reference_corpus, capsys):
    status, out, _ = budget_command(
        [str(reference_corpus), "--budget", "1500", "--policy", "retrieve", "--format", "json"],
        capsys,
    )
    data = json.loads(out)
    assert (status, data["answered"], data["input_tokens"], data["reads"]) == (0, 12, 39175, 30)
    assert data["task"] == [0, 38, 58, 92, 130, 159, 1, 39, 59, 93, 131, 160]
