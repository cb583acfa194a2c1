"""A fake Anthropic Messages API on 127.0.0.1, driven by the real ``anthropic`` SDK in tests.

The server runs aiohttp on its own event loop in a background thread (``tests.fakes.base``),
so sync tests, async tests and subprocesses can all use it. It records every request, answers
with the real JSON and SSE shapes, simulates prompt caching from the ``cache_control``
breakpoints it receives, and can be scripted: answers, delays, HTTP errors before a success,
errors mid-stream. ``GET /v1/models/{id}`` answers the start-up check.

Vertex AI and Bedrock serve the same Messages bodies on other routes and wire formats: their
fakes (``vertex_server``, ``bedrock_server``) extend this one.

Run it alone with ``python -m tests.fakes.anthropic_server`` (prints its URL).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from tests.fakes.base import (
    CUT_SHORT,
    DISCONNECT,
    Body,
    FakeServer,
    Outage,
    ScriptedError,
    StreamFailure,
    deltas,
    fake_tokens,
)

__all__ = [
    "DISCONNECT",
    "FakeAnthropic",
    "Outage",
    "ToolCalls",
    "block_text",
    "last_tool_results",
    "last_user_text",
]

IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
"""The media types the Messages API takes in a base64 image source."""

KNOWN_MODELS = ("claude-sonnet-4", "claude-haiku-4-5", "claude-opus-4", "claude-3")
"""Model id prefixes the fakes serve; any other model is not found."""


def block_text(content: Any) -> str:
    """The text of a ``content``/``system`` value: a string or a list of text blocks."""
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or () if isinstance(b, dict))


def last_user_text(body: Body) -> str:
    """The text of the last user message of a request body."""
    users = [m for m in body.get("messages", ()) if m.get("role") == "user"]
    return block_text(users[-1].get("content")) if users else ""


@dataclass(frozen=True)
class ToolCalls:
    """A scripted answer that asks for tools: ``stop_reason`` ``tool_use``.

    ``calls``: ``(tool name, input object)`` in order; ``text`` comes before them. A request
    with ``tool_choice`` ``none`` gets the text alone (the real API then writes no calls).
    """

    calls: tuple[tuple[str, Body], ...]
    text: str = ""


def last_tool_results(body: Body) -> list[Body]:
    """The ``tool_result`` blocks of a request's last message (none when it holds none)."""
    messages = body.get("messages") or [{}]
    return _blocks_of(messages[-1].get("content"), "tool_result")


def _blocks_of(content: Any, kind: str) -> list[Body]:
    if isinstance(content, str):
        return []
    return [b for b in content or () if isinstance(b, dict) and b.get("type") == kind]


def _tool_pairs_ok(messages: list[Body]) -> bool:
    """Every ``tool_result`` answers a ``tool_use`` of the message before it, and each
    ``tool_use`` is answered by the next message, as the Messages API demands."""
    for i, message in enumerate(messages):
        asked = {b.get("id") for b in _blocks_of(message.get("content"), "tool_use")}
        if asked and message.get("role") != "assistant":
            return False
        answered = {b.get("tool_use_id") for b in _blocks_of(message.get("content"), "tool_result")}
        before = messages[i - 1] if i else {}
        earlier = {b.get("id") for b in _blocks_of(before.get("content"), "tool_use")}
        if answered and (message.get("role") != "user" or answered != earlier):
            return False
        if asked:
            after = messages[i + 1] if i + 1 < len(messages) else None
            if after is None:
                return False
            replies = {
                b.get("tool_use_id") for b in _blocks_of(after.get("content"), "tool_result")
            }
            if replies != asked:
                return False
    return True


def _tools_ok(body: Body) -> bool:
    """The ``tools`` definitions, and that tool blocks come only with tools defined."""
    tools = body.get("tools")
    used = any(
        _blocks_of(m.get("content"), "tool_use") or _blocks_of(m.get("content"), "tool_result")
        for m in body.get("messages") or ()
    )
    if tools is None:
        return not used and "tool_choice" not in body
    if not isinstance(tools, list) or not tools:
        return False
    for tool in tools:
        name = tool.get("name") if isinstance(tool, dict) else None
        if not isinstance(name, str) or not re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", name):
            return False
        if not isinstance(tool.get("input_schema"), dict):
            return False
    return True


