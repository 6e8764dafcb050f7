"""A recording OpenAI-compatible model server on loopback, answering from a script.

n8n's OpenAI Chat Model node (1.3) talks to ``/v1/responses`` (the Responses API, its
default) or to ``/v1/chat/completions`` (``responsesApiEnabled: false``). This server
serves both, with or without server-sent events, records every request body in arrival
order, and answers each request with the next reply of its script:

* :class:`Text`: an answer (``Text("")`` is the empty answer);
* :class:`ToolCalls`: one or more tool calls in one response (two = parallel calls);
* :class:`Failure`: an HTTP error with OpenAI's error body.

A request that finds the script empty is answered with a 500 and recorded, so a test
that scripted too few replies fails with the request in hand instead of hanging.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL_PATHS = ("/v1/responses", "/v1/chat/completions")


@dataclass(frozen=True)
class Text:
    """An answer whose text is *content*, given after *delay* seconds (a slow model)."""

    content: str
    delay: float = 0.0


@dataclass(frozen=True)
class Call:
    """One tool call: its *id*, the tool's *name* and the model's *arguments*."""

    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolCalls:
    """One model response asking for every call in *calls* (two or more: parallel calls)."""

    calls: tuple[Call, ...]

    @classmethod
    def of(cls, *calls: Call) -> ToolCalls:
        return cls(tuple(calls))


@dataclass(frozen=True)
class Failure:
    """An HTTP error *status* with an OpenAI-style error *message*."""

    status: int = 500
    message: str = "The scripted model failed."


Reply = Text | ToolCalls | Failure


@dataclass(frozen=True)
class Recorded:
    """One request as it arrived: its path and its JSON body."""

    path: str
    body: dict[str, Any]

    @property
    def streamed(self) -> bool:
        return bool(self.body.get("stream"))


@dataclass
class Script:
    """The replies still to give and the requests received, shared with the handler threads."""

    replies: deque[Reply] = field(default_factory=deque)
    requests: list[Recorded] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def push(self, replies: Iterable[Reply]) -> None:
        with self.lock:
            self.replies.extend(replies)

    def take(self, recorded: Recorded) -> Reply | None:
        with self.lock:
            self.requests.append(recorded)
            return self.replies.popleft() if self.replies else None

    def drain(self) -> tuple[list[Recorded], list[Reply]]:
        """The requests since the last drain and the replies left unused; both are cleared."""
        with self.lock:
            requests, left = self.requests, list(self.replies)
            self.requests, self.replies = [], deque()
            return requests, left


def _usage_chat() -> dict[str, int]:
    return {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def _usage_responses() -> dict[str, Any]:
    return {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 15,
    }


def chat_completion(reply: Text | ToolCalls, model: str) -> dict[str, Any]:
    """A ``/v1/chat/completions`` response body for *reply*."""
    message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None}
    if isinstance(reply, Text):
        message["content"] = reply.content
        finish = "stop"
    else:
        message["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
            }
            for c in reply.calls
        ]
        finish = "tool_calls"
    return {
        "id": "chatcmpl-windowmem",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": _usage_chat(),
    }


def chat_completion_chunks(reply: Text | ToolCalls, model: str) -> list[dict[str, Any]]:
    """The server-sent chunks of a streamed chat completion, usage last."""
    head = {"id": "chatcmpl-windowmem", "object": "chat.completion.chunk", "model": model}
    created = int(time.time())
    chunks: list[dict[str, Any]] = []

    def chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return {**head, "created": created, "choices": [choice]}

    if isinstance(reply, Text):
        chunks.append(chunk({"role": "assistant", "content": ""}, None))
        if reply.content:
            chunks.append(chunk({"content": reply.content}, None))
        chunks.append(chunk({}, "stop"))
    else:
        chunks.append(chunk({"role": "assistant", "content": None}, None))
        for index, c in enumerate(reply.calls):
            call = {
                "index": index,
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
            }
            chunks.append(chunk({"tool_calls": [call]}, None))
        chunks.append(chunk({}, "tool_calls"))
    chunks.append({**head, "created": created, "choices": [], "usage": _usage_chat()})
    return chunks


def _response_items(reply: Text | ToolCalls) -> list[dict[str, Any]]:
    if isinstance(reply, Text):
        return [
            {
                "type": "message",
                "id": "msg_windowmem",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": reply.content, "annotations": []}],
            }
        ]
    return [
        {
            "type": "function_call",
            "id": f"fc_{c.id}",
            "call_id": c.id,
            "name": c.name,
            "arguments": json.dumps(c.arguments),
            "status": "completed",
        }
        for c in reply.calls
    ]


def response(reply: Text | ToolCalls, model: str) -> dict[str, Any]:
    """A ``/v1/responses`` response body for *reply*."""
    return {
        "id": "resp_windowmem",
        "object": "response",
        "created_at": int(time.time()),
        "status": "completed",
        "error": None,
        "incomplete_details": None,
        "model": model,
        "output": _response_items(reply),
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": _usage_responses(),
    }


def response_events(reply: Text | ToolCalls, model: str) -> list[tuple[str, dict[str, Any]]]:
    """The server-sent events of a streamed Responses API call (the ones LangChain reads)."""
    final = response(reply, model)
    started = {**final, "status": "in_progress", "output": [], "usage": None}
    events: list[tuple[str, dict[str, Any]]] = [
        ("response.created", {"type": "response.created", "response": started})
    ]
    for index, item in enumerate(final["output"]):
        pending = {**item, "status": "in_progress"}
        if item["type"] == "message":
            pending["content"] = []
        events.append(
            (
                "response.output_item.added",
                {"type": "response.output_item.added", "output_index": index, "item": pending},
            )
        )
        if item["type"] == "message" and item["content"][0]["text"]:
            events.append(
                (
                    "response.output_text.delta",
                    {
                        "type": "response.output_text.delta",
                        "item_id": item["id"],
                        "output_index": index,
                        "content_index": 0,
                        "delta": item["content"][0]["text"],
                    },
                )
            )
        events.append(
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": index, "item": item},
            )
        )
    events.append(("response.completed", {"type": "response.completed", "response": final}))
    return events


class _Handler(BaseHTTPRequestHandler):
    server: ModelServer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        pass  # the recording is the log

    def _send_json(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_events(self, events: list[tuple[str | None, dict[str, Any]]]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for name, data in events:
            head = f"event: {name}\n" if name else ""
            self.wfile.write(f"{head}data: {json.dumps(data)}\n\n".encode())
        if events and events[0][0] is None:
            self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()
        self.close_connection = True

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/v1/models":
            self._send_json(
                200, {"object": "list", "data": [{"id": "gpt-4.1-mini", "object": "model"}]}
            )
            return
        self._send_json(404, {"error": {"message": f"no GET {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        path = self.path.split("?")[0].rstrip("/")
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {"unreadable": raw.decode(errors="replace")}
        if path not in MODEL_PATHS:
            self._send_json(404, {"error": {"message": f"no POST {path}"}})
            return
        recorded = Recorded(path, body)
        reply = self.server.script.take(recorded)
        model = str(body.get("model", "gpt-4.1-mini"))
        if reply is None:
            reply = Failure(500, "windowmem's model server has no scripted reply left")
        if isinstance(reply, Text) and reply.delay:
            time.sleep(reply.delay)  # the run stays open: a second message can arrive meanwhile
        if isinstance(reply, Failure):
            error = {"message": reply.message, "type": "server_error", "param": None, "code": None}
            self._send_json(reply.status, {"error": error})
            return
        if path == "/v1/responses":
            if recorded.streamed:
                self._send_events(list(response_events(reply, model)))
            else:
                self._send_json(200, response(reply, model))
        elif recorded.streamed:
            self._send_events([(None, c) for c in chat_completion_chunks(reply, model)])
        else:
            self._send_json(200, chat_completion(reply, model))


class ModelServer(ThreadingHTTPServer):
    """The recording server, on a free port of 127.0.0.1; ``url`` is the Base URL n8n gets."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script = Script()
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def start(self) -> ModelServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
