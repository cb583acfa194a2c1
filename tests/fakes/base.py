"""What every fake model server shares: a loopback aiohttp server on its own thread, the
record of what it received, and a script of answers, delays and failures.

Each provider's fake (``anthropic_server``, ``vertex_server``, ``bedrock_server``,
``openai_server``) adds its routes and wire format. ``Outage`` names a failure in words the
tests share; each fake renders it the way its provider does (status, error body, headers),
so one test can script "rate limited" against every provider.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Self

from aiohttp import web

Body = dict[str, Any]
DISCONNECT = "disconnect"
CUT_SHORT = "cut_short"
Responder = Callable[[Body], str]


class Outage(StrEnum):
    """A provider failure, rendered by each fake in its own wire format."""

    RATE_LIMITED = "rate_limited"
    OVERLOADED = "overloaded"
    SERVER_ERROR = "server_error"
    TIMEOUT = "timeout"
    BAD_REQUEST = "bad_request"
    BAD_KEY = "bad_key"
    FORBIDDEN = "forbidden"
    NOT_FOUND = "not_found"


@dataclass(frozen=True)
class RecordedRequest:
    """One request the fake received (``body`` parsed; ``raw`` as it came, decoded)."""

    path: str
    headers: dict[str, str]
    body: Body
    raw: str = ""


@dataclass(frozen=True)
class ScriptedError:
    """An HTTP error answered instead of the next request, in the provider's own terms."""

    status: int
    type: str
    message: str = "scripted error"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class StreamFailure:
    """A provider error sent after ``after_deltas`` text deltas of the next stream.

    With ``type=DISCONNECT`` the connection is dropped instead; with ``type=CUT_SHORT`` the
    response ends properly but early, with no error and no closing events (a proxy's cut).
    """

    type: str = "overloaded_error"
    after_deltas: int = 1
    message: str = "Overloaded"


def default_answer_text(last_user: str) -> str:
    """Deterministic answer: the last user text (placeholders included), prefixed."""
    return f"Noted: {last_user}"


