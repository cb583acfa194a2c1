"""``veilbot audit …``, ``veilbot forget`` and ``veilbot admin …``: the admin command line.

Components come from ``bot.stores`` only (``build_audit`` for audit commands, ``build_stores``
for ``forget``), so none of these loads spaCy or the model client.
Filters are parsed before anything connects: a bad filter exits 2 with the field named.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict
from datetime import UTC, datetime
from typing import IO, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from bot.audit.export import FORMATS, export_chunks, record_dict
from bot.audit.types import (
    GROUPS,
    RunFilter,
    parse_duration,
    parse_instant,
    parse_meta_pairs,
    parse_user_ref,
)
from bot.settings import Settings


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


def add_commands(sub: Any) -> None:
    """Add ``audit``, ``forget`` and ``admin`` to the top-level subparsers."""
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
    stats = verbs.add_parser("stats", help="turns, tokens, cost and entities per group")
    add_filter_args(stats)
    stats.add_argument("--by", choices=GROUPS, default="day")
    stats.add_argument("--limit", type=int, default=100)
    stats.add_argument("--json", action="store_true")
    purge = verbs.add_parser("purge", help="delete runs older than a duration")
    purge.add_argument("--older-than", required=True, help="e.g. 90d, 12w")
    purge.add_argument("--dry-run", action="store_true", help="only count what would go")
    forget = sub.add_parser("forget", help="erase what the service holds for a user or thread")
    target = forget.add_mutually_exclusive_group(required=True)
    target.add_argument("--user", help="slack:TEAM:USER, discord:USER or console:USER")
    target.add_argument("--thread", help="a thread id")
    forget.add_argument("--json", action="store_true")
    admin = sub.add_parser("admin", help="the HTTP admin API and its tokens")
    admin_verbs = admin.add_subparsers(dest="admin_command", required=True)
    serve = admin_verbs.add_parser("serve", help="serve the admin API (and daily retention)")
    serve.add_argument("--host")
    serve.add_argument("--port", type=int)
    admin_verbs.add_parser("new-token", help="print a new token and the hash to configure")
    admin_verbs.add_parser("hash-token", help="read a token on stdin, print its hash")


async def run_command(settings: Settings, args: argparse.Namespace) -> int:
    """Run ``audit``, ``forget`` or ``admin``; returns the exit code."""
    if args.command == "audit":
        handlers: dict[str, Callable[[Settings, argparse.Namespace], Any]] = {
            "export": _export,
            "list": _list,
            "stats": _stats,
            "purge": _purge,
        }
        return int(await handlers[args.audit_command](settings, args))
    if args.command == "forget":
        return await _forget(settings, args)
    from bot.cli.admin import run_admin

    return await run_admin(settings, args)


def _open_output(path: str) -> IO[bytes]:
    if path == "-":
        return sys.stdout.buffer
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    return os.fdopen(fd, "wb")


def _progress(total: int, to_terminal: bool) -> AbstractContextManager[Progress | None]:
    # A bar only when a person watches stderr and the data is not going to that same screen.
    if not sys.stderr.isatty() or to_terminal:
        return nullcontext()
    return Progress(
        TextColumn("exporting"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )


async def _export(settings: Settings, args: argparse.Namespace) -> int:
    from bot.stores import build_audit

    run_filter = filter_from_args(args)
    to_terminal = args.output == "-" and sys.stdout.isatty()
    async with build_audit(settings) as audit:
        total = await audit.count_runs(run_filter) if sys.stderr.isatty() else 0
        out = _open_output(args.output)
        try:
            with _progress(total, to_terminal) as bar:
                task = bar.add_task("export", total=total) if bar else None
                tick = (lambda: bar.advance(task)) if bar and task is not None else None
                chunks = export_chunks(audit, run_filter, args.format, gzip=args.gzip, on_row=tick)
                async for chunk in chunks:
                    out.write(chunk)
            out.flush()
        finally:
            if out is not sys.stdout.buffer:
                out.close()
    return 0


def _short_time(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")


async def _list(settings: Settings, args: argparse.Namespace) -> int:
    from bot.stores import build_audit

    run_filter = filter_from_args(args)
    async with build_audit(settings) as audit:
        page = await audit.list_runs(run_filter, limit=args.limit, cursor=args.cursor)
    if args.json:
        runs = [record_dict(r) for r in page.runs]
        print(json.dumps({"runs": runs, "next_cursor": page.next_cursor}, ensure_ascii=False))
        return 0
    table = Table("started (UTC)", "run", "thread", "user", "status", "in/out", "cost $", "PII")
    for r in page.runs:
        table.add_row(
            _short_time(r.started_at),
            r.run_id[:12],
            r.thread_id,
            r.user_id,
            str(r.status),
            f"{r.input_tokens}/{r.output_tokens}",
            f"{r.cost_usd:.4f}" if r.cost_usd is not None else "-",
            ", ".join(f"{k}={v}" for k, v in sorted(r.entity_counts.items())),
        )
    console = Console()
    console.print(table)
    if page.next_cursor:
        console.print(f"next page: --cursor {page.next_cursor}", highlight=False)
    return 0


async def _stats(settings: Settings, args: argparse.Namespace) -> int:
    from bot.stores import build_audit

    run_filter = filter_from_args(args)
    async with build_audit(settings) as audit:
        rows = await audit.rollup(run_filter, args.by, limit=args.limit)
    if args.json:
        groups = [{**asdict(r), "entity_total": r.entity_total} for r in rows]
        print(json.dumps({"by": args.by, "groups": groups}, ensure_ascii=False))
        return 0
    table = Table(args.by, "turns", "input", "output", "cache r/w", "cost $", "entities")
    for r in rows:
        table.add_row(
            r.key,
            str(r.turns),
            str(r.input_tokens),
            str(r.output_tokens),
            f"{r.cache_read_tokens}/{r.cache_write_tokens}",
            f"{r.cost_usd:.4f}",
            ", ".join(f"{k}={v}" for k, v in sorted(r.entities.items())),
        )
    Console().print(table)
    return 0


async def _purge(settings: Settings, args: argparse.Namespace) -> int:
    from bot.audit.retention import purge_older_than
    from bot.stores import build_audit

    age = parse_duration(args.older_than)
    async with build_audit(settings) as audit:
        if args.dry_run:
            cutoff = datetime.now(UTC) - age
            count = await audit.count_runs(RunFilter(until=cutoff))
            print(f"would purge {count} run(s) started before {cutoff.isoformat()}")
            return 0
        removed = await purge_older_than(audit, age)
    print(f"purged {removed} run(s) older than {args.older_than}")
    return 0


async def _forget(settings: Settings, args: argparse.Namespace) -> int:
    from bot.stores import build_stores

    user = parse_user_ref(args.user) if args.user else None
    async with build_stores(settings) as stores:
        if user is not None:
            counts = await stores.eraser.forget_user(user)
        else:
            counts = await stores.eraser.forget_thread(args.thread)
    if args.json:
        print(json.dumps(asdict(counts)))
    else:
        print(
            f"forgotten: {counts.threads} thread(s), {counts.redis_keys} Redis key(s), "
            f"{counts.runs_deleted} audit run(s) deleted, "
            f"{counts.runs_pseudonymized} audit run(s) kept with a hashed user id"
        )
    return 0


def check_filter_now(args: argparse.Namespace) -> None:
    """Parse the filter options early so a bad one fails before anything starts."""
    if getattr(args, "command", None) == "audit" and hasattr(args, "meta"):
        filter_from_args(args)
