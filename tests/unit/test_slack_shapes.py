"""The gate's shape check: every body Slack documents passes; what veilbot cannot read fails."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs

from adapters.slack.shapes import well_formed
from tests.fakes.slack_payloads import (
    block_action,
    deleted,
    dm,
    edited,
    envelope,
    mention,
    message,
    user_event,
)


def _payload(form: str) -> dict[str, Any]:
    return dict(json.loads(parse_qs(form)["payload"][0]))


def test_documented_bodies_pass() -> None:
    first = user_event("message", "hello")
    bodies = [
        mention("hi"),
        message("hi", thread_ts="1700000000.000001"),
        dm("hi"),
        deleted(first),
        edited(first, "hello again"),
        {"type": "url_verification", "token": "t", "challenge": "abc"},
        {"type": "app_rate_limited", "team_id": "T1", "minute_rate_limited": 1518467820},
        envelope({"type": "channel_created", "channel": {"id": "C2", "name": "new"}}),
        envelope({"type": "user_change", "user": {"id": "U1", "team_id": "T1"}}),
        envelope({"type": "assistant_thread_started", "assistant_thread": {"channel_id": "D1"}}),
        _payload(block_action("veilbot_forget_confirm", "slack:T1:C1:1.2", "http://x/1")),
    ]
    assert [well_formed(b) for b in bodies] == [True] * len(bodies)


def test_what_would_fail_later_is_refused_here() -> None:
    no_channel = mention("hi")
    del no_channel["event"]["channel"]
    listed = envelope(user_event("message", "hi", subtype=["file_share"]))
    typed = envelope(user_event("message", "hi", type=["message"]))
    strings = {**mention("hi"), "authorizations": ["T1"]}
    previous = deleted(user_event("message", "gone"))
    previous["event"]["previous_message"] = "gone"
    button = _payload(block_action("veilbot_forget_confirm", "x", "http://x/1"))
    bodies = [
        no_channel,
        listed,
        typed,
        strings,
        previous,
        {**button, "user": 5},
        {**button, "team": {"id": 7}},
        {**button, "actions": ["x"]},
    ]
    assert [well_formed(b) for b in bodies] == [False] * len(bodies)


def _sharing(*files: object) -> dict[str, Any]:
    return envelope(user_event("message", "see", subtype="file_share", files=list(files)))


def test_a_shared_files_size_is_a_byte_count() -> None:
    good = {"id": "F1", "name": "a.csv", "size": 2048, "url_private": "https://x/a.csv"}
    assert well_formed(_sharing(good, {"id": "F2", "mode": "tombstone"}))
    odd = [
        {**good, "size": "abc"},
        {**good, "size": [1]},
        {**good, "size": float("inf")},  # what JSON makes of 1e400
        {**good, "size": 12.5},
        {**good, "size": -1},
        {**good, "name": 5},
        {**good, "url_private": ["https://x"]},
    ]
    assert [well_formed(_sharing(f)) for f in odd] == [False] * len(odd)
    gone = deleted(user_event("message", "gone"))
    gone["event"]["previous_message"]["files"] = [{**good, "size": "abc"}]
    assert not well_formed(gone)
