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

Tools: a request may define function ``tools`` (and ``tool_choice``); a scripted
``ToolCalls`` answer comes back as ``tool_calls`` (arguments as JSON text, streamed in
fragments by index) with ``finish_reason`` ``tool_calls``, unless ``tool_choice`` is
``none``. Each ``tool`` message must answer a call of the assistant message before it. With
``refuse_tools`` set, a request with tools gets the 400 Ollama gives for a model without tool
support.
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

from tests.fakes.anthropic_server import ToolCalls
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
        self.refuse_tools = False
        """``True``: a model without tool support (400 for any request with ``tools``)."""

    @property
    def base_url(self) -> str:
        """The SDK's ``base_url`` for this fake."""
        return f"{self.url}/v1"

    @staticmethod
    def last_user_text(body: Body) -> str:
        """The text of the last user message of a request body."""
        users = [m for m in body.get("messages", ()) if m.get("role") == "user"]
        return _text(users[-1].get("content", "")) if users else ""

    @staticmethod
    def last_tool_results(body: Body) -> list[Body]:
        """The ``tool`` messages at the end of a request body (none when it ends otherwise)."""
        found: list[Body] = []
        for message in reversed(body.get("messages") or ()):
            if message.get("role") != "tool":
                break
            found.insert(0, message)
        return found

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
        if self.refuse_tools and "tools" in body:
            refused = f"registry.ollama.ai/library/{body['model']} does not support tools"
            return self._error_response(ScriptedError(400, "api_error", refused))
        scripted = self._next_error(streaming=streaming)
        if isinstance(scripted, ScriptedError):
            return self._error_response(scripted)
        answer: Any = self._next_answer(body)
        calls: list[Body] = []
        if isinstance(answer, ToolCalls):
            if body.get("tools") and body.get("tool_choice") != "none":
                calls = [self._tool_call(name, data) for name, data in answer.calls]
            answer = answer.text
        text = str(answer)
        if not await self._wait():
            return self._error_response(ScriptedError(500, "server_error", "fake was reset"))
        if streaming:
            return await self._stream(request, body, text, scripted, calls)
        return web.json_response(self._completion(body, text, calls))

    def _tool_call(self, name: str, data: Body) -> Body:
        return {
            "id": f"call_fake_{next(self._ids)}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(data)},
        }

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
        roles_ok = all(m.get("role") in ("system", "user", "assistant", "tool") for m in messages)
        texts_ok = all(_text(m.get("content")).strip() or m.get("tool_calls") for m in messages)
        images_ok = all(
            _DATA_URL.match(str(p.get("image_url", {}).get("url", "")))
            for m in messages
            for p in _parts(m.get("content"), "image_url")
        )
        tools_ok = _tools_ok(body) and _tool_pairs_ok(messages)
        if not messages or not roles_ok or not texts_ok or not images_ok or not tools_ok:
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
        prompt = sum(fake_tokens(_text(m.get("content"))) for m in messages)
        prefix = json.dumps(messages[:-1])
        key = hashlib.sha256(f"{body['model']}\x00{prefix}".encode()).hexdigest()
        with self._lock:  # a prefix seen before is served from the cache
            hit = len(messages) > 1 and key in self._cached
            self._cached.add(key)
        cached = sum(fake_tokens(_text(m.get("content"))) for m in messages[:-1]) if hit else 0
        completion = fake_tokens(text)
        return {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached},
        }

    def _completion(self, body: Body, text: str, calls: list[Body]) -> Body:
        answer: Body = {
            "id": f"chatcmpl-fake{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": text or (None if calls else ""),
                        **({"tool_calls": calls} if calls else {}),
                    },
                    "finish_reason": "tool_calls" if calls else "stop",
                    "logprobs": None,
                }
            ],
        }
        if self.report_usage:
            answer["usage"] = self._usage(body, text + json.dumps(calls))
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
        self, request: web.Request, body: Body, text: str, failure: Any, calls: list[Body]
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
        for index, call in enumerate(calls):
            for delta in _call_deltas(index, call):
                await send(self._chunk(body, {"tool_calls": [delta]}))
        await send(self._chunk(body, {}, finish="tool_calls" if calls else "stop"))
        wants_usage = (body.get("stream_options") or {}).get("include_usage")
        if self.report_usage and wants_usage:
            usage = self._usage(body, text + json.dumps(calls))
            await send({**self._chunk(body, {}), "choices": [], "usage": usage})
        await send("[DONE]")
        await response.write_eof()
        return response


_DATA_URL = re.compile(r"^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+=*$")


def _call_deltas(index: int, call: Body) -> list[Body]:
    """A tool call as servers stream it: id and name first, the arguments' JSON in pieces."""
    first = {"index": index, "id": call["id"], "type": "function"}
    first["function"] = {"name": call["function"]["name"], "arguments": ""}
    arguments = call["function"]["arguments"]
    cut = max(len(arguments) // 3, 1)
    pieces = [arguments[i : i + cut] for i in range(0, len(arguments), cut)]
    return [first, *({"index": index, "function": {"arguments": p}} for p in pieces)]


def _tools_ok(body: Body) -> bool:
    """The function ``tools`` definitions, and tool messages and choice only with tools."""
    tools = body.get("tools")
    used = any(m.get("role") == "tool" or m.get("tool_calls") for m in body.get("messages") or ())
    if tools is None:
        return not used and "tool_choice" not in body
    if not isinstance(tools, list) or not tools:
        return False
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) else None
        if tool.get("type") != "function" or not isinstance(function, dict):
            return False
        name = function.get("name")
        if not isinstance(name, str) or not re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", name):
            return False
        if not isinstance(function.get("parameters"), dict):
            return False
    return body.get("tool_choice", "auto") in ("auto", "none", "required")


def _tool_pairs_ok(messages: list[Body]) -> bool:
    """Each ``tool`` message answers a call of the assistant message before its run, and
    every call is answered before the next non-tool message, as OpenAI's API demands."""
    waiting: set[str] = set()
    for message in messages:
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in waiting or not isinstance(message.get("content"), str):
                return False
            waiting.discard(call_id)
            continue
        if waiting:
            return False
        for call in message.get("tool_calls") or ():
            if role != "assistant" or not isinstance(
                call.get("function", {}).get("arguments"), str
            ):
                return False
            waiting.add(call.get("id"))
    return not waiting


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
