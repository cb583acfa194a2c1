"""``/veilbot fork`` on Slack: a new top-level message whose thread holds the kept turns."""

from __future__ import annotations

import json

from bot.core.types import thread_id
from tests.e2e.conftest import MakeApp
from tests.e2e.slack_harness import Harness, slack_harness
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.slack_payloads import mention, message, slash_command

MARIA_MAIL, PHONE = "maria.gonzalez@example.com", "+1 415 555 0199"


async def _thread_of_two(h: Harness) -> str:
    first = mention(f"Write to {MARIA_MAIL} please.")
    ts = str(first["event"]["ts"])
    await h.send(first)
    await h.until(lambda: len(h.slack.thread("C1", ts)) == 1, "first answer")
    await h.send(mention(f"And call {PHONE} tomorrow.", thread_ts=ts))
    await h.until(lambda: len(h.slack.thread("C1", ts)) == 2, "second answer")
    await h.settle()
    return ts


def _link(ts: str) -> str:
    return f"https://fake.slack.com/archives/C1/p{ts.replace('.', '')}"


async def _fork(h: Harness, text: str, *, n: int = 1, channel: str = "C1") -> str:
    status, _ = await h.send_form(
        slash_command(f"fork {text}", h.slack.response_url(n), channel=channel)
    )
    assert status == 200
    await h.until(lambda: len(h.slack.responses) >= n, "the command's answer")
    return str(h.slack.responses[n - 1]["text"])


async def test_a_fork_is_a_new_thread_with_the_last_turn_and_its_values_only(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    async with slack_harness(make_app) as h:
        ts = await _thread_of_two(h)
        source = thread_id("slack", "T1", "C1", ts)
        kept = (await h.app.history.load(source))[2:]

        said = await _fork(h, f"{_link(ts)} last_n=1")

        assert said.startswith("Forked: 1 turns")
        top = [m for m in h.slack.messages.values() if m.thread_ts is None and m.channel == "C1"]
        assert len(top) == 1  # the fork's own message, top level, linking to its source
        header = top[0]
        assert _link(ts) in header.text
        assert "<@U111>" in header.text
        fork = thread_id("slack", "T1", "C1", header.ts)
        assert await h.app.history.load(fork) == kept
        values = {v for _, v in (await h.app.vault.mapping(fork)).values()}
        assert values == {PHONE}  # the e-mail was only in the turn the fork dropped

        # Going on in the fork: the model sees the kept turn, the answer restores its value.
        fake_anthropic.answer("I will call <PHONE_NUMBER_1>, not <EMAIL_ADDRESS_1>.")
        await h.send(message("What will you do?", thread_ts=header.ts))
        await h.until(lambda: len(h.slack.thread("C1", header.ts)) == 1, "answer in the fork")
        await h.settle()
        assert h.slack.thread("C1", header.ts) == [f"I will call {PHONE}, not [redacted]."]
        body = fake_anthropic.requests[-1].body
        assert len(body["messages"]) == 3
        assert PHONE not in json.dumps(body)
        assert MARIA_MAIL not in json.dumps(body)


async def test_a_fork_from_another_channel_or_with_bad_words_is_refused_and_posts_nothing(
    make_app: MakeApp,
) -> None:
    async with slack_harness(make_app) as h:
        ts = await _thread_of_two(h)

        elsewhere = await _fork(h, f"{_link(ts)} first_k=1", n=1, channel="C2")
        both = await _fork(h, f"{_link(ts)} first_k=1 last_n=1", n=2)
        beyond = await _fork(h, f"{_link(ts)} last_n=3", n=3)
        nothing = await _fork(h, "first_k=1", n=4)

        assert "run this in the channel of the thread" in elsewhere
        assert "not both" in both
        assert "has 2 turns kept; last_n=3" in beyond
        assert "link to a message in the thread" in nothing
        assert [m for m in h.slack.messages.values() if m.thread_ts is None] == []
        # The refused fork that was posted first was deleted again.
        assert len(h.slack.calls_to("chat.delete")) == 1
