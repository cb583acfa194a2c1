"""A fake Discord on 127.0.0.1: the REST API and the gateway websocket, speaking the real formats.

Drives the real discord.py client. REST answers carry ``Content-Type: application/json``
exactly (discord.py treats ``; charset=utf-8`` as text). Every REST request is recorded so a
test can read what the bot posted, including each payload's ``allowed_mentions``.

Gateway: HELLO, heartbeat ACK, IDENTIFY -> READY + GUILD_CREATE (or a close code such as
4014), RESUME -> replay + RESUMED, op 7 RECONNECT on request, and dispatches of
MESSAGE_CREATE, THREAD_CREATE and INTERACTION_CREATE.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import WSMsgType, web

BOT_ID = 900000000000000001
APP_ID = 900000000000000001
GUILD_ID = 500000000000000004
CHANNEL_ID = 600000000000000020
ALICE_ID = 100000000000000002
BOB_ID = 100000000000000003
OTHER_BOT_ID = 100000000000000009
TIMESTAMP = "2026-01-01T00:00:00.000000+00:00"


def user(uid: int, name: str, *, bot: bool = False) -> dict[str, Any]:
    """A user object."""
    return {
        "id": str(uid),
        "username": name,
        "discriminator": "0",
        "global_name": None,
        "avatar": None,
        "bot": bot,
    }


BOT_USER = user(BOT_ID, "veilbot", bot=True)
USERS = {
    ALICE_ID: user(ALICE_ID, "alice"),
    BOB_ID: user(BOB_ID, "bob"),
    OTHER_BOT_ID: user(OTHER_BOT_ID, "otherbot", bot=True),
    BOT_ID: BOT_USER,
}


@dataclass
class Request:
    """One REST request the fake received."""

    method: str
    path: str
    body: Any


@dataclass
class FakeDiscord:
    """The fake server; ``await start()``, then point the adapter at ``api_url``/``gateway_url``."""

    identify_close_code: int | None = None
    requests: list[Request] = field(default_factory=list)
    identifies: list[dict[str, Any]] = field(default_factory=list)
    resumes: list[dict[str, Any]] = field(default_factory=list)
    shards_reported: int = 1
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(800000000000000001))
    _threads: dict[int, dict[str, Any]] = field(default_factory=dict)
    _ws: web.WebSocketResponse | None = None
    _seq: int = 0
    _log: list[dict[str, Any]] = field(default_factory=list)
    _replay_on_resume: list[dict[str, Any]] = field(default_factory=list)
    _changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    _runner: web.AppRunner | None = None
    port: int = 0

    # ------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/", self._gateway)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._rest)
        self._runner = web.AppRunner(app, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]

    async def stop(self) -> None:
        if self._ws is not None and not self._ws.closed:
            await self._ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    # ------------------------------------------------------------ what tests call

    def next_id(self) -> int:
        return next(self._ids)

    def message(
        self,
        content: str,
        *,
        author: int = ALICE_ID,
        channel: int = CHANNEL_ID,
        guild: int | None = GUILD_ID,
        mentions: tuple[int, ...] = (),
        attachments: int = 0,
        msg_type: int = 0,
    ) -> dict[str, Any]:
        """A MESSAGE_CREATE payload."""
        data: dict[str, Any] = {
            "id": str(self.next_id()),
            "channel_id": str(channel),
            "content": content,
            "author": USERS[author],
            "timestamp": TIMESTAMP,
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [USERS[m] for m in mentions],
            "mention_roles": [],
            "attachments": [self._attachment() for _ in range(attachments)],
            "embeds": [],
            "pinned": False,
            "type": msg_type,
            "flags": 0,
        }
        if guild is not None:
            data["guild_id"] = str(guild)
            data["member"] = {
                "roles": [],
                "joined_at": TIMESTAMP,
                "flags": 0,
                "deaf": False,
                "mute": False,
            }
        return data

    def _attachment(self) -> dict[str, Any]:
        aid = self.next_id()
        return {
            "id": str(aid),
            "filename": "notes.txt",
            "size": 12,
            "url": f"{self.api_url}/attachments/{aid}",
            "proxy_url": "",
            "content_type": "text/plain",
        }

    def slash(
        self, name: str, *, channel: int, guild: int | None = GUILD_ID, author: int = ALICE_ID
    ) -> dict[str, Any]:
        """An INTERACTION_CREATE payload for a chat-input command."""
        channel_obj = self._threads.get(channel) or {
            "id": str(channel),
            "type": 0 if guild else 1,
            "name": "general",
            "position": 0,
        }
        data: dict[str, Any] = {
            "id": str(self.next_id()),
            "application_id": str(APP_ID),
            "type": 2,
            "token": f"itoken-{self.next_id()}",
            "version": 1,
            "attachment_size_limit": 8388608,
            "data": {"id": str(self.next_id()), "name": name, "type": 1},
            "channel_id": str(channel),
            "channel": channel_obj,
            "locale": "en-US",
            "app_permissions": "0",
            "entitlements": [],
        }
        if guild is not None:
            data["guild_id"] = str(guild)
            data["data"]["guild_id"] = str(guild)
            data["member"] = {
                "user": USERS[author],
                "roles": [],
                "joined_at": TIMESTAMP,
                "flags": 0,
                "permissions": "0",
                "deaf": False,
                "mute": False,
            }
        else:
            data["user"] = USERS[author]
        return data

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send one dispatch (op 0) on the live gateway connection."""
        await self.wait_for(lambda: self._ws is not None and not self._ws.closed)
        self._seq += 1
        frame = {"op": 0, "t": event, "s": self._seq, "d": data}
        self._log.append(frame)
        assert self._ws is not None
        await self._ws.send_str(json.dumps(frame))

    async def reconnect_and_redeliver(self, event: str, data: dict[str, Any]) -> None:
        """Ask the client to reconnect (op 7); on its RESUME, deliver ``event`` again."""
        self._replay_on_resume.append({"t": event, "d": data})
        resumes = len(self.resumes)
        assert self._ws is not None
        await self._ws.send_str(json.dumps({"op": 7, "d": None}))
        await self.wait_for(lambda: len(self.resumes) > resumes)

    def posts(self, channel: int | None = None) -> list[Request]:
        """Messages the bot created (optionally in one channel)."""
        return [
            r
            for r in self.requests
            if r.method == "POST"
            and r.path.endswith("/messages")
            and (channel is None or r.path == f"/channels/{channel}/messages")
        ]

    def edits(self) -> list[Request]:
        return [r for r in self.requests if r.method == "PATCH" and "/messages/" in r.path]

    def of(self, method: str, fragment: str) -> list[Request]:
        return [r for r in self.requests if r.method == method and fragment in r.path]

    async def wait_for(self, predicate: Callable[[], bool]) -> None:
        """Until ``predicate()`` holds (re-checked whenever the fake receives something)."""
        async with self._changed:
            await self._changed.wait_for(predicate)

    async def _changed_now(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    # ------------------------------------------------------------ REST

    async def _rest(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        body = await request.json() if request.can_read_body else None
        self.requests.append(Request(request.method, path, body))
        try:
            status, payload = self._route(request.method, path, body)
        finally:
            await self._changed_now()
        if payload is None:
            return web.Response(status=status)
        return web.Response(
            status=status,
            body=json.dumps(payload).encode(),
            headers={"Content-Type": "application/json"},
        )

    def _route(self, method: str, path: str, body: Any) -> tuple[int, Any]:
        parts = path.strip("/").split("/")
        if path == "/users/@me":
            return 200, BOT_USER
        if path == "/oauth2/applications/@me":
            return 200, {
                "id": str(APP_ID),
                "name": "veilbot",
                "description": "",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": USERS[ALICE_ID],
                "verify_key": "00",
                "flags": 0,
            }
        if path in ("/gateway/bot", "/gateway"):
            return 200, {
                "url": self.gateway_url,
                "shards": self.shards_reported,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }
        if parts[0] == "channels" and parts[-1] == "typing":
            return 204, None
        if parts[0] == "channels" and parts[-1] == "messages" and method == "POST":
            return 200, self._message_echo(int(parts[1]), self.next_id(), body)
        if parts[0] == "channels" and len(parts) == 4 and method == "PATCH":
            return 200, self._message_echo(int(parts[1]), int(parts[3]), body)
        if parts[0] == "channels" and parts[-1] == "threads" and method == "POST":
            return self._start_thread(int(parts[1]), int(parts[3]), body)
        if parts[0] == "applications" and method == "PUT":
            return 200, [self._command(c) for c in body]
        if parts[0] == "interactions":
            return 200, {
                "interaction": {"id": parts[1], "type": 2, "response_message_ephemeral": True}
            }
        return 404, {"message": "404: Not Found", "code": 0}

    def _message_echo(self, channel: int, mid: int, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": str(mid),
            "channel_id": str(channel),
            "content": body.get("content", ""),
            "author": BOT_USER,
            "timestamp": TIMESTAMP,
            "edited_timestamp": None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [],
            "embeds": [],
            "pinned": False,
            "type": 0,
            "flags": 0,
        }

    def _start_thread(self, channel: int, message: int, body: dict[str, Any]) -> tuple[int, Any]:
        if message in self._threads:
            return 400, {
                "code": 160004,
                "message": "A thread has already been created for this message",
            }
        thread = {
            "id": str(message),
            "guild_id": str(GUILD_ID),
            "parent_id": str(channel),
            "owner_id": str(BOT_ID),
            "name": body["name"],
            "type": 11,
            "message_count": 0,
            "member_count": 1,
            "rate_limit_per_user": 0,
            "thread_metadata": {
                "archived": False,
                "auto_archive_duration": 1440,
                "archive_timestamp": TIMESTAMP,
                "locked": False,
            },
        }
        self._threads[message] = thread
        asyncio.get_running_loop().create_task(
            self.dispatch("THREAD_CREATE", thread | {"newly_created": True})
        )
        return 201, thread

    def add_thread(self, thread_id: int, *, owner: int) -> dict[str, Any]:
        """A thread someone else started, announced by THREAD_CREATE when dispatched."""
        thread = self._start_thread(CHANNEL_ID, thread_id, {"name": "side talk"})[1]
        thread["owner_id"] = str(owner)
        return thread

    @staticmethod
    def _command(cmd: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": str(abs(hash(cmd["name"])) % 10**18),
            "application_id": str(APP_ID),
            "version": "1",
            "type": 1,
            **cmd,
        }

    # ------------------------------------------------------------ gateway

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self._ws = ws
        await ws.send_str(json.dumps({"op": 10, "d": {"heartbeat_interval": 41250}}))
        async for msg in ws:
            if msg.type is not WSMsgType.TEXT:
                break
            await self._on_frame(ws, json.loads(msg.data))
            await self._changed_now()
        await self._changed_now()
        return ws

    async def _on_frame(self, ws: web.WebSocketResponse, frame: dict[str, Any]) -> None:
        op = frame["op"]
        if op == 1:
            await ws.send_str(json.dumps({"op": 11}))
        elif op == 2:
            self.identifies.append(frame["d"])
            if self.identify_close_code is not None:
                await ws.close(code=self.identify_close_code, message=b"Disallowed intent(s).")
                return
            await self._ready(frame["d"])
        elif op == 6:
            self.resumes.append(frame["d"])
            for old in self._replay_on_resume:
                await self.dispatch(old["t"], old["d"])
            self._replay_on_resume.clear()
            await self.dispatch("RESUMED", {})

    async def _ready(self, identify: dict[str, Any]) -> None:
        ready: dict[str, Any] = {
            "v": 10,
            "user": BOT_USER,
            "guilds": [{"id": str(GUILD_ID), "unavailable": True}],
            "session_id": "fake-session",
            "resume_gateway_url": self.gateway_url,
            "application": {"id": str(APP_ID), "flags": 0},
        }
        if "shard" in identify:
            ready["shard"] = identify["shard"]
        await self.dispatch("READY", ready)
        await self.dispatch("GUILD_CREATE", self._guild())

    def _guild(self) -> dict[str, Any]:
        everyone = {
            "id": str(GUILD_ID),
            "name": "@everyone",
            "permissions": "1071698660929",
            "position": 0,
            "color": 0,
            "hoist": False,
            "managed": False,
            "mentionable": False,
            "flags": 0,
        }
        me = {
            "user": BOT_USER,
            "roles": [],
            "joined_at": TIMESTAMP,
            "flags": 0,
            "deaf": False,
            "mute": False,
        }
        return {
            "id": str(GUILD_ID),
            "name": "test guild",
            "unavailable": False,
            "member_count": 3,
            "roles": [everyone],
            "members": [me],
            "channels": [
                {
                    "id": str(CHANNEL_ID),
                    "type": 0,
                    "name": "general",
                    "position": 0,
                    "permission_overwrites": [],
                }
            ],
            "threads": [t for t in self._threads.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "owner_id": str(ALICE_ID),
            "large": False,
        }
