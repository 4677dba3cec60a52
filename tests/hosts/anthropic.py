"""Anthropic's Messages API as Claude Code speaks it: `POST /v1/messages`, streamed as SSE.

A streamed answer is `message_start` (with the usage that becomes the transcript's context
position), one `content_block_start` / `content_block_delta` / `content_block_stop` per text or
tool-use block (`text_delta`, `input_json_delta`), `message_delta` with the stop reason, and
`message_stop`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.hosts.model import Reply, send_json, sse

MODEL = "claude-opus-5-5"


class MessagesAPI:
    def is_conversation(self, path: str, body: dict[str, Any]) -> bool:
        # The agent's own requests (the main chain and subagents) carry its tools.
        return path.startswith("/v1/messages") and bool(body.get("tools"))

    def answer(
        self, handler: BaseHTTPRequestHandler, body: dict[str, Any], reply: Reply, response_id: str
    ) -> None:
        message_id = f"msg_{response_id}"
        blocks = _blocks(reply, message_id)
        stop = "tool_use" if reply.stops_for_tools else "end_turn"
        usage = {
            "input_tokens": reply.tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 20,
        }
        model = body.get("model") or MODEL
        if not body.get("stream"):
            send_json(
                handler,
                {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": blocks,
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": usage,
                },
            )
            return
        sse(handler, _stream(message_id, model, blocks, stop, usage))


def _blocks(reply: Reply, message_id: str) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if reply.text:
        blocks.append({"type": "text", "text": reply.text})
    for i, tool in enumerate(reply.calls):
        blocks.append(
            {
                "type": "tool_use",
                "id": f"toolu_{message_id}_{i}",
                "name": tool.name,
                "input": tool.input,
            }
        )
    return blocks


def _stream(
    message_id: str, model: str, blocks: list[dict[str, Any]], stop: str, usage: dict[str, int]
) -> Iterator[tuple[str, dict[str, Any]]]:
    start_usage = {**usage, "output_tokens": 1}
    yield (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": start_usage,
            },
        },
    )
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            opened = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            opened = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": opened},
        )
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": None},
            "usage": {"output_tokens": usage["output_tokens"]},
        },
    )
    yield "message_stop", {"type": "message_stop"}
