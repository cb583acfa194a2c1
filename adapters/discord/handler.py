"""The Discord adapter: discord.py wiring around the pure translation in ``events``.

A mention in a text channel starts a conversation in a public thread made from that message
(or an inline reply); in a thread the bot follows, members talk without mentioning it; direct
messages work. The core (``MessageHandler``) runs the guarded turn, dedupes redeliveries by
message id and writes the friendly error texts; this module only translates and posts.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import aiohttp
import discord
import yarl

from adapters.discord.commands import build_tree, sync_commands
from adapters.discord.events import (
    ATTACHMENTS_NOTICE,
    MessageFacts,
    Trigger,
    classify,
    conversation_channel,
    facts_of,
    thread_name,
    to_inbound,
)
from adapters.discord.replies import NO_MENTIONS, OncePerThread, ReplyPoster
from bot.core.errors import AdapterError
from bot.core.logsafe import log_failure
from bot.core.ports import AdminCommands, MessageHandler
from bot.core.types import InboundMessage
from bot.settings import Settings, require

logger = logging.getLogger(__name__)

INTENT_HELP = (
    "Discord refused the Message Content intent (gateway close code 4014). Enable it in the "
    "Developer Portal: https://discord.com/developers/applications -> your application -> "
    "Bot -> Privileged Gateway Intents -> Message Content Intent, save, and restart veilbot."
)
_THREAD_EXISTS = 160004  # Discord: "A thread has already been created for this message"


def intents() -> discord.Intents:
    """Exactly the intents the bot needs; message content is privileged."""
    wanted = discord.Intents.none()
    wanted.guilds = True
    wanted.guild_messages = True
    wanted.dm_messages = True
    wanted.message_content = True
    return wanted


class DiscordAdapter:
    """Serves one Discord bot (all shards of this replica) until cancelled.

    Args:
        settings: the ``VEILBOT_DISCORD_*`` settings are read from here.
        handler: the guarded turn.
        admin: the core's admin commands, for ``/audit export`` (none: refused).
        guild_ready_timeout: seconds discord.py waits for more guilds before ``on_ready``.
    """

    name = "discord"

    def __init__(
        self,
        settings: Settings,
        handler: MessageHandler,
        *,
        admin: AdminCommands | None = None,
        guild_ready_timeout: float = 2.0,
    ) -> None:
        self._settings = settings
        self._handler = handler
        self._admin = admin
        self._guild_ready_timeout = guild_ready_timeout
        self._told_about_files = OncePerThread()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._draining = False
        self.ready = asyncio.Event()
        """Set once the gateway session is ready (for tests and health checks)."""

    async def run(self) -> None:
        """Connect and serve until cancelled.

        Raises:
            ConfigError: ``VEILBOT_DISCORD_TOKEN`` is not set.
            AdapterError: Discord rejected the token or the message-content intent.
        """
        token = require(self._settings.discord_token, "VEILBOT_DISCORD_TOKEN")
        _point_at(self._settings)
        _quiet_sdk_logs()
        client = self._client()
        try:
            async with client:
                await client.start(token)
        except discord.PrivilegedIntentsRequired as exc:
            raise AdapterError(INTENT_HELP) from exc
        except discord.ConnectionClosed as exc:
            if exc.code == 4014:
                raise AdapterError(INTENT_HELP) from exc
            raise AdapterError(f"Discord closed the gateway (code {exc.code})") from exc
        except discord.LoginFailure as exc:
            raise AdapterError("Discord rejected VEILBOT_DISCORD_TOKEN; check the token") from exc
        except (aiohttp.ClientError, OSError, TimeoutError, discord.GatewayNotFound) as exc:
            raise AdapterError(
                f"cannot reach Discord ({type(exc).__name__}); check the network, a proxy, "
                "and VEILBOT_DISCORD_API_URL / VEILBOT_DISCORD_GATEWAY_URL if set"
            ) from exc
        except discord.HTTPException as exc:
            raise AdapterError(
                f"Discord answered HTTP {exc.status} at start-up; check VEILBOT_DISCORD_TOKEN "
                "and https://discordstatus.com"
            ) from exc

    def _client(self) -> discord.Client:
        options: dict[str, Any] = {
            "intents": intents(),
            "allowed_mentions": NO_MENTIONS,
            "guild_ready_timeout": self._guild_ready_timeout,
        }
        count, ids = self._settings.discord_shard_count, self._settings.discord_shard_ids
        if count is None:
            return _Client(self, **options)
        return _ShardedClient(self, shard_count=count, shard_ids=ids, **options)

    async def setup(self, client: discord.Client) -> None:
        """After login: register the slash commands (on the replica that runs shard 0)."""
        tree = build_tree(client, self._handler, self._admin)
        ids = self._settings.discord_shard_ids
        if ids is None or 0 in ids:
            await sync_commands(tree, self._settings.discord_guild_id)

    async def on_message(self, client: discord.Client, message: discord.Message) -> None:
        """One new message (edits never come here). Errors are logged, never raised."""
        if self._draining:
            logger.info("discord message %s arrived while stopping; not answered", message.id)
            return
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self._on_message(client, message)
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
        pending = {t for t in self._tasks if t is not asyncio.current_task()}
        if not pending:
            return
        logger.info("discord: waiting up to %gs for %d turn(s) in flight", timeout, len(pending))
        _, late = await asyncio.wait(pending, timeout=timeout)
        for task in late:
            task.cancel()
        if late:
            logger.warning("discord: %d turn(s) not done in %gs were cancelled", len(late), timeout)

    async def on_message_delete(self, client: discord.Client, message: discord.Message) -> None:
        """A member deleted a message the bot saw: drop it, its answer and its data.

        discord.py reports deletions of messages in its cache (the last 1 000 it saw), which
        carry the text the turn anonymized. Errors are logged, never raised.
        """
        try:
            read = self._read(client, message)
            if read is None:
                return
            inbound = read[2]
            await self._handler.message_deleted(inbound.thread_id, inbound.text, platform="discord")
        except Exception as exc:  # a bad event must not stop the bot
            log_failure(logger, "discord message delete %s failed", exc, message.id)

    def _read(
        self, client: discord.Client, message: discord.Message
    ) -> tuple[MessageFacts, Trigger, InboundMessage] | None:
        """A message as the bot reads it: its facts, why it matters, the turn's input.

        ``None`` for a message the bot ignores.
        """
        assert client.user is not None  # noqa: S101  (events arrive only after login)
        facts = facts_of(message)
        bot_id = client.user.id
        trigger = classify(facts, bot_id, ignore_bots=self._settings.discord_ignore_bots)
        if trigger is Trigger.IGNORE:
            return None
        mode = self._settings.discord_reply_mode
        inbound = to_inbound(facts, conversation_channel(facts, trigger, reply_mode=mode), bot_id)
        return facts, trigger, inbound

    async def _on_message(self, client: discord.Client, message: discord.Message) -> None:
        read = self._read(client, message)
        if read is None:
            return
        facts, trigger, inbound = read
        assert client.user is not None  # noqa: S101  (checked by _read)
        bot_id = client.user.id
        if trigger is Trigger.THREAD_MESSAGE and not await self._follows(facts, inbound, bot_id):
            return
        target, reply_to = await self._destination(client, message, trigger, inbound)
        await self._answer(inbound, facts, target, reply_to, bot_id)

    async def _follows(self, facts: MessageFacts, inbound: InboundMessage, bot_id: int) -> bool:
        """Whether the bot answers un-mentioned messages in this thread."""
        if not self._settings.discord_followups:
            return False
        if facts.thread_owner_id == bot_id:
            return True
        return await self._handler.knows_thread(inbound.thread_id)

    async def _destination(
        self,
        client: discord.Client,
        message: discord.Message,
        trigger: Trigger,
        inbound: InboundMessage,
    ) -> tuple[discord.abc.Messageable, discord.Message | None]:
        """Where to answer: a new thread, the same thread or DM, or a reply in the channel."""
        if trigger is not Trigger.CHANNEL_MENTION:
            return message.channel, None
        if self._settings.discord_reply_mode == "inline":
            return message.channel, message
        bot_name = client.user.name if client.user else "veilbot"
        name = thread_name(inbound.text, fallback=f"Chat with {bot_name}")
        try:
            return await message.create_thread(name=name, auto_archive_duration=1440), None
        except discord.HTTPException as exc:
            if exc.code == _THREAD_EXISTS:  # a redelivery: the thread is there already
                guild_id = message.guild.id if message.guild else None
                return client.get_partial_messageable(message.id, guild_id=guild_id), None
            logger.warning(
                "no thread for message %s (HTTP %s, code %s): replying inline",
                message.id,
                exc.status,
                exc.code,
            )
            return message.channel, message

    async def _answer(
        self,
        inbound: InboundMessage,
        facts: MessageFacts,
        target: discord.abc.Messageable,
        reply_to: discord.Message | None,
        bot_id: int,
    ) -> None:
        """Run the turn with a typing indicator and post its reply."""
        if facts.attachments and self._told_about_files.first(inbound.thread_id):
            await target.send(ATTACHMENTS_NOTICE, allowed_mentions=NO_MENTIONS)
        if not inbound.text.strip() and facts.attachments:
            return
        interval = self._settings.discord_edit_interval_seconds
        poster = ReplyPoster(
            target,
            reply_to=reply_to,
            asked=[i for i in facts.mention_ids if i != bot_id],
            edit_interval=interval if self._settings.discord_progressive_edits else None,
        )
        async with target.typing():
            reply = await self._handler.handle(inbound, poster if poster.streaming else None)
        if reply is None:
            logger.info("message %s was already answered (redelivery)", inbound.message_id)
            return
        await poster.finish(reply.text)


class _Hooks:
    """discord.py event methods, forwarded to the adapter (shared by both client classes)."""

    _adapter: DiscordAdapter

    async def setup_hook(self) -> None:
        await self._adapter.setup(self)  # type: ignore[arg-type]

    async def on_ready(self) -> None:
        self._adapter.ready.set()

    async def on_message(self, message: discord.Message) -> None:
        await self._adapter.on_message(self, message)  # type: ignore[arg-type]

    async def on_message_delete(self, message: discord.Message) -> None:
        await self._adapter.on_message_delete(self, message)  # type: ignore[arg-type]


class _Client(_Hooks, discord.Client):
    def __init__(self, adapter: DiscordAdapter, **options: Any) -> None:
        super().__init__(**options)
        self._adapter = adapter


class _ShardedClient(_Hooks, discord.AutoShardedClient):
    def __init__(self, adapter: DiscordAdapter, **options: Any) -> None:
        super().__init__(**options)
        self._adapter = adapter


def _point_at(settings: Settings) -> None:
    """Send REST and gateway traffic to configured URLs (a proxy, or a test server).

    discord.py reads both from class attributes, so this is process-wide; one process runs
    one Discord bot.
    """
    if settings.discord_api_url:
        discord.http.Route.BASE = settings.discord_api_url.rstrip("/")
    if settings.discord_gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.discord_gateway_url)


def _quiet_sdk_logs() -> None:
    """At DEBUG discord.py logs gateway payloads, i.e. message text: keep it at INFO+.

    The bot never joins voice: no warnings about missing voice libraries (PyNaCl, davey).
    """
    for flag in ("warn_nacl", "warn_dave"):
        if hasattr(discord.VoiceClient, flag):
            setattr(discord.VoiceClient, flag, False)
    sdk = logging.getLogger("discord")
    if sdk.getEffectiveLevel() < logging.INFO:
        sdk.setLevel(logging.INFO)
