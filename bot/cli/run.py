"""``veilbot console``, ``veilbot run`` and ``veilbot redact``: the commands with a guardrail.

Each builds its components with ``bot.app``, so each loads spaCy and the detection engine;
the admin commands live in ``bot.cli.audit`` and ``bot.cli.admin`` and load neither.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any, cast, get_args

from bot.cli import loop
from bot.cli.stopping import WATCHDOG_MARGIN_SECONDS, StopSignals, startup_cancel_is_a_stop
from bot.config.settings import Settings
from bot.core.errors import GuardrailError, InputRejected
from bot.core.types import Platform
from bot.platforms import check_model_for_platforms, select_platforms

# The service, the guardrail's rules, Presidio, the adapters and the file readers take seconds
# to import: each command imports what it needs when it runs.

log = logging.getLogger(__name__)


def serve(settings: Settings, args: argparse.Namespace) -> int:
    """``veilbot run``: serve the chosen (or every configured) platform until SIGTERM/SIGINT.

    Returns 0 after a requested stop (drained, or start-up cut short), 130 when a second
    signal cut the drain short.
    """
    try:
        return loop.run(_serve(settings, args), settings.event_loop)
    except asyncio.CancelledError:
        log.warning("shutdown: stopped without draining")
        return 130


async def _serve(settings: Settings, args: argparse.Namespace) -> int:
    names = select_platforms(settings, args.platforms)
    check_model_for_platforms(settings)
    grace = settings.drain_timeout_seconds + WATCHDOG_MARGIN_SECONDS
    with StopSignals(grace_seconds=grace) as stopping, startup_cancel_is_a_stop(stopping):
        from bot.app import build_app
        from bot.service import serve as serve_platforms

        async with build_app(settings, warm_in_background=True) as app:
            for notice in app.notices:
                print(f"veilbot: {notice}", file=sys.stderr)
            await serve_platforms(app, names, stopping.requested, started=stopping.serving)
    log.info("shutdown: veilbot stopped (%s)", stopping.signal_name or "adapters ended")
    return 0


def console(settings: Settings, args: argparse.Namespace) -> int:
    """``veilbot console``: talk to the bot in this terminal, or in JSON Lines over a pipe."""
    return loop.run(_console(settings, args), settings.event_loop)


async def _console(settings: Settings, args: argparse.Namespace) -> int:
    from adapters.console import ConsoleAdapter
    from bot.app import build_app

    async with build_app(settings) as app:
        for notice in app.notices:
            print(f"veilbot: {notice}", file=sys.stderr)
        adapter = ConsoleAdapter(
            app.conversation,
            thread=args.thread,
            show_redactions=args.show_redactions,
            stdin=sys.stdin,
            stdout=sys.stdout,
            interactive=sys.stdin.isatty(),
        )
        await adapter.run()
    return 0


def redact(settings: Settings, args: argparse.Namespace) -> int:
    """``veilbot redact FILE...``: files and folders; ``veilbot redact --jsonl``: stdin's lines."""
    if args.files:
        from bot.cli.redact_files import redact_files

        out = Path(args.out) if args.out else None
        paths = [Path(f) for f in args.files]
        return redact_files(settings, paths, out, jsonl=args.jsonl, languages=args.languages)
    if not args.jsonl:
        print("veilbot redact: give one or more FILEs (or folders), or --jsonl", file=sys.stderr)
        return 2
    return redact_lines(settings, sys.stdin, sys.stdout, languages=args.languages)


def _redact_line(redactors: Any, line: str) -> dict[str, Any]:
    """One output object for one input line; ``ValueError`` for a malformed line."""
    item = json.loads(line)
    if not isinstance(item, dict) or not isinstance(item.get("text"), str):
        raise ValueError('expected an object with a string "text"')
    platform = item.get("platform", "console")
    if platform not in get_args(Platform):
        raise ValueError(f"platform must be one of {', '.join(get_args(Platform))}")
    redacted = redactors.of(item["text"]).redact(item["text"], cast(Platform, platform))
    entities = [
        {"type": e.type, "start": e.start, "end": e.end, "placeholder": e.placeholder}
        for e in redacted.entities
    ]
    return {"id": item.get("id"), "text": redacted.text, "entities": entities}


def redact_lines(
    settings: Settings, stdin: IO[str], stdout: IO[str], *, languages: Sequence[str] = ()
) -> int:
    """Redact JSONL from ``stdin``; a bad line becomes an error object and the run goes on.

    ``languages``: those a line may be written in besides English (each line identified).
    """
    from bot.app import Redactors

    redactors = Redactors(settings, languages)
    failed = 0
    for number, line in enumerate(stdin, start=1):
        if not line.strip():
            continue
        try:
            out = _redact_line(redactors, line)
        except (ValueError, InputRejected, GuardrailError) as exc:  # JSONDecodeError: ValueError
            failed += 1
            # The message names the problem, never the text (json's message quotes no input).
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            out = {"line": number, "error": f"{type(exc).__name__}: {reason}"}
        stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        stdout.flush()
    return 1 if failed else 0
