"""The pure Discord translation: triggers, ids, mentions and splitting."""

from __future__ import annotations

import re

import discord
import pytest

from adapters.discord.events import (
    DISCORD_LIMIT,
    MessageFacts,
    Trigger,
    allowed_mentions,
    attachment_of,
    classify,
    conversation_channel,
    split_message,
    strip_bot_mention,
    thread_name,
    to_inbound,
)
from tests.fakes.discord_payloads import attachment

BOT = 900000000000000001
ALICE = 100000000000000002
BOB = 100000000000000003
GUILD = 500000000000000004


def facts(**kw: object) -> MessageFacts:
    base: dict[str, object] = dict(
        message_id=700000000000000010,
        channel_id=600000000000000020,
        guild_id=GUILD,
        author_id=ALICE,
        author_is_bot=False,
        answerable_type=True,
        content=f"<@{BOT}> hello",
        mention_ids=(BOT,),
    )
    base.update(kw)
    return MessageFacts(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kw", "expected"),
    [
        ({}, Trigger.CHANNEL_MENTION),
        ({"mention_ids": ()}, Trigger.IGNORE),
        # the text alone is no mention: only the resolved mention list counts
        ({"content": f"<@{BOT}> hi", "mention_ids": ()}, Trigger.IGNORE),
        ({"author_id": BOT}, Trigger.IGNORE),
        ({"author_is_bot": True}, Trigger.IGNORE),
        ({"answerable_type": False}, Trigger.IGNORE),
        ({"guild_id": None, "mention_ids": ()}, Trigger.DIRECT),
        ({"in_thread": True}, Trigger.THREAD_MENTION),
        ({"in_thread": True, "mention_ids": ()}, Trigger.THREAD_MESSAGE),
    ],
)
def test_classify(kw: dict[str, object], expected: Trigger) -> None:
    assert classify(facts(**kw), BOT, ignore_bots=True) is expected


def test_bots_are_answered_when_the_setting_allows() -> None:
    assert classify(facts(author_is_bot=True), BOT, ignore_bots=False) is Trigger.CHANNEL_MENTION


def test_a_thread_started_from_a_message_is_named_by_the_message_id() -> None:
    f = facts()
    assert conversation_channel(f, Trigger.CHANNEL_MENTION, reply_mode="thread") == f.message_id
    assert conversation_channel(f, Trigger.CHANNEL_MENTION, reply_mode="inline") == f.channel_id
    t = facts(in_thread=True)
    assert conversation_channel(t, Trigger.THREAD_MESSAGE, reply_mode="thread") == t.channel_id


def test_inbound_message_strips_only_the_bots_own_mention() -> None:
    f = facts(content=f"<@!{BOT}>  ask <@{BOB}> about it", mention_ids=(BOT, BOB))
    msg = to_inbound(f, f.message_id, BOT)
    assert msg.text == f"ask <@{BOB}> about it"
    assert msg.thread_id == f"discord:{GUILD}:{f.message_id}"
    assert msg.event_id == str(f.message_id)
    assert msg.private is False
    assert msg.metadata == {"in_thread": False, "attachments": 0}


def test_direct_messages_are_private_and_use_dm() -> None:
    f = facts(guild_id=None, content="hello", mention_ids=())
    msg = to_inbound(f, f.channel_id, BOT)
    assert msg.thread_id == f"discord:dm:{f.channel_id}"
    assert msg.workspace == "dm"
    assert msg.private is True


def test_strip_bot_mention_keeps_other_text() -> None:
    assert strip_bot_mention(f"hi <@{BOT}>, there", BOT) == "hi , there"


def test_allowed_mentions_never_ping_everyone_roles_or_strangers() -> None:
    answer = f"@everyone @here <@&{GUILD}> ping <@{BOB}> and <@{ALICE}>"
    am = allowed_mentions(answer, asked=[BOB], reply=False).to_dict()
    assert am == {"parse": [], "users": [BOB]}


def test_allowed_mentions_ping_the_asker_only_through_the_reply() -> None:
    am = allowed_mentions("no mentions here", asked=[], reply=True).to_dict()
    assert am == {"parse": [], "users": [], "replied_user": True}


def test_thread_name_is_short_and_markup_free() -> None:
    assert thread_name(f"<@{BOB}> what   is\nthis", "Chat") == "what is this"
    assert thread_name(f"<@{BOT}>", "Chat") == "Chat"
    long = thread_name("word " * 40, "Chat")
    assert len(long) <= 61
    assert long.endswith("…")


def _fences_balanced(chunk: str) -> bool:
    return len(re.findall(r"^```", chunk, re.MULTILINE)) % 2 == 0


def test_short_text_is_one_post() -> None:
    assert split_message("hello\n\nworld") == ["hello\n\nworld"]


def test_paragraph_boundaries_are_preferred() -> None:
    paras = [(f"p{i} ") * 60 for i in range(12)]  # ~ 250 chars each
    chunks = split_message("\n\n".join(p.strip() for p in paras))
    assert all(len(c) <= DISCORD_LIMIT for c in chunks)
    assert len(chunks) >= 2
    for c in chunks:  # no paragraph was cut in the middle
        for para in c.split("\n\n"):
            assert para.strip() in {p.strip() for p in paras}


def test_a_code_block_cut_in_two_is_closed_and_reopened_with_its_language() -> None:
    code = "\n".join(f"    value_{i} = compute({i})  # step" for i in range(150))
    text = "Here is the script:\n\n```python\n" + code + "\n```\n\nThat is all."
    assert len(text) > 5000
    chunks = split_message(text)
    assert len(chunks) >= 3
    assert all(len(c) <= DISCORD_LIMIT for c in chunks)
    assert all(_fences_balanced(c) for c in chunks)
    for c in chunks[1:-1]:
        assert c.startswith("```python\n")
        assert c.endswith("\n```")
    # nothing lost, nothing duplicated: the code lines come back in order
    lines = [ln for c in chunks for ln in c.splitlines() if ln.startswith("    value_")]
    assert lines == code.splitlines()
    assert chunks[-1].endswith("That is all.")


def test_a_block_ending_exactly_at_a_cut_is_not_reopened_empty() -> None:
    code = "x = 1\n" * 320  # just under the budget once fenced
    text = "```\n" + code.rstrip("\n")[:1900] + "\n```\n" + "after " * 50
    chunks = split_message(text)
    assert all(_fences_balanced(c) for c in chunks)
    assert not any(c.startswith("```\n```") for c in chunks)


def test_an_overlong_line_is_cut_hard() -> None:
    chunks = split_message("x" * 4500)
    assert all(len(c) <= DISCORD_LIMIT for c in chunks)
    assert "".join(chunks) == "x" * 4500


def test_words_are_not_cut_when_spaces_exist() -> None:
    words = " ".join(f"w{i:04d}" for i in range(900))
    chunks = split_message(words)
    assert " ".join(chunks).split() == words.split()


class _NoHttp:
    """The one attribute discord.py's Attachment reads from its connection state."""

    http = None


def test_an_attachment_gives_its_name_cdn_url_and_size() -> None:
    data = attachment(77, "https://cdn.discordapp.test")
    data.update(filename="Jane Doe.csv", size=4096)
    found = attachment_of(discord.Attachment(data=data, state=_NoHttp()))  # type: ignore[arg-type]
    assert (found.name, found.size) == ("Jane Doe.csv", 4096)
    assert found.url == "https://cdn.discordapp.test/attachments/77"
