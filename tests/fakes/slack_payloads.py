"""Slack payloads in their documented shapes, and Events API request signing.

``event_callback`` envelopes carry ``team_id``, ``api_app_id``, ``event_id``, ``event_time``,
``authorizations`` and the inner ``event`` with ``blocks`` (rich text), ``ts``, ``thread_ts``,
``channel_type`` and ``event_ts``, as Slack sends them.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any
from urllib.parse import urlencode

from slack_sdk.signature import SignatureVerifier

from tests.fakes.slack_server import BOT_USER_ID, TEAM_ID, new_ts

SIGNING_SECRET = "8f742231b10e8888abcd99yyyzzz85a5"


def rich_text(text: str) -> list[dict[str, Any]]:
    """A ``rich_text`` block for a plain text (Slack adds one to every user message)."""
    return [
        {
            "type": "rich_text",
            "block_id": uuid.uuid4().hex[:5],
            "elements": [
                {"type": "rich_text_section", "elements": [{"type": "text", "text": text}]}
            ],
        }
    ]


def envelope(
    event: dict[str, Any], *, team: str = TEAM_ID, event_id: str | None = None
) -> dict[str, Any]:
    """An Events API ``event_callback`` around ``event``."""
    return {
        "token": "legacy-verification-token",
        "team_id": team,
        "context_team_id": team,
        "api_app_id": "A1",
        "event": event,
        "type": "event_callback",
        "event_id": event_id or f"Ev{uuid.uuid4().hex[:10].upper()}",
        "event_time": int(time.time()),
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": team,
                "user_id": BOT_USER_ID,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
        "event_context": f"4-{uuid.uuid4().hex}",
    }


def user_event(
    kind: str,
    text: str,
    *,
    user: str = "U111",
    channel: str = "C1",
    ts: str | None = None,
    thread_ts: str | None = None,
    channel_type: str | None = "channel",
    team: str = TEAM_ID,
    **extra: Any,
) -> dict[str, Any]:
    """A person's ``app_mention`` or ``message`` event."""
    ts = ts or new_ts()
    event: dict[str, Any] = {
        "type": kind,
        "user": user,
        "text": text,
        "ts": ts,
        "team": team,
        "channel": channel,
        "event_ts": ts,
        "client_msg_id": str(uuid.uuid4()),
        "blocks": rich_text(text),
    }
    if kind == "message" and channel_type:
        event["channel_type"] = channel_type
    if thread_ts:
        event["thread_ts"] = thread_ts
    event.update(extra)
    return event


def mention(text: str, **kw: Any) -> dict[str, Any]:
    """An ``app_mention`` envelope: ``<@UBOT> text``."""
    team = kw.get("team", TEAM_ID)
    return envelope(user_event("app_mention", f"<@{BOT_USER_ID}> {text}", **kw), team=team)


def message(text: str, **kw: Any) -> dict[str, Any]:
    """A ``message`` envelope (channel by default; ``channel_type="im"`` for a DM)."""
    return envelope(user_event("message", text, **kw), team=kw.get("team", TEAM_ID))


def dm(text: str, *, channel: str = "D1", **kw: Any) -> dict[str, Any]:
    """A direct message to the bot."""
    return message(text, channel=channel, channel_type="im", **kw)


def deleted(previous: dict[str, Any], *, channel: str = "C1") -> dict[str, Any]:
    """A ``message_deleted`` envelope for a previous message event."""
    ts = new_ts()
    return envelope(
        {
            "type": "message",
            "subtype": "message_deleted",
            "hidden": True,
            "channel": channel,
            "ts": ts,
            "deleted_ts": previous["ts"],
            "event_ts": ts,
            "channel_type": "channel",
            "previous_message": {
                k: previous[k]
                for k in ("type", "user", "text", "ts", "thread_ts", "blocks")
                if k in previous
            },
        }
    )


def edited(previous: dict[str, Any], text: str, *, channel: str = "C1") -> dict[str, Any]:
    """A ``message_changed`` envelope: a person's message ``previous`` now reads ``text``."""
    ts = new_ts()
    kept = ("type", "user", "text", "ts", "thread_ts")
    before = {k: previous[k] for k in kept if k in previous}
    after = {**before, "text": text, "edited": {"user": previous["user"], "ts": ts}}
    return envelope(
        {
            "type": "message",
            "subtype": "message_changed",
            "hidden": True,
            "channel": channel,
            "ts": ts,
            "event_ts": ts,
            "channel_type": "channel",
            "message": after,
            "previous_message": before,
        }
    )


def signed_headers(
    body: str,
    *,
    secret: str = SIGNING_SECRET,
    timestamp: int | None = None,
    retry_num: int | None = None,
) -> dict[str, str]:
    """Headers Slack sends with an Events API request (and a retry's headers)."""
    stamp = str(timestamp if timestamp is not None else int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": SignatureVerifier(secret).generate_signature(
            timestamp=stamp, body=body
        ),
    }
    if retry_num is not None:
        headers["X-Slack-Retry-Num"] = str(retry_num)
        headers["X-Slack-Retry-Reason"] = "http_timeout"
    return headers


def slash_command(
    text: str, response_url: str, *, team: str = TEAM_ID, user: str = "U111", channel: str = "C1"
) -> str:
    """A slash command body (form-encoded, as Slack sends it)."""
    return urlencode(
        {
            "token": "x",
            "team_id": team,
            "team_domain": "fake",
            "channel_id": channel,
            "channel_name": "general",
            "user_id": user,
            "user_name": "alice",
            "command": "/veilbot",
            "text": text,
            "api_app_id": "A1",
            "response_url": response_url,
            "trigger_id": "13345224609.738474920.8088930838d88f008e0",
        }
    )


def block_action(
    action_id: str,
    value: str,
    response_url: str,
    *,
    team: str = TEAM_ID,
    user: str = "U111",
    channel: str = "C1",
) -> str:
    """A ``block_actions`` interaction body (form-encoded ``payload``)."""
    payload = {
        "type": "block_actions",
        "team": {"id": team, "domain": "fake"},
        "user": {"id": user, "team_id": team},
        "api_app_id": "A1",
        "container": {"type": "message", "is_ephemeral": True, "channel_id": channel},
        "channel": {"id": channel},
        "trigger_id": "1.2.3",
        "response_url": response_url,
        "actions": [
            {
                "type": "button",
                "action_id": action_id,
                "block_id": "b1",
                "value": value,
                "action_ts": str(time.time()),
            }
        ],
    }
    return urlencode({"payload": json.dumps(payload)})
