"""A fake Anthropic Messages API on 127.0.0.1, driven by the real ``anthropic`` SDK in tests.

The server runs aiohttp on its own event loop in a background thread, so sync tests, async
tests and subprocesses can all use it. It records every request, answers with the real JSON
and SSE shapes, simulates prompt caching from the ``cache_control`` breakpoints it receives,
and can be scripted: answers, delays, HTTP errors before a success, errors mid-stream.

Run it alone with ``python -m tests.fakes.anthropic_server`` (prints its URL).
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

Body = dict[str, Any]
DISCONNECT = "disconnect"
Responder = Callable[[Body], str]


@dataclass(frozen=True)
class RecordedRequest:
    """One request the fake received."""

    path: str
    headers: dict[str, str]
    body: Body


@dataclass(frozen=True)
class ScriptedError:
    """An HTTP error answered instead of the next request."""

    status: int
    type: str
    message: str = "scripted error"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class StreamFailure:
    """An ``error`` SSE event sent after ``after_deltas`` text deltas of the next stream.

    With ``type=DISCONNECT`` the connection is dropped instead.
    """

    type: str = "overloaded_error"
    after_deltas: int = 1
    message: str = "Overloaded"


def block_text(content: Any) -> str:
    """The text of a ``content``/``system`` value: a string or a list of text blocks."""
    if isinstance(content, str):
        return content
    return "".join(b.get("text", "") for b in content or () if isinstance(b, dict))


def last_user_text(body: Body) -> str:
    """The text of the last user message of a request body."""
    users = [m for m in body.get("messages", ()) if m.get("role") == "user"]
    return block_text(users[-1].get("content")) if users else ""


def default_answer(body: Body) -> str:
    """Deterministic answer: the last user text (placeholders included), prefixed."""
    return f"Noted: {last_user_text(body)}"


def fake_tokens(text: str) -> int:
    """A cheap, deterministic token count for usage numbers."""
    return max(1, len(text) // 4) if text else 0


def _error_body(kind: str, message: str) -> Body:
    return {"type": "error", "error": {"type": kind, "message": message}}


def _sse(event: str, data: Body) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


class FakeAnthropic:
    """The fake server. Configure the public attributes, or use the helper methods.

    Attributes:
        url: base URL to hand to the SDK (``http://127.0.0.1:PORT``); set by ``start``.
        responder: answer function of the request body; ``default_answer`` by default.
        delay: seconds to wait before answering (a slow model, or a client timeout).
        delta_delay: seconds between streamed text deltas.
        usage: when set, fixed usage numbers merged over the simulated ones.
        api_key: when set, the only key accepted; otherwise any non-empty key is.
    """

    def __init__(self) -> None:
        self.url = ""
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._ids = itertools.count(1)
        self.reset()

    # configuration -------------------------------------------------------------------
    def reset(self) -> None:
        """Forget recorded requests, scripts, cache state and settings."""
        with self._lock:
            self._requests: list[RecordedRequest] = []
            self._answers: deque[str] = deque()
            self._errors: deque[ScriptedError | StreamFailure] = deque()
            self._cached: set[str] = set()
            self._generation = getattr(self, "_generation", 0) + 1
        self.responder: Responder = default_answer
        self.delay = 0.0
        self.delta_delay = 0.0
        self.usage: dict[str, int] | None = None
        self.api_key: str | None = None

    def answer(self, *texts: str) -> None:
        """Queue scripted answers, used (in order) before the responder."""
        with self._lock:
            self._answers.extend(texts)

    def fail(self, status: int, kind: str, *, times: int = 1, **headers: str) -> None:
        """Queue ``times`` HTTP errors; headers by keyword, ``_`` for ``-``.

        Example: ``fake.fail(529, "overloaded_error", times=2, retry_after_ms="10")``.
        """
        scripted = ScriptedError(
            status, kind, headers={k.replace("_", "-"): v for k, v in headers.items()}
        )
        with self._lock:
            self._errors.extend([scripted] * times)

    def fail_mid_stream(self, kind: str = "overloaded_error", *, after_deltas: int = 1) -> None:
        """Make the next streamed answer break with an ``error`` event (or ``DISCONNECT``)."""
        with self._lock:
            self._errors.append(StreamFailure(kind, after_deltas))

    # inspection ----------------------------------------------------------------------
    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of the requests received so far, oldest first."""
        with self._lock:
            return list(self._requests)

    def all_text_sent(self) -> str:
        """Every system and message text the fake received, joined (for PII scans)."""
        parts: list[str] = []
        for request in self.requests:
            parts.append(block_text(request.body.get("system", "")))
            parts.extend(block_text(m.get("content")) for m in request.body.get("messages", ()))
        return "\n".join(parts)

    # lifecycle -----------------------------------------------------------------------
    def start(self) -> FakeAnthropic:
        """Start serving on a free loopback port; returns ``self``."""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="fake-anthropic", daemon=True
        )
        self._thread.start()
        port = asyncio.run_coroutine_threadsafe(self._serve(), self._loop).result(10)
        self.url = f"http://127.0.0.1:{port}"
        return self

    def stop(self) -> None:
        """Stop serving and join the thread."""
        if self._loop is None or self._thread is None:
            return
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()
        self._loop = self._thread = self._runner = None

    def __enter__(self) -> FakeAnthropic:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    async def _shutdown(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
        pending = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    async def _serve(self) -> int:
        app = web.Application()
        app.router.add_post("/v1/messages", self._messages)
        self._runner = web.AppRunner(app, shutdown_timeout=0.5, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        return int(self._runner.addresses[0][1])

    # handling ------------------------------------------------------------------------
    async def _messages(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        with self._lock:
            self._requests.append(RecordedRequest(request.path, dict(request.headers), body))
        if (problem := self._check_auth(request)) is not None:
            return problem
        if (problem := self._check_body(body)) is not None:
            return problem
        scripted = self._next_error(streaming=bool(body.get("stream")))
        if isinstance(scripted, ScriptedError):
            return self._error_response(scripted)
        text, generation = self._next_answer(body), self._generation
        if self.delay:
            await asyncio.sleep(self.delay)
        if generation != self._generation:  # reset while waiting: the client has moved on
            return self._error_response(ScriptedError(500, "api_error", "fake was reset"))
        if body.get("stream"):
            return await self._stream(request, body, text, scripted)
        return web.json_response(
            self._message(body, text, self._usage(body, text)), headers=self._ids_header()
        )

    def _check_auth(self, request: web.Request) -> web.Response | None:
        key = request.headers.get("x-api-key") or request.headers.get(
            "Authorization", ""
        ).removeprefix("Bearer ")
        if key and (self.api_key is None or key == self.api_key):
            return None
        return self._error_response(ScriptedError(401, "authentication_error", "invalid x-api-key"))

    def _check_body(self, body: Body) -> web.Response | None:
        messages = body.get("messages")
        problems = [
            not isinstance(body.get("model"), str),
            not isinstance(body.get("max_tokens"), int),
            not messages,
            any(m.get("role") not in ("user", "assistant") for m in messages or ()),
            any(not block_text(m.get("content")).strip() for m in messages or ()),
        ]
        if any(problems):
            return self._error_response(
                ScriptedError(400, "invalid_request_error", "invalid request")
            )
        return None

    def _next_error(self, *, streaming: bool) -> ScriptedError | StreamFailure | None:
        with self._lock:
            if self._errors and (streaming or isinstance(self._errors[0], ScriptedError)):
                return self._errors.popleft()
        return None

    def _next_answer(self, body: Body) -> str:
        with self._lock:
            if self._answers:
                return self._answers.popleft()
        return self.responder(body)

    def _ids_header(self) -> dict[str, str]:
        return {"request-id": f"req_fake_{next(self._ids)}"}

    def _error_response(self, error: ScriptedError) -> web.Response:
        headers = {**self._ids_header(), **error.headers}
        return web.json_response(
            _error_body(error.type, error.message), status=error.status, headers=headers
        )

    def _usage(self, body: Body, answer: str) -> dict[str, int]:
        """Simulated usage: the prefix up to the last breakpoint is written, then read."""
        texts = [block_text(body.get("system", ""))] + [
            block_text(m.get("content")) for m in body["messages"]
        ]
        marks = [
            i
            for i, b in enumerate(self._blocks(body))
            if isinstance(b, dict) and b.get("cache_control")
        ]
        prefix = "\x00".join(texts[: marks[-1] + 1]) if marks else ""
        rest = sum(fake_tokens(t) for t in texts) - fake_tokens(prefix)
        key = hashlib.sha256(f"{body['model']}\x00{prefix}".encode()).hexdigest()
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

    def _message(self, body: Body, text: str, usage: dict[str, int]) -> Body:
        return {
            "id": f"msg_fake_{next(self._ids)}",
            "type": "message",
            "role": "assistant",
            "model": body["model"],
            "content": [{"type": "text", "text": text}] if text else [],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": usage,
        }

    async def _stream(
        self, request: web.Request, body: Body, text: str, failure: StreamFailure | None
    ) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-cache",
                **self._ids_header(),
            }
        )
        await response.prepare(request)
        usage = self._usage(body, text)
        start = self._message(body, "", {**usage, "output_tokens": 1})
        start["stop_reason"] = None
        await response.write(_sse("message_start", {"type": "message_start", "message": start}))
        await response.write(_sse("ping", {"type": "ping"}))
        await response.write(
            _sse(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            )
        )
        for n, delta in enumerate(_deltas(text)):
            if failure is not None and n == failure.after_deltas:
                break
            if self.delta_delay:
                await asyncio.sleep(self.delta_delay)
            await response.write(
                _sse(
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "text_delta", "text": delta},
                    },
                )
            )
        if failure is not None and failure.type == DISCONNECT:
            if request.transport is not None:
                request.transport.abort()  # the connection drops without a proper end
            return response
        if failure is not None:
            await response.write(_sse("error", _error_body(failure.type, failure.message)))
            await response.write_eof()
            return response
        await response.write(_sse("content_block_stop", {"type": "content_block_stop", "index": 0}))
        await response.write(
            _sse(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": usage["output_tokens"]},
                },
            )
        )
        await response.write(_sse("message_stop", {"type": "message_stop"}))
        await response.write_eof()
        return response


def _deltas(text: str) -> list[str]:
    """Split an answer into a few deltas (about three words each) that join back exactly."""
    words = text.split(" ")
    chunks = [" ".join(words[i : i + 3]) for i in range(0, len(words), 3)]
    return [c if i == len(chunks) - 1 else c + " " for i, c in enumerate(chunks)] if text else []


if __name__ == "__main__":  # pragma: no cover
    import time

    with FakeAnthropic() as fake:
        print(fake.url, flush=True)
        while True:
            time.sleep(3600)
