"""The access rules as an admin writes them: ids bare or qualified, deny over allow, DMs apart."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.app import access_rules
from bot.config.settings import Settings
from bot.core.access import AccessRules
from bot.core.types import InboundMessage, thread_id

SLACK = InboundMessage(
    thread_id=thread_id("slack", "T1", "C1", "1.0"),
    platform="slack",
    workspace="T1",
    channel="C1",
    user_id="U1",
    message_id="1.0",
    text="hello",
)
DISCORD = InboundMessage(
    thread_id=thread_id("discord", "G1", "555"),
    platform="discord",
    workspace="G1",
    channel="555",  # a thread of channel 444
    user_id="42",
    message_id="555",
    text="hello",
    groups=frozenset({"7"}),
    parent_channel="444",
)


def rules(**lists: object) -> AccessRules:
    return access_rules(Settings(access=lists))  # type: ignore[arg-type]


@pytest.mark.parametrize("entry", ["U1", "slack:U1", "slack:T1:U1"])
def test_a_user_is_matched_bare_or_qualified(entry: str) -> None:
    assert rules(deny_users=[entry]).refusal(SLACK) == "user"
    assert rules(allow_users=[entry]).refusal(SLACK) is None


def test_another_workspace_s_qualified_id_does_not_match() -> None:
    assert rules(allow_users=["slack:T2:U1"]).refusal(SLACK) == "user"


def test_no_lists_allow_everyone_and_deny_wins_over_allow() -> None:
    assert rules().refusal(SLACK) is None
    assert rules(allow_users=["U1"], deny_channels=["C1"]).refusal(SLACK) == "channel"
    assert rules(allow_discord_roles=["7"], deny_users=["42"]).refusal(DISCORD) == "user"


def test_a_discord_thread_counts_as_its_channel_and_roles_allow() -> None:
    assert rules(allow_channels=["444"]).refusal(DISCORD) is None
    assert rules(allow_channels=["discord:G1:444"]).refusal(DISCORD) is None
    assert rules(allow_channels=["333"]).refusal(DISCORD) == "channel"
    assert rules(allow_discord_roles=["7"], allow_users=["99"]).refusal(DISCORD) is None
    assert rules(deny_discord_roles=["discord:G1:7"]).refusal(DISCORD) == "group"


def test_channel_lists_do_not_apply_to_direct_messages_allow_dms_does() -> None:
    dm = replace(SLACK, channel="D1", private=True)
    assert rules(allow_channels=["C9"]).refusal(dm) is None
    assert rules(allow_dms=False).refusal(dm) == "dm"


def test_unknown_groups_are_refused_only_when_the_rules_name_groups() -> None:
    unknown = replace(SLACK, groups=None)
    assert rules(allow_slack_groups=["S1"]).refusal(unknown) == "groups_unknown"
    assert rules(allow_users=["U1"]).refusal(unknown) is None
