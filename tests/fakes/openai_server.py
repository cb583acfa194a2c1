"""A fake OpenAI-compatible server (what Ollama, vLLM, llama.cpp and LM Studio serve).

Routes, as the ``openai`` SDK calls them (base URL ``{url}/v1``):

```
POST /v1/chat/completions   JSON, or SSE chunks ending in ``data: [DONE]`` with "stream": true
GET  /v1/models             the served models (the start-up check)
```

A key is optional, as on a self-hosted server: with ``api_key`` set, only that bearer token
is accepted. Usage comes back as ``prompt_tokens``/``completion_tokens`` with
``prompt_tokens_details.cached_tokens`` for a repeated prefix (as vLLM's prefix cache
reports it); a stream carries it in a last chunk only when ``stream_options.include_usage``
asks for it. Errors are OpenAI's ``{"error": {"message", "type", "param", "code"}}``;
mid-stream errors a ``data: {"error": ...}`` chunk.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
import time
from typing import Any

from aiohttp import web

from tests.fakes.base import (
    DISCONNECT,
    Body,
    FakeServer,
    Outage,
    ScriptedError,
    StreamFailure,
    deltas,
    fake_tokens,
)

_TYPES = {400: "invalid_request_error", 401: "authentication_error", 404: "invalid_request_error"}


class FakeOpenAI(FakeServer):
    """The fake chat completions server.

    Attributes:
        models: the model ids ``/v1/models`` lists and completions accept.
        api_key: when set, the only bearer token accepted; otherwise none is needed.
        report_usage: ``False`` for a server that never reports usage.
    """

    name = "fake-openai"
    OUTAGES = {
        Outage.RATE_LIMITED: ScriptedError(429, "rate_limit_exceeded", "Rate limit reached"),
        Outage.OVERLOADED: ScriptedError(503, "server_error", "The server is overloaded"),
        Outage.SERVER_ERROR: ScriptedError(500, "server_error", "Internal server error"),
        Outage.TIMEOUT: ScriptedError(504, "timeout", "Gateway timeout"),
        Outage.BAD_REQUEST: ScriptedError(400, "context_length_exceeded", "Too long"),
        Outage.BAD_KEY: ScriptedError(401, "invalid_api_key", "Incorrect API key provided"),
        Outage.FORBIDDEN: ScriptedError(403, "permission_denied", "Not allowed"),
        Outage.NOT_FOUND: ScriptedError(404, "model_not_found", "The model does not exist"),
    }
    STREAM_OUTAGES = {
        Outage.OVERLOADED: "unavailable_error",
        Outage.RATE_LIMITED: "rate_limit_exceeded",
        Outage.SERVER_ERROR: "server_error",
        Outage.BAD_REQUEST: "invalid_request_error",
    }

    def reset(self) -> None:
        """Forget requests, scripts, the prefix cache and settings."""
        super().reset()
        with self._lock:
            self._cached: set[str] = set()
        self.models = ["llama3.1:8b", "qwen2.5:7b-instruct"]
        self.api_key: str | None = None
        self.report_usage = True
        self.list_models = True
        """``False``: a server without ``/v1/models`` (404, as some minimal servers)."""

    @property
    def base_url(self) -> str:
        """The SDK's ``base_url`` for this fake."""
        return f"{self.url}/v1"

    @staticmethod
    def last_user_text(body: Body) -> str:
        """The text of the last user message of a request body."""
        users = [m for m in body.get("messages", ()) if m.get("role") == "user"]
        return _text(users[-1].get("content", "")) if users else ""

    def all_text_sent(self) -> str:
        """Every message text (system prompt included) the fake received, joined."""
        return "\n".join(
            _text(m.get("content", "")) for r in self.requests for m in r.body.get("messages", ())
        )

    def images_sent(self) -> list[tuple[str, bytes]]:
        """Every ``image_url`` data URL received, ``(media_type, decoded bytes)``, oldest first."""
        found: list[tuple[str, bytes]] = []
        for request in self.requests:
            for message in request.body.get("messages", ()):
                for part in _parts(message.get("content"), "image_url"):
                    head, data = part["image_url"]["url"].split(",", 1)
                    found.append((head.removeprefix("data:").split(";")[0], base64.b64decode(data)))
        return found

    def _routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/chat/completions", self._completions)
        app.router.add_get("/v1/models", self._list_models)

    async def _list_models(self, request: web.Request) -> web.Response:
        await self._record(request, check=True)
        if not self.list_models:
            return web.json_response({"error": "not found"}, status=404)
        if (problem := self._check_auth(request)) is not None:
            return problem
        data = [
            {"id": m, "object": "model", "created": 0, "owned_by": "local"} for m in self.models
        ]
        return web.json_response({"object": "list", "data": data})

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        body, _ = await self._record(request)
        if (problem := self._check_auth(request)) is not None:
            return problem
        if (problem := self._check_body(body)) is not None:
            return problem
        streaming = bool(body.get("stream"))
        scripted = self._next_error(streaming=streaming)
        if isinstance(scripted, ScriptedError):
            return self._error_response(scripted)
        text = self._next_answer(body)
        if not await self._wait():
            return self._error_response(ScriptedError(500, "server_error", "fake was reset"))
        if streaming:
            return await self._stream(request, body, text, scripted)
        return web.json_response(self._completion(body, text))

    def _check_auth(self, request: web.Request) -> web.Response | None:
        if self.api_key is None:
            return None
        if request.headers.get("Authorization") == f"Bearer {self.api_key}":
            return None
        return self._error_response(self.OUTAGES[Outage.BAD_KEY])

    def _check_body(self, body: Body) -> web.Response | None:
        messages = body.get("messages") or []
        if body.get("model") not in self.models:
            return self._error_response(self.OUTAGES[Outage.NOT_FOUND])
        roles_ok = all(m.get("role") in ("system", "user", "assistant") for m in messages)
        texts_ok = all(_text(m.get("content")).strip() for m in messages)
        images_ok = all(
            _DATA_URL.match(str(p.get("image_url", {}).get("url", "")))
            for m in messages
            for p in _parts(m.get("content"), "image_url")
        )
        if not messages or not roles_ok or not texts_ok or not images_ok:
            return self._error_response(ScriptedError(400, "invalid_request_error", "bad messages"))
        return None

    def _error_response(self, error: ScriptedError) -> web.Response:
        kind = _TYPES.get(error.status, "server_error" if error.status >= 500 else "requests")
        body = {
            "error": {"message": error.message, "type": kind, "param": None, "code": error.type}
        }
        return web.json_response(body, status=error.status, headers=error.headers)

    def _usage(self, body: Body, text: str) -> dict[str, Any]:
        messages = body["messages"]
        prompt = sum(fake_tokens(_text(m["content"])) for m in messages)
        prefix = json.dumps(messages[:-1])
        key = hashlib.sha256(f"{body['model']}\x00{prefix}".encode()).hexdigest()
        with self._lock:  # a prefix seen before is served from the cache
            hit = len(messages) > 1 and key in self._cached
            self._cached.add(key)
        cached = sum(fake_tokens(_text(m["content"])) for m in messages[:-1]) if hit else 0
        completion = fake_tokens(text)
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached},
        }

    def _completion(self, body: Body, text: str) -> Body:
        answer: Body = {
            "id": f"chatcmpl-fake{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                    "logprobs": None,
                }
            ],
        }
        if self.report_usage:
            answer["usage"] = self._usage(body, text)
        return answer

    def _chunk(self, body: Body, delta: Body, finish: str | None = None) -> Body:
        return {
            "id": "chatcmpl-fake-stream",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body["model"],
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
        }

    async def _stream(
        self, request: web.Request, body: Body, text: str, failure: Any
    ) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)

        async def send(data: Body | str) -> None:
            payload = data if isinstance(data, str) else json.dumps(data)
            await response.write(f"data: {payload}\n\n".encode())

        await send(self._chunk(body, {"role": "assistant", "content": ""}))
        for n, piece in enumerate(deltas(text)):
            if isinstance(failure, StreamFailure) and n == failure.after_deltas:
                break
            if self.delta_delay:
                await asyncio.sleep(self.delta_delay)
            await send(self._chunk(body, {"content": piece}))
        if isinstance(failure, StreamFailure):
            if failure.type == DISCONNECT:
                if request.transport is not None:
                    request.transport.abort()
                return response
            error = {"message": failure.message, "type": failure.type, "param": None, "code": None}
            await send({"error": error})
            await response.write_eof()
            return response
        await send(self._chunk(body, {}, finish="stop"))
        wants_usage = (body.get("stream_options") or {}).get("include_usage")
        if self.report_usage and wants_usage:
            await send({**self._chunk(body, {}), "choices": [], "usage": self._usage(body, text)})
        await send("[DONE]")
        await response.write_eof()
        return response


_DATA_URL = re.compile(r"^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*$")


def _parts(content: Any, kind: str) -> list[Body]:
    """The content parts of one kind (``text``, ``image_url``); none in a plain string."""
    if not isinstance(content, list):
        return []
    return [p for p in content if isinstance(p, dict) and p.get("type") == kind]


def _text(content: Any) -> str:
    """A message's text: the string itself, or its ``text`` parts joined."""
    if isinstance(content, str):
        return content
    return "".join(str(p.get("text", "")) for p in _parts(content, "text"))