def fake_tokens(text: str) -> int:
    """A cheap, deterministic token count for usage numbers."""
    return max(1, len(text) // 4) if text else 0


def deltas(text: str) -> list[str]:
    """Split an answer into a few deltas (about three words each) that join back exactly."""
    words = text.split(" ")
    chunks = [" ".join(words[i : i + 3]) for i in range(0, len(words), 3)]
    return [c if i == len(chunks) - 1 else c + " " for i, c in enumerate(chunks)] if text else []


def unescaped(raw: str) -> str:
    """A JSON body with its escapes undone (``\\u00e9`` -> ``é``), for scanning; else as is."""
    try:
        return json.dumps(json.loads(raw), ensure_ascii=False)
    except ValueError:
        return raw


class FakeServer:
    """Lifecycle, recording and scripting; subclasses add routes in ``_routes``.

    Attributes:
        url: base URL of the server (``http://127.0.0.1:PORT``); set by ``start``.
        responder: answer function of the request body.
        delay: seconds to wait before answering (a slow model, or a client timeout).
        delta_delay: seconds between streamed text deltas.
    """

    OUTAGES: dict[Outage, ScriptedError] = {}
    """How this provider answers each ``Outage`` (status, error name, message)."""
    STREAM_OUTAGES: dict[Outage, str] = {}
    """The error name this provider sends for an ``Outage`` in the middle of a stream."""

    name = "fake-model"

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
        """Forget recorded requests, scripts and settings."""
        with self._lock:
            self._requests: list[RecordedRequest] = []
            self._checks: list[RecordedRequest] = []
            self._answers: deque[str] = deque()
            self._errors: deque[ScriptedError | StreamFailure] = deque()
            self._generation = getattr(self, "_generation", 0) + 1
        self.responder: Responder = self.default_answer
        self.delay = 0.0
        self.delta_delay = 0.0
        self.release()

    def default_answer(self, body: Body) -> str:
        """The answer when nothing is scripted (see ``default_answer_text``)."""
        return default_answer_text(self.last_user_text(body))

    def answer(self, *texts: str) -> None:
        """Queue scripted answers, used (in order) before the responder."""
        with self._lock:
            self._answers.extend(texts)

    def hold(self) -> None:
        """Hold every answer (after its request is recorded) until ``release``."""
        self._gate: asyncio.Event | None = asyncio.Event()

    def release(self) -> None:
        """Let the held answers go (and answer at once from now on)."""
        gate, self._gate = getattr(self, "_gate", None), None
        if gate is not None and self._loop is not None:
            self._loop.call_soon_threadsafe(gate.set)

    def fail(self, status: int, kind: str, *, times: int = 1, **headers: str) -> None:
        """Queue ``times`` HTTP errors in the provider's terms; headers by keyword, ``_``
        for ``-`` (``fake.fail(529, "overloaded_error", retry_after_ms="10")``)."""
        scripted = ScriptedError(
            status, kind, headers={k.replace("_", "-"): v for k, v in headers.items()}
        )
        with self._lock:
            self._errors.extend([scripted] * times)

    def fail_as(self, outage: Outage, *, times: int = 1, **headers: str) -> None:
        """Queue ``times`` HTTP errors of a kind every provider has, in this one's terms."""
        known = self.OUTAGES[outage]
        self.fail(known.status, known.type, times=times, **headers)

    def fail_mid_stream(self, kind: str = "", *, after_deltas: int = 1) -> None:
        """Make the next streamed answer break with an error event (or ``DISCONNECT``)."""
        kind = kind or self.STREAM_OUTAGES[Outage.OVERLOADED]
        with self._lock:
            self._errors.append(StreamFailure(kind, after_deltas))

    def fail_mid_stream_as(self, outage: Outage, *, after_deltas: int = 1) -> None:
        """``fail_mid_stream`` with this provider's error name for ``outage``."""
        self.fail_mid_stream(self.STREAM_OUTAGES[outage], after_deltas=after_deltas)

    # inspection ----------------------------------------------------------------------
    @property
    def requests(self) -> list[RecordedRequest]:
        """Model calls received so far, oldest first (credential checks are in ``checks``)."""
        with self._lock:
            return list(self._requests)

    @property
    def checks(self) -> list[RecordedRequest]:
        """Start-up checks received so far (model lookups, token counts, token grants)."""
        with self._lock:
            return list(self._checks)

    def all_text_sent(self) -> str:
        """Every text a model call carried, joined (for PII scans)."""
        raise NotImplementedError

    def everything_received(self) -> str:
        """Every request body, path and header value, escapes undone (for PII scans)."""
        with self._lock:
            seen = self._requests + self._checks
        parts = []
        for r in seen:
            parts += [r.path, unescaped(r.raw), *r.headers.values()]
        return "\n".join(parts)

    @staticmethod
    def last_user_text(body: Body) -> str:
        """The text of the last user message of a request body."""
        raise NotImplementedError

    # lifecycle -----------------------------------------------------------------------
    def start(self) -> Self:
        """Start serving on a free loopback port; returns ``self``."""
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=self.name, daemon=True)
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

    def __enter__(self) -> Self:
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
        self._routes(app)
        self._runner = web.AppRunner(app, shutdown_timeout=0.5, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        return int(self._runner.addresses[0][1])

    def _routes(self, app: web.Application) -> None:
        raise NotImplementedError

    # helpers for handlers ------------------------------------------------------------
    async def _record(self, request: web.Request, *, check: bool = False) -> tuple[Body, str]:
        """Read, record and parse a JSON request body (``{}`` when it is not JSON)."""
        raw = (await request.read()).decode("utf-8", "replace")
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {}
        recorded = RecordedRequest(request.path_qs, dict(request.headers), body, raw)
        with self._lock:
            (self._checks if check else self._requests).append(recorded)
        return body, raw

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

    async def _wait(self) -> bool:
        """Apply ``delay``; ``False`` when the fake was reset meanwhile (the client left)."""
        generation = self._generation
        gate = self._gate
        if gate is not None:
            await gate.wait()
        if self.delay:
            await asyncio.sleep(self.delay)
        return generation == self._generation

    def _request_id(self) -> str:
        return f"req_fake_{next(self._ids)}"
