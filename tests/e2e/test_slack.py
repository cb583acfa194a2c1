"""The Slack adapter end to end: real slack-bolt/slack-sdk against the fake Slack, the real
core on real Redis and Presidio, and the fake Anthropic server."""

from __future__ import annotations

import asyncio
import json
import logging
import time

import pytest

from adapters.slack.commands import FORGET_CONFIRM, FORGET_DONE
from bot.core.types import thread_id
from tests.e2e.conftest import MakeApp
from tests.e2e.slack_harness import slack_harness
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.slack_payloads import (
    block_action,
    deleted,
    dm,
    envelope,
    mention,
    message,
    new_ts,
    signed_headers,
    slash_command,
    user_event,
)
from tests.fakes.slack_server import BOT_ID, BOT_USER_ID

SEEDED = ["Maria Gonzalez", "maria.gonzalez@example.com", "+1 415 555 0123"]
PII_TEXT = (
    "Hi, I'm Maria Gonzalez. Write to <mailto:maria.gonzalez@example.com|"
    "maria.gonzalez@example.com> or call +1 415 555 0123."
)


@pytest.mark.parametrize("streaming", ["update", "stream"])
async def test_mention_gets_a_threaded_deanonymized_answer_and_the_model_sees_no_pii(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, streaming: str
) -> None:
    async with slack_harness(make_app, slack_streaming=streaming) as h:
        payload = mention(PII_TEXT)
        ts = payload["event"]["ts"]
        assert await h.send(payload) == 200
        await h.until(lambda: any("Maria" in t for t in h.slack.thread("C1", ts)), "answer")
        await h.settle()

        answer = "\n".join(h.slack.thread("C1", ts))
        assert "Maria Gonzalez" in answer
        assert "maria.gonzalez@example.com" in answer
        assert "415 555 0123" in answer
        assert "<PERSON" not in answer
        assert "PERSON_1" not in answer
        sent = fake_anthropic.all_text_sent()
        assert not [v for v in SEEDED if v.casefold() in sent.casefold()]
        assert "4155550123" not in sent.replace(" ", "").replace("+1", "")
        assert f"<@{BOT_USER_ID}>" not in sent
        if streaming == "stream":
            assert h.slack.calls_to("chat.startStream")
            assert h.slack.calls_to("chat.stopStream")
            assert not h.slack.calls_to("chat.postMessage")
        else:
            assert not h.slack.calls_to("chat.startStream")


async def test_follow_up_without_mention_is_answered_only_in_threads_the_bot_is_in(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    async with slack_harness(make_app) as h:
        first = mention("What is a haiku?")
        ts = first["event"]["ts"]
        await h.send(first)
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 1, "first answer")

        await h.send(message("And a limerick?", thread_ts=ts))
        await h.until(lambda: "limerick" in "".join(h.slack.thread("C1", ts)[1:]), "follow-up")
        assert len(h.slack.thread("C1", ts)) == 2

        stranger = new_ts()
        await h.send(message("talking among ourselves", thread_ts=stranger))
        await h.send(message("top-level chatter"))
        await h.send(dm("sentinel"))
        await h.until(lambda: bool(h.slack.calls_to("chat.postMessage")[2:]), "sentinel")
        await h.settle()
        assert h.slack.thread("C1", stranger) == []
        assert len(fake_anthropic.requests) == 3


async def test_direct_message_is_answered_in_its_own_thread_as_a_private_conversation(
    make_app: MakeApp,
) -> None:
    async with slack_harness(make_app) as h:
        first, second = dm("hello there"), dm("a second topic")
        await h.send(first)
        await h.send(second)
        for payload in (first, second):
            ts = payload["event"]["ts"]
            await h.until(lambda ts=ts: len(h.slack.thread("D1", ts)) == 1, "dm answer")
        await h.settle()
        tid = thread_id("slack", "T1", "D1", first["event"]["ts"])
        assert len(await h.app.history.load(tid)) == 2


async def test_the_same_event_delivered_three_times_is_answered_once(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    async with slack_harness(make_app) as h:
        payload = mention("count me once")
        ts = payload["event"]["ts"]
        # The first delivery the bot sees already carries a retry header: it must be answered.
        statuses = [await h.send(payload, retry_num=n) for n in (1, 2, 3)]
        # Slack also sends a `message` event (another event_id) for the same mention.
        twin = message(payload["event"]["text"], ts=ts)
        await h.send(twin)
        assert statuses == [200, 200, 200]
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 1, "answer")
        await h.settle()
        assert len(h.slack.thread("C1", ts)) == 1
        assert len(fake_anthropic.requests) == 1


