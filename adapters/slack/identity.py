"""Who the bot is in its workspace, from one ``auth.test`` kept for the process.

The lean ack path (``adapters.slack.endpoint``) needs what bolt's listeners get in their
``context``; without OAuth there is one bot, so one successful call answers it for good.
"""

from __future__ import annotations

import asyncio
import logging

from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.enqueue import Authorization
from adapters.slack.ingress import SlackGate
from adapters.slack.replies import SLACK_ERRORS, _err

logger = logging.getLogger(__name__)


class BotIdentity:
    """The bot's identity from ``auth.test``: one call at a time, kept once it succeeds.

    Args:
        client: the Web API client.
        gate: the events endpoint's gate, whose refusal log tells why events get 503 while
            the identity is unknown (none: Socket Mode).
    """

    def __init__(self, client: AsyncWebClient, gate: SlackGate | None) -> None:
        self._client = client
        self._gate = gate
        self._authorized: Authorization | None = None
        self._authorizing: asyncio.Task[Authorization | None] | None = None

    async def get(self) -> Authorization | None:
        """The identity, asked for now unless known; ``None`` while ``auth.test`` fails."""
        if self._authorized is not None:
            return self._authorized
        return await asyncio.shield(self.ask())

    def ask(self) -> asyncio.Task[Authorization | None]:
        """The ``auth.test`` under way, started unless one is."""
        if self._authorizing is None or self._authorizing.done():
            self._authorizing = asyncio.create_task(self._auth_test(), name="veilbot-slack-auth")
        return self._authorizing

    async def _auth_test(self) -> Authorization | None:
        try:
            found = await self._client.auth_test()
        except SLACK_ERRORS as exc:
            logger.debug("slack auth.test failed: %s", _err(exc))
            if self._gate is not None:
                self._gate.refusals.warning("the bot's identity is unknown (auth.test failed)")
            return None
        self._authorized = Authorization(
            bot_user_id=found.get("user_id") if found.get("bot_id") else None,
            bot_id=found.get("bot_id"),
        )
        return self._authorized
