"""Lesson 4's psql and redis-cli output: real, captured from the servers, and quoted as stored.

``verify/transcripts.py`` writes Marta's turns the way n8n's memory nodes do and runs the real
``psql`` and ``redis-cli`` on them; the lesson shows those files verbatim.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.storage.test_contract import server_url
from verify import transcripts

LESSON = transcripts.REPO / "course" / "04_memory_that_outlives_the_session.ipynb"
NOTES = (
    transcripts.REPO / "course" / "reference" / "04_memory_that_outlives_the_session_notes.ipynb"
)


def _stored(name: str) -> str:
    return (transcripts.OUT / name).read_text(encoding="utf-8")


def _lesson_markdown() -> str:
    """The lesson's markdown and its reference page's, which holds both transcripts since the
    thirteenth reading moved them off the lesson."""
    cells = [
        cell
        for page in (LESSON, NOTES)
        for cell in json.loads(page.read_text(encoding="utf-8"))["cells"]
    ]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def test_the_lesson_quotes_each_transcript_verbatim() -> None:
    text = _lesson_markdown()
    for name in ("lesson4_psql.txt", "lesson4_redis.txt"):
        assert f"```text\n{_stored(name)}```" in text, name
    # What the lesson says of them: one row per message with n8n's id after three turns, the
    # bare key abc (Define below adds no suffix), the TTL just after a write and ten seconds on.
    psql = _stored("lesson4_psql.txt")
    assert f"({2 * transcripts.PSQL_TURNS} rows)" in psql and transcripts.PSQL_TURNS == 3
    assert re.search(r"^\s+1 \| \{\"type\": \"human\"", psql, re.M)
    assert "after Marta's first three turns</summary>" in text
    redis = _stored("lesson4_redis.txt")
    first, later = (int(n) for n in re.findall(r"TTL abc\n\(integer\) (\d+)", redis))
    assert first == transcripts.SESSION_TTL
    assert first - later == transcripts.TTL_PAUSE_S == 10
    assert "after Marta's first turn, and ten seconds later</summary>" in text


def _ttl_free(text: str) -> str:
    return re.sub(r"\(integer\) 3\d{3}", "(integer) TTL", text)


@pytest.mark.postgres
@pytest.mark.redis
def test_a_fresh_capture_from_the_servers_matches_the_stored_files() -> None:
    server_url("WINDOWMEM_POSTGRES_URL", "PostgreSQL")
    server_url("WINDOWMEM_REDIS_URL", "Redis")
    psql, redis = transcripts.capture()
    assert psql.text == _stored(psql.name)
    # A slow machine may read the TTL a second after the write: 3599 is the same capture.
    first, later = (int(n) for n in re.findall(r"TTL abc\n\(integer\) (\d+)", redis.text))
    assert transcripts.SESSION_TTL - 5 <= first <= transcripts.SESSION_TTL
    # The countdown ran for the pause (a second either way for a slow read).
    assert abs(first - later - transcripts.TTL_PAUSE_S) <= 1
    assert _ttl_free(redis.text) == _ttl_free(_stored(redis.name))


def test_without_servers_the_capture_says_what_to_start(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WINDOWMEM_POSTGRES_URL", raising=False)
    with pytest.raises(transcripts.TranscriptError, match=r"services\.sh start"):
        transcripts.psql_transcript()
