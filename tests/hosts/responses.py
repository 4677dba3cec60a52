"""OpenAI's Responses API as Codex speaks it to a custom provider (`wire_api = "responses"`).

Codex POSTs `/v1/responses` with `stream: true` and reads server-sent events, each one's data a
JSON object whose `type` repeats the event name: `response.created`, then per output item
`response.output_item.added` and `response.output_item.done` (a `function_call` with its
`call_id`, `name` and `arguments` as a JSON string, or an assistant `message` whose content is
`output_text`), and `response.completed` with the response `id` and its `usage`. Text deltas
(`response.output_text.delta`) are optional: Codex takes an item's text from its `done` event.
The stream must reach `response.completed` before it closes, or Codex retries the request.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.hosts.model import Reply, send_json, sse

MODEL = "gpt-5.5-codex"
# The shell tool of Codex 0.171.0 (its `tools` in every request): `cmd` is run by a shell,
# `login` (default true) makes that a login shell, `workdir` is the directory it runs in.
SHELL = "exec_command"


class ResponsesAPI:
    def is_conversation(self, path: str, body: dict[str, Any]) -> bool:
        # The agent's turns carry its tools; nothing else Codex asks for does.
        return path.split("?")[0].endswith("/responses") and bool(body.get("tools"))

    def answer(
        self, handler: BaseHTTPRequestHandler, body: dict[str, Any], reply: Reply, response_id: str
    ) -> None:
        rid = f"resp_{response_id}"
        items = _items(reply, rid)
        usage = {
            "input_tokens": reply.tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 20,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": reply.tokens + 20,
        }
        model = body.get("model") or MODEL
        if not body.get("stream"):
            send_json(handler, _response(rid, model, "completed", items, usage))
            return
        sse(handler, _stream(rid, model, items, usage))


def _items(reply: Reply, rid: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    if reply.text:
        items.append(
            {
                "type": "message",
                "id": f"msg_{rid}",
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": reply.text, "annotations": []}],
            }
        )
    for i, tool in enumerate(reply.calls):
        items.append(
            {
                "type": "function_call",
                "id": f"fc_{rid}_{i}",
                "status": "completed",
                "call_id": f"call_{rid}_{i}",
                "name": tool.name,
                "arguments": json.dumps(tool.input),
            }
        )
    return items


def _response(
    rid: str, model: str, status: str, output: list[dict[str, Any]], usage: dict[str, Any] | None
) -> dict[str, Any]:
    return {
        "id": rid,
        "object": "response",
        "status": status,
        "model": model,
        "output": output,
        "usage": usage,
    }


def _stream(
    rid: str, model: str, items: list[dict[str, Any]], usage: dict[str, Any]
) -> Iterator[tuple[str, dict[str, Any]]]:
    yield (
        "response.created",
        {"type": "response.created", "response": _response(rid, model, "in_progress", [], None)},
    )
    for index, item in enumerate(items):
        opened = {**item, "status": "in_progress"}
        if item["type"] == "message":
            opened["content"] = []
        else:
            opened["arguments"] = ""
        yield (
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": index, "item": opened},
        )
        if item["type"] == "message":
            yield (
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": index,
                    "content_index": 0,
                    "delta": item["content"][0]["text"],
                },
            )
        yield (
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": index, "item": item},
        )
    yield (
        "response.completed",
        {
            "type": "response.completed",
            "response": _response(rid, model, "completed", items, usage),
        },
    )
