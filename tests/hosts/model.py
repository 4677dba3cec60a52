"""A scripted stand-in for a model API on 127.0.0.1, for driving real agent hosts.

The host under test sends its requests here instead of to a model. The conversation's requests
take their answers from a script, in order (`Reply`: text and tool calls, and the context size to
report as usage); anything else the host POSTs, and every request once the script is spent, gets
a short text answer, which ends the host's turn; a GET is answered 404. Every request is recorded,
so a test can assert what reached the model. The wire format is a `Protocol` (Anthropic's
Messages API, OpenAI's Responses API); nothing here listens beyond loopback.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from typing import Protocol as TypingProtocol

DONE_TEXT = "Done."


@dataclass(frozen=True)
class ToolCall:
    """One tool call the model makes: the host's tool name and its input."""

    name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    """One answer of the model: text, then tool calls; `tokens` is the context size reported."""

    text: str = ""
    calls: tuple[ToolCall, ...] = ()
    tokens: int = 1_000

    @property
    def stops_for_tools(self) -> bool:
        return bool(self.calls)


def say(text: str, *, tokens: int = 1_000) -> Reply:
    return Reply(text=text, tokens=tokens)


def call(name: str, tokens: int = 1_000, text: str = "", **tool_input: Any) -> Reply:
    """A reply that makes one tool call."""
    return Reply(text=text, calls=(ToolCall(name, tool_input),), tokens=tokens)


@dataclass
class Request:
    """One request the host sent: its path and body, and the body as text to search."""

    path: str
    body: dict[str, Any]
    answered: Reply | None = None  # the scripted reply it got, None for a default answer
    method: str = "POST"
    text: str = field(init=False)

    def __post_init__(self) -> None:
        self.text = json.dumps(self.body, ensure_ascii=False)

    def opens_with(self, text: str) -> bool:
        """True when the conversation's first message holds `text` (a subagent's brief)."""
        messages = self.body.get("messages")
        if not isinstance(messages, list) or not messages:
            return False
        return text in json.dumps(messages[0], ensure_ascii=False)

    def count(self, needle: str) -> int:
        """How many times `needle` occurs in the request, as the model would read it."""
        return self.text.count(json.dumps(needle, ensure_ascii=False)[1:-1])


Step = Reply | Callable[[Request], Reply]


class Protocol(TypingProtocol):
    """A model API's wire format."""

    def is_conversation(self, path: str, body: dict[str, Any]) -> bool:
        """True for a request of the agent's conversation (it takes a scripted answer)."""

    def answer(
        self, handler: BaseHTTPRequestHandler, body: dict[str, Any], reply: Reply, response_id: str
    ) -> None:
        """Write `reply` as the HTTP response to the request `body`."""


class ModelServer:
    """The stand-in: a threaded HTTP server on a free loopback port, recording every request."""

    def __init__(self, protocol: Protocol) -> None:
        self.protocol = protocol
        self.requests: list[Request] = []
        self.conversation: list[Request] = []
        self._steps: list[Step] = []
        self._routes: list[tuple[Callable[[Request], bool], Step]] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, *steps: Step) -> None:
        """Queue the answers to the conversation's next requests."""
        with self._lock:
            self._steps.extend(steps)

    def answer_when(self, matches: Callable[[Request], bool], step: Step) -> None:
        """Answer the first conversation request that `matches` with `step`, outside the
        script's order: for a party whose requests race the main chain's (a subagent)."""
        with self._lock:
            self._routes.append((matches, step))

    @property
    def pending(self) -> int:
        """Scripted answers not yet taken."""
        return len(self._steps) + len(self._routes)

    def __enter__(self) -> ModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _note(self, request: Request) -> None:
        """Record a request that takes no answer from the script (a GET, a HEAD)."""
        with self._lock:
            self.requests.append(request)

    def _next(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            if not self.protocol.is_conversation(request.path, request.body):
                return say("ok")
            self.conversation.append(request)
            routed = next((r for r in self._routes if r[0](request)), None)
            if routed is not None:
                self._routes.remove(routed)
                step = routed[1]
            elif not self._steps:
                return say(DONE_TEXT)
            else:
                step = self._steps.pop(0)
        reply = step(request) if callable(step) else step
        request.answered = reply
        return reply

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass  # the recorded requests are the log

            def do_GET(self) -> None:
                server._note(Request(self.path, {}, method="GET"))
                self._empty(404)

            def do_HEAD(self) -> None:
                server._note(Request(self.path, {}, method="HEAD"))
                self._empty(200)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"unparsed": raw.decode("utf-8", "replace")}
                if not isinstance(body, dict):
                    body = {"value": body}
                request = Request(self.path, body)
                reply = server._next(request)
                server.protocol.answer(self, body, reply, f"{next(server._ids):04d}")

            def _empty(self, code: int) -> None:
                self.send_response(code)
                self.send_header("content-length", "0")
                self.end_headers()

        return Handler


def sse(handler: BaseHTTPRequestHandler, events: Iterator[tuple[str, dict[str, Any]]]) -> None:
    """Write a complete server-sent-events response and close the connection."""
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    handler.send_header("cache-control", "no-cache")
    handler.send_header("connection", "close")
    handler.end_headers()
    for name, data in events:
        handler.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
    handler.wfile.flush()
    handler.close_connection = True


def send_json(handler: BaseHTTPRequestHandler, data: dict[str, Any]) -> None:
    payload = json.dumps(data).encode()
    handler.send_response(200)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)
