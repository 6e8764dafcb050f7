"""Opening a PostgreSQL or Redis connection, once for every store that needs one.

The contract repositories (:mod:`.postgres`, :mod:`.redis_lists`) and the product
layouts (:mod:`.sql_database`, :mod:`.list_stores`) connect the same way: the driver
imported with an install hint, a short timeout, and on failure one
:class:`~windowmem.storage.base.StorageError` line that names the server without its
password, then whatever *advice* the caller adds.

>>> redacted("postgresql://app:s3cret@127.0.0.1:5432/chat")
'postgresql://app:***@127.0.0.1:5432/chat'
>>> redacted("redis://127.0.0.1:6379/0")
'redis://127.0.0.1:6379/0'
"""

from __future__ import annotations

from typing import Any

from windowmem.storage.base import StorageError, import_driver

#: What the contract repositories add to a failed connection: how to get a server.
SERVER_ADVICE = ': check the URL, or start a local server with `eval "$(bash .ci/services.sh)"`'


def redacted(url: str) -> str:
    """*url* with any password replaced by ``***``, safe to print."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    credentials, _, host = rest.rpartition("@")
    name, colon, _ = credentials.partition(":")
    return f"{scheme}://{name}{':***' if colon else ''}@{host}"


def first_line(exc: BaseException) -> str:
    """The first line of *exc*'s message (drivers add hints below it), or its type's name."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _failure(what: str, url: str, exc: BaseException, advice: str) -> StorageError:
    return StorageError(f"{what} at {redacted(url)}: {first_line(exc)}{advice}")


def connect_postgres(dsn: str, *, timeout: float, user: str, advice: str = "") -> Any:
    """A psycopg 3 connection to *dsn*; *user* names who needs the driver, for its install hint."""
    psycopg: Any = import_driver("psycopg", user, "psycopg 3")
    try:
        return psycopg.connect(dsn, connect_timeout=max(1, int(timeout)))
    except psycopg.Error as exc:
        raise _failure("cannot connect to PostgreSQL", dsn, exc, advice) from None


def connect_redis(url: str, *, timeout: float, user: str, advice: str = "") -> Any:
    """A redis-py client for *url* that has answered a PING."""
    redis: Any = import_driver("redis", user, "redis-py")
    try:
        client = redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout)
        client.ping()
    except (redis.RedisError, ValueError) as exc:
        raise _failure("cannot reach Redis", url, exc, advice) from None
    return client
