"""Server gradebook URLs get a driver that is installed."""

from __future__ import annotations

import pytest

from autograder.records.server_gradebook import sqlalchemy_url


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("postgresql://u:p@127.0.0.1:5432/db", "postgresql+psycopg://u:p@127.0.0.1:5432/db"),
        ("postgresql+psycopg://u@h/db", "postgresql+psycopg://u@h/db"),
        ("sqlite:////tmp/g.db", "sqlite:////tmp/g.db"),
    ],
)
def test_server_urls_get_an_installed_driver(url, expected):
    pytest.importorskip("psycopg")
    assert sqlalchemy_url(url) == expected
