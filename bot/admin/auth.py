"""Bearer tokens of the HTTP admin API: stored as SHA-256 hashes, compared in constant time.

``VEILBOT_ADMIN_TOKENS`` holds comma-separated ``SHA256HEX[:scope+scope][@WORKSPACE+WORKSPACE]``
entries (scope ``admin`` when omitted), so neither the settings nor a config dump reveal a
usable token. A token with ``@`` workspaces (Slack team ids, Discord guild ids) sees, exports
and erases the data of those workspaces only, in the admin API and the console alike
(``bot.admin.confine``).
Tokens are long random strings (``veilbot admin new-token``), which is why one unsalted
SHA-256 is enough: there is nothing to guess from a hash.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping

from bot.core.errors import ConfigError

ADMIN_SCOPE = "admin"
_HEX = re.compile(r"[0-9a-f]{64}")
_SCOPE = re.compile(r"[a-z][a-z0-9_.-]{0,31}")
_WORKSPACE = re.compile(r"[A-Za-z0-9_-]{1,64}")


def hash_token(token: str) -> str:
    """The SHA-256 hex digest to put in ``VEILBOT_ADMIN_TOKENS``."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_id(digest: str) -> str:
    """The public id of a token, from its SHA-256 hex digest (shown as "who" in logs)."""
    return f"tok:{digest[:12]}"


def new_token() -> str:
    """A fresh random bearer token (256 bits)."""
    return secrets.token_urlsafe(32)


class AdminTokens:
    """Which token hashes exist, which scopes each grants, and which workspaces it may see.

    Args:
        hashes: SHA-256 hex digest -> scopes.
        limits: SHA-256 hex digest -> the workspaces a token is limited to (absent: all).
    """

    def __init__(
        self,
        hashes: Mapping[str, frozenset[str]],
        limits: Mapping[str, frozenset[str]] | None = None,
    ) -> None:
        self._entries = [(bytes.fromhex(h), frozenset(s)) for h, s in hashes.items()]
        self._limits = {token_id(h): frozenset(w) for h, w in (limits or {}).items()}

    @classmethod
    def parse(cls, text: str) -> AdminTokens:
        """Read ``VEILBOT_ADMIN_TOKENS``.

        Raises:
            ConfigError: an entry is not ``SHA256HEX[:scope+scope][@WORKSPACE+WORKSPACE]``
                (the value is not echoed).
        """
        hashes: dict[str, frozenset[str]] = {}
        limits: dict[str, frozenset[str]] = {}
        for number, entry in enumerate(filter(None, (e.strip() for e in text.split(","))), 1):
            head, limited, workspaces = entry.partition("@")
            digest, _, scopes = head.partition(":")
            names = frozenset(scopes.split("+")) if scopes else frozenset({ADMIN_SCOPE})
            teams = frozenset(workspaces.split("+")) if limited else frozenset()
            if (
                not _HEX.fullmatch(digest.lower())
                or not all(_SCOPE.fullmatch(n) for n in names)
                or (limited and not all(_WORKSPACE.fullmatch(w) for w in teams))
            ):
                raise ConfigError(
                    f"VEILBOT_ADMIN_TOKENS entry {number}: expected SHA256HEX[:scope+scope]"
                    "[@WORKSPACE+WORKSPACE] (see `veilbot admin hash-token`)"
                )
            hashes[digest.lower()] = names
            if limited:
                limits[digest.lower()] = teams
        return cls(hashes, limits)

    def __bool__(self) -> bool:
        return bool(self._entries)

    def identify(self, token: str) -> tuple[str, frozenset[str]] | None:
        """The id and scopes of a presented token, or ``None`` when it is unknown.

        The id (``tok:`` + the first 12 hex digits of the token's hash) names the admin in the
        action log and in console sessions; it cannot be turned back into the token.
        """
        scopes = self.scopes(token)
        if scopes is None:
            return None
        return token_id(hash_token(token)), scopes

    def workspaces_of(self, ident: str) -> frozenset[str] | None:
        """The workspaces a token (by id) is limited to; ``None`` when it sees every one.

        Ask only for a token ``identify`` or ``scopes_of`` found: a removed token's id gives
        ``None`` here too.
        """
        return self._limits.get(ident)

    def scopes_of(self, ident: str) -> frozenset[str] | None:
        """The scopes of a token still configured, by its id; ``None`` once it was removed."""
        for digest, scopes in self._entries:
            if hmac.compare_digest(token_id(digest.hex()), ident):
                return scopes
        return None

    def scopes(self, token: str) -> frozenset[str] | None:
        """The scopes of a presented token, or ``None`` when it is unknown.

        Every stored hash is compared, with ``hmac.compare_digest``, whatever matches first.
        """
        presented = hashlib.sha256(token.encode("utf-8")).digest()
        found: frozenset[str] | None = None
        for digest, scopes in self._entries:
            if hmac.compare_digest(presented, digest):
                found = scopes
        return found
