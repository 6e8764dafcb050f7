"""The kernel-side stream cap: past the limit, writes cost nothing and go nowhere."""

from __future__ import annotations

import os

from autograder.sandbox import kernel_guard


class Stream:
    """Just enough of ipykernel's OutStream: write and flush, both recorded."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.flushes = 0

    def write(self, text: str) -> int:
        self.sent.append(text)
        return len(text)

    def flush(self) -> None:
        self.flushes += 1


def test_writes_past_the_cap_go_nowhere_until_the_next_cell():
    read_end, write_end = os.pipe()
    devnull = os.open(os.devnull, os.O_WRONLY)
    stream = Stream()
    reopen = kernel_guard._cap_stream(stream, write_end, os.dup(write_end), devnull, limit=10)
    try:
        assert stream.write("12345") == 5
        assert stream.write("6789abcdef") == 10  # crosses the cap: cut, noted, flushed
        assert "".join(stream.sent).startswith("123456789a")
        assert "output stopped in the kernel after 10 characters" in stream.sent[-1]
        assert stream.flushes == 1
        # past the cap: the built-in len answers writes, flush does nothing, the fd is /dev/null
        assert stream.write is len and stream.write("x" * 1000) == 1000
        stream.flush()
        os.write(write_end, b"lost")
        os.set_blocking(read_end, False)
        try:
            assert os.read(read_end, 100) == b""
        except BlockingIOError:
            pass  # nothing reached the pipe
        sent = len(stream.sent)
        reopen()  # the next cell: everything back
        os.write(write_end, b"kept")
        assert os.read(read_end, 100) == b"kept"
        stream.write("again")
        assert len(stream.sent) == sent + 1 and stream.sent[-1] == "again"
    finally:
        for fd in (read_end, write_end, devnull):
            os.close(fd)
