"""Per-workspace tokens in OAuth mode: every Web API call of a turn carries its team's token.

The adapter's handlers (replies, notices, DMs, user groups, file downloads) call one shared
``AsyncWebClient``. In OAuth mode that client is a ``TeamWebClient``: it has no token of its
own and takes, at each call, the token of the workspace being served, which ``serving`` sets
for the running task (and the tasks it starts: a ``ContextVar`` is copied into them). Outside
``serving`` the client has no token, so a call that forgot its team fails at Slack
(``not_authed``) instead of answering with another team's token.

The token is looked up when the work runs, not when the event arrived (``TeamTokens``): a
queued turn answered later, maybe by another replica, reads the installation then, refreshed
if rotation is on and it is about to expire, and finds nothing once the team uninstalled.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol

from slack_sdk.errors import SlackTokenRotationError
from slack_sdk.oauth.installation_store import Installation
from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore
from slack_sdk.oauth.token_rotation.async_rotator import AsyncTokenRotator
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.errors import AdapterError, StoreError

logger = logging.getLogger(__name__)

_TEAM_TOKEN: ContextVar[str | None] = ContextVar("veilbot_slack_team_token", default=None)


@contextmanager
def serving(token: str | None) -> Iterator[None]:
    """Calls of ``TeamWebClient`` in this task (and tasks started in it) use ``token``.

    A token set inside (``use_token``) ends with the block too: a bolt dispatch runs in
    ``serving(None)``, so its middleware's token never outlives the request.
    """
    reset = _TEAM_TOKEN.set(token)
    try:
        yield
    finally:
        _TEAM_TOKEN.reset(reset)


def use_token(token: str | None) -> None:
    """Set the token for the rest of the enclosing ``serving`` block (bolt's middleware).

    bolt runs global middleware one after the other, not nested around the listeners, so a
    middleware cannot wrap them in a block; the listener tasks bolt starts afterwards copy
    the token.
    """
    _TEAM_TOKEN.set(token)


class TeamWebClient(AsyncWebClient):
    """An ``AsyncWebClient`` whose token is the one of the workspace being served."""

    @property
    def token(self) -> str | None:
        """The token set by ``serving`` for this task, or ``None``."""
        return _TEAM_TOKEN.get()

    @token.setter
    def token(self, value: str | None) -> None:
        if value is not None:  # the base class stores the constructor's token here
            raise AdapterError("a team client takes its token from the workspace served")


class OrgMembers(Protocol):
    """Which workspaces an org-wide install served (``bot.state.orgs.RedisOrgMembers``)."""

    async def add(self, enterprise: str, team: str) -> None:
        """Remember that ``team`` is served under ``enterprise``'s org-wide install."""
        ...


class TeamTokens:
    """The bot of a workspace (token and ids) from the installation store, rotated if due.

    Args:
        installations: the sealed installation store.
        rotator: refreshes rotating tokens (with the adapter's client and base URL).
        minutes_before_expiration: refresh a token this long before it expires.
        members: told each workspace an org-wide install serves (its uninstall erases them).
    """

    def __init__(
        self,
        installations: AsyncInstallationStore,
        rotator: AsyncTokenRotator,
        minutes_before_expiration: int,
        members: OrgMembers,
    ) -> None:
        self._installations, self._rotator = installations, rotator
        self._minutes = minutes_before_expiration
        self.members = members

    async def find(self, body: dict[str, Any]) -> Installation | None:
        """The installation that serves an event body's workspace, or ``None``.

        Raises:
            StoreError: the store failed, or the token is due and could not be refreshed.
        """
        enterprise, team, is_org = event_team(body)
        found = await self._installations.async_find_installation(
            enterprise_id=enterprise, team_id=team, is_enterprise_install=is_org
        )
        if found is None or not found.bot_token:
            return None
        served = body.get("team_id")
        if found.is_enterprise_install and found.enterprise_id and served:
            await self.members.add(found.enterprise_id, str(served))
        try:
            refreshed = await self._rotator.perform_token_rotation(
                installation=found, minutes_before_expiration=self._minutes
            )
        except SlackTokenRotationError as exc:
            return await self._refreshed_elsewhere(found, exc)
        if refreshed is not None:
            await self._installations.async_save(refreshed)
            logger.info("slack token refreshed for team=%s", team or enterprise)
            return refreshed
        return found

    async def _refreshed_elsewhere(
        self, found: Installation, exc: SlackTokenRotationError
    ) -> Installation:
        """The token another refresh saved, when ours lost the race.

        A refresh token works once: another replica (or bolt's authorization of an ack) may
        have refreshed this one first. Without its saved token, ``StoreError``: the queue then
        works the entry again later, when the other refresh is saved.
        """
        again = await self._installations.async_find_installation(
            enterprise_id=found.enterprise_id,
            team_id=found.team_id,
            is_enterprise_install=found.is_enterprise_install,
        )
        if again is not None and again.bot_token and again.bot_token != found.bot_token:
            return again
        raise StoreError("slack token refresh failed; the turn is tried again later") from exc


def event_team(body: dict[str, Any]) -> tuple[str | None, str | None, bool]:
    """(enterprise id, team id, org-wide install?) of an Events API body, as bolt reads them."""
    auths = body.get("authorizations") or [{}]
    first = auths[0] if isinstance(auths[0], dict) else {}
    is_org = bool(first.get("is_enterprise_install") or body.get("is_enterprise_install"))
    enterprise = body.get("enterprise_id") or first.get("enterprise_id")
    team = body.get("team_id") or first.get("team_id")
    return (
        str(enterprise) if enterprise else None,
        None if is_org or not team else str(team),
        is_org,
    )
