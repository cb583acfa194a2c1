"""The Slack app manifest grants the scopes the adapter's Web API calls need."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
# Web API method (as called through slack_sdk) -> the bot scope it needs (None: no scope).
SCOPES: dict[str, str | None] = {
    "auth_test": None,
    "chat_postMessage": "chat:write",
    "chat_update": "chat:write",
    "chat_postEphemeral": "chat:write",
    "chat_delete": "chat:write",  # a refused fork's message
    "chat_getPermalink": None,  # a fork's link to its source; Slack asks no scope for it
    "chat_stream": "chat:write",
    "assistant_threads_setStatus": "assistant:write",
    "assistant_threads_setSuggestedPrompts": "assistant:write",
    "conversations_open": "im:write",
    "files_upload_v2": "files:write",
    "files_info": "files:read",
    "usergroups_list": "usergroups:read",
    # and groups:history / im:history in private channels and DMs, granted beside it
    "conversations_replies": "channels:history",
}


def test_every_web_api_method_the_adapter_calls_has_its_scope_in_the_manifest() -> None:
    manifest = yaml.safe_load((ROOT / "deploy/slack/manifest.yml").read_text())
    granted = set(manifest["oauth_config"]["scopes"]["bot"])
    source = "".join(p.read_text() for p in (ROOT / "adapters/slack").glob("*.py"))
    called = set(re.findall(r"client\.(\w+)\(", source))
    assert called <= set(SCOPES), "a new Web API method: add it and its scope here"
    assert {SCOPES[m] for m in called} - {None} <= granted
    assert {"conversations_open", "files_upload_v2"} <= called
