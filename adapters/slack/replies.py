"""Posting answers in a Slack thread, shown while they are generated.

``LiveReply`` is the ``ReplySink`` the core streams restored text into. It shows the answer
either through Slack's streaming API (``chat.startStream``/``appendStream``/``stopStream``,
Markdown, append-only) or by posting a message and editing it with ``chat.update`` at most
once per interval. Either way the finished answer ends up split under Slack's limits, and a
Slack failure while showing partial text never breaks the turn: the full answer is posted
at the end instead.

Editing shows only the answer's first message while it streams (the rest is posted at the
end). Once that message is full it is sealed and the growing text is not converted or split
again until the end, so the work per delta stays bounded and a long answer costs time linear in
its length (it was quadratic: the whole text was converted and split on every delta).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from aiohttp import ClientError
from slack_sdk.errors import SlackApiError, SlackRequestError
from slack_sdk.web.async_client import AsyncWebClient

from adapters.slack.formatting import (
    neutralize,
    seal_open_tokens,
    split_message,
    take_chunk,
    to_mrkdwn,
)

logger = logging.getLogger(__name__)

SLACK_ERRORS = (SlackApiError, SlackRequestError, ClientError, TimeoutError)
STREAM_CAP = 11_000
"""Characters per streamed message; ``markdown_text`` is limited to 12 000."""

Mode = Literal["stream", "update", "off"]
_UNSAFE_TAIL = re.compile(r"(<[!@#][^<>]{0,400}|<[^>\s]{0,80}|@\w{0,8})$")
"""A tail held back from the stream until more text decides it: an open Slack token (a
broadcast or mention, label included: ``<!here|all of you>``), a link, a bare ``@here``."""


@dataclass(frozen=True, slots=True)
class Target:
    """Where an answer goes: a thread, and who it answers (the streaming API needs both)."""

    channel: str
    thread_ts: str
    team: str
    user: str
    asked: frozenset[str] = frozenset()
    """Users the asker mentioned: the only ones the answer may ping."""
    event: str | None = None
    """The queued event this answers (``team:channel:ts``): carried in the answer's message
    ``metadata``, so a worker that takes the event over can see it was answered."""


ANSWER_EVENT_TYPE = "veilbot_answer"
_REPLIES_PAGES = 5


def answer_metadata(target: Target) -> dict[str, Any] | None:
    """The message ``metadata`` of an answer to ``target.event`` (none when not queued)."""
    if target.event is None:
        return None
    return {"event_type": ANSWER_EVENT_TYPE, "event_payload": {"event": target.event}}


async def answered_before(client: AsyncWebClient, target: Target) -> bool:
    """Whether the thread already holds an answer to ``target.event`` (a message of ours).

    Asked when a queued event comes back after a worker stopped in its middle. If Slack
    cannot be asked, ``False``: answering twice is better than never.
    """
    cursor: str | None = None
    try:
        for _ in range(_REPLIES_PAGES):
            resp = await client.conversations_replies(
                channel=target.channel,
                ts=target.thread_ts,
                include_all_metadata=True,
                limit=200,
                cursor=cursor,
            )
            for message in resp.get("messages") or []:
                meta = message.get("metadata") or {}
                payload = meta.get("event_payload") or {}
                if meta.get("event_type") == ANSWER_EVENT_TYPE and (
                    payload.get("event") == target.event
                ):
                    return True
            cursor = (resp.get("response_metadata") or {}).get("next_cursor") or None
            if not cursor:
                return False
    except SLACK_ERRORS as exc:
        logger.warning("slack: could not check the thread for an earlier answer: %s", _err(exc))
    return False


async def post_ephemeral(client: AsyncWebClient, target: Target, text: str) -> None:
    """Show ``text`` to the asker alone, in the thread (a refusal); a failure is logged."""
    try:
        await client.chat_postEphemeral(
            channel=target.channel, user=target.user, thread_ts=target.thread_ts, text=text
        )
    except SLACK_ERRORS as exc:
        logger.warning("slack ephemeral reply failed: %s", _err(exc))


async def post_text(
    client: AsyncWebClient,
    target: Target,
    markdown: str,
    limit: int,
    *,
    metadata: dict[str, Any] | None = None,
) -> list[str]:
    """Post Markdown as mrkdwn thread replies, split under ``limit``; returns their ``ts``.

    ``metadata`` (``answer_metadata``) goes on every message posted.
    """
    stamps: list[str] = []
    for chunk in split_message(to_mrkdwn(markdown, target.asked), limit):
        resp = await client.chat_postMessage(
            channel=target.channel,
            thread_ts=target.thread_ts,
            text=chunk,
            unfurl_links=False,
            metadata=metadata,
        )
        stamps.append(str(resp.get("ts", "")))
    return stamps


class LiveReply:
    """A ``ReplySink`` that shows a growing answer in one thread."""

    def __init__(
        self,
        client: AsyncWebClient,
        target: Target,
        *,
        mode: Mode,
        limit: int,
        interval: float,
        on_stream_unavailable: Callable[[], None] = lambda: None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client, self._target, self._mode = client, target, mode
        self._limit, self._interval, self._clock = limit, interval, clock
        self._on_stream_unavailable = on_stream_unavailable
        self._received = ""
        self._shown = 0
        self._last_flush: float | None = None
        self._stream: Any = None
        self._stream_chars = 0
        self._carry = ""
        self._update_ts: str | None = None
        self._live_head: str | None = None  # what the edited message shows now
        self._sealed: str | None = None  # the first message once full (update mode)
        self._broken = False
        self._metadata = answer_metadata(target)

    @property
    def live(self) -> bool:
        """Whether deltas are shown as they come (any mode but ``off``).

        Otherwise the answer is asked for whole: one response, not a stream of events to parse.
        """
        return self._mode != "off"

    @property
    def started(self) -> bool:
        """Whether anything was shown in Slack yet."""
        return self._shown > 0 or self._update_ts is not None

    async def delta(self, text: str) -> None:
        """Receive restored text; show it when the interval allows."""
        self._received += text
        if self._mode == "off" or self._broken:
            return
        now = self._clock()
        if self._last_flush is None or now - self._last_flush >= self._interval:
            self._last_flush = now
            await self._show(final=False)

    async def status(self, text: str) -> None:
        """Show a short status (tools running) while nothing of the answer shows yet.

        Streamed (a stream cannot take back what it showed): as the thread's loading status
        (``assistant.threads.setStatus``, which Slack takes with ``chat:write`` in channels
        too and clears when the answer comes). Grown by edits: as the answer's first message,
        which the answer then replaces.
        """
        if self._mode == "off" or self._broken or self._received:
            return
        head = f"_{text}_"
        try:
            if self._mode == "stream":
                await self._client.assistant_threads_setStatus(
                    channel_id=self._target.channel, thread_ts=self._target.thread_ts, status=text
                )
                return
            if head != self._live_head:
                await self._set_live(head)
        except SLACK_ERRORS as exc:
            logger.warning("slack status not shown: %s", _err(exc))
            return
        self._live_head = head

    async def finish(self, text: str, *, streamed: bool) -> None:
        """Complete the answer with the core's final ``text``.

        Args:
            text: the whole answer (or a friendly error message).
            streamed: ``True`` when ``text`` is the answer the deltas built.
        """
        if not streamed and self.started and text.startswith(self._received):
            streamed = True  # the answer plus a note (e.g. "not saved"): keep one message
        if not streamed:
            await self._close_partial()
            await post_text(self._client, self._target, text, self._limit, metadata=self._metadata)
            return
        if text.startswith(self._received):
            self._received = text
        if not self._broken and self._mode != "off":
            await self._show(final=True)
        if self._broken or self._mode == "off":
            rest = self._received[self._shown :]
            await post_text(self._client, self._target, rest, self._limit, metadata=self._metadata)

    async def _show(self, *, final: bool) -> None:
        try:
            if self._mode == "stream":
                await self._show_stream(final=final)
            else:
                await self._show_update(final=final)
        except SLACK_ERRORS as exc:
            if self._mode == "stream" and self._shown == 0 and _stream_unsupported(exc):
                self._stream = None
                logger.info("slack streaming unavailable (%s); editing messages instead", _err(exc))
                self._mode = "update"
                self._on_stream_unavailable()
                await self._show(final=final)
                return
            logger.warning("slack live reply failed: %s", _err(exc))
            self._broken = True

    async def _show_stream(self, *, final: bool) -> None:
        pending = self._received[self._shown :]
        if not final and (tail := _UNSAFE_TAIL.search(pending)):
            pending = pending[: tail.start()]
        while pending:
            if self._stream is not None and STREAM_CAP - self._stream_chars < 200:
                await self._stream.stop(metadata=self._metadata)
                self._stream = None
            if self._stream is None:
                self._stream = await self._client.chat_stream(
                    channel=self._target.channel,
                    thread_ts=self._target.thread_ts,
                    recipient_team_id=self._target.team,
                    recipient_user_id=self._target.user,
                    buffer_size=1,
                )
                self._stream_chars = 0
            text = self._carry + pending
            head, rest, reopen = take_chunk(text, STREAM_CAP - self._stream_chars)
            safe = neutralize(seal_open_tokens(head), self._target.asked)
            await self._stream.append(markdown_text=safe)
            self._stream_chars = STREAM_CAP if rest else self._stream_chars + len(head)
            self._shown += len(pending) - len(rest)
            self._carry = reopen
            pending = rest
        if final and self._stream is not None:
            await self._stream.stop(metadata=self._metadata)

    async def _show_update(self, *, final: bool) -> None:
        chunks = (
            split_message(to_mrkdwn(self._received, self._target.asked), self._limit)
            if final
            else []
        )
        head = chunks[0] if final else self._open_head()
        if not final and head == self._live_head:
            return  # nothing new to show: spare Slack an identical edit
        self._live_head = head
        await self._set_live(head)
        if final:
            for chunk in chunks[1:]:
                await self._client.chat_postMessage(
                    channel=self._target.channel,
                    thread_ts=self._target.thread_ts,
                    text=chunk,
                    unfurl_links=False,
                    metadata=self._metadata,
                )
            self._shown = len(self._received)

    async def _set_live(self, head: str) -> None:
        """Post the message the answer grows in, or edit it to read ``head``."""
        if self._update_ts is None:
            resp = await self._client.chat_postMessage(
                channel=self._target.channel,
                thread_ts=self._target.thread_ts,
                text=head,
                unfurl_links=False,
                metadata=self._metadata,
            )
            self._update_ts = str(resp["ts"])
        else:
            await self._client.chat_update(
                channel=self._target.channel, ts=self._update_ts, text=head
            )

    def _open_head(self) -> str:
        """The first message of the answer so far; sealed (never re-split) once it is full.

        It is sealed from the complete lines only when they already fill it (a line still
        being written may change how it converts), or from everything when an open line
        alone overflows it; ``finish`` shows the exact first message either way.
        """
        if self._sealed is not None:
            return self._sealed
        head, rest, _ = take_chunk(to_mrkdwn(self._received, self._target.asked), self._limit)
        if not rest:
            return head
        lines_end = self._received.rfind("\n")
        asked = self._target.asked
        complete = to_mrkdwn(self._received[:lines_end], asked) if lines_end > 0 else ""
        if len(complete) > self._limit:
            self._sealed = take_chunk(complete, self._limit)[0] + " …"
        elif len(rest) > self._limit:
            self._sealed = head + " …"
        return self._sealed or head + " …"

    async def _close_partial(self) -> None:
        """End a half-shown answer (the turn failed midway) so the error can follow it."""
        if self._stream is not None and not self._broken:
            try:
                await self._stream.stop()
            except SLACK_ERRORS as exc:
                logger.warning("slack stream stop failed: %s", _err(exc))


def _stream_unsupported(exc: Exception) -> bool:
    if not isinstance(exc, SlackApiError):
        return False
    return str(exc.response.get("error")) in {
        "unknown_method",
        "not_allowed",
        "not_authed",
        "missing_scope",
        "feature_not_enabled",
        "method_deprecated",
        "invalid_arguments",
    }


def _err(exc: Exception) -> str:
    """A log-safe description of a Slack failure: the error code, never message text."""
    if isinstance(exc, SlackApiError):
        data = exc.response.data
        code = data.get("error") if isinstance(data, dict) else f"http {exc.response.status_code}"
        return f"slack error {code!s}"
    return type(exc).__name__
