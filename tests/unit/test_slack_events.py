"""Slack payloads to core messages: thread ids, dedupe ids, mentions, what is ignored."""

from __future__ import annotations

import pytest

from adapters.slack.commands import parse_command
from adapters.slack.events import (
    deleted_message,
    skip_reason,
    strip_mention,
    team_of,
    thread_from_permalink,
    to_delivery,
)
from tests.fakes.slack_payloads import deleted, dm, envelope, mention, message, user_event

BOT = {"bot_user_id": "UBOT", "bot_id": "B0BOT", "ignore_bots": True}


def test_mention_starts_a_thread_on_its_own_ts_with_the_mention_removed() -> None:
    body = mention("summarize this for <@U222>", team="T9")
    d = to_delivery(body, bot_user_id="UBOT", trigger="mention")
    ts = body["event"]["ts"]
    assert d.message.thread_id == f"slack:T9:C1:{ts}"
    assert d.thread_ts == ts
    assert d.message.text == "summarize this for <@U222>"
    assert d.message.event_id == f"T9:C1:{ts}"
    assert not d.message.private
    assert d.message.metadata["trigger"] == "mention"


def test_reply_in_a_thread_belongs_to_the_thread_and_retries_share_the_dedupe_id() -> None:
    body = message("more", thread_ts="1700000000.000001", ts="1700000000.000009")
    twin = mention("more", ts="1700000000.000009")
    a = to_delivery(body, bot_user_id="UBOT", trigger="followup")
    b = to_delivery(twin, bot_user_id="UBOT", trigger="mention")
    assert a.message.thread_id.endswith(":1700000000.000001")
    assert a.message.event_id == b.message.event_id
    assert body["event_id"] != twin["event_id"]


def test_direct_messages_are_private_and_each_message_starts_its_own_thread() -> None:
    d = to_delivery(dm("hi"), bot_user_id="UBOT", trigger="dm")
    assert d.message.private
    assert d.thread_ts == d.message.message_id


def test_team_comes_from_the_envelope_then_the_event_then_authorizations() -> None:
    body = mention("x", team="T2")
    assert team_of(body) == "T2"
    del body["team_id"], body["context_team_id"]
    body["event"]["team"] = "T3"
    assert team_of(body) == "T3"
    del body["event"]["team"]
    assert team_of(body) == "T2"  # authorizations


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<@UBOT> hello", "hello"),
        ("<@UBOT|veilbot>: hello <@UBOT>", "hello"),
        ("hey <@UBOT>, ask <@U2>", "hey ask <@U2>"),
    ],
)
def test_only_the_bots_own_mention_is_removed(text: str, expected: str) -> None:
    assert strip_mention(text, "UBOT") == expected


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        ({"user": "UBOT"}, "self"),
        ({"bot_id": "B0BOT"}, "self"),
        ({"bot_id": "B0OTHER", "user": "U9"}, "bot"),
        ({"subtype": "message_changed"}, "subtype:message_changed"),
        ({"subtype": "channel_join"}, "subtype:channel_join"),
        ({"subtype": "bot_message", "bot_id": "B0OTHER"}, "subtype:bot_message"),
    ],
)
def test_what_is_never_answered(extra: dict[str, str], reason: str) -> None:
    event = user_event("message", "hello")
    event.update(extra)
    assert skip_reason(event, **BOT) == reason


def test_other_bots_are_answered_when_the_setting_allows() -> None:
    event = user_event("message", "hello", bot_id="B0OTHER")
    assert skip_reason(event, bot_user_id="UBOT", bot_id="B0BOT", ignore_bots=False) is None
    assert skip_reason(user_event("message", "x", subtype="file_share"), **BOT) is None


def test_deleted_user_message_gives_its_thread_and_text() -> None:
    original = message("my phone is 555", thread_ts="1700000000.000001")["event"]
    tid, text = deleted_message(deleted(original), bot_user_id="UBOT") or ("", "")
    assert tid == "slack:T1:C1:1700000000.000001"
    assert text == "my phone is 555"
    own = user_event("message", "an answer", user="UBOT")
    assert deleted_message(deleted(own), bot_user_id="UBOT") is None
    assert deleted_message(envelope(user_event("message", "x")), bot_user_id="UBOT") is None


def test_thread_from_a_message_link() -> None:
    link = "https://acme.slack.com/archives/C0123/p1700000000000100"
    assert thread_from_permalink(link, "T1") == "slack:T1:C0123:1700000000.000100"
    threaded = link + "?thread_ts=1699999999.000200&cid=C0123"
    assert thread_from_permalink(f"<{threaded}>", "T1") == "slack:T1:C0123:1699999999.000200"
    assert thread_from_permalink("https://example.com/x", "T1") is None


def test_command_words() -> None:
    assert parse_command(" Forget https://x ") == ("forget", "https://x")
    assert parse_command("") == ("help", "")
    d = to_delivery(mention(""), bot_user_id="UBOT", trigger="mention")
    assert d.command == "help"
    assert to_delivery(mention("FORGET"), bot_user_id="UBOT", trigger="m").command == "forget"
    assert to_delivery(mention("forget me not"), bot_user_id="UBOT", trigger="m").command is None


def _slack_file(fid: str, name: str, size: int) -> dict[str, object]:
    """A file object as Slack puts it in a ``file_share`` message event."""
    return {
        "id": fid, "created": 1700000000, "timestamp": 1700000000, "name": name,
        "title": name, "mimetype": "text/csv", "filetype": "csv", "user": "U1",
        "mode": "hosted", "is_external": False, "size": size,
        "url_private": f"https://files.slack.com/files-pri/T1-{fid}/{name}",
        "url_private_download": f"https://files.slack.com/files-pri/T1-{fid}/download/{name}",
    }  # fmt: skip


def test_a_file_share_carries_each_files_name_size_and_download_url() -> None:
    body = message("see attached", subtype="file_share")
    body["event"]["files"] = [
        _slack_file("F1", "Jane Doe.csv", 2048),
        {"id": "F2", "mode": "tombstone"},
    ]
    d = to_delivery(body, bot_user_id="UBOT", trigger="followup")
    first, gone = d.message.files
    assert (first.name, first.size) == ("Jane Doe.csv", 2048)
    assert first.url == "https://files.slack.com/files-pri/T1-F1/download/Jane Doe.csv"
    assert (gone.url, gone.size) == ("", 0), "a deleted file has nothing to fetch"
    assert bool(d.message.files)
    assert "Jane" not in str(d.message.metadata)


def test_a_message_without_files_has_none() -> None:
    d = to_delivery(message("plain"), bot_user_id="UBOT", trigger="followup")
    assert d.message.files == ()
    assert not bool(d.message.files)
