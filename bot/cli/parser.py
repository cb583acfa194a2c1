"""The command line's grammar: every ``veilbot`` command, option and filter, and nothing else.

Imports only the standard library and plain-data modules (the audit filter vocabulary), so
``veilbot --help`` and a usage error answer at once; the command that runs is imported by
``bot.cli.main`` after parsing.
"""

from __future__ import annotations

import argparse
from typing import Any

from bot import __version__
from bot.audit.export import FORMATS
from bot.audit.types import (
    GROUPS,
    RunFilter,
    parse_instant,
    parse_meta_pairs,
    parse_user_ref,
)
from guardrails.text.language import READABLE


def build_parser() -> argparse.ArgumentParser:
    """The ``veilbot`` parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="veilbot", description="A Claude chat bot with a PII guardrail."
    )
    parser.add_argument("--version", action="version", version=f"veilbot {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_bot_commands(sub)
    _add_audit_commands(sub)
    _add_admin_commands(sub)
    _add_budget_commands(sub)
    _add_vault_commands(sub)
    _add_fork_command(sub)
    config = sub.add_parser("config", help="the config file")
    config_verbs = config.add_subparsers(dest="config_command", required=True)
    check = config_verbs.add_parser(
        "check", help="validate a config file and print the effective settings, secrets hidden"
    )
    check.add_argument("file", nargs="?", help="the TOML file (default: VEILBOT_CONFIG)")
    return parser


def _add_bot_commands(sub: Any) -> None:
    console = sub.add_parser("console", help="talk to the bot in this terminal (or via JSONL)")
    console.add_argument("--thread", default="default", help="conversation name (kept across runs)")
    console.add_argument(
        "--show-redactions", action="store_true", help="also show what the model was sent"
    )
    run = sub.add_parser("run", help="serve chat platforms (default: every configured one)")
    run.add_argument(
        "platforms", nargs="*", metavar="PLATFORM", help="discord, slack (default: all configured)"
    )
    redact = sub.add_parser(
        "redact", help="redact messages with the guardrail's detection (no Redis, nothing kept)"
    )
    redact.add_argument(
        "--jsonl",
        action="store_true",
        help='without FILE: read {"id","text","platform"} lines on stdin, write '
        '{"id","text","entities"} lines; with FILEs: one JSON object per file on stdout',
    )
    redact.add_argument(
        "files",
        nargs="*",
        metavar="FILE",
        help="files or folders: text-like files (txt, csv, json, code, ...), documents (pdf, "
        "docx, xlsx, pptx), images (png, jpeg, webp, gif; as VEILBOT_FILES_IMAGES says)",
    )
    redact.add_argument(
        "--languages",
        type=_languages,
        default=(),
        metavar="CODES",
        help="languages the texts may be written in besides English, e.g. de,fr (of "
        f"{', '.join(READABLE[1:])}): each message, or each file's text, is read with the "
        "entity model and rules of the one it is identified as",
    )
    redact.add_argument(
        "--out",
        metavar="PATH",
        help="write the redacted file here as a file of its kind (docx, xlsx, pptx, csv, pdf; "
        "an image: the painted PNG; a PATH ending .txt: the text the model would read); with "
        "several files or a folder, PATH is a folder",
    )


def _languages(value: str) -> tuple[str, ...]:
    """``--languages de,fr``: the codes, each one a scope may name."""
    codes = tuple(dict.fromkeys(c.strip().lower() for c in value.split(",") if c.strip()))
    unknown = [c for c in codes if c not in READABLE]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown language {', '.join(unknown)}; one of {', '.join(READABLE)}"
        )
    return codes


def _add_fork_command(sub: Any) -> None:
    fork = sub.add_parser(
        "fork", help="start a new thread from the first K or last N turns of another"
    )
    fork.add_argument("source", metavar="THREAD", help="the thread id to fork (slack:…, …)")
    fork.add_argument("--first-k", type=int, metavar="K", help="keep its first K turns")
    fork.add_argument("--last-n", type=int, metavar="N", help="keep its last N turns")
    fork.add_argument(
        "--into",
        metavar="THREAD",
        help="the new thread's id (it must have no history); default: a new console thread",
    )


def add_filter_args(parser: argparse.ArgumentParser) -> None:
    """The filter options shared by ``export``, ``list`` and ``stats``."""
    group = parser.add_argument_group("filters (all must match)")
    group.add_argument("--thread", help="thread id, e.g. slack:T1:C1:1700000000.0001")
    group.add_argument("--user", help="platform user id (U123) or slack:TEAM:USER / discord:USER")
    group.add_argument("--platform", choices=["slack", "discord", "console"])
    group.add_argument("--workspace", help="Slack team id or Discord guild id")
    group.add_argument("--channel", help="channel id")
    group.add_argument("--status", help="ok, guardrail_error, model_error, …")
    group.add_argument("--since", help="ISO 8601 (UTC if no offset) or a duration ago: 7d, 12h")
    group.add_argument("--until", help="same forms as --since; exclusive")
    group.add_argument(
        "--meta",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="exact top-level metadata value (KEY:=JSON for numbers/booleans); repeatable, AND",
    )


def _add_audit_commands(sub: Any) -> None:
    audit = sub.add_parser("audit", help="query, export and purge the redacted audit log")
    verbs = audit.add_subparsers(dest="audit_command", required=True)
    export = verbs.add_parser("export", help="stream matching runs as JSON lines or CSV")
    add_filter_args(export)
    export.add_argument("--format", choices=FORMATS, default="jsonl")
    export.add_argument("--output", "-o", default="-", help="file, or - for stdout (default)")
    export.add_argument("--gzip", action="store_true", help="gzip-compress the output")
    listing = verbs.add_parser("list", help="matching runs, newest first")
    add_filter_args(listing)
    listing.add_argument("--limit", type=int, default=50)
    listing.add_argument("--cursor", help="next_cursor printed by the previous page")
    listing.add_argument("--json", action="store_true")
    show = verbs.add_parser("show", help="every field of one run")
    show.add_argument("run_id", metavar="RUN_ID", help="the run column of 'audit list'")
    show.add_argument("--json", action="store_true")
    stats = verbs.add_parser("stats", help="turns, tokens, cost and entities per group")
    add_filter_args(stats)
    stats.add_argument("--by", choices=GROUPS, default="day")
    stats.add_argument("--limit", type=int, default=100)
    stats.add_argument("--json", action="store_true")
    purge = verbs.add_parser("purge", help="delete runs older than a duration")
    purge.add_argument("--older-than", required=True, help="e.g. 90d, 12w")
    purge.add_argument("--dry-run", action="store_true", help="only count what would go")
    # the same command under audit too: the spelling an uninstall's docs use
    _add_forget_args(verbs.add_parser("forget", help="as veilbot forget"))
    _add_forget_args(
        sub.add_parser("forget", help="erase what the service holds for a user or thread")
    )


def _add_forget_args(forget: argparse.ArgumentParser) -> None:
    target = forget.add_mutually_exclusive_group(required=True)
    target.add_argument("--user", help="slack:TEAM:USER, discord:USER or console:USER")
    target.add_argument("--thread", help="a thread id")
    target.add_argument(
        "--workspace",
        help="a Slack team id (T…): its tokens, histories and vaults at once, its audit runs "
        "after VEILBOT_SLACK_UNINSTALL_GRACE_DAYS",
    )
    forget.add_argument("--json", action="store_true", help="print the counts (or plan) as JSON")
    forget.add_argument("--yes", "-y", action="store_true", help="erase without asking")
    forget.add_argument("--dry-run", action="store_true", help="only show what would go")


def _add_admin_commands(sub: Any) -> None:
    admin = sub.add_parser("admin", help="the HTTP admin API and its tokens")
    admin_verbs = admin.add_subparsers(dest="admin_command", required=True)
    serve = admin_verbs.add_parser("serve", help="serve the admin API (and daily retention)")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    admin_verbs.add_parser("new-token", help="print a new token and the hash to configure")
    admin_verbs.add_parser("hash-token", help="read a token on stdin, print its hash")


def _add_budget_commands(sub: Any) -> None:
    budget = sub.add_parser("budget", help="monthly cost budgets: spend, raises")
    verbs = budget.add_subparsers(dest="budget_command", required=True)
    show = verbs.add_parser("show", help="this month's spend against every budget")
    show.add_argument("--month", help="another month, YYYY-MM")
    show.add_argument("--json", action="store_true", help="print JSON")
    kinds = ("workspace", "channel", "user")
    raise_ = verbs.add_parser("raise", help="set a budget's limit for the rest of this month")
    raise_.add_argument("kind", choices=kinds)
    raise_.add_argument("id", help="slack:TEAM, slack:TEAM:CHANNEL or slack:TEAM:USER")
    raise_.add_argument("usd", help="the month's limit in US dollars")
    reset = verbs.add_parser("reset", help="drop this month's raise: the config file's again")
    reset.add_argument("kind", choices=kinds)
    reset.add_argument("id")
    verbs.add_parser("rebuild", help="set this month's spend in Redis from the audit log")


def _add_vault_commands(sub: Any) -> None:
    vault = sub.add_parser("vault", help="the vault key: rotation")
    verbs = vault.add_subparsers(dest="vault_command", required=True)
    rotate = verbs.add_parser(
        "rotate",
        help="seal every thread, queued event and Slack installation again with "
        "VEILBOT_VAULT_KEY (replicas may run meanwhile); then the previous keys can go",
    )
    rotate.add_argument(
        "--page", type=int, default=500, help="keys asked for per SCAN step (default 500)"
    )


def filter_from_args(args: argparse.Namespace) -> RunFilter:
    """The ``RunFilter`` of the filter options.

    Raises:
        FilterRejected: a malformed option value.
    """
    values: dict[str, Any] = {
        "thread_id": args.thread,
        "platform": args.platform,
        "workspace": args.workspace,
        "channel": args.channel,
        "status": args.status,
        "since": parse_instant(args.since) if args.since else None,
        "until": parse_instant(args.until) if args.until else None,
        "metadata": parse_meta_pairs(args.meta),
    }
    if args.user and ":" in args.user:
        ref = parse_user_ref(args.user)
        values.update(platform=ref.platform, workspace=ref.workspace, user_id=ref.user_id)
    elif args.user:
        values["user_id"] = args.user
    return RunFilter(**values)


def check_filter_now(args: argparse.Namespace) -> None:
    """Parse the filter options early so a bad one fails before anything starts."""
    if getattr(args, "command", None) == "audit" and hasattr(args, "meta"):
        filter_from_args(args)
