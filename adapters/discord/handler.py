"""The Discord adapter: discord.py wiring around the pure translation in ``events``.

A mention in a text channel starts a conversation in a public thread made from that message
(or an inline reply); in a thread the bot follows, members talk without mentioning it; direct
messages work. The core (``MessageHandler``) runs the guarded turn, dedupes redeliveries by
message id and writes the friendly error texts; this module only translates and posts.

With a ``TurnQueue`` (``veilbot run``; ``bot.state.queue``) a gateway message is put on the
queue (sealed) as soon as it arrives, as data (``QueuedMessage``: the message's facts, why it
matters, where the conversation lives), and any replica's worker answers it in the thread's
order: the destination (a new thread from the message, the same channel or thread, or an inline
reply) is rebuilt from ids over REST. Discord never redelivers a message, so a replica that dies
mid-turn must not take it along. Deletions go through the queue too, behind the turn they
withdraw. Answers reply to the asker's message (without pinging them), except in a thread
started from it. An entry another worker began and did not finish (``attempt > 1``) is answered
only if the destination holds no answer to the message yet (``answered_before``); the first post
of an answer also carries the message id as its ``nonce`` with ``enforce_nonce``, so Discord
itself refuses a second copy for a few minutes. Without a queue the turn runs in the process
that received the message.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import asdict, dataclass, replace
from typing import Any

import aiohttp
import discord
import yarl

from adapters.discord.commands import build_tree, sync_commands
from adapters.discord.events import (
    MessageFacts,
    Trigger,
    classify,
    conversation_channel,
    facts_of,
    thread_name,
    to_inbound,
)
from adapters.discord.replies import NO_MENTIONS, ReplyPoster
from adapters.downloads import DISCORD_FILE_HOSTS, HostedFiles
from adapters.inflight import finish_in_flight
from bot.core.attachments import Attachment
from bot.core.errors import AdapterError, StoreError
from bot.core.logsafe import log_failure
from bot.core.ports import AdminCommands, MessageHandler, TurnQueue
from bot.core.types import InboundMessage, QueuedEvent
from bot.settings import Settings, require

logger = logging.getLogger(__name__)

INTENT_HELP = (
    "Discord refused the Message Content intent (gateway close code 4014). Enable it in the "
    "Developer Portal: https://discord.com/developers/applications -> your application -> "
    "Bot -> Privileged Gateway Intents -> Message Content Intent, save, and restart veilbot."
)
_THREAD_EXISTS = 160004  # Discord: "A thread has already been created for this message"
_DELETED = "deleted"
_EDITED = "edited"
_HISTORY_LOOKBACK = 50
"""Messages after the asker's read back to see whether an earlier attempt answered it."""


