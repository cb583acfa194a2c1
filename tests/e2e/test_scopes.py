"""Per-workspace and per-channel settings from a config file, seen in what the model receives.

Through the fake Slack: the most specific scope wins, a channel's inherits its workspace's,
a replaced prompt keeps the placeholder rules, and a disabled channel gets a private line.
"""

from __future__ import annotations

import json
from pathlib import Path

from bot.config.settings import load_settings
from bot.core.text import REFUSED_REPLY
from bot.model.prompt import PERSONA, PLACEHOLDER_RULES
from tests.e2e.conftest import MakeApp
from tests.e2e.slack_harness import slack_harness
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fakes.slack_payloads import mention

SCOPES = """\
system_prompt_extra = "Company rule: be kind."
max_tokens = 1000

[scopes."slack:T1"]
system_prompt = "Answer in French."

[scopes."slack:T1:C2"]
system_prompt = "You are the legal team's assistant."
system_prompt_mode = "replace"
model = "claude-haiku-4-5"
max_tokens = 300

[scopes."slack:T1:C3"]
enabled = false
"""


async def test_each_channel_gets_its_scope_s_prompt_model_and_length(
    make_app: MakeApp, fake_anthropic: FakeAnthropic, tmp_path: Path
) -> None:
    path = tmp_path / "veilbot.toml"
    path.write_text(SCOPES, encoding="utf-8")
    loaded = load_settings(config_file=path, _env_file=None)
    values = {k: getattr(loaded, k) for k in ("scopes", "system_prompt_extra", "max_tokens")}
    async with slack_harness(make_app, **values) as h:
        for channel in ("C1", "C2", "C3"):
            await h.send(mention("what is a vault?", channel=channel))
            await h.settle()

    assert len(fake_anthropic.requests) == 2  # C3 is disabled
    general, legal = (r.body for r in fake_anthropic.requests)
    general_system, legal_system = json.dumps(general["system"]), json.dumps(legal["system"])
    assert "Company rule: be kind." in general_system
    assert "Answer in French." in general_system  # the workspace's, appended
    assert PERSONA in general_system
    assert general["max_tokens"] == 1000
    assert general["model"] == h.app.settings.model_name

    assert "legal team" in legal_system
    assert PERSONA not in legal_system
    assert "Answer in French." not in legal_system  # replaced, not appended
    assert json.dumps(PLACEHOLDER_RULES)[1:-1][:200] in legal_system  # the rules stay
    assert (legal["model"], legal["max_tokens"]) == ("claude-haiku-4-5", 300)

    [told] = h.slack.calls_to("chat.postEphemeral")
    assert (told["channel"], told["text"]) == ("C3", REFUSED_REPLY)
