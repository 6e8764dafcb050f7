"""What a page and its kernels said to each other: the kernel websockets' messages, in order.

A Run All that stops part-way looks the same from the page whatever stopped it (a reply
that said ``aborted``, a future JupyterLab cancelled, a websocket that closed), so the
harness records every kernel message the page sent and received, read off the wire by
Playwright, and a failure quotes the record. Output messages (streams, displays, widget
updates) are counted rather than listed: an explorer sends hundreds.
"""

from __future__ import annotations

import json
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

#: iopub messages that carry output, not control: counted, not listed.
OUTPUT_TYPES = frozenset(
    {"stream", "display_data", "update_display_data", "execute_result", "comm_msg", "clear_output"}
)


@dataclass(frozen=True)
class WireEvent:
    """One message on a kernel websocket (or the socket opening or closing)."""

    at: float
    direction: str  # "sent", "received", "opened" or "closed"
    socket: int
    channel: str = ""
    msg_type: str = ""
    msg_id: str = ""
    parent_id: str = ""
    detail: str = ""

    def line(self) -> str:
        """One readable line: time, socket, direction, channel, type, ids, what it said.

        >>> WireEvent(1.5, "received", 2, "shell", "execute_reply", "ab12cd34ef", "9f8e7d6c5b",
        ...           "aborted").line()
        '   1.500 ws2 received shell execute_reply ab12cd34 (re 9f8e7d6c) aborted'
        """
        ids = f" {self.msg_id[:8]}" if self.msg_id else ""
        ids += f" (re {self.parent_id[:8]})" if self.parent_id else ""
        parts = [f"{self.at:8.3f} ws{self.socket} {self.direction}", self.channel, self.msg_type]
        text = " ".join(p for p in parts if p) + ids
        return f"{text} {self.detail}" if self.detail else text


def decode_frame(payload: str | bytes) -> dict[str, Any] | None:
    """A kernel message from one websocket frame (JSON, or jupyter_server's v1 binary form).

    The v1 form: a little-endian uint64 count *n*, *n* uint64 offsets, then the channel,
    header, parent header, metadata, content and buffers at those offsets.

    >>> decode_frame('{"channel": "shell", "header": {"msg_type": "kernel_info_request"}}')["channel"]
    'shell'
    >>> decode_frame(b"\\x00")  # not a message
    """
    try:
        if isinstance(payload, str):
            message = json.loads(payload)
            return message if isinstance(message, dict) else None
        count = int.from_bytes(payload[:8], "little")
        if not 5 <= count <= 64 or len(payload) < 8 * (count + 1):
            return None
        offsets = [
            int.from_bytes(payload[8 * (i + 1) : 8 * (i + 2)], "little") for i in range(count)
        ]
        offsets.append(len(payload))
        parts = [payload[offsets[i] : offsets[i + 1]] for i in range(count)]
        return {
            "channel": parts[0].decode(),
            "header": json.loads(parts[1]),
            "parent_header": json.loads(parts[2]),
            "content": json.loads(parts[4]),
        }
    except (ValueError, UnicodeDecodeError, IndexError):
        return None


def describe(message: dict[str, Any]) -> str:
    """What a message said that matters to a Run All: a reply's status, a state, a cell's code.

    >>> describe({"header": {"msg_type": "execute_reply"},
    ...           "content": {"status": "error", "ename": "KeyError", "execution_count": 3}})
    'status=error count=3 KeyError'
    >>> describe({"header": {"msg_type": "status"}, "content": {"execution_state": "idle"}})
    'idle'
    """
    msg_type = message.get("header", {}).get("msg_type", "")
    content = message.get("content") or {}
    if msg_type == "status":
        return str(content.get("execution_state", ""))
    if msg_type == "execute_request":
        first = (content.get("code") or "").strip().splitlines()[:1]
        flags = "" if content.get("stop_on_error", True) else " stop_on_error=False"
        return f"code={first[0][:60]!r}{flags}" if first else f"code=''{flags}"
    if msg_type.endswith("_reply"):
        text = f"status={content.get('status', '?')}"
        if "execution_count" in content:
            text += f" count={content['execution_count']}"
        if content.get("ename"):
            text += f" {content['ename']}: {str(content.get('evalue', ''))[:120]}".rstrip(": ")
        return text
    if msg_type == "error":
        return f"{content.get('ename', '')}: {str(content.get('evalue', ''))[:120]}"
    return ""


@dataclass
class WireLog:
    """Every kernel websocket of one page, recorded as it goes (see ``record``)."""

    started: float = field(default_factory=time.monotonic)
    events: deque[WireEvent] = field(default_factory=lambda: deque(maxlen=5000))
    outputs: Counter[str] = field(default_factory=Counter)
    sockets: int = 0

    def add(
        self, direction: str, socket: int, payload: str | bytes | None = None, detail: str = ""
    ) -> None:
        """Record a frame (or, without *payload*, the socket opening or closing: *detail*)."""
        at = time.monotonic() - self.started
        if payload is None:
            self.events.append(WireEvent(at, direction, socket, detail=detail))
            return
        message = decode_frame(payload)
        if message is None:
            self.events.append(WireEvent(at, direction, socket, detail="(not a kernel message)"))
            return
        header = message.get("header") or {}
        msg_type = header.get("msg_type", "")
        channel = message.get("channel", "")
        if channel == "iopub" and msg_type in OUTPUT_TYPES:
            self.outputs[msg_type] += 1
            return
        parent = message.get("parent_header") or {}
        self.events.append(
            WireEvent(
                at,
                direction,
                socket,
                channel,
                msg_type,
                header.get("msg_id", ""),
                parent.get("msg_id", ""),
                describe(message),
            )
        )

    def lines(self, last: int = 80) -> list[str]:
        """The last *last* events, one a line, then the output messages counted."""
        lines = [event.line() for event in list(self.events)[-last:]]
        if self.outputs:
            counted = ", ".join(f"{n} {kind}" for kind, n in sorted(self.outputs.items()))
            lines.append(f"(output messages received, not listed: {counted})")
        return lines


def record(page) -> WireLog:
    """Start recording the kernel websockets *page* opens from now on; the log it fills."""
    log = WireLog()

    def on_websocket(websocket) -> None:
        if "/api/kernels/" not in websocket.url:
            return
        log.sockets += 1
        number = log.sockets
        # The kernel's id and the page's session (a reconnect opens a new socket, same session).
        log.add("opened", number, detail=websocket.url.split("/api/kernels/", 1)[1])
        websocket.on("framesent", lambda payload: log.add("sent", number, payload))
        websocket.on("framereceived", lambda payload: log.add("received", number, payload))
        websocket.on("close", lambda _ws: log.add("closed", number))

    page.on("websocket", on_websocket)
    return log
