"""A fake Discord on 127.0.0.1: the REST API and the gateway websocket, speaking the real formats.

Drives the real discord.py client. REST answers carry ``Content-Type: application/json``
exactly (discord.py treats ``; charset=utf-8`` as text). Every REST request is recorded so a
test can read what the bot posted, including each payload's ``allowed_mentions``.

Gateway: HELLO, heartbeat ACK, IDENTIFY -> READY + GUILD_CREATE (or a close code such as
4014), RESUME -> replay + RESUMED, op 7 RECONNECT on request, and dispatches of
MESSAGE_CREATE, THREAD_CREATE and INTERACTION_CREATE.

Multipart requests (a message or interaction follow-up with files) are recorded as their
``payload_json`` body plus the files' names and bytes. Interaction follow-ups
(``POST /webhooks/<app>/<token>``) answer with a message.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import BodyPartReader, WSMsgType, web

from tests.fakes import discord_payloads as wire
from tests.fakes.discord_payloads import (  # noqa: F401  (re-exported for the tests)
    ALICE_ID,
    APP_ID,
    AUDITOR_ROLE_ID,
    BOB_ID,
    BOT_ID,
    BOT_USER,
    CHANNEL_ID,
    GUILD_ID,
    OTHER_BOT_ID,
)


@dataclass
class Request:
    """One REST request the fake received."""

    method: str
    path: str
    body: Any
    files: list[tuple[str, bytes]] = field(default_factory=list)


@dataclass
class FakeDiscord:
    """The fake server; ``await start()``, then point the adapter at ``api_url``/``gateway_url``."""

    identify_close_code: int | None = None
    accepted_token: str | None = None
    """When set, REST calls with any other bot token get Discord's 401."""
    requests: list[Request] = field(default_factory=list)
    identifies: list[dict[str, Any]] = field(default_factory=list)
    resumes: list[dict[str, Any]] = field(default_factory=list)
    shards_reported: int = 1
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(800000000000000001))
    _threads: dict[int, dict[str, Any]] = field(default_factory=dict)
    _posted: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    """Messages the bot created, per channel, oldest first (``GET .../messages`` reads them)."""
    _nonces: dict[str, dict[str, Any]] = field(default_factory=dict)
    _wrote: dict[int, set[int]] = field(default_factory=dict)
    """Who wrote in each channel or thread, and who wrote each message (a thread's starter)."""
    _ws: web.WebSocketResponse | None = None
    _seq: int = 0
    _log: list[dict[str, Any]] = field(default_factory=list)
    _replay_on_resume: list[dict[str, Any]] = field(default_factory=list)
    _changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    _runner: web.AppRunner | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)
    port: int = 0
    cdn: dict[str, bytes] = field(default_factory=dict)
    """Attachment bytes served by the fake CDN, by attachment id."""
    cdn_requests: list[str] = field(default_factory=list)
    """The attachment id of each CDN download, oldest first."""

    # ------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/", self._gateway)
        app.router.add_route("*", "/api/v10/{tail:.*}", self._rest)
        app.router.add_get("/attachments/{channel}/{aid}/{name}", self._cdn)
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
        files: tuple[tuple[str, bytes], ...] = (),
    ) -> dict[str, Any]:
        """A MESSAGE_CREATE payload from a member (``guild=None``: a direct message).

        ``files`` (name, bytes) are attached with CDN URLs this server serves.
        """
        files_ = [wire.attachment(self.next_id(), self.api_url) for _ in range(attachments)]
        files_ += [self.host_attachment(channel, name, data) for name, data in files]
        return wire.message(self.next_id(), channel, content, author=author, guild=guild,
                            mentions=mentions, attachments=files_, msg_type=msg_type)  # fmt: skip

    def host_attachment(self, channel: int, name: str, data: bytes) -> dict[str, Any]:
        """An attachment payload whose ``url`` is this server's CDN, serving ``data``."""
        aid = str(self.next_id())
        self.cdn[aid] = data
        url = f"http://127.0.0.1:{self.port}/attachments/{channel}/{aid}/{name}"
        return {"id": aid, "filename": name, "size": len(data), "url": url, "proxy_url": url,
                "content_type": "application/octet-stream"}  # fmt: skip

    async def _cdn(self, request: web.Request) -> web.Response:
        aid = request.match_info["aid"]
        self.cdn_requests.append(aid)
        if aid not in self.cdn:
            return web.Response(status=404, text="Not Found")
        return web.Response(body=self.cdn[aid], content_type="application/octet-stream")

    def slash(
        self,
        name: str,
        *,
        channel: int,
        guild: int | None = GUILD_ID,
        author: int = ALICE_ID,
        options: list[dict[str, Any]] | None = None,
        roles: tuple[int, ...] = (),
    ) -> dict[str, Any]:
        """An INTERACTION_CREATE payload for a chat-input command used in ``channel``.

        ``options`` are Discord's (a subcommand is ``{"type": 1, "name": …, "options": […]}``);
        ``roles`` are the member's role ids (the guild has ``AUDITOR_ROLE_ID``).
        """
        where = self._threads.get(channel) or wire.text_channel(channel, dm=guild is None)
        ids = (self.next_id(), self.next_id(), self.next_id())
        data = wire.interaction(
            ids, name, channel=where, guild=guild, author=author, options=options
        )
        if "member" in data:
            data["member"]["roles"] = [str(r) for r in roles]
        return data

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        """Send one dispatch (op 0) on the live gateway connection."""
        await self.wait_for(lambda: self._ws is not None and not self._ws.closed)
        self._seq += 1
        if event == "MESSAGE_CREATE":
            author = int(data["author"]["id"])
            self._wrote.setdefault(int(data["channel_id"]), set()).add(author)
            self._wrote.setdefault(int(data["id"]), set()).add(author)
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

    def created(self, channel: int) -> list[dict[str, Any]]:
        """Messages the bot created in ``channel`` (a post Discord deduped by nonce: once)."""
        return list(self._posted.get(channel, []))

    def edits(self) -> list[Request]:
        return [r for r in self.requests if r.method == "PATCH" and "/messages/" in r.path]

    def shown(self, channel: int) -> list[str]:
        """The bot's messages in a channel as people see them now (edits applied), in order."""
        return [str(m["content"]) for m in self._posted.get(channel, [])]

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
        wanted = self.accepted_token
        if wanted is not None and request.headers.get("Authorization") != f"Bot {wanted}":
            return web.json_response({"message": "401: Unauthorized", "code": 0}, status=401)
        files: list[tuple[str, bytes]] = []
        if request.content_type.startswith("multipart/"):
            body = await _read_multipart(request, files)
        else:
            body = await request.json() if request.can_read_body else None
        self.requests.append(Request(request.method, path, body, files))
        try:
            status, payload = self._route(request.method, path, body, request.query)
        finally:
            await self._changed_now()
        if payload is None:
            return web.Response(status=status)
        return web.Response(
            status=status,
            body=json.dumps(payload).encode(),
            headers={"Content-Type": "application/json"},
        )

    def _route(self, method: str, path: str, body: Any, query: Any = None) -> tuple[int, Any]:
        parts = path.strip("/").split("/")
        fixed = {"/users/@me": BOT_USER, "/oauth2/applications/@me": wire.APPLICATION}
        if path in fixed:
            return 200, fixed[path]
        if path in ("/gateway/bot", "/gateway"):
            return 200, wire.gateway_bot(self.gateway_url, self.shards_reported)
        if parts[0] == "channels":
            return self._channel_route(method, parts, body, query or {})
        if path == "/users/@me/channels" and method == "POST":  # open a DM with a user
            return 200, wire.dm_channel(self.next_id(), int(body["recipient_id"]))
        if parts[0] == "applications" and method == "PUT":
            return 200, [wire.command(c) for c in body]
        if parts[0] == "webhooks" and method == "POST":
            reply = wire.message(self.next_id(), CHANNEL_ID, (body or {}).get("content", ""))
            return 200, reply | {"flags": (body or {}).get("flags", 0)}
        if parts[0] == "interactions":
            answer = {"id": parts[1], "type": 2, "response_message_ephemeral": True}
            return 200, {"interaction": answer}
        return 404, {"message": "404: Not Found", "code": 0}

    def _channel_route(
        self, method: str, parts: list[str], body: Any, query: Any
    ) -> tuple[int, Any]:
        channel = int(parts[1])
        if parts[-1] == "typing":
            return 204, None
        if len(parts) == 4 and parts[2] == "thread-members" and method == "GET":
            return self._thread_member(channel, int(parts[3]))
        if parts[-1] == "messages" and method == "POST":
            return 200, self._create(channel, body)
        if parts[-1] == "messages" and method == "GET":
            after, limit = int(query.get("after", 0)), int(query.get("limit", 50))
            found = [m for m in self._posted.get(channel, []) if int(m["id"]) > after]
            return 200, list(reversed(found[:limit]))  # newest first, as Discord answers
        if len(parts) == 4 and method == "PATCH":
            for posted in self._posted.get(channel, []):  # what people see from now on
                if posted["id"] == parts[3]:
                    posted["content"] = body.get("content", "")
            return 200, wire.message(int(parts[3]), channel, body.get("content", ""))
        if parts[-1] == "threads" and method == "POST":
            return self._start_thread(channel, int(parts[3]), body["name"])
        if method == "DELETE" and len(parts) == 4 and parts[2] == "messages":
            self._posted[channel] = [
                m for m in self._posted.get(channel, []) if m["id"] != parts[3]
            ]
            return 204, None
        if method == "DELETE" and len(parts) == 2:  # a thread (or channel) deleted
            thread = self._threads.pop(channel, None)
            return (200, thread) if thread else (404, {"message": "Unknown Channel", "code": 10003})
        return 404, {"message": "404: Not Found", "code": 0}

    def _thread_member(self, thread: int, user: int) -> tuple[int, Any]:
        """A thread's member: its starter's author, whoever wrote in it, and the bot."""
        if user != BOT_ID and user not in self._wrote.get(thread, set()):
            return 404, {"message": "Unknown Member", "code": 10007}
        member = {"id": str(thread), "user_id": str(user), "join_timestamp": wire.TIMESTAMP}
        return 200, member | {"flags": 0}

    def _create(self, channel: int, body: dict[str, Any]) -> dict[str, Any]:
        """A message the bot posts: a reply when it references one; ``enforce_nonce`` honoured."""
        nonce = body.get("nonce")
        if nonce is not None and body.get("enforce_nonce") and nonce in self._nonces:
            return self._nonces[nonce]  # Discord returns the message made with this nonce
        created = wire.message(self.next_id(), channel, body.get("content", ""))
        reference = body.get("message_reference")
        if reference:
            created["type"] = 19
            created["message_reference"] = {
                "message_id": str(reference["message_id"]),
                "channel_id": str(reference.get("channel_id", channel)),
            }
        self._posted.setdefault(channel, []).append(created)
        if nonce is not None:
            self._nonces[nonce] = created
        return created

    def _start_thread(self, channel: int, message: int, name: str) -> tuple[int, Any]:
        if message in self._threads:
            error = "A thread has already been created for this message"
            return 400, {"code": 160004, "message": error}
        thread = self._threads[message] = wire.thread(message, channel, name)
        announce = self.dispatch("THREAD_CREATE", thread | {"newly_created": True})
        self._tasks.add(asyncio.get_running_loop().create_task(announce))
        return 201, thread

    def followups(self) -> list[Request]:
        """Interaction follow-up messages (after a deferred response)."""
        return [r for r in self.requests if r.method == "POST" and r.path.startswith("/webhooks/")]

    def add_thread(self, thread_id: int, *, owner: int) -> dict[str, Any]:
        """A thread a member started (send it with THREAD_CREATE)."""
        thread = self._threads[thread_id] = wire.thread(
            thread_id, CHANNEL_ID, "side talk", owner=owner
        )
        return thread

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
        await self.dispatch("READY", wire.ready(self.gateway_url, identify))
        await self.dispatch("GUILD_CREATE", wire.guild(list(self._threads.values())))


async def _read_multipart(request: web.Request, files: list[tuple[str, bytes]]) -> Any:
    """The ``payload_json`` part as the body; file parts appended to ``files``."""
    body: Any = None
    reader = await request.multipart()
    async for part in reader:
        if not isinstance(part, BodyPartReader):
            continue
        data = await part.read()
        if part.name == "payload_json":
            body = json.loads(data)
        else:
            files.append((part.filename or "", bytes(data)))
    return body
