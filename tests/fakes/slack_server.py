"""A fake Slack on 127.0.0.1, driven by the real slack-sdk / slack-bolt in tests.

One aiohttp server in the test's event loop serves:

- the Web API under ``/api/<method>`` (JSON or form bodies, ``Authorization: Bearer``), with
  the methods the adapter calls, answering Slack's documented shapes; every call recorded;
- scripted failures per method (``fail("chat.postMessage", 429, retry_after=1)``);
- a Socket Mode websocket at ``/link/`` behind ``apps.connections.open``: ``hello``, then
  envelopes the test sends, recording the client's acks;
- OAuth (``tests.fakes.slack_oauth``): ``oauth.v2.access`` with codes and token rotation,
  ``auth.test`` per token, ``apps.uninstall``;
- ``/respond/<n>``: response URLs for slash commands and buttons;
- the ``files_upload_v2`` flow: ``files.getUploadURLExternal`` hands out ``/upload/<file_id>``,
  which records the raw bytes, and ``files.completeUploadExternal`` shares them in a channel.

It also keeps what a person would see: messages in threads, edits applied, streams joined.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections import deque
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import WSMsgType, web

from tests.fakes.slack_oauth import OAuthSide

_TS = itertools.count(1)


def new_ts() -> str:
    """A fresh, increasing message timestamp: people's messages and the bot's share one clock."""
    return f"1700000000.{next(_TS):06d}"


BOT_USER_ID = "UBOT"
BOT_ID = "B0BOT"
TEAM_ID = "T1"


@dataclass(frozen=True)
class Call:
    """One Web API call the fake received."""

    method: str
    params: dict[str, Any]
    token: str
    connection: str = ""
    """The client's address and port: calls with the same one came over one connection."""


@dataclass
class Upload:
    """A file uploaded through the ``files_upload_v2`` flow."""

    file_id: str
    filename: str
    length: int
    data: bytes = b""
    channel: str | None = None
    initial_comment: str | None = None


@dataclass
class Posted:
    """A message as people see it in Slack."""

    channel: str
    ts: str
    thread_ts: str | None
    text: str
    streaming: bool = False
    edits: int = 0
    blocks: list[Any] = field(default_factory=list)
    metadata: dict[str, Any] | None = None


def _json_fields(params: dict[str, Any]) -> dict[str, Any]:
    for key in ("blocks", "chunks", "prompts", "metadata", "attachments"):
        if isinstance(params.get(key), str):
            try:
                params[key] = json.loads(params[key])
            except ValueError:
                pass
    return params


def chunks_text(params: dict[str, Any]) -> str:
    """The Markdown a streaming call carries (``markdown_text`` or markdown chunks)."""
    text = str(params.get("markdown_text") or "")
    for chunk in params.get("chunks") or []:
        if chunk.get("type") == "markdown_text":
            text += chunk.get("text", "")
    return text


