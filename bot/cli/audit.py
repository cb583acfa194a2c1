"""``veilbot audit export | list | show | stats | purge`` and ``veilbot forget``.

Components come from ``bot.stores`` only (``build_audit`` for audit commands, ``build_stores``
for ``forget``), so none of these loads spaCy or the model client. Filters are parsed
(``bot.cli.parser``) before anything connects: a bad filter exits 2 with the field named.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict
from datetime import UTC, datetime
from typing import IO, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from bot.audit.erasure import ErasurePlan
from bot.audit.export import export_chunks, record_dict
from bot.audit.installations import SqlInstallationRows
from bot.audit.retention import purge_older_than
from bot.audit.types import RunFilter, parse_duration, parse_user_ref
from bot.cli import loop, views
from bot.cli.parser import filter_from_args
from bot.config.settings import Settings
from bot.core.errors import InputRejected
from bot.stores import build_audit, build_stores, erase_installation

_SHOWN_THREADS = 20
_RUN_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def run_audit(settings: Settings, args: argparse.Namespace) -> int:
    """Run ``audit …`` or ``forget``; returns the exit code."""
    return loop.run(_run(settings, args), settings.event_loop)


async def _run(settings: Settings, args: argparse.Namespace) -> int:
    if args.command == "audit" and args.audit_command != "forget":
        handlers: dict[str, Callable[[Settings, argparse.Namespace], Any]] = {
            "export": _export,
            "list": _list,
            "show": _show,
            "stats": _stats,
            "purge": _purge,
        }
        return int(await handlers[args.audit_command](settings, args))
    return await _forget(settings, args)


_OPEN_PROBLEMS: dict[type[OSError], str] = {
    FileNotFoundError: "its directory does not exist",
    NotADirectoryError: "a part of its path is not a directory",
    IsADirectoryError: "it is a directory; name a file in it",
    PermissionError: "permission denied",
}


def _open_output(path: str) -> IO[bytes]:
    """The export's destination, opened before anything connects.

    Raises:
        InputRejected: the file cannot be created there, with the reason in one line.
    """
    if path == "-":
        return sys.stdout.buffer
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    except OSError as exc:
        problem = _OPEN_PROBLEMS.get(type(exc), exc.strerror or type(exc).__name__)
        raise InputRejected(
            f"cannot write the export to {views.safe(path)!r}: {problem}", reason="output"
        ) from None
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
    run_filter = filter_from_args(args)
    to_terminal = args.output == "-" and sys.stdout.isatty()
    if args.gzip and to_terminal:  # as gzip does: compressed data is no use on a screen
        raise InputRejected(
            "compressed data not written to a terminal; use -o FILE or a pipe",
            reason="terminal",
        )
    rows = written = 0
    out = _open_output(args.output)
    try:
        async with build_audit(settings) as audit:
            total = await audit.count_runs(run_filter) if sys.stderr.isatty() else 0
            with _progress(total, to_terminal) as bar:
                task = bar.add_task("export", total=total) if bar else None

                def tick() -> None:
                    nonlocal rows
                    rows += 1
                    if bar is not None and task is not None:
                        bar.advance(task)

                chunks = export_chunks(audit, run_filter, args.format, gzip=args.gzip, on_row=tick)
                async for chunk in chunks:
                    out.write(chunk)
                    written += len(chunk)
            out.flush()
    finally:
        if out is not sys.stdout.buffer:
            out.close()
    where = "stdout" if args.output == "-" else args.output
    print(f"exported {rows} run(s), {written} bytes, to {where}", file=sys.stderr)
    return 0


async def _list(settings: Settings, args: argparse.Namespace) -> int:
    run_filter = filter_from_args(args)
    async with build_audit(settings) as audit:
        page = await audit.list_runs(run_filter, limit=args.limit, cursor=args.cursor)
    if args.json:
        runs = [record_dict(r) for r in page.runs]
        print(json.dumps({"runs": runs, "next_cursor": page.next_cursor}, ensure_ascii=False))
        return 0
    views.print_runs(page.runs, page.next_cursor)
    return 0


async def _show(settings: Settings, args: argparse.Namespace) -> int:
    if not _RUN_ID.fullmatch(args.run_id):
        raise InputRejected("RUN_ID is the run column of 'audit list'", reason="run_id")
    async with build_audit(settings) as audit:
        record = await audit.get_run(args.run_id)
    if record is None:
        print(f"veilbot: no run {args.run_id}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(record_dict(record), ensure_ascii=False))
    else:
        views.print_run(record)
    return 0


async def _stats(settings: Settings, args: argparse.Namespace) -> int:
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
    if args.workspace:
        return await _forget_workspace(settings, args)
    user = parse_user_ref(args.user) if args.user else None
    async with build_stores(settings) as stores:
        eraser = stores.eraser
        plan = await (eraser.plan_user(user) if user else eraser.plan_thread(args.thread))
        if not _confirmed(plan, args):
            return 0 if args.dry_run else 1
        if user is not None:
            counts = await eraser.forget_user(user)
        else:
            counts = await eraser.forget_thread(args.thread)
    if args.json:
        print(json.dumps(asdict(counts)))
    else:
        print(
            f"forgotten: {counts.threads} thread(s), {counts.redis_keys} Redis key(s), "
            f"{counts.runs_deleted} audit run(s) deleted, "
            f"{counts.runs_pseudonymized} audit run(s) kept with a hashed user id"
        )
    return 0


async def _forget_workspace(settings: Settings, args: argparse.Namespace) -> int:
    team = str(args.workspace)
    if not re.fullmatch(r"[TE][A-Z0-9]{1,40}", team):
        raise InputRejected(
            f"--workspace wants a Slack team id such as T0123ABC, not {team!r}", reason="invalid"
        )
    if args.dry_run:
        print(f"would forget Slack workspace {team}: its installation and Redis data")
        return 0
    if not args.yes:
        raise InputRejected(
            f"forget would erase Slack workspace {team}; pass --yes to erase", reason="unconfirmed"
        )
    async with build_stores(settings) as stores:
        deleted = await erase_installation(
            stores.redis,
            stores.keys,
            SqlInstallationRows(stores.audit.engine),
            stores.audit,
            enterprise_id=team if team.startswith("E") else None,
            team_id=team,
            actor="cli",
        )
    if args.json:
        print(json.dumps({"workspace": team, "redis_keys": deleted}))
    else:
        print(
            f"forgotten: Slack workspace {team}, {deleted} Redis key(s), its installation; its "
            f"audit runs go in {settings.slack_uninstall_grace_days} day(s) (daily retention)"
        )
    return 0


def _confirmed(plan: ErasurePlan, args: argparse.Namespace) -> bool:
    """Show what would go; ``True`` to erase (``--yes``, or a person said yes).

    Raises:
        InputRejected: nobody can be asked (stdin is not a terminal) and ``--yes`` is missing.
    """
    if args.dry_run and args.json:
        print(json.dumps({"dry_run": True, **asdict(plan)}))
        return False
    if args.dry_run:
        print(f"would forget: {plan.describe()}")
        for tid in plan.threads[:_SHOWN_THREADS]:
            print(f"  {tid}")
        if len(plan.threads) > _SHOWN_THREADS:
            print(f"  … and {len(plan.threads) - _SHOWN_THREADS} more")
        return False
    if args.yes or plan.empty:  # nothing held: nothing to lose, and the counts say so
        return True
    if not sys.stdin.isatty():
        raise InputRejected(
            f"forget would erase {plan.describe()}; pass --yes to erase without asking "
            "(or --dry-run to list it)",
            reason="unconfirmed",
        )
    print(f"this erases {plan.describe()}, for good.", file=sys.stderr)
    print("erase? [y/N] ", end="", file=sys.stderr, flush=True)
    if sys.stdin.readline().strip().lower() in ("y", "yes"):
        return True
    print("nothing erased", file=sys.stderr)
    return False