@dataclass(frozen=True, slots=True)
class QueuedMessage:
    """A Discord message as it rests in the turn queue: data, never a ``discord.Message``.

    Attributes:
        facts: what the adapter decides on (raw text inside: the queue seals it).
        trigger: why it matters, or ``"deleted"``/``"edited"`` for a deletion or an edit.
        channel: the conversation's channel id (names the thread the queue orders by).
        bot_id: the bot's user id when it arrived.
        mode: ``VEILBOT_DISCORD_REPLY_MODE`` when it arrived (the conversation id depends on it).
        previous: an edited message's earlier text (raw; the queue seals it).
    """

    facts: MessageFacts
    trigger: str
    channel: int
    bot_id: int
    mode: str
    previous: str | None = None

    def to_bytes(self) -> bytes:
        """The queue payload (JSON)."""
        data = {
            "facts": asdict(self.facts),
            "trigger": self.trigger,
            "channel": self.channel,
            "bot_id": self.bot_id,
            "mode": self.mode,
            "previous": self.previous,
        }
        return json.dumps(data, separators=(",", ":")).encode()

    @classmethod
    def from_bytes(cls, body: bytes) -> QueuedMessage:
        """Read a payload back.

        Raises:
            ValueError: not a payload ``to_bytes`` wrote.
        """
        try:
            data = json.loads(body)
            raw = dict(data["facts"])
            raw["mention_ids"] = tuple(int(i) for i in raw.get("mention_ids", ()))
            raw["role_ids"] = tuple(int(i) for i in raw.get("role_ids", ()))
            raw["files"] = tuple(Attachment(**f) for f in raw.get("files", ()))
            return cls(
                facts=MessageFacts(**raw),
                trigger=str(data["trigger"]),
                channel=int(data["channel"]),
                bot_id=int(data["bot_id"]),
                mode=str(data["mode"]),
                previous=None if data.get("previous") is None else str(data["previous"]),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise ValueError("not a queued Discord message") from exc


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
        queue: the turn queue: messages are queued on arrival and answered by any replica's
            worker (none: answered in this process).
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
    ) -> None:
        self._settings = settings
        self._handler = handler
        self._admin = admin
        self._guild_ready_timeout = guild_ready_timeout
        self._files = HostedFiles("discord", DISCORD_FILE_HOSTS, api_url=settings.discord_api_url)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._draining = False
        self._client_now: discord.Client | None = None
        self._logged_in = asyncio.Event()
        """Set once the REST client is logged in: all the queue worker needs (no gateway)."""
        self.ready = asyncio.Event()
        """Set once the gateway session is ready (for tests and health checks)."""
        self._queue = queue
        self._put_order = asyncio.Lock()
        """Puts in gateway order: discord.py runs each event in its own task (FIFO waiters)."""
        if queue is not None:
            queue.register("discord", self._work_queued)

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
        _point_at(self._settings)
        _quiet_sdk_logs()
        client = self._client_now = self._client()
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
        if self._queue is not None and await self._enqueue(client, message):
            return
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
        await finish_in_flight(self._tasks, timeout, log=logger, platform="discord", noun="turn(s)")

    async def on_message_delete(self, client: discord.Client, message: discord.Message) -> None:
        """A member deleted a message the bot saw: drop it, its answer and its data.

        discord.py reports deletions of messages in its cache (the last 1 000 it saw), which
        carry the text the turn anonymized. Errors are logged, never raised.
        """
        try:
            if self._queue is not None and await self._enqueue(client, message, deleted=True):
                return
            read = self._read(client, message)
            if read is None:
                return
            inbound = read[2]
            await self._handler.message_deleted(inbound.thread_id, inbound.text, platform="discord")
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
            if self._queue is not None and await self._enqueue(
                client, after, previous=before.content
            ):
                return
            read = self._read(client, after)
            if read is None:
                return
            facts, _, inbound = read
            assert client.user is not None  # noqa: S101  (checked by _read)
            earlier = replace(facts, content=before.content)
            await self._edited(
                inbound, to_inbound(earlier, int(inbound.channel), client.user.id).text
            )
        except Exception as exc:  # a bad event must not stop the bot
            log_failure(logger, "discord message edit %s failed", exc, after.id)

    async def _enqueue(
        self,
        client: discord.Client,
        message: discord.Message,
        *,
        deleted: bool = False,
        previous: str | None = None,
    ) -> bool:
        """Queue a message, its deletion, or its edit (from ``previous``); done or not needed.

        ``False`` when Redis did not take it: the caller works it in this process.
        """
        read = self._read(client, message)
        if read is None:
            return True
        facts, trigger, inbound = read
        assert client.user is not None  # noqa: S101  (checked by _read)
        assert self._queue is not None  # noqa: S101  (called only with a queue)
        kind = _DELETED if deleted else _EDITED if previous is not None else trigger.value
        queued = QueuedMessage(
            facts,
            kind,
            int(inbound.channel),
            client.user.id,
            self._settings.discord_reply_mode,
            previous=previous,
        )
        event_id = str(facts.message_id) if kind == trigger.value else f"{facts.message_id}:{kind}"
        if kind == _EDITED:  # every edit is its own event
            stamp = message.edited_at.timestamp() if message.edited_at else 0.0
            event_id += f":{stamp:.3f}"
        try:
            # No await before this lock: events take it in the order the gateway sent them.
            async with self._put_order:
                await self._queue.put("discord", event_id, inbound.thread_id, queued.to_bytes())
        except StoreError as exc:
            logger.error("discord message %s not queued, worked here: %s", message.id, exc)
            return False
        return True

    async def _work_queued(self, event: QueuedEvent) -> None:
        """The queue worker's handler: work one queued message as ``on_message`` would have."""
        try:
            queued = QueuedMessage.from_bytes(event.body)
        except ValueError:
            logger.error("queued discord message unreadable; dropped")
            return
        try:
            await self._logged_in.wait()  # REST needs the logged-in client, not the gateway
            assert self._client_now is not None  # noqa: S101  (set before ready)
            await self._answer_queued(self._client_now, queued, event)
        except Exception as exc:  # one bad entry must not stop the worker
            log_failure(logger, "queued discord message %s failed", exc, queued.facts.message_id)

    async def _answer_queued(
        self, client: discord.Client, queued: QueuedMessage, event: QueuedEvent
    ) -> None:
        facts, bot_id = queued.facts, queued.bot_id
        inbound = to_inbound(facts, queued.channel, bot_id)
        if queued.trigger == _DELETED:
            await self._handler.message_deleted(inbound.thread_id, inbound.text, platform="discord")
            return
        if queued.trigger == _EDITED:
            earlier = replace(facts, content=queued.previous or "")
            await self._edited(inbound, to_inbound(earlier, queued.channel, bot_id).text)
            return
        # The queue dedupes deliveries; every attempt at an entry is one audit run.
        inbound = replace(inbound, event_id=None, run_id=event.run_id)
        trigger = Trigger(queued.trigger)
        if trigger is Trigger.THREAD_MESSAGE and not await self._follows(facts, inbound, bot_id):
            return
        if not self._handler.admits(inbound):  # refused: told privately, no thread opened
            where = client.get_partial_messageable(facts.channel_id, guild_id=facts.guild_id)
            await self._answer(inbound, facts, where, None, bot_id)
            return
        target, reply_to = await self._rebuilt_destination(client, queued, trigger, inbound)
        if event.attempt > 1 and await answered_before(target, facts.message_id, bot_id, reply_to):
            logger.info("queued discord message %s was answered before; not again", event.event_id)
            return
        ping = trigger is Trigger.CHANNEL_MENTION  # inline mode pings the asker, as before
        await self._answer(inbound, facts, target, reply_to, bot_id, ping_reply=ping)

    async def _rebuilt_destination(
        self,
        client: discord.Client,
        queued: QueuedMessage,
        trigger: Trigger,
        inbound: InboundMessage,
    ) -> tuple[discord.abc.Messageable, discord.PartialMessage | None]:
        """``_destination`` from ids alone, over REST (this process may never have seen it)."""
        facts = queued.facts
        channel = client.get_partial_messageable(facts.channel_id, guild_id=facts.guild_id)
        asked = channel.get_partial_message(facts.message_id)
        if trigger is not Trigger.CHANNEL_MENTION or queued.mode == "inline":
            # A reply to the asker's message (not pinging them, but inline): how a later
            # attempt tells this answer from the answer to an earlier message posted after it.
            return channel, asked
        bot_name = client.user.name if client.user else "veilbot"
        name = thread_name(inbound.text, fallback=f"Chat with {bot_name}")
        try:
            await client.http.start_thread_with_message(
                facts.channel_id, facts.message_id, name=name, auto_archive_duration=1440
            )
        except discord.HTTPException as exc:
            if exc.code != _THREAD_EXISTS:  # exists: an earlier attempt made it
                logger.warning(
                    "no thread for message %s (HTTP %s, code %s): replying inline",
                    facts.message_id,
                    exc.status,
                    exc.code,
                )
                return channel, asked
        thread = client.get_partial_messageable(
            facts.message_id, guild_id=facts.guild_id, type=discord.ChannelType.public_thread
        )
        return thread, None

    async def _edited(self, inbound: InboundMessage, before: str) -> None:
        await self._handler.message_edited(
            inbound.thread_id, before, inbound.text, platform="discord"
        )

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
        if not self._handler.admits(inbound):  # refused: told privately, no thread opened
            await self._answer(inbound, facts, message.channel, None, bot_id)
            return
        target, reply_to = await self._destination(client, message, trigger, inbound)
        await self._answer(inbound, facts, target, reply_to, bot_id)

    async def _follows(self, facts: MessageFacts, inbound: InboundMessage, bot_id: int) -> bool:
        """Whether the bot answers un-mentioned messages in this thread."""
        if not self._settings.discord_followups or not self._handler.follows_up(inbound):
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
        reply_to: discord.Message | discord.PartialMessage | None,
        bot_id: int,
        *,
        ping_reply: bool = True,
    ) -> None:
        """Run the turn with a typing indicator and post its reply."""
        if inbound.files:  # fetched by the turn from Discord's CDN
            inbound = replace(inbound, file_source=self._files)
        interval = self._settings.discord_edit_interval_seconds
        poster = ReplyPoster(
            target,
            reply_to=reply_to,
            asked=[i for i in facts.mention_ids if i != bot_id],
            edit_interval=interval if self._settings.discord_progressive_edits else None,
            nonce=inbound.message_id,
            ping_reply=ping_reply,
        )
        async with target.typing():
            reply = await self._handler.handle(inbound, poster if poster.streaming else None)
        if reply is None:
            logger.info("message %s was already answered (redelivery)", inbound.message_id)
            return
        if reply.ephemeral:
            await self._tell_privately(facts.author_id, reply.text)
            return
        await poster.finish(reply.text)

    async def _tell_privately(self, user_id: int, text: str) -> None:
        """A direct message to one person (Discord has no ephemeral reply to a message)."""
        client = self._client_now
        if client is None:
            return
        try:
            channel = await client.create_dm(discord.Object(user_id))
            await channel.send(text, allowed_mentions=NO_MENTIONS)
        except discord.HTTPException as exc:  # DMs closed: nothing else is private
            logger.info("private reply to a refused user not sent (HTTP %s)", exc.status)


async def answered_before(
    target: discord.abc.Messageable,
    message_id: int,
    bot_id: int,
    reply_to: discord.Message | discord.PartialMessage | None,
) -> bool:
    """Whether the bot posted an answer to ``message_id`` in ``target`` already.

    Discord messages carry no metadata, so this reads the destination back: a message by the
    bot after the asker's (snowflakes grow with time), not a slash command's response, and,
    where answers reply to the asker (``reply_to``: every destination but a thread started
    from the message), one replying to that message: the
    answer to an earlier message of the thread may be posted after this one arrived. In a
    thread started from the message, this message's entry is the thread's first, so any
    bot message there answers it.
    """
    try:
        after = discord.Object(id=message_id)
        async for posted in target.history(limit=_HISTORY_LOOKBACK, after=after):
            if posted.author.id != bot_id or posted.interaction_metadata is not None:
                continue
            ref = posted.reference
            if reply_to is not None and (ref is None or ref.message_id != message_id):
                continue
            return True
    except discord.NotFound:  # no thread: nothing was posted in it
        return False
    return False


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

    async def on_message_edit(self, before: discord.Message, after: discord.Message) -> None:
        await self._adapter.on_message_edit(self, before, after)  # type: ignore[arg-type]


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
