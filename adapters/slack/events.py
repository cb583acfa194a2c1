"""Slack event payloads to core types, and the decisions about what to ignore.

Pure translation, no network: the handler passes bolt's ``body`` (the Events API envelope:
``team_id``, ``event_id``, ``authorizations``, ``event``) and acts on what comes back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlparse

from bot.core.attachments import Attachment
from bot.core.errors import InputRejected
from bot.core.types import InboundMessage, ThreadId, thread_id

ANSWERED_SUBTYPES = frozenset({None, "file_share", "thread_broadcast"})
"""Message subtypes that carry a person's new words; every other subtype is ignored."""

COMMANDS = frozenset({"forget", "help"})

_PERMALINK_TS = re.compile(r"^p(\d{10})(\d{6})$")


@dataclass(frozen=True, slots=True)
class Delivery:
    """One user message the bot may answer, with where the answer goes.

    Attributes:
        message: the core's view of the message (raw text, bot mention removed).
        thread_ts: the thread to answer in (the message's own ``ts`` for a new thread).
    """

    message: InboundMessage
    thread_ts: str

    @property
    def command(self) -> str | None:
        """``forget`` or ``help`` when the whole text is that word, else ``None``.

        A bare mention is ``help``, unless it shares files: those are the question.
        """
        word = self.message.text.strip().lower()
        if not word:
            return None if self.message.files else "help"
        return word if word in COMMANDS else None


def team_of(body: dict[str, Any]) -> str:
    """The workspace an event belongs to: envelope ``team_id``, else the event's, else auth."""
    event = body.get("event") or {}
    for candidate in (
        body.get("team_id"),
        (body.get("team") or {}).get("id") if isinstance(body.get("team"), dict) else None,
        event.get("team"),
        *(a.get("team_id") for a in body.get("authorizations") or []),
    ):
        if candidate:
            return str(candidate)
    return "unknown"


def strip_mention(text: str, bot_user_id: str | None) -> str:
    """Remove the bot's own mentions (``<@UBOT>``, ``<@UBOT|name>``) from a message."""
    if not bot_user_id:
        return text.strip()
    pattern = rf"<@{re.escape(bot_user_id)}(?:\|[^>]*)?>[,:]?"
    return re.sub(r"[ \t]{2,}", " ", re.sub(pattern, "", text)).strip()


def skip_reason(
    event: dict[str, Any], *, bot_user_id: str | None, bot_id: str | None, ignore_bots: bool
) -> str | None:
    """Why a ``message``/``app_mention`` event must not be answered, or ``None`` to answer it.

    Reasons are short, non-personal words suitable for logs.
    """
    if event.get("subtype") not in ANSWERED_SUBTYPES:
        return f"subtype:{event.get('subtype')}"
    if event.get("hidden"):
        return "hidden"
    if bot_user_id and event.get("user") == bot_user_id:
        return "self"
    if bot_id and event.get("bot_id") == bot_id:
        return "self"
    if ignore_bots and (event.get("bot_id") or event.get("bot_profile")):
        return "bot"
    if not event.get("user"):
        return "no_user"
    return None


def is_dm(event: dict[str, Any]) -> bool:
    """A direct message between one person and the bot."""
    return event.get("channel_type") == "im" or str(event.get("channel", "")).startswith("D")


def like_dm(event: dict[str, Any]) -> bool:
    """A message the bot answers without a mention: a direct or a group direct message.

    A group DM (``mpim``) is answered and thread-keyed like a DM, but it is not private: other
    people read the answer, so the reveal policy of a channel applies.
    """
    return is_dm(event) or event.get("channel_type") == "mpim"


