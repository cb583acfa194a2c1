"""Logs without user text: failures logged by type and place, SDK loggers kept at INFO.

A third-party exception message may quote the text it choked on (a JSON decoder, a KeyError
on a value, an SDK echoing a request), and that text may be a user's. Failures are therefore
logged by type and by where they happened, never by message or with ``exc_info``. And SDK
loggers (Slack, Discord, httpx, anthropic) log request bodies, i.e. message text, at DEBUG, and
SQL drivers (aiosqlite, SQLAlchemy, asyncpg) log statements with their parameters:
``configure_logging`` keeps the SDKs at INFO or above and the SQL drivers at WARNING.

What a request supplies (a path, a header) and is logged goes through ``shown``: control
characters escaped, so a ``%0A`` in a URL cannot start a forged line, and length capped. The
formatter ``configure_logging`` installs escapes them in every message as well. Warnings
about unauthenticated noise go through a ``ThrottledLog``: one line per interval with a count.
"""

from __future__ import annotations

import logging
import re
import time
import traceback

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SHOWN_MAX = 200


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(value: object, limit: int = _SHOWN_MAX) -> str:
    """``value`` as one safe log token: control and bidi characters escaped, ``limit`` chars.

    For what a request supplies (paths, header values), never for user text, which is not
    logged at all.
    """
    text = _CONTROL.sub(_escaped, str(value))
    return text if len(text) <= limit else text[:limit] + "…"


class OneLineFormatter(logging.Formatter):
    """Escapes control characters in the message; a traceback (rare: ``where``) stays as is."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802  (stdlib name)
        """The record's line, with its message's control characters escaped."""
        record.message = _CONTROL.sub(_escaped, record.message)
        return super().formatMessage(record)


OTHER_KEYS = "other sources"
"""The key a ``ThrottledLog`` full of recent keys logs a new one under."""


class ThrottledLog:
    """One warning per key per ``interval`` seconds, with the count of those held back.

    Keys may come from the network (a peer's address): at most ``max_keys`` are remembered,
    those not logged within ``interval`` go first, and past that a new key is counted under
    ``OTHER_KEYS``, so a flood from many addresses still makes one line a minute per key kept.

    Args:
        log: where the lines go.
        what: the line's fixed start, e.g. ``"slack request refused"``.
        interval: seconds between two lines of one key.
        max_keys: how many keys are remembered at once.
    """

    def __init__(
        self, log: logging.Logger, what: str, interval: float = 60.0, max_keys: int = 4096
    ) -> None:
        self._log, self._what, self._interval = log, what, interval
        self._max_keys = max_keys
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}

    def _room(self, key: str, now: float) -> str:
        """``key``, or ``OTHER_KEYS`` when every remembered key was logged lately."""
        if key in self._last or len(self._last) < self._max_keys:
            return key
        stale = [k for k, at in self._last.items() if now - at >= self._interval]
        for old in stale:
            del self._last[old]
            self._held.pop(old, None)
        return key if len(self._last) < self._max_keys else OTHER_KEYS

    def warning(self, key: str, detail: str = "") -> None:
        """Log ``key`` (a fixed text) and ``detail`` (escaped) unless ``key`` was logged lately."""
        now = time.monotonic()
        key = self._room(key, now)
        last = self._last.get(key)
        if last is not None and now - last < self._interval:
            self._held[key] = self._held.get(key, 0) + 1
            return
        held = self._held.pop(key, 0)
        self._last[key] = now
        more = f" (and {held} more in the last {self._interval:g}s)" if held else ""
        tail = f" {shown(detail)}" if detail else ""
        self._log.warning("%s: %s%s%s", self._what, key, tail, more)


def where(exc: BaseException, frames: int = 4) -> str:
    """The innermost frames of an exception as ``file:line function``, joined by ``; ``."""
    stack = traceback.extract_tb(exc.__traceback__)[-frames:]
    return "; ".join(f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno} {f.name}" for f in stack)


def describe(exc: BaseException) -> str:
    """``TypeName at file:line fn; …``: safe to log, store in an audit row, or show an admin."""
    return f"{type(exc).__name__} at {where(exc)}"


def log_failure(logger: logging.Logger, what: str, exc: BaseException, *args: object) -> None:
    """Log ``what`` (a %-format with ``args``) at ERROR with ``describe(exc)``, never its text."""
    logger.error("%s: %s", what % args if args else what, describe(exc))


SQL_LOGGERS = ("aiosqlite", "sqlalchemy", "asyncpg")
"""SQL drivers log statements with their parameters (the audit's prompts and answers), and
SQLAlchemy does so at INFO: these stay at WARNING or above."""

NOISY_LOGGERS = (
    "redis",
    # platform, HTTP and model SDKs log request and response bodies
    "slack_sdk",
    "slack_bolt",
    "discord",
    "httpx",
    "httpx2",
    "httpcore",
    "httpcore2",
    "anthropic",
    "openai",
    "botocore",
    "boto3",
    "urllib3",
    "requests",
    "aiohttp",
    "websockets",
    "hpack",
    "google",
    "s3transfer",
    "asyncio",
    "presidio-analyzer",
    # the MCP SDK logs every JSON-RPC message (a tool's arguments and result) at DEBUG
    "mcp",
)


def configure_logging(level: str) -> None:
    """Root logging at ``level``; SDK loggers never below INFO (at DEBUG they log bodies)."""
    handler = logging.StreamHandler()
    handler.setFormatter(OneLineFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=level, handlers=[handler], force=True)
    for name in NOISY_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.INFO, logging.getLevelName(level)))
    for name in SQL_LOGGERS:
        logging.getLogger(name).setLevel(max(logging.WARNING, logging.getLevelName(level)))
    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
    # pypdf warns about malformed objects quoting the object, i.e. a shared file's content
    logging.getLogger("pypdf").setLevel(logging.ERROR)
