"""Evasion forms end to end: the real composition root and the Slack adapter on the fake
Slack, real Redis and Presidio, and the fake Anthropic server recording what the model got.

Each hidden, spaced, spelled or encoded value must never reach the model in clear, and the
person who wrote it must get it back, as written, in the answer.
"""

from __future__ import annotations

import html
import re
import unicodedata

from bot.core.text import clean_user_text
from bot.core.types import TurnStatus
from tests.e2e.conftest import MakeApp, audit_rows, message, unique_thread
from tests.e2e.slack_harness import slack_harness
from tests.fakes.anthropic_server import FakeAnthropic, last_user_text
from tests.fakes.slack_payloads import mention
from tests.fakes.slack_payloads import message as slack_message

_NUMBERS = "zero one two three four five six seven eight nine".split()
_HIDDEN = ("Cf", "Mn", "Me", "Cc")
TAGGED = "".join(chr(0xE0000 + ord(c)) for c in "ingrid@example.org")

# (what the user writes, the value a reader sees in it)
TURNS = [
    ("Mail me at ingrid\u180e.halvorsen@exam\u034fple.org please.", "ingridhalvorsen@exampleorg"),
    ("Or i\u2060n\u2061g\u2800rid.h\ufe0falvorsen@example.org.", "ingridhalvorsen@exampleorg"),
    ("Her old one: i n g r i d . h @ e x a m p l e . o r g ok", "ingridh@exampleorg"),
    ("Phone 4 1 5 5 5 5 0 1 9 9 after six.", "4155550199"),
    ("Or four one five five five five zero one eight eight at night.", "4155550188"),
    ("Card 4111/1111/1111/1111 for the deposit.", "4111111111111111"),
    ("Backup card 5555\u03015555\u03015555\u03014444 too.", "5555555555554444"),
    ("Form: https://forms.example.com/f?dob=1969-05-12&name=Ingrid+Halvorsen ok", "1969-05-12"),
    ("Also https://forms.example.com/f?phone=%2B14155550177 and ssn=... no.", "4155550177"),
    (f"Thanks a lot for the help with all of this, really {TAGGED} see you", "ingrid@exampleorg"),
]


def plain(text: str) -> str:
    """What a reader makes of a text: hidden characters, marks, blanks and joiners out."""
    text = "".join(chr(ord(c) - 0xE0000) if 0xE0020 <= ord(c) <= 0xE007E else c for c in text)
    text = "".join(c for c in text if unicodedata.category(c) not in _HIDDEN or c == "\n")
    text = re.sub(
        r"\b(" + "|".join(_NUMBERS) + r")\b", lambda m: str(_NUMBERS.index(m.group())), text
    )
    return re.sub(r"[\s/.\-+\u2800]", "", text.lower().replace("%2b", ""))


async def test_evasion_forms_never_reach_the_model_and_come_back_to_the_asker(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    app = await make_app()
    thread = unique_thread()
    replies = [await app.conversation.handle(message(t, thread, private=True)) for t, _ in TURNS]

    assert [r.status for r in replies if r] == [TurnStatus.OK] * len(TURNS)
    sent = plain(fake_anthropic.all_text_sent())
    assert [v for _, v in TURNS if plain(v) in sent] == []
    assert "halvorsen" not in sent
    # The echoing model quoted each turn: the asker reads their own values. A value seen
    # before in the thread, in another form, keeps its placeholder and comes back as first
    # written; a new one comes back as written (less the zero-width characters every message
    # loses on the way in).
    for (_, value), reply in zip(TURNS, replies, strict=True):
        assert reply is not None
        assert plain(value) in plain(reply.text)
    assert replies[0] is not None
    assert clean_user_text(TURNS[0][0]) in replies[0].text


async def test_a_message_mostly_of_hidden_characters_is_refused_and_audited(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    app = await make_app()
    thread = unique_thread()
    reply = await app.conversation.handle(message("hi" + TAGGED, thread))
    assert reply is not None
    assert reply.status is TurnStatus.REJECTED_INPUT
    assert "invisible" in reply.text
    assert fake_anthropic.requests == []
    assert [r["status"] for r in await audit_rows(app, thread)] == ["rejected_input"]


async def test_a_slack_link_labelled_like_a_placeholder_sends_no_target_to_the_model(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    text = (
        "Write <mailto:ingrid.halvorsen@example.org|EMAIL_ADDRESS_1> or ring "
        "<tel:+14155550199|PHONE_NUMBER_1>, form <https://x.example.com/f?dob=1969-05-12|here>"
    )
    async with slack_harness(make_app) as h:
        payload = mention(text)
        ts = payload["event"]["ts"]
        await h.send(payload)
        await h.until(lambda: bool(h.slack.thread("C1", ts)), "answer")
        await h.settle()
        sent = fake_anthropic.all_text_sent()
        assert "ingrid.halvorsen@example.org" not in sent
        assert "4155550199" not in sent
        assert "1969-05-12" not in sent
        answer = "\n".join(h.slack.thread("C1", ts))
        assert "ingrid.halvorsen@example.org" in answer
        assert "1969-05-12" in answer


async def test_slacks_escaped_placeholder_is_never_restored_as_someones_value(
    make_app: MakeApp, fake_anthropic: FakeAnthropic
) -> None:
    # A model reads "&lt;person_1&gt;" as "<person_1>" and writes it so when it quotes it.
    fake_anthropic.responder = lambda body: "You asked: " + html.unescape(last_user_text(body))
    async with slack_harness(make_app) as h:
        first = mention("I'm Ingrid Halvorsen from the Oslo office.")
        ts = first["event"]["ts"]
        await h.send(first)
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 1, "first answer")
        await h.send(slack_message("what does &lt;person_1&gt; stand for?", thread_ts=ts))
        await h.until(lambda: len(h.slack.thread("C1", ts)) == 2, "second answer")
        await h.settle()
        second = h.slack.thread("C1", ts)[1]
        assert "Ingrid" not in second
        assert "person_1" in second
        asked = last_user_text(fake_anthropic.requests[-1].body)
        assert "person_1" not in asked.lower()
        assert "<PLACEHOLDER_1>" in asked