async def test_socket_mode_redeliveries_are_acked_and_answered_once(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    async with slack_harness(make_app, slack_mode="socket", slack_signing_secret=None) as h:
        payload = mention("over the socket")
        ts = payload["event"]["ts"]
        for attempt, envelope_id in enumerate(["e1", "e2", "e3"]):
            await h.slack.send_envelope(payload, envelope_id, retry_attempt=attempt)
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 1, "answer")
        await h.until(lambda: sorted(h.slack.acks) == ["e1", "e2", "e3"], "acks")
        await h.settle()
        assert len(h.slack.thread("C1", ts)) == 1
        assert len(fake_anthropic.requests) == 1
        assert h.slack.calls[0].token in ("xoxb-test", "xapp-test")
        assert any(c.token == "xapp-test" for c in h.slack.calls if c.method.startswith("apps."))


async def test_forged_and_stale_signatures_get_401_and_nothing_runs(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    async with slack_harness(make_app) as h:
        body = json.dumps(mention("let me in"))
        forged = signed_headers(body, secret="not-the-secret")
        stale = signed_headers(body, timestamp=int(time.time()) - 600)
        assert (await h.post(body, forged))[0] == 401
        assert (await h.post(body, stale))[0] == 401
        assert (await h.post(body, {"Content-Type": "application/json"}))[0] == 401
        await h.settle()
        assert fake_anthropic.requests == []
        # nothing but the bot's identity, asked for at the start
        assert [c.method for c in h.slack.calls if c.method != "auth.test"] == []


async def test_malformed_requests_get_400_or_401_and_one_log_line_without_a_traceback(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    body = json.dumps(mention("let me in"))
    junk = "{not json"
    form = "payload=%7Bnot"
    bad_stamp = {"Content-Type": "application/json", "X-Slack-Request-Timestamp": "abc"}
    cases = [
        (body, {**bad_stamp, "X-Slack-Signature": "v0=00"}, 401),
        (junk, {"Content-Type": "application/json"}, 401),
        (junk, signed_headers(junk), 400),
        (form, {**signed_headers(form), "Content-Type": "application/x-www-form-urlencoded"}, 400),
    ]
    async with slack_harness(make_app) as h:
        for _ in range(50):
            for text, headers, status in cases:
                assert (await h.post(text, headers))[0] == status
        await h.settle()
    assert fake_anthropic.requests == []
    assert [c.method for c in h.slack.calls if c.method != "auth.test"] == []  # (at the start)
    loud = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert all(r.exc_info is None for r in loud)
    assert len(loud) <= 3, [r.getMessage() for r in loud]  # one per reason, not per request
    assert "Traceback" not in caplog.text


async def test_update_path_posts_then_edits_and_falls_back_when_streaming_is_unavailable(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.answer("One two three four five six seven eight nine ten eleven twelve.")
    async with slack_harness(make_app, slack_streaming="auto") as h:
        h.slack.streaming_supported = False
        payload = mention("count to twelve")
        ts = payload["event"]["ts"]
        await h.send(payload)
        await h.until(lambda: any("twelve" in t for t in h.slack.thread("C1", ts)), "answer")
        await h.settle()
        assert len(h.slack.calls_to("chat.startStream")) == 1
        assert len(h.slack.calls_to("chat.postMessage")) == 1
        assert h.slack.calls_to("chat.update")
        assert h.slack.thread("C1", ts) == [
            "One two three four five six seven eight nine ten eleven twelve."
        ]


async def test_streaming_path_appends_as_the_model_writes(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.answer("**Bold** start, then a list:\n\n- one\n- two\n\nDone.")
    async with slack_harness(make_app, slack_streaming="stream") as h:
        payload = mention("stream please")
        ts = payload["event"]["ts"]
        await h.send(payload)
        await h.until(lambda: bool(h.slack.calls_to("chat.stopStream")), "stream stop")
        starts = h.slack.calls_to("chat.startStream")
        assert len(starts) == 1
        assert starts[0]["recipient_user_id"] == "U111"
        assert starts[0]["recipient_team_id"] == "T1"
        assert h.slack.calls_to("chat.appendStream")
        assert h.slack.thread("C1", ts) == ["**Bold** start, then a list:\n\n- one\n- two\n\nDone."]


async def test_with_streaming_off_the_answer_is_asked_for_whole_and_posted_once(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    """Nothing is shown before the end, so no stream of events is asked for and parsed;
    with streaming on, the same question is streamed."""
    fake_anthropic.answer("One two three four five six seven eight nine ten eleven twelve.")
    async with slack_harness(make_app, slack_streaming="off") as h:
        payload = mention("count to twelve")
        await h.send(payload)
        ts = payload["event"]["ts"]
        await h.until(lambda: bool(h.slack.thread("C1", ts)), "the answer")
        await h.settle()
        assert h.slack.thread("C1", ts) == [
            "One two three four five six seven eight nine ten eleven twelve."
        ]
        assert [c.method for c in h.slack.calls if c.method.startswith("chat.")] == [
            "chat.postMessage"
        ]
    assert [bool(r.body.get("stream")) for r in fake_anthropic.requests] == [False]
    fake_anthropic.answer("Streamed this time.")
    async with slack_harness(make_app, slack_streaming="stream") as h:
        payload = mention("count again")
        await h.send(payload)
        await h.until(lambda: bool(h.slack.calls_to("chat.stopStream")), "stream stop")
    assert [bool(r.body.get("stream")) for r in fake_anthropic.requests] == [False, True]


def _long_answer() -> str:
    para = "This paragraph explains one more detail of the answer in plain words. " * 6
    code = "```python\n" + "\n".join(f"print('line {i}')  # <tag> & more" for i in range(120))
    code += "\n```"
    parts = [f"## Part {i}\n\n{para}" for i in range(12)]
    parts.insert(6, code)
    text = "\n\n".join(parts)
    return text + "\n\n" + "Tail. " * ((10_000 - len(text)) // 6)


async def test_a_10000_character_answer_is_split_into_valid_messages(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    answer = _long_answer()
    assert len(answer) >= 9_990
    fake_anthropic.answer(answer)
    async with slack_harness(make_app, slack_message_chars=3000) as h:
        payload = mention("tell me everything")
        ts = payload["event"]["ts"]
        await h.send(payload)
        await h.until(lambda: any("Tail." in t for t in h.slack.thread("C1", ts)), "last part")
        await h.settle()
        posted = h.slack.thread("C1", ts)
        assert len(posted) >= 4
        assert all(len(p) <= 3000 for p in posted)
        assert all(p.count("```") % 2 == 0 for p in posted)
        joined = "".join(posted)
        assert all(f"*Part {i}*" in joined for i in range(12))
        assert all(f"print('line {i}')  # &lt;tag&gt; &amp; more" in joined for i in range(120))
        assert "```python" not in joined


async def test_broadcast_mentions_from_the_model_ping_nobody(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    fake_anthropic.answer("<!here> <!channel|channel> @everyone and <!subteam^S123|@devs> <!date>")
    for mode in ("update", "stream"):
        async with slack_harness(make_app, slack_streaming=mode) as h:
            payload = mention("ping everyone please")
            ts = payload["event"]["ts"]
            await h.send(payload)
            await h.until(lambda ts=ts: any("devs" in t for t in h.slack.thread("C1", ts)), "ans")
            await h.settle()
            text = h.slack.thread("C1", ts)[0]
            for forbidden in ("<!here", "<!channel", "<!subteam", "<!date", "@everyone"):
                assert forbidden not in text
            assert "here" in text
            assert "devs" in text
        fake_anthropic.answer("<!here> <!channel|channel> @everyone and <!subteam^S123|@devs> x")


async def test_the_model_may_ping_only_users_the_asker_mentioned(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    for mode in ("update", "stream"):
        fake_anthropic.answer("Ask <USER_1> or <@U999> today.")
        async with slack_harness(make_app, slack_streaming=mode) as h:
            payload = mention("who should I ask, <@U222>?")
            ts = payload["event"]["ts"]
            await h.send(payload)
            await h.until(lambda ts=ts: any("today" in t for t in h.slack.thread("C1", ts)), "a")
            await h.settle()
            text = h.slack.thread("C1", ts)[0]
            assert "<@U222>" in text  # the asker mentioned them: a real mention
            assert "<@U999" not in text  # the model's own pick pings nobody...
            assert "U999" in text  # ...but still reads as a name


async def test_slack_429_is_retried_after_retry_after(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    async with slack_harness(make_app) as h:
        h.slack.fail("chat.postMessage", 429, retry_after=0)
        payload = mention("rate limit me")
        ts = payload["event"]["ts"]
        await h.send(payload)
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 1, "answer after 429")
        await h.settle()
        assert len(h.slack.calls_to("chat.postMessage")) == 2
        assert len(h.slack.thread("C1", ts)) == 1


async def test_own_and_other_bots_messages_and_edits_are_ignored(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    async with slack_harness(make_app) as h:
        first = mention("start a thread")
        ts = first["event"]["ts"]
        await h.send(first)
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 1, "first answer")
        own = user_event(
            "message",
            "my own answer",
            user=BOT_USER_ID,
            thread_ts=ts,
            channel_type="channel",
            bot_id=BOT_ID,
        )
        other_bot = user_event(
            "message",
            "beep",
            user="UOTHER",
            thread_ts=ts,
            channel_type="channel",
            bot_id="B0OTHER",
            subtype="bot_message",
        )
        edit = {
            "type": "message",
            "subtype": "message_changed",
            "channel": "C1",
            "ts": new_ts(),
            "hidden": True,
            "channel_type": "channel",
            "message": {"type": "message", "user": "U111", "text": "edited", "ts": ts},
        }
        join = user_event(
            "message",
            "<@U222> has joined",
            user="U222",
            channel_type="channel",
            subtype="channel_join",
        )
        for event in (own, other_bot, edit, join):
            assert await h.send(envelope(event)) == 200
        sentinel = dm("sentinel")
        await h.send(sentinel)
        await h.until(lambda: len(h.slack.thread("D1", sentinel["event"]["ts"])) == 1, "sentinel")
        await h.settle()
        assert len(h.slack.thread("C1", ts)) == 1
        assert len(fake_anthropic.requests) == 2


async def test_deleting_a_message_purges_it_from_the_history(make_app: MakeApp) -> None:
    async with slack_harness(make_app) as h:
        first = mention(PII_TEXT)
        ts = first["event"]["ts"]
        await h.send(first)
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 1, "answer")
        tid = thread_id("slack", "T1", "C1", ts)
        await h.until(lambda: True)
        await h.settle()
        assert len(await h.app.history.load(tid)) == 2
        await h.send(deleted(first["event"]))
        for _ in range(300):
            if not await h.app.history.load(tid):
                break
            await asyncio.sleep(0.01)
        assert await h.app.history.load(tid) == []


async def test_deleting_a_message_withdraws_the_values_only_it_introduced(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    async with slack_harness(make_app) as h:
        first = mention("I'm Maria Gonzalez, write to maria.gonzalez@example.com.")
        ts = first["event"]["ts"]
        tid = thread_id("slack", "T1", "C1", ts)
        await h.send(first)
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 1, "first answer")
        await h.send(message("Maria Gonzalez and John Smith will join.", thread_ts=ts))
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 2, "second answer")
        await h.settle()

        async def kept() -> set[str]:
            return {value for _, value in (await h.app.vault.mapping(tid)).values()}

        assert "maria.gonzalez@example.com" in await kept()
        await h.send(deleted(first["event"]))
        deadline = time.monotonic() + 10
        while "maria.gonzalez@example.com" in await kept() and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert len(await h.app.history.load(tid)) == 2
        assert await kept() == {"Maria Gonzalez", "John Smith"}  # the kept message names both

        fake_anthropic.answer("Mail <EMAIL_ADDRESS_1>, <PERSON_1> and <PERSON_2>.")
        await h.send(message("Who should I mail?", thread_ts=ts))
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 3, "third answer")
        await h.settle()
        answer = h.slack.thread("C1", ts)[-1]
        assert "maria.gonzalez@example.com" not in answer
        assert "[redacted]" in answer
        assert "Maria Gonzalez" in answer
        assert "John Smith" in answer


async def test_forget_asks_for_confirmation_then_erases_the_thread(make_app: MakeApp) -> None:
    async with slack_harness(make_app) as h:
        first = mention("remember this")
        ts = first["event"]["ts"]
        await h.send(first)
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 1, "answer")
        tid = thread_id("slack", "T1", "C1", ts)
        await h.settle()

        link = f"https://fake.slack.com/archives/C1/p{ts.replace('.', '')}"
        status, body = await h.send_form(slash_command(f"forget {link}", h.slack.response_url()))
        assert status == 200
        blocks = json.loads(body)["blocks"]
        button = blocks[1]["elements"][0]
        assert button["action_id"] == FORGET_CONFIRM
        assert button["value"] == tid
        assert len(await h.app.history.load(tid)) == 2

        await h.send_form(block_action(FORGET_CONFIRM, tid, h.slack.response_url(2)))
        await h.until(lambda: bool(h.slack.responses), "confirmation response")
        assert h.slack.responses[0]["text"] == FORGET_DONE
        assert await h.app.history.load(tid) == []

        status, body = await h.send_form(slash_command("help", h.slack.response_url()))
        assert "forget" in json.loads(body)["text"]


async def test_in_thread_forget_word_and_a_file_slack_no_longer_serves(make_app: MakeApp) -> None:
    async with slack_harness(make_app) as h:
        hidden = [{"id": "F1", "name": "scan.pdf", "mode": "hidden_by_limit"}]  # no URL
        first = mention("what is in this file?", files=hidden)
        ts = first["event"]["ts"]
        await h.send(first)
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 1, "answer")
        assert "File 1 was deleted or hidden" in h.slack.thread("C1", ts)[0]
        await h.send(mention("and without it?", thread_ts=ts))
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 2, "second answer")

        await h.send(mention("forget", thread_ts=ts))
        await h.until(lambda: bool(h.slack.calls_to("chat.postEphemeral")), "confirmation")
        ephemeral = h.slack.calls_to("chat.postEphemeral")[0]
        assert ephemeral["thread_ts"] == ts
        assert ephemeral["user"] == "U111"
