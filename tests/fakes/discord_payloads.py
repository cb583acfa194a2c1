"""Discord wire payloads for the fake server: users, messages, threads, interactions, guilds.

Only the fields discord.py 2.7 requires plus the ones the adapter reads (see the shared notes:
a missing key in a gateway payload raises inside discord.py's parser).
"""

from __future__ import annotations

from typing import Any

BOT_ID = 900000000000000001
APP_ID = 900000000000000001
GUILD_ID = 500000000000000004
CHANNEL_ID = 600000000000000020
ALICE_ID = 100000000000000002
BOB_ID = 100000000000000003
OTHER_BOT_ID = 100000000000000009
AUDITOR_ROLE_ID = 700000000000000007
TIMESTAMP = "2026-01-01T00:00:00.000000+00:00"
Payload = dict[str, Any]


def user(uid: int, name: str, *, bot: bool = False) -> Payload:
    """A user object."""
    return {"id": str(uid), "username": name, "discriminator": "0", "global_name": None,
            "avatar": None, "bot": bot}  # fmt: skip


BOT_USER = user(BOT_ID, "veilbot", bot=True)
USERS = {
    ALICE_ID: user(ALICE_ID, "alice"),
    BOB_ID: user(BOB_ID, "bob"),
    OTHER_BOT_ID: user(OTHER_BOT_ID, "otherbot", bot=True),
    BOT_ID: BOT_USER,
}
APPLICATION = {"id": str(APP_ID), "name": "veilbot", "description": "", "icon": None,
               "bot_public": True, "bot_require_code_grant": False, "owner": USERS[ALICE_ID],
               "verify_key": "00", "flags": 0}  # fmt: skip


def _member(author: int | None = None) -> Payload:
    member: Payload = {"roles": [], "joined_at": TIMESTAMP, "flags": 0, "deaf": False,
                       "mute": False, "permissions": "0"}  # fmt: skip
    if author is not None:
        member["user"] = USERS[author]
    return member


def message(mid: int, channel: int, content: str, *, author: int = BOT_ID,
            guild: int | None = None, mentions: tuple[int, ...] = (),
            attachments: list[Payload] | None = None, msg_type: int = 0) -> Payload:  # fmt: skip
    """A message object (MESSAGE_CREATE data, or a REST answer when the bot posts)."""
    data: Payload = {
        "id": str(mid), "channel_id": str(channel), "content": content,
        "author": USERS[author], "timestamp": TIMESTAMP, "edited_timestamp": None,
        "tts": False, "mention_everyone": False, "mentions": [USERS[m] for m in mentions],
        "mention_roles": [], "attachments": attachments or [], "embeds": [], "pinned": False,
        "type": msg_type, "flags": 0,
    }  # fmt: skip
    if guild is not None:
        data["guild_id"] = str(guild)
        data["member"] = _member()
    return data


def attachment(aid: int, api_url: str) -> Payload:
    """A small text file attached to a message."""
    return {"id": str(aid), "filename": "notes.txt", "size": 12, "proxy_url": "",
            "url": f"{api_url}/attachments/{aid}", "content_type": "text/plain"}  # fmt: skip


def dm_channel(cid: int, recipient: int) -> Payload:
    """A direct-message channel (type 1) between the bot and ``recipient``."""
    return {"id": str(cid), "type": 1, "recipients": [USERS[recipient]], "last_message_id": None}


def thread(tid: int, parent: int, name: str, *, owner: int = BOT_ID) -> Payload:
    """A public thread (type 11) in the test guild."""
    return {
        "id": str(tid), "guild_id": str(GUILD_ID), "parent_id": str(parent),
        "owner_id": str(owner), "name": name, "type": 11, "message_count": 0,
        "member_count": 1, "rate_limit_per_user": 0,
        "thread_metadata": {"archived": False, "auto_archive_duration": 1440,
                            "archive_timestamp": TIMESTAMP, "locked": False},
    }  # fmt: skip


def interaction(ids: tuple[int, int, int], name: str, *, channel: Payload,
                guild: int | None, author: int,
                options: list[Payload] | None = None) -> Payload:  # fmt: skip
    """An INTERACTION_CREATE for a chat-input (slash) command (``options``: subcommands)."""
    iid, token, cmd = ids
    data: Payload = {
        "id": str(iid), "application_id": str(APP_ID), "type": 2, "token": f"itoken-{token}",
        "version": 1, "attachment_size_limit": 8388608,
        "data": {"id": str(cmd), "name": name, "type": 1, "options": options or []},
        "channel_id": channel["id"],
        "channel": channel, "locale": "en-US", "app_permissions": "0", "entitlements": [],
    }  # fmt: skip
    if guild is None:
        data["user"] = USERS[author]
        return data
    data["guild_id"] = data["data"]["guild_id"] = str(guild)
    data["member"] = _member(author)
    return data


def text_channel(cid: int, *, dm: bool = False) -> Payload:
    """A guild text channel (type 0) or a DM channel (type 1)."""
    return {"id": str(cid), "type": 1 if dm else 0, "name": "general", "position": 0,
            "permission_overwrites": []}  # fmt: skip


def command(cmd: Payload) -> Payload:
    """An application command as Discord returns it after a bulk overwrite."""
    return {"id": str(abs(hash(cmd["name"])) % 10**18), "application_id": str(APP_ID),
            "version": "1", "type": 1, **cmd}  # fmt: skip


def gateway_bot(url: str, shards: int) -> Payload:
    """``GET /gateway/bot``."""
    limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
    return {"url": url, "shards": shards, "session_start_limit": limit}


def ready(gateway_url: str, identify: Payload) -> Payload:
    """READY for the bot, with one (not yet available) guild."""
    data: Payload = {
        "v": 10, "user": BOT_USER, "guilds": [{"id": str(GUILD_ID), "unavailable": True}],
        "session_id": "fake-session", "resume_gateway_url": gateway_url,
        "application": {"id": str(APP_ID), "flags": 0},
    }  # fmt: skip
    if "shard" in identify:
        data["shard"] = identify["shard"]
    return data


def role(rid: int, name: str) -> Payload:
    """A guild role with no permissions."""
    return {"id": str(rid), "name": name, "permissions": "0", "position": 1, "color": 0,
            "hoist": False, "managed": False, "mentionable": False, "flags": 0}  # fmt: skip


def guild(threads: list[Payload]) -> Payload:
    """GUILD_CREATE: the test guild with #general, the bot as member, and active threads."""
    everyone = {"id": str(GUILD_ID), "name": "@everyone", "permissions": "1071698660929",
                "position": 0, "color": 0, "hoist": False, "managed": False,
                "mentionable": False, "flags": 0}  # fmt: skip
    return {
        "id": str(GUILD_ID), "name": "test guild", "unavailable": False, "member_count": 3,
        "roles": [everyone, role(AUDITOR_ROLE_ID, "auditors")],
        "members": [_member(BOT_ID)], "channels": [text_channel(CHANNEL_ID)],
        "threads": threads, "emojis": [], "stickers": [], "features": [],
        "owner_id": str(ALICE_ID), "large": False,
    }  # fmt: skip
