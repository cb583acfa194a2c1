"""The OAuth side of the fake Slack: ``oauth.v2.access`` (codes and token rotation), per-token
identity for ``auth.test``, and ``apps.uninstall``; mixed into ``FakeSlack``.

A test grants a code for a workspace (``grant``), slack-bolt's ``OAuthFlow`` exchanges it for a
bot token of that workspace; every token then answers ``auth.test`` as its own team, and a
rotated, revoked or uninstalled token answers ``invalid_auth`` / ``token_revoked`` as Slack does.
"""

from __future__ import annotations

import itertools
import secrets
from dataclasses import dataclass
from typing import Any

OAUTH_BOT_USER_ID = "UBOTX"
OAUTH_BOT_ID = "B0BOTX"
APP_ID = "A0VEIL"
EXPIRES_IN = 43200


@dataclass(frozen=True)
class Grant:
    """What a code installs: a workspace (or an Enterprise Grid org) by an installing user."""

    team: str | None
    enterprise: str | None
    user: str
    rotation: bool


class OAuthSide:
    """Token identities and the OAuth Web API methods (needs ``self.calls`` of ``FakeSlack``)."""

    def _oauth_init(self) -> None:
        self.grants: dict[str, Grant] = {}
        self.tokens: dict[str, Grant] = {}
        """Live bot token to what it was issued for."""
        self.dead_tokens: set[str] = set()
        self.refresh_tokens: dict[str, Grant] = {}
        self._serial = itertools.count(1)

    def grant(
        self,
        team: str | None,
        *,
        enterprise: str | None = None,
        user: str = "UINSTALLER",
        rotation: bool = False,
    ) -> str:
        """A one-time code installing the app in ``team`` (``None``: org-wide in ``enterprise``)."""
        code = f"code-{next(self._serial)}-{secrets.token_hex(4)}"
        self.grants[code] = Grant(team, enterprise, user, rotation)
        return code

    def _new_tokens(self, grant: Grant) -> dict[str, Any]:
        n = next(self._serial)
        token = f"xoxb-{grant.team or grant.enterprise}-{n}-{secrets.token_hex(8)}"
        self.tokens[token] = grant
        out: dict[str, Any] = {"access_token": token}
        if grant.rotation:
            refresh = f"xoxe-1-{secrets.token_hex(12)}"
            self.refresh_tokens[refresh] = grant
            out.update(refresh_token=refresh, expires_in=EXPIRES_IN)
        return out

    def _m_oauth_v2_access(self, p: dict[str, Any]) -> dict[str, Any]:
        if p.get("grant_type") == "refresh_token":
            grant = self.refresh_tokens.pop(str(p.get("refresh_token")), None)
            if grant is None:
                return {"ok": False, "error": "invalid_refresh_token"}
            for token, owner in list(self.tokens.items()):
                if owner == grant:  # the old access token stops working
                    del self.tokens[token]
                    self.dead_tokens.add(token)
            return {"ok": True, "token_type": "bot", **self._new_tokens(grant)}
        found = self.grants.pop(str(p.get("code")), None)
        if found is None:
            return {"ok": False, "error": "invalid_code"}
        return {
            "ok": True,
            "app_id": APP_ID,
            "token_type": "bot",
            "scope": "app_mentions:read,chat:write",
            "bot_user_id": OAUTH_BOT_USER_ID,
            "team": {"id": found.team, "name": f"Team {found.team}"} if found.team else None,
            "enterprise": {"id": found.enterprise, "name": "Grid"} if found.enterprise else None,
            "is_enterprise_install": found.team is None,
            "authed_user": {"id": found.user},
            **self._new_tokens(found),
        }

    def token_identity(self, token: str) -> dict[str, Any] | None:
        """``auth.test``'s answer for an OAuth token; ``None`` for the single-workspace token."""
        if token in self.dead_tokens:
            return {"ok": False, "error": "token_revoked"}
        grant = self.tokens.get(token)
        if grant is None:
            return None
        return {
            "ok": True,
            "url": "https://fake.slack.com/",
            "team": f"Team {grant.team}",
            "user": "veilbot",
            "team_id": grant.team,
            "enterprise_id": grant.enterprise,
            "user_id": OAUTH_BOT_USER_ID,
            "bot_id": OAUTH_BOT_ID,
            "is_enterprise_install": grant.team is None,
        }

    def _m_apps_uninstall(self, p: dict[str, Any]) -> dict[str, Any]:
        token = self.calls[-1].token  # type: ignore[attr-defined]
        grant = self.tokens.get(token)
        if grant is None:
            return {"ok": False, "error": "invalid_auth"}
        for other, owner in list(self.tokens.items()):
            if owner == grant:
                del self.tokens[other]
                self.dead_tokens.add(other)
        return {"ok": True}
