"""The ``/veilbot`` slash command, the in-thread words, and the forget confirmation buttons."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack import commands
from adapters.slack.admin import UNAVAILABLE, AdminExport, audit_usage, budget_command
from adapters.slack.events import Delivery, split_thread_id, team_of, thread_from_permalink
from adapters.slack.fork import SlackForks
from adapters.slack.participants import wrote_in
from adapters.slack.replies import Target, post_text
from bot.core.errors import InputRejected, VeilbotError
from bot.core.ports import AdminCommands, MessageHandler
from bot.core.types import ThreadId, parse_thread_id

logger = logging.getLogger(__name__)


class Interactions:
    """Registers the command and button listeners on a bolt app.

    Args:
        app: the bolt app.
        handler: the core, for ``forget``.
        command: the slash command's name, e.g. ``/veilbot``.
        client: the Web API client, for answers in threads.
        limit: characters per posted message.
        admin: the core's admin commands (``/veilbot audit export``), if offered.
    """

    def __init__(
        self,
        app: AsyncApp,
        handler: MessageHandler,
        command: str,
        client: AsyncWebClient,
        limit: int,
        admin: AdminCommands | None = None,
    ) -> None:
        self._handler, self._command = handler, command
        self._client, self._limit = client, limit
        self._admin = admin
        self._admin_export = AdminExport(admin, client)
        self._forks = SlackForks(handler, client, command)
        app.command(command)(self._on_command)
        app.action(commands.FORGET_CONFIRM)(self._on_confirm)
        app.action(commands.FORGET_CANCEL)(self._on_cancel)

    async def in_thread(self, delivery: Delivery, target: Target) -> None:
        """Answer ``forget`` or ``help`` said to the bot in a thread."""
        if delivery.command == "help":
            await post_text(self._client, target, commands.help_text(self._command), self._limit)
            return
        await self._client.chat_postEphemeral(
            channel=target.channel,
            user=target.user,
            thread_ts=target.thread_ts,
            text="Erase what I remember of this thread?",
            blocks=commands.forget_confirmation(delivery.message.thread_id),
        )

    async def _on_command(self, ack: Any, command: dict[str, Any], respond: Any) -> None:
        verb, arg = commands.parse_command(command.get("text", ""))
        if verb == "audit":
            await self._on_audit(ack, command, respond, arg.split())
            return
        if verb == "settings":
            await ack(text=self._settings_text(command), response_type="ephemeral")
            return
        if verb == "fork":
            await ack()  # within Slack's 3 seconds: the fork posts and copies first
            await respond(text=await self._forks.run(command, arg), response_type="ephemeral")
            return
        if verb == "budget":
            await ack()
            await budget_command(self._admin, command, arg.split(), respond)
            return
        if verb != "forget":
            await ack(text=commands.help_text(self._command), response_type="ephemeral")
            return
        team, user = str(command.get("team_id", "")), str(command.get("user_id", ""))
        tid = thread_from_permalink(arg, team) if arg else None
        if tid is None:
            await ack(text=commands.forget_usage(self._command), response_type="ephemeral")
            return
        refusal = await self._refusal(team, user, tid, step="request")
        if refusal is not None:
            await ack(text=refusal, response_type="ephemeral")
            return
        await ack(
            text="Erase what I remember of this thread?",
            blocks=commands.forget_confirmation(tid),
            response_type="ephemeral",
        )

    def _settings_text(self, command: dict[str, Any]) -> str:
        """The channel's effective settings for an admin; one polite line for anyone else."""
        team, user = str(command.get("team_id", "")), str(command.get("user_id", ""))
        channel = str(command.get("channel_id", "")) or None
        if self._admin is None or not user or not self._admin.is_admin(f"slack:{team}:{user}"):
            return commands.SETTINGS_ADMINS_ONLY
        return self._handler.settings_at("slack", team, channel)

    async def _on_audit(
        self, ack: Any, command: dict[str, Any], respond: Any, words: list[str]
    ) -> None:
        if not words or words[0].lower() != "export":
            await ack(text=audit_usage(self._command), response_type="ephemeral")
            return
        await ack()  # within Slack's 3 seconds; the export may take longer
        await self._admin_export.run(command, words[1:], respond)

    async def _on_confirm(self, ack: Any, body: dict[str, Any], respond: Any) -> None:
        await ack()
        value = str((body.get("actions") or [{}])[0].get("value", ""))
        try:
            tid = parse_thread_id(value)
        except InputRejected:
            logger.warning("forget confirmation with an invalid thread id")
            return
        team, user = team_of(body), str((body.get("user") or {}).get("id", ""))
        if split_thread_id(tid)[0] != team:
            logger.warning("forget confirmation for another workspace refused")
            return
        refusal = await self._refusal(team, user, tid, step="confirm")  # a click can be forged
        if refusal is not None:
            await respond(text=refusal, replace_original=True)
            return
        removed = await self._handler.forget(tid)
        logger.info("thread %s forgotten (%s keys)", tid, removed)
        await respond(text=commands.FORGET_DONE, replace_original=True)

    async def _refusal(self, team: str, user: str, tid: ThreadId, *, step: str) -> str | None:
        """What to tell a requester who may not erase ``tid``; ``None`` when they may.

        The rule is the core's (``authorize_erase``): a participant of the thread, or an admin.
        """
        if not user:
            return commands.ERASE_REFUSAL
        participant = await wrote_in(self._client, tid, user)
        if self._admin is None:  # no admin service: no admins, participants only
            return None if participant else commands.ERASE_REFUSAL
        requester = f"slack:{team}:{user}"
        try:
            allowed = await self._admin.authorize_erase(
                requester, tid, participant=participant, step=step
            )
        except VeilbotError as exc:
            logger.error(
                "forget not authorized team=%s user=%s (%s)", team, user, type(exc).__name__
            )
            return UNAVAILABLE
        return None if allowed else commands.ERASE_REFUSAL

    async def _on_cancel(self, ack: Any, respond: Any) -> None:
        await ack()
        await respond(text=commands.FORGET_CANCELLED, replace_original=True)
