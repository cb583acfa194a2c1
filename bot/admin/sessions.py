"""Admin console sessions: a signed-in token becomes an expiring session id.

The cookie holds a random session id; the backend (Redis: ``bot.state.sessions``) holds,
under the SHA-256 of that id (so a dump gives no usable cookie), who signed in (a token id,
never the token), the session's CSRF token and its expiry. The backend's TTL matches the
expiry, and the expiry is checked on every read as well. Sessions live in Redis so every
replica behind a load balancer knows them and signing out ends the session everywhere.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

Clock = Callable[[], float]


@dataclass(frozen=True, slots=True)
class Session:
    """A signed-in admin.

    Attributes:
        who: the token id (``tok:…``) that signed in.
        csrf: the token every state-changing form of this session must carry.
        expires_at: when the session ends (seconds since the epoch).
    """

    who: str
    csrf: str
    expires_at: float


class SessionBackend(Protocol):
    """Expiring key/value storage for session bodies (raises ``StoreError`` on failure)."""

    async def put(self, digest: str, body: str, ttl_seconds: int) -> None:
        """Store ``body`` under ``digest`` for ``ttl_seconds``."""
        ...

    async def get(self, digest: str) -> str | None:
        """The body under ``digest``, or ``None``."""
        ...

    async def delete(self, digest: str) -> None:
        """Forget ``digest``."""
        ...


class ConsoleSessions:
    """Creates, reads and ends console sessions.

    Args:
        backend: where session bodies are kept.
        ttl_seconds: how long a session lasts from sign-in.
        clock: the time source (tests move it forward to expire a session).
    """

    def __init__(self, backend: SessionBackend, ttl_seconds: int, clock: Clock = time.time) -> None:
        self._backend = backend
        self.ttl_seconds = ttl_seconds
        self._clock = clock

    @staticmethod
    def _key(sid: str) -> str:
        return hashlib.sha256(sid.encode("utf-8")).hexdigest()

    async def create(self, who: str) -> tuple[str, Session]:
        """A new session for ``who``; returns the cookie value and the session.

        Raises:
            StoreError: the backend failed (no session, so no sign-in).
        """
        sid = secrets.token_urlsafe(32)
        session = Session(who, secrets.token_urlsafe(32), self._clock() + self.ttl_seconds)
        body = json.dumps({"who": who, "csrf": session.csrf, "exp": session.expires_at})
        await self._backend.put(self._key(sid), body, self.ttl_seconds)
        return sid, session

    async def get(self, sid: str) -> Session | None:
        """The live session of a cookie value, or ``None`` (unknown, ended or expired).

        Raises:
            StoreError: the backend failed (the caller refuses the request).
        """
        if not sid or len(sid) > 128:
            return None
        raw = await self._backend.get(self._key(sid))
        if raw is None:
            return None
        data = json.loads(raw)
        session = Session(str(data["who"]), str(data["csrf"]), float(data["exp"]))
        if session.expires_at <= self._clock():
            await self.end(sid)
            return None
        return session

    async def end(self, sid: str) -> None:
        """End a session (sign-out); ending an unknown one is a no-op."""
        await self._backend.delete(self._key(sid))