def _content_ok(content: Any) -> bool:
    """A message's content: non-blank text, or blocks with non-blank text blocks."""
    if isinstance(content, str):
        return bool(content.strip())
    if not isinstance(content, list) or not content:
        return False
    return all(b.get("text", "").strip() for b in content if b.get("type") == "text")


def _image_blocks(content: Any) -> list[Body]:
    """The ``image`` blocks of a message's content (none in a plain string)."""
    if isinstance(content, str):
        return []
    return [b for b in content or () if isinstance(b, dict) and b.get("type") == "image"]


def _valid_image(block: Body) -> bool:
    """What the Messages API checks of a base64 image source: type, media type, base64 data."""
    source = block.get("source")
    if not isinstance(source, dict) or source.get("type") != "base64":
        return False
    if source.get("media_type") not in IMAGE_TYPES or not isinstance(source.get("data"), str):
        return False
    try:
        return bool(base64.b64decode(source["data"], validate=True))
    except binascii.Error:
        return False


def error_body(kind: str, message: str) -> Body:
    """Anthropic's error body."""
    return {"type": "error", "error": {"type": kind, "message": message}}


def _sse(event: str, data: Body) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


class FakeAnthropic(FakeServer):
    """The fake Messages API. Configure the public attributes, or use the helper methods.

    Attributes:
        usage: when set, fixed usage numbers merged over the simulated ones.
        api_key: when set, the only key accepted; otherwise any non-empty key is.
    """

    name = "fake-anthropic"
    OUTAGES = {
        Outage.RATE_LIMITED: ScriptedError(429, "rate_limit_error"),
        Outage.OVERLOADED: ScriptedError(529, "overloaded_error"),
        Outage.SERVER_ERROR: ScriptedError(500, "api_error"),
        Outage.TIMEOUT: ScriptedError(504, "timeout_error"),
        Outage.BAD_REQUEST: ScriptedError(400, "invalid_request_error"),
        Outage.BAD_KEY: ScriptedError(401, "authentication_error"),
        Outage.FORBIDDEN: ScriptedError(403, "permission_error"),
        Outage.NOT_FOUND: ScriptedError(404, "not_found_error"),
    }
    STREAM_OUTAGES = {
        Outage.OVERLOADED: "overloaded_error",
        Outage.RATE_LIMITED: "rate_limit_error",
        Outage.SERVER_ERROR: "api_error",
        Outage.BAD_REQUEST: "invalid_request_error",
    }

    def reset(self) -> None:
        """Forget recorded requests, scripts, cache state and settings."""
        super().reset()
        with self._lock:
            self._cached: set[str] = set()
        self.usage: dict[str, int] | None = None
        self.api_key: str | None = None
        self.model_lookup = True
        """``False``: a gateway that serves ``/v1/messages`` only (404 on a model lookup)."""

    @staticmethod
    def last_user_text(body: Body) -> str:
        """The text of the last user message of a request body."""
        return last_user_text(body)

    def all_text_sent(self) -> str:
        """Every system and message text the fake received, joined (for PII scans)."""
        parts: list[str] = []
        for request in self.requests:
            parts.append(block_text(request.body.get("system", "")))
            parts.extend(block_text(m.get("content")) for m in request.body.get("messages", ()))
        return "\n".join(parts)

    def images_sent(self) -> list[tuple[str, bytes]]:
        """Every image block received, ``(media_type, decoded bytes)``, oldest first."""
        found: list[tuple[str, bytes]] = []
        for request in self.requests:
            for message in request.body.get("messages", ()):
                for block in _image_blocks(message.get("content")):
                    source = block["source"]
                    found.append((source["media_type"], base64.b64decode(source["data"])))
        return found

    def _routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/messages", self._messages)
        app.router.add_get("/v1/models/{model}", self._model_info)

    # handling ------------------------------------------------------------------------
    async def _messages(self, request: web.Request) -> web.StreamResponse:
        body, _ = await self._record(request)
        if (problem := self._check_auth(request)) is not None:
            return problem
        if request.content_type != "application/json" or "anthropic-version" not in request.headers:
            # the real API requires both headers on every Messages request
            return self._error_response(
                ScriptedError(
                    400, "invalid_request_error", "content-type and anthropic-version required"
                )
            )
        model = body.get("model")
        streaming = bool(body.get("stream"))
        return await self._reply(request, body, model, streaming=streaming)

    async def _model_info(self, request: web.Request) -> web.Response:
        await self._record(request, check=True)
        if not self.model_lookup:
            return web.Response(status=404, text="404 page not found")
        if (problem := self._check_auth(request)) is not None:
            return problem
        model = request.match_info["model"]
        if not model.startswith(KNOWN_MODELS):
            return self._error_response(self.OUTAGES[Outage.NOT_FOUND])
        info = {"type": "model", "id": model, "display_name": model, "created_at": "2026-01-01"}
        return web.json_response(info)

    async def _reply(
        self, request: web.Request, body: Body, model: Any, *, streaming: bool
    ) -> web.StreamResponse:
        """Check the Messages body, then answer it (or fail as scripted)."""
        if (problem := self._check_body(body, model)) is not None:
            return problem
        scripted = self._next_error(streaming=streaming)
        if isinstance(scripted, ScriptedError):
            return self._error_response(scripted)
        answer: Any = self._next_answer(body)
        calls: tuple[tuple[str, Body], ...] = ()
        if isinstance(answer, ToolCalls):
            no_tools = (body.get("tool_choice") or {}).get("type") == "none"
            calls = () if no_tools or not body.get("tools") else answer.calls
            answer = answer.text
        text = str(answer)
        if not await self._wait():  # reset while waiting: the client has moved on
            return self._error_response(ScriptedError(500, "api_error", "fake was reset"))
        if streaming:
            return await self._stream(request, body, model, text, scripted, calls)
        usage = self._usage(body, model, text + json.dumps(calls))
        message = self._message(model, text, usage)
        if calls:
            message["content"] += [self._tool_block(name, data) for name, data in calls]
            message["stop_reason"] = "tool_use"
        return web.json_response(message, headers=self._response_headers(usage))

    def _tool_block(self, name: str, data: Body) -> Body:
        return {
            "type": "tool_use",
            "id": f"toolu_fake_{next(self._ids)}",
            "name": name,
            "input": data,
        }

    def _check_auth(self, request: web.Request) -> web.Response | None:
        key = request.headers.get("x-api-key") or request.headers.get(
            "Authorization", ""
        ).removeprefix("Bearer ")
        if key and (self.api_key is None or key == self.api_key):
            return None
        return self._error_response(ScriptedError(401, "authentication_error", "invalid x-api-key"))

    def _check_body(self, body: Body, model: Any) -> web.Response | None:
        messages = body.get("messages")
        problems = [
            not isinstance(model, str),
            not isinstance(body.get("max_tokens"), int),
            not messages,
            any(m.get("role") not in ("user", "assistant") for m in messages or ()),
            any(not _content_ok(m.get("content")) for m in messages or ()),
            not _tools_ok(body),
            not _tool_pairs_ok(messages or []),
            any(
                not _valid_image(b) for m in messages or () for b in _image_blocks(m.get("content"))
            ),
            any(
                _image_blocks(m.get("content")) and m.get("role") != "user" for m in messages or ()
            ),
        ]
        if any(problems):
            return self._error_response(
                ScriptedError(400, "invalid_request_error", "invalid request")
            )
        return None

    def _response_headers(self, usage: dict[str, int]) -> dict[str, str]:
        return {"request-id": self._request_id()}

    def _error_response(self, error: ScriptedError) -> web.Response:
        headers = {"request-id": self._request_id(), **error.headers}
        return web.json_response(
            error_body(error.type, error.message), status=error.status, headers=headers
        )

    def _usage(self, body: Body, model: str, answer: str) -> dict[str, int]:
        """Simulated usage: the prefix up to the last breakpoint is written, then read."""
        texts = [block_text(body.get("system", ""))] + [
            block_text(m.get("content")) or json.dumps(m.get("content")) for m in body["messages"]
        ]
        marks = [
            i
            for i, b in enumerate(self._blocks(body))
            if isinstance(b, dict) and b.get("cache_control")
        ]
        prefix = "\x00".join(texts[: marks[-1] + 1]) if marks else ""
        rest = sum(fake_tokens(t) for t in texts) - fake_tokens(prefix)
        key = hashlib.sha256(f"{model}\x00{prefix}".encode()).hexdigest()
        with self._lock:
            hit = bool(prefix) and key in self._cached
            self._cached.add(key)
        usage = {
            "input_tokens": max(rest, 1),
            "output_tokens": fake_tokens(answer),
            "cache_creation_input_tokens": 0 if hit else fake_tokens(prefix),
            "cache_read_input_tokens": fake_tokens(prefix) if hit else 0,
        }
        return {**usage, **(self.usage or {})}

    @staticmethod
    def _blocks(body: Body) -> list[Any]:
        """One entry per text unit (system, then each message): its last block, if any."""
        units = [body.get("system", "")] + [m.get("content") for m in body["messages"]]
        return [u[-1] if isinstance(u, list) and u else None for u in units]

    def _message(self, model: str, text: str, usage: dict[str, int]) -> Body:
        return {
            "id": f"msg_fake_{next(self._ids)}",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": text}] if text else [],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": usage,
        }

    def _opening(self, model: str, usage: dict[str, int]) -> list[Body]:
        """The events before the text: message start, a ping, the text block's start."""
        start = self._message(model, "", {**usage, "output_tokens": 1})
        start["stop_reason"] = None
        block = {"type": "text", "text": ""}
        return [
            {"type": "message_start", "message": start},
            {"type": "ping"},
            {"type": "content_block_start", "index": 0, "content_block": block},
        ]

    @staticmethod
    def _text_events(text: str) -> list[Body]:
        return [
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": d}}
            for d in deltas(text)
        ]

    @staticmethod
    def _closing(usage: dict[str, int]) -> list[Body]:
        return [
            {"type": "content_block_stop", "index": 0},
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": usage["output_tokens"]},
            },
            {"type": "message_stop"},
        ]

    async def _stream(
        self,
        request: web.Request,
        body: Body,
        model: str,
        text: str,
        failure: Any,
        calls: tuple[tuple[str, Body], ...] = (),
    ) -> web.StreamResponse:
        """Send the answer as events through ``_open_stream``/``_send``/``_send_error``."""
        response = await self._open_stream(request)
        usage = self._usage(body, model, text + (json.dumps(calls) if calls else ""))
        for event in self._opening(model, usage):
            await self._send(response, event)
        for n, event in enumerate(self._text_events(text)):
            if isinstance(failure, StreamFailure) and n == failure.after_deltas:
                break
            if self.delta_delay:
                await asyncio.sleep(self.delta_delay)
            await self._send(response, event)
        if isinstance(failure, StreamFailure):
            if failure.type == DISCONNECT:
                if request.transport is not None:
                    request.transport.abort()  # the connection drops without a proper end
                return response
            if failure.type == CUT_SHORT:
                await response.write_eof()
                return response
            await self._send_error(response, failure)
            await response.write_eof()
            return response
        closing = self._closing(usage)
        if calls:
            await self._send(response, closing.pop(0))  # the text block ends
            for index, (name, data) in enumerate(calls, start=1):
                for event in self._tool_events(index, self._tool_block(name, data)):
                    await self._send(response, event)
            closing[0]["delta"]["stop_reason"] = "tool_use"
        for event in closing:
            await self._send(response, event)
        await response.write_eof()
        return response

    @staticmethod
    def _tool_events(index: int, block: Body) -> list[Body]:
        """A ``tool_use`` block as the API streams it: its input in ``input_json_delta``s."""
        raw = json.dumps(block["input"])
        pieces = [raw[i : i + 7] for i in range(0, len(raw), 7)]
        start = {**block, "input": {}}
        return [
            {"type": "content_block_start", "index": index, "content_block": start},
            *(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": piece},
                }
                for piece in pieces
            ),
            {"type": "content_block_stop", "index": index},
        ]

    async def _open_stream(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-cache",
                "request-id": self._request_id(),
            }
        )
        await response.prepare(request)
        return response

    async def _send(self, response: web.StreamResponse, event: Body) -> None:
        await response.write(_sse(event["type"], event))

    async def _send_error(self, response: web.StreamResponse, failure: StreamFailure) -> None:
        await response.write(_sse("error", error_body(failure.type, failure.message)))


if __name__ == "__main__":  # pragma: no cover
    import time

    with FakeAnthropic() as fake:
        print(fake.url, flush=True)
        while True:
            time.sleep(3600)