def to_delivery(body: dict[str, Any], *, bot_user_id: str | None, trigger: str) -> Delivery:
    """Translate an event envelope into the message the core answers.

    The dedupe id is the message's own identity (team, channel, ``ts``): it is the same for
    Slack's HTTP retries, Socket Mode redeliveries, and the ``app_mention`` and ``message``
    events Slack sends separately for one mention, whose ``event_id`` values differ.

    Raises:
        InputRejected: the ids do not form a valid thread id.
    """
    event = body["event"]
    team, channel, ts = team_of(body), str(event["channel"]), str(event["ts"])
    thread_ts = str(event.get("thread_ts") or ts)
    metadata: dict[str, Any] = {
        "trigger": trigger,
        "channel_type": event.get("channel_type") or "channel",
        "event_type": event.get("type"),
        "in_thread": "thread_ts" in event,
    }
    if body.get("event_id"):
        metadata["slack_event_id"] = body["event_id"]
    message = InboundMessage(
        thread_id=thread_id("slack", team, channel, thread_ts),
        platform="slack",
        workspace=team,
        channel=channel,
        user_id=str(event.get("user", "")),
        message_id=ts,
        text=strip_mention(str(event.get("text") or ""), bot_user_id),
        event_id=f"{team}:{channel}:{ts}",
        private=is_dm(event),
        metadata=metadata,
        files=files_of(event),
    )
    return Delivery(message=message, thread_ts=thread_ts)


def files_of(event: dict[str, Any]) -> tuple[Attachment, ...]:
    """The files of a Slack message event, with the URL to fetch them with the bot token.

    A deleted or hidden file (``mode`` ``tombstone`` or ``hidden_by_limit``) has no URL; it is
    kept, with an empty one, so the answer can say it could not be read. A file Slack only
    names (``file_access: check_file_info``, from Slack Connect) keeps its id, to be asked
    for with ``files.info``.
    """
    found = []
    for item in event.get("files") or []:
        if not isinstance(item, dict):
            continue
        url = item.get("url_private_download") or item.get("url_private") or ""
        ask = item.get("file_access") == "check_file_info" and not url
        found.append(
            Attachment(
                name=str(item.get("name") or ""),
                url=str(url),
                size=int(item.get("size") or 0),
                ref=str(item.get("id") or "") if ask else "",
            )
        )
    return tuple(found)


def deleted_message(
    body: dict[str, Any], *, bot_user_id: str | None
) -> tuple[ThreadId, str] | None:
    """For a ``message_deleted`` event of a person's message: its thread and its text."""
    event = body.get("event") or {}
    previous = event.get("previous_message") or {}
    if event.get("subtype") != "message_deleted" or not previous.get("text"):
        return None
    if previous.get("bot_id") or previous.get("user") in (None, bot_user_id):
        return None
    ts = str(previous.get("thread_ts") or previous.get("ts") or event.get("deleted_ts"))
    tid = thread_id("slack", team_of(body), str(event["channel"]), ts)
    return tid, strip_mention(str(previous["text"]), bot_user_id)


def edited_message(
    body: dict[str, Any], *, bot_user_id: str | None
) -> tuple[ThreadId, str, str] | None:
    """For a ``message_changed`` event of a person's message: its thread, old and new text.

    ``None`` for the bot's own edits (its streamed answers), for changes that leave the text
    as it was (unfurls, reply counts), and for anything else.
    """
    event = body.get("event") or {}
    after, before = event.get("message") or {}, event.get("previous_message") or {}
    if event.get("subtype") != "message_changed" or not before.get("text"):
        return None
    if after.get("bot_id") or after.get("user") in (None, bot_user_id):
        return None
    if after.get("text") == before.get("text"):
        return None
    ts = str(after.get("thread_ts") or after.get("ts") or before.get("ts"))
    tid = thread_id("slack", team_of(body), str(event["channel"]), ts)
    old = strip_mention(str(before["text"]), bot_user_id)
    return tid, old, strip_mention(str(after.get("text") or ""), bot_user_id)


def thread_from_permalink(link: str, team: str) -> ThreadId | None:
    """The thread a Slack message link points into (``/archives/C…/p1700…?thread_ts=…``)."""
    url = urlparse(link.strip().strip("<>").split("|", 1)[0])
    parts = [p for p in url.path.split("/") if p]
    if len(parts) < 3 or parts[-3] != "archives":
        return None
    channel, stamp = parts[-2], _PERMALINK_TS.match(parts[-1])
    if stamp is None:
        return None
    query_ts = parse_qs(url.query).get("thread_ts")
    ts = query_ts[0] if query_ts else f"{stamp.group(1)}.{stamp.group(2)}"
    try:
        return thread_id("slack", team, channel, ts)
    except InputRejected:
        return None


def split_thread_id(tid: ThreadId) -> tuple[str, str, str]:
    """``(team, channel, thread_ts)`` of a Slack thread id."""
    _, team, channel, ts = tid.split(":", 3)
    return team, channel, ts