class FakeSlack(OAuthSide):
    """The fake Slack server. Use as ``async with FakeSlack() as slack``.

    Attributes:
        calls: every Web API call, oldest first.
        streaming_supported: when ``False``, ``chat.startStream`` answers ``unknown_method``.
        acks: envelope ids the Socket Mode client acknowledged.
        responses: bodies posted to response URLs.
    """

    def __init__(self, *, team: str = TEAM_ID) -> None:
        self.team = team
        self.calls: list[Call] = []
        self.messages: dict[str, Posted] = {}
        self.streaming_supported = True
        self.acks: list[str] = []
        self.responses: list[dict[str, Any]] = []
        self.uploads: dict[str, Upload] = {}
        self.people: list[dict[str, Any]] = []
        self.usergroups: dict[str, list[str]] = {}
        self.hosted: dict[str, bytes] = {}
        """Files users shared, by id, served at their ``url_private_download``."""
        self.file_objects: dict[str, dict[str, Any]] = {}
        """What ``files.info`` answers for each hosted file."""
        self.downloads: list[tuple[str, str | None]] = []
        """Each file download: the file id and the ``Authorization`` header it came with."""
        self.bot_token = "xoxb-test"
        """User group id to member ids, as ``usergroups.list`` answers."""
        self._failures: dict[str, deque[tuple[int, dict[str, Any], dict[str, str]]]] = {}
        self._holds: dict[str, asyncio.Event] = {}
        self._clock = itertools.count(1)
        self._sockets: list[web.WebSocketResponse] = []
        self._connected = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.port = 0
        self._oauth_init()

    # lifecycle -----------------------------------------------------------------------
    async def __aenter__(self) -> FakeSlack:
        app = web.Application()
        app.router.add_post("/api/{method}", self._api)
        app.router.add_get("/api/{method}", self._api)  # slack-sdk reads some with GET
        app.router.add_get("/link/", self._socket)
        app.router.add_post("/respond/{n}", self._respond)
        app.router.add_post("/upload/{file_id}", self._upload)
        app.router.add_get("/files-pri/{team_file}/download/{name}", self._download)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self

    async def __aexit__(self, *exc: object) -> None:
        for ws in list(self._sockets):
            await ws.close()
        if self._runner is not None:
            await self._runner.cleanup()

    @property
    def api_url(self) -> str:
        """The Web API base URL for ``AsyncWebClient(base_url=...)``."""
        return f"http://127.0.0.1:{self.port}/api/"

    def response_url(self, n: int = 1) -> str:
        """A response URL served by the fake."""
        return f"http://127.0.0.1:{self.port}/respond/{n}"

    # scripting -----------------------------------------------------------------------
    def fail(
        self,
        method: str,
        status: int,
        *,
        error: str = "ratelimited",
        times: int = 1,
        retry_after: int | None = None,
    ) -> None:
        """Queue failures for ``method``: HTTP ``status`` (429 with ``Retry-After``) or 200
        with ``ok: false`` and ``error``."""
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        queue = self._failures.setdefault(method, deque())
        for _ in range(times):
            queue.append((status, {"ok": False, "error": error}, headers))

    def hold(self, method: str) -> asyncio.Event:
        """Keep every call to ``method`` (recorded at once) waiting for its answer until the
        returned event is set."""
        return self._holds.setdefault(method, asyncio.Event())

    def recover(self, method: str) -> None:
        """Drop the failures still queued for ``method``: its next call succeeds."""
        self._failures.pop(method, None)

    # inspection ----------------------------------------------------------------------
    def calls_to(self, method: str) -> list[dict[str, Any]]:
        """Parameters of every call to ``method``."""
        return [c.params for c in self.calls if c.method == method]

    def thread(self, channel: str, thread_ts: str) -> list[str]:
        """Texts of the bot's replies in a thread, as people see them now, in order."""
        return [
            m.text
            for m in sorted(self.messages.values(), key=lambda m: float(m.ts))
            if m.channel == channel and m.thread_ts == thread_ts
        ]

    def said(self, event: dict[str, Any]) -> None:
        """A person's message (an event delivered to the bot): Slack keeps it in its thread."""
        if event.get("type") in ("message", "app_mention") and event.get("user"):
            if event.get("subtype") in (None, "file_share", "thread_broadcast"):
                self.people.append(event)

    def all_replies(self) -> list[Posted]:
        """Every message the bot posted, in order."""
        return sorted(self.messages.values(), key=lambda m: float(m.ts))

    # Web API -------------------------------------------------------------------------
    def _new_ts(self) -> str:
        # One clock with the people's messages (``slack_payloads.new_ts``), as in Slack: a
        # thread's messages sort by ``ts`` in the order they were posted.
        return new_ts()

    async def _params(self, request: web.Request) -> dict[str, Any]:
        raw = await request.text()
        params: dict[str, Any] = dict(parse_qsl(request.query_string))
        if raw and request.content_type == "application/json":
            params.update(json.loads(raw))
        elif raw:
            params.update(dict(parse_qsl(raw, keep_blank_values=True)))
        return _json_fields(params)

    async def _api(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        params = await self._params(request)
        token = request.headers.get("Authorization", "").removeprefix("Bearer ")
        peer = request.transport.get_extra_info("peername") if request.transport else None
        self.calls.append(Call(method, params, token, f"{peer[0]}:{peer[1]}" if peer else ""))
        if (held := self._holds.get(method)) is not None:
            await held.wait()
        queue = self._failures.get(method)
        if queue:
            status, body, headers = queue.popleft()
            return web.json_response(body, status=status, headers=headers)
        handler = getattr(self, "_m_" + method.replace(".", "_"), None)
        body = handler(params) if handler else {"ok": True}
        return web.json_response(body)

    def _m_auth_test(self, _p: dict[str, Any]) -> dict[str, Any]:
        if (own := self.token_identity(self.calls[-1].token)) is not None:
            return own
        return {
            "ok": True,
            "url": "https://fake.slack.com/",
            "team": "Fake",
            "user": "veilbot",
            "team_id": self.team,
            "user_id": BOT_USER_ID,
            "bot_id": BOT_ID,
            "is_enterprise_install": False,
        }

    def _post(self, p: dict[str, Any], *, streaming: bool = False) -> Posted:
        ts = self._new_ts()
        msg = Posted(
            str(p["channel"]),
            ts,
            p.get("thread_ts"),
            str(p.get("text") or ""),
            streaming=streaming,
            blocks=list(p.get("blocks") or []),
            metadata=p.get("metadata") or None,
        )
        self.messages[ts] = msg
        return msg

    def _m_chat_postMessage(self, p: dict[str, Any]) -> dict[str, Any]:
        msg = self._post(p)
        return {
            "ok": True,
            "channel": msg.channel,
            "ts": msg.ts,
            "message": {
                "type": "message",
                "text": msg.text,
                "user": BOT_USER_ID,
                "bot_id": BOT_ID,
                "ts": msg.ts,
                "thread_ts": msg.thread_ts,
            },
        }

    def _m_chat_update(self, p: dict[str, Any]) -> dict[str, Any]:
        msg = self.messages.get(str(p.get("ts")))
        if msg is None:
            return {"ok": False, "error": "message_not_found"}
        msg.text, msg.edits = str(p.get("text") or ""), msg.edits + 1
        if p.get("metadata"):
            msg.metadata = p["metadata"]
        return {"ok": True, "channel": msg.channel, "ts": msg.ts, "text": msg.text}

    def _m_chat_getPermalink(self, p: dict[str, Any]) -> dict[str, Any]:
        channel, ts = str(p.get("channel")), str(p.get("message_ts"))
        link = f"https://fake.slack.com/archives/{channel}/p{ts.replace('.', '')}"
        return {"ok": True, "channel": channel, "permalink": link}

    def _m_chat_delete(self, p: dict[str, Any]) -> dict[str, Any]:
        if self.messages.pop(str(p.get("ts")), None) is None:
            return {"ok": False, "error": "message_not_found"}
        return {"ok": True, "channel": p.get("channel"), "ts": p.get("ts")}

    def _m_chat_postEphemeral(self, p: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "message_ts": self._new_ts()}

    def _m_usergroups_list(self, p: dict[str, Any]) -> dict[str, Any]:
        with_users = str(p.get("include_users")).lower() in ("true", "1")
        groups = [
            {"id": g, "team_id": self.team, **({"users": u} if with_users else {})}
            for g, u in self.usergroups.items()
        ]
        return {"ok": True, "usergroups": groups}

    def _m_chat_startStream(self, p: dict[str, Any]) -> dict[str, Any]:
        if not self.streaming_supported:
            return {"ok": False, "error": "unknown_method"}
        msg = self._post({**p, "text": chunks_text(p)}, streaming=True)
        return {"ok": True, "channel": msg.channel, "ts": msg.ts}

    def _stream_msg(self, p: dict[str, Any]) -> Posted | None:
        msg = self.messages.get(str(p.get("ts")))
        return msg if msg is not None and msg.streaming else None

    def _m_chat_appendStream(self, p: dict[str, Any]) -> dict[str, Any]:
        msg = self._stream_msg(p)
        if msg is None:
            return {"ok": False, "error": "message_not_in_streaming_state"}
        msg.text += chunks_text(p)
        return {"ok": True, "channel": msg.channel, "ts": msg.ts}

    def _m_chat_stopStream(self, p: dict[str, Any]) -> dict[str, Any]:
        msg = self._stream_msg(p)
        if msg is None:
            return {"ok": False, "error": "message_not_in_streaming_state"}
        msg.text += chunks_text(p)
        msg.streaming = False
        if p.get("metadata"):
            msg.metadata = p["metadata"]
        return {"ok": True, "channel": msg.channel, "ts": msg.ts, "message": {"text": msg.text}}

    def _m_conversations_replies(self, p: dict[str, Any]) -> dict[str, Any]:
        """A thread's messages: people's (``said``), then the bot's, metadata on request."""
        channel, ts = str(p.get("channel")), str(p.get("ts"))
        people = [
            {k: e[k] for k in ("type", "user", "text", "ts", "thread_ts") if k in e}
            for e in self.people
            if e.get("channel") == channel and ts in (e.get("ts"), e.get("thread_ts"))
        ]
        thread = [
            m
            for m in self.all_replies()
            if m.channel == str(p.get("channel")) and m.thread_ts == str(p.get("ts"))
        ]
        with_meta = str(p.get("include_all_metadata", "")).lower() in ("1", "true")
        messages = [
            {
                "type": "message",
                "ts": m.ts,
                "thread_ts": m.thread_ts,
                "text": m.text,
                "user": BOT_USER_ID,
                "bot_id": BOT_ID,
                **({"metadata": m.metadata} if with_meta and m.metadata else {}),
            }
            for m in thread
        ]
        return {
            "ok": True,
            "messages": people + messages,
            "has_more": False,
            "response_metadata": {},
        }

    def _m_conversations_open(self, p: dict[str, Any]) -> dict[str, Any]:
        users = str(p.get("users") or "")
        if not users or "," in users:
            return {"ok": False, "error": "user_not_found"}
        return {"ok": True, "channel": {"id": f"D{users}"}}

    def _m_files_getUploadURLExternal(self, p: dict[str, Any]) -> dict[str, Any]:
        if not p.get("filename") or not str(p.get("length", "")).isdigit():
            return {"ok": False, "error": "invalid_arguments"}
        file_id = f"F{len(self.uploads) + 1:08d}"
        self.uploads[file_id] = Upload(file_id, str(p["filename"]), int(p["length"]))
        url = f"http://127.0.0.1:{self.port}/upload/{file_id}"
        return {"ok": True, "upload_url": url, "file_id": file_id}

    def _m_files_completeUploadExternal(self, p: dict[str, Any]) -> dict[str, Any]:
        files = p.get("files")
        files = json.loads(files) if isinstance(files, str) else files or []
        done = []
        for item in files:
            upload = self.uploads.get(str(item.get("id")))
            if upload is None or len(upload.data) != upload.length:
                return {"ok": False, "error": "file_not_found"}
            upload.channel = p.get("channel_id")
            upload.initial_comment = p.get("initial_comment")
            done.append({"id": upload.file_id, "name": upload.filename, "title": item.get("title")})
        return {"ok": True, "files": done}

    def shared_files(self) -> list[Upload]:
        """Uploads completed into a channel, oldest first."""
        return [u for u in self.uploads.values() if u.channel is not None]

    async def _upload(self, request: web.Request) -> web.Response:
        upload = self.uploads.get(request.match_info["file_id"])
        if upload is None:
            return web.Response(status=404, text="no such upload")
        upload.data = await request.read()
        return web.Response(text=f"OK - {len(upload.data)}")

    def host_file(
        self, name: str, data: bytes, *, mimetype: str = "text/plain", team: str | None = None
    ) -> dict[str, Any]:
        """Serve ``data`` as a file a user of ``team`` shared; returns its event's file object."""
        fid = f"F{next(self._clock):08d}"
        self.hosted[fid] = data
        base = f"http://127.0.0.1:{self.port}/files-pri/{team or self.team}-{fid}"
        self.file_objects[fid] = {
            "id": fid, "name": name, "title": name, "mimetype": mimetype, "mode": "hosted",
            "size": len(data), "is_external": False, "url_private": f"{base}/{name}",
            "url_private_download": f"{base}/download/{name}",
        }  # fmt: skip
        return dict(self.file_objects[fid])

    def _m_files_info(self, p: dict[str, Any]) -> dict[str, Any]:
        file = self.file_objects.get(str(p.get("file")))
        return {"ok": True, "file": file} if file else {"ok": False, "error": "file_not_found"}

    async def _download(self, request: web.Request) -> web.StreamResponse:
        """Slack's file download: the bytes with a token of the file's workspace, else sign-in."""
        team, _, fid = request.match_info["team_file"].rpartition("-")
        auth = request.headers.get("Authorization")
        self.downloads.append((fid, auth))
        grant = self.tokens.get((auth or "").removeprefix("Bearer "))
        if auth != f"Bearer {self.bot_token}" and (grant is None or grant.team != team):
            page = "<!DOCTYPE html><html><body>Sign in to Slack</body></html>"
            return web.Response(text=page, content_type="text/html")
        if fid not in self.hosted:
            return web.Response(status=404, text="file_not_found")
        return web.Response(body=self.hosted[fid], content_type="application/octet-stream")

    def _m_apps_connections_open(self, _p: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "url": f"ws://127.0.0.1:{self.port}/link/?ticket=t1"}

    # Socket Mode ---------------------------------------------------------------------
    async def _socket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self._sockets.append(ws)
        await ws.send_json(
            {
                "type": "hello",
                "num_connections": 1,
                "debug_info": {"host": "fake", "approximate_connection_time": 3600},
                "connection_info": {"app_id": "A1"},
            }
        )
        self._connected.set()
        async for frame in ws:
            if frame.type == WSMsgType.TEXT:
                data = json.loads(frame.data)
                if "envelope_id" in data:
                    self.acks.append(data["envelope_id"])
        self._sockets.remove(ws)
        return ws

    async def wait_connected(self) -> None:
        """Wait until a Socket Mode client has connected."""
        await asyncio.wait_for(self._connected.wait(), 10)

    async def send_envelope(
        self,
        payload: dict[str, Any],
        envelope_id: str,
        *,
        kind: str = "events_api",
        retry_attempt: int = 0,
    ) -> None:
        """Send one Socket Mode envelope to the connected client."""
        await self._sockets[-1].send_json(
            {
                "envelope_id": envelope_id,
                "payload": payload,
                "type": kind,
                "accepts_response_payload": kind != "events_api",
                "retry_attempt": retry_attempt,
                "retry_reason": "timeout" if retry_attempt else "",
            }
        )

    async def _respond(self, request: web.Request) -> web.Response:
        self.responses.append(await request.json())
        return web.Response(text="ok")
