"""The discord.py client: intents, the client classes, where traffic goes, the SDK's logs.

``build_client`` makes a plain or a sharded client whose event methods forward to the adapter
(``Events``); ``connect`` runs it and turns discord.py's start-up failures into an
``AdapterError`` that says what to check.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

import aiohttp
import discord
import yarl

from adapters.discord.replies import NO_MENTIONS
from bot.config.settings import Settings
from bot.core.errors import AdapterError

INTENT_HELP = (
    "Discord refused the Message Content intent (gateway close code 4014). Enable it in the "
    "Developer Portal: https://discord.com/developers/applications -> your application -> "
    "Bot -> Privileged Gateway Intents -> Message Content Intent, save, and restart veilbot."
)


class Events(Protocol):
    """What the client forwards its events to (``DiscordAdapter``)."""

    ready: asyncio.Event

    async def setup(self, client: discord.Client) -> None:
        """After login, before the gateway connects."""

    async def on_message(self, client: discord.Client, message: discord.Message) -> None:
        """A new message."""

    async def on_message_delete(self, client: discord.Client, message: discord.Message) -> None:
        """A deleted message (one in discord.py's cache)."""

    async def on_message_edit(
        self, client: discord.Client, before: discord.Message, after: discord.Message
    ) -> None:
        """An edited message (one in discord.py's cache)."""

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        """The bot left a server, was removed from it, or the server was deleted."""


def intents() -> discord.Intents:
    """Exactly the intents the bot needs; message content is privileged."""
    wanted = discord.Intents.none()
    wanted.guilds = True
    wanted.guild_messages = True
    wanted.dm_messages = True
    wanted.message_content = True
    return wanted


def build_client(
    adapter: Events, settings: Settings, *, guild_ready_timeout: float
) -> discord.Client:
    """A client for this replica's shards (``VEILBOT_DISCORD_SHARD_*``; none: one client)."""
    options: dict[str, Any] = {
        "intents": intents(),
        "allowed_mentions": NO_MENTIONS,
        "guild_ready_timeout": guild_ready_timeout,
    }
    count, ids = settings.discord_shard_count, settings.discord_shard_ids
    if count is None:
        return _Client(adapter, **options)
    return _ShardedClient(adapter, shard_count=count, shard_ids=ids, **options)


async def connect(client: discord.Client, token: str) -> None:
    """Log in and serve until cancelled.

    Raises:
        AdapterError: Discord rejected the token or the message-content intent, or cannot
            be reached.
    """
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


class _Hooks:
    """discord.py event methods, forwarded to the adapter (shared by both client classes)."""

    _adapter: Events

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

    async def on_guild_remove(self, guild: discord.Guild) -> None:
        # discord.py calls this for a GUILD_DELETE that is not an outage ("unavailable")
        await self._adapter.on_guild_remove(guild)


class _Client(_Hooks, discord.Client):
    def __init__(self, adapter: Events, **options: Any) -> None:
        super().__init__(**options)
        self._adapter = adapter


class _ShardedClient(_Hooks, discord.AutoShardedClient):
    def __init__(self, adapter: Events, **options: Any) -> None:
        super().__init__(**options)
        self._adapter = adapter


def point_at(settings: Settings) -> None:
    """Send REST and gateway traffic to configured URLs (a proxy, or a test server).

    discord.py reads both from class attributes, so this is process-wide; one process runs
    one Discord bot.
    """
    if settings.discord_api_url:
        discord.http.Route.BASE = settings.discord_api_url.rstrip("/")
    if settings.discord_gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(settings.discord_gateway_url)


def quiet_sdk_logs() -> None:
    """At DEBUG discord.py logs gateway payloads, i.e. message text: keep it at INFO+.

    The bot never joins voice: no warnings about missing voice libraries (PyNaCl, davey).
    """
    for flag in ("warn_nacl", "warn_dave"):
        if hasattr(discord.VoiceClient, flag):
            setattr(discord.VoiceClient, flag, False)
    sdk = logging.getLogger("discord")
    if sdk.getEffectiveLevel() < logging.INFO:
        sdk.setLevel(logging.INFO)
