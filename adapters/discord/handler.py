"""The Discord adapter: discord.py wiring around the pure translation in ``events``.

A mention in a text channel starts a conversation in a public thread made from that message
(or an inline reply); in a thread the bot follows, members talk without mentioning it; direct
messages work. The core (``MessageHandler``) runs the guarded turn, dedupes redeliveries by
message id and writes the friendly error texts; the adapter only translates and posts.

``DiscordAdapter`` takes the gateway's events and chooses the way in: with a ``TurnQueue``
each goes on the queue (``queueing``) and any replica's worker answers it; without one, or when
Redis did not take it, the turn runs in the process that received the message (``turns``).
``client`` connects, ``destinations`` says where an answer goes, ``replies`` posts it.

A server that removes the bot (or is deleted) is erased at once, as a Slack workspace that
uninstalls the app (``erase``, composed at the root); a server that is merely unavailable
keeps everything.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import discord

from adapters.discord.client import build_client, connect, point_at, quiet_sdk_logs
from adapters.discord.commands import build_tree, sync_commands
from adapters.discord.queueing import QueuedTurns
from adapters.discord.turns import Turns
from adapters.inflight import finish_in_flight
from bot.config.settings import Settings, require
from bot.core.logsafe import log_failure
from bot.core.ports import AdminCommands, MessageHandler, TurnQueue

logger = logging.getLogger(__name__)

EraseServer = Callable[[str], Awaitable[int]]
"""``erase(guild_id)``: erases what veilbot holds of a server; the Redis keys deleted."""


class DiscordAdapter:
    """Serves one Discord bot (all shards of this replica) until cancelled.

    Args:
        settings: the ``VEILBOT_DISCORD_*`` settings are read from here.
        handler: the guarded turn.
        admin: the core's admin commands, for ``/audit export`` (none: refused).
        guild_ready_timeout: seconds discord.py waits for more guilds before ``on_ready``.
        queue: the turn queue: messages are queued on arrival and answered by any replica's
            worker (none: answered in this process).
        erase: erases a server the bot was removed from (none: nothing is erased).
    """

    name = "discord"

    def __init__(
        self,
        settings: Settings,
        handler: MessageHandler,
        *,
        admin: AdminCommands | None = None,
        guild_ready_timeout: float = 2.0,
        queue: TurnQueue | None = None,
        erase: EraseServer | None = None,
    ) -> None:
        self._settings = settings
        self._erase = erase
        self._handler = handler
        self._admin = admin
        self._guild_ready_timeout = guild_ready_timeout
        self._turns = Turns(settings, handler)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._draining = False
        self._client_now: discord.Client | None = None
        self._logged_in = asyncio.Event()
        """Set once the REST client is logged in: all the queue worker needs (no gateway)."""
        self.ready = asyncio.Event()
        """Set once the gateway session is ready (for tests and health checks)."""
        self._queued: QueuedTurns | None = None
        if queue is not None:
            self._queued = QueuedTurns(queue, settings, handler, self._turns, self._rest_client)
            queue.register("discord", self._queued.work)

    @property
    def client(self) -> discord.Client | None:
        """The connected client, once ``run`` has made it."""
        return self._client_now

    async def run(self) -> None:
        """Connect and serve until cancelled.

        Raises:
            ConfigError: ``VEILBOT_DISCORD_TOKEN`` is not set.
            AdapterError: Discord rejected the token or the message-content intent.
        """
        token = require(self._settings.discord_token, "VEILBOT_DISCORD_TOKEN")
        point_at(self._settings)
        quiet_sdk_logs()
        self._client_now = build_client(
            self, self._settings, guild_ready_timeout=self._guild_ready_timeout
        )
        await connect(self._client_now, token)

    async def setup(self, client: discord.Client) -> None:
        """After login: register the slash commands (on the replica that runs shard 0)."""
        self._logged_in.set()
        tree = build_tree(client, self._handler, self._admin)
        ids = self._settings.discord_shard_ids
        if ids is None or 0 in ids:
            await sync_commands(tree, self._settings.discord_guild_id)

    async def on_message(self, client: discord.Client, message: discord.Message) -> None:
        """One new message (edits never come here). Errors are logged, never raised.

        With a queue it is queued (even while stopping: any replica answers it); a message
        Redis did not take is answered here, as without a queue (Discord never sends it again).
        """
        if self._queued is not None and await self._queued.put(client, message):
            return
        if self._draining:
            logger.info("discord message %s arrived while stopping; not answered", message.id)
            return
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self._turns.on_message(client, message)
        except Exception as exc:  # a bad message must not stop the bot
            log_failure(logger, "discord message %s failed", exc, message.id)
        finally:
            if task is not None:
                self._tasks.discard(task)

    async def drain(self, timeout: float) -> None:  # noqa: ASYNC109  (the shared contract)
        """Answer no new message; wait up to ``timeout`` s for the turns in flight.

        The rest are cancelled. The gateway stays connected meanwhile, so answers get posted.
        """
        self._draining = True
        await finish_in_flight(self._tasks, timeout, log=logger, platform="discord", noun="turn(s)")

    async def on_message_delete(self, client: discord.Client, message: discord.Message) -> None:
        """A member deleted a message the bot saw: drop it, its answer and its data.

        discord.py reports deletions of messages in its cache (the last 1 000 it saw), which
        carry the text the turn anonymized. Errors are logged, never raised.
        """
        try:
            if self._queued is not None and await self._queued.put(client, message, deleted=True):
                return
            await self._turns.on_delete(client, message)
        except Exception as exc:  # a bad event must not stop the bot
            log_failure(logger, "discord message delete %s failed", exc, message.id)

    async def on_message_edit(
        self, client: discord.Client, before: discord.Message, after: discord.Message
    ) -> None:
        """A member edited a message the bot saw: the core keeps the new text in its place.

        discord.py reports edits of messages in its cache, with the text before and after.
        Errors are logged, never raised.
        """
        if before.content == after.content:
            return  # an embed or a pin, not the words
        try:
            if self._queued is not None and await self._queued.put(
                client, after, previous=before.content
            ):
                return
            await self._turns.on_edit(client, before.content, after)
        except Exception as exc:  # a bad event must not stop the bot
            log_failure(logger, "discord message edit %s failed", exc, after.id)

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot was removed from a server (or it was deleted): erase the server's data.

        Errors are logged, never raised.
        """
        if self._erase is None:
            return
        try:
            deleted = await self._erase(str(guild.id))
        except Exception as exc:  # a failed erasure must not stop the bot
            log_failure(logger, "discord server erasure failed guild=%s", exc, guild.id)
            return
        logger.info("discord server removed the bot: erased guild=%s keys=%d", guild.id, deleted)

    async def _rest_client(self) -> discord.Client:
        """The client once logged in: all the queue worker needs (REST, no gateway)."""
        await self._logged_in.wait()
        assert self._client_now is not None  # noqa: S101  (set before ready)
        return self._client_now
