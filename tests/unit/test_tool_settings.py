"""The ``[tools]`` table: MCP servers and the loop's limits read from the config file, every
mistake named with its line before the service starts; and which places a server serves."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.config.settings import load_settings
from bot.core.errors import ConfigError
from bot.core.types import InboundMessage, thread_id
from bot.tools.mcp_servers import McpToolBox, _places


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith(("VEILBOT_", "ANTHROPIC_")):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)  # no developer's .env


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "veilbot.toml"
    path.write_text(text, encoding="utf-8")
    return path


GOOD = """\
[tools]
max_rounds = 3
deadline_seconds = 30

[[tools.servers]]
name = "crm"
command = "python"
args = ["-m", "crm_mcp"]
env = { CRM_URL = "https://crm.internal" }
tools = ["lookup_customer"]
scopes = ["slack:T0123", "console"]
reveal = true

[[tools.servers]]
name = "search"
url = "https://search.internal/mcp"
tools = ["search"]
scopes = ["*"]
"""


def test_a_good_table_is_read_with_safe_defaults(tmp_path: Path) -> None:
    tools = load_settings(write(tmp_path, GOOD)).tools

    assert (tools.max_rounds, tools.deadline_seconds) == (3, 30)
    crm, search = tools.servers
    assert (crm.command, crm.args, crm.reveal) == ("python", ["-m", "crm_mcp"], True)
    assert (search.url, search.reveal) == ("https://search.internal/mcp", False)
    assert (search.timeout_seconds, search.max_result_chars) == (15.0, 20_000)


def test_no_table_means_no_tools(tmp_path: Path) -> None:
    assert load_settings(write(tmp_path, "max_tokens = 100\n")).tools.servers == []


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ('command = "python"\nurl = "http://x/mcp"\n', "give either command (stdio) or url"),
        ('tools = ["x"]\n', "give either command (stdio) or url"),
        ('url = "http://x/mcp"\nargs = ["-v"]\n', "args go with command"),
        ('url = "ftp://x/mcp"\n', "tools.servers[0].url"),
        ('url = "http://x/mcp"\nscopes = ["slack"]\n', "tools.servers[0].scopes[0]"),
        ('url = "http://x/mcp"\ntools = []\n', "tools.servers[0].tools"),
        ('url = "http://x/mcp"\ntimeout_seconds = 0\n', "tools.servers[0].timeout_seconds"),
        ('url = "http://x/mcp"\nrevael = true\n', "tools.servers[0].revael"),
    ],
)
def test_a_bad_server_is_named_with_its_line(tmp_path: Path, entry: str, problem: str) -> None:
    text = '[tools]\nmax_rounds = 2\n\n[[tools.servers]]\nname = "crm"\n'
    defaults = {"tools": 'tools = ["lookup"]\n', "scopes": 'scopes = ["*"]\n'}
    text += entry + "".join(v for k, v in defaults.items() if f"{k} =" not in entry)
    with pytest.raises(ConfigError) as caught:
        load_settings(write(tmp_path, text))

    message = str(caught.value)
    assert problem in message
    assert f"{tmp_path / 'veilbot.toml'}:" in message  # the file and a line


def test_a_name_used_twice_and_limits_out_of_range_are_refused(tmp_path: Path) -> None:
    server = (
        '[[tools.servers]]\nname = "crm"\nurl = "http://x/mcp"\ntools = ["a"]\nscopes = ["*"]\n'
    )
    with pytest.raises(ConfigError, match="tool server names used twice: crm"):
        load_settings(write(tmp_path, "[tools]\n" + server + server))
    with pytest.raises(ConfigError, match=r"veilbot.toml:2: tools.max_rounds"):
        load_settings(write(tmp_path, "[tools]\nmax_rounds = 0\n"))
    with pytest.raises(ConfigError, match=r"tools.servers\[0\].name"):
        load_settings(write(tmp_path, server.replace('"crm"', '"CRM tools"')))


def place(platform: str, workspace: str, channel: str, parent: str = "") -> InboundMessage:
    return InboundMessage(
        thread_id=thread_id(platform, workspace, channel),
        platform=platform,  # type: ignore[arg-type]
        workspace=workspace,
        channel=channel,
        user_id="U1",
        message_id="1",
        text="",
        parent_channel=parent,
    )


def test_a_workspace_s_server_serves_its_channels_and_no_other_workspace(tmp_path: Path) -> None:
    assert "slack:T0123" in _places(place("slack", "T0123", "C1"))
    assert "slack:T0123:C1" in _places(place("slack", "T0123", "C1"))
    assert "discord:G1:C9" in _places(place("discord", "G1", "TH7", parent="C9"))
    assert "slack:T0123" not in _places(place("slack", "T9999", "C1"))
    assert "console" in _places(place("console", "local", "x"))
    assert "console" not in _places(place("slack", "T0123", "C1"))


def test_reveal_is_per_server(tmp_path: Path) -> None:
    box = McpToolBox(load_settings(write(tmp_path, GOOD)).tools)

    assert box.reveals("crm__lookup_customer")
    assert not box.reveals("search__search")
    assert not box.reveals("nobody__lookup_customer")
