"""The ``veilbot`` command line.

```
veilbot console [--thread NAME] [--show-redactions]   talk to the bot in a terminal or via JSONL
veilbot run [discord|slack ...]                       serve platforms (default: all configured),
                                                      /healthz, /readyz, the admin API, retention
veilbot redact --jsonl                                redact {"id","text","platform"} lines
veilbot audit export [filters] [--format jsonl|csv] [--output FILE|-] [--gzip]
veilbot audit list [filters] [--limit N] [--cursor C] [--json]
veilbot audit stats [filters] [--by thread|user|channel|day] [--json]
veilbot audit purge --older-than 90d [--dry-run]
veilbot forget --user slack:TEAM:USER|discord:USER | --thread ID [--json]
veilbot admin serve [--host H] [--port P] | new-token | hash-token
```
Filters: --thread --user --platform --workspace --channel --status --since --until --meta K=V.
Exit codes: 0 ok, 1 a runtime failure, 2 a configuration or usage error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Sequence
from typing import IO, Any, cast, get_args

from bot import __version__
from bot.cli.audit import add_commands, check_filter_now, run_command
from bot.core.errors import ConfigError, GuardrailError, InputRejected, VeilbotError
from bot.core.types import Platform
from bot.settings import Settings, load_settings


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="veilbot", description="A Claude chat bot with a PII guardrail."
    )
    parser.add_argument("--version", action="version", version=f"veilbot {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
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
        required=True,
        help='read {"id","text","platform"} lines on stdin, write {"id","text","entities"} lines',
    )
    add_commands(sub)
    return parser


async def _run(settings: Settings, args: argparse.Namespace) -> int:
    from bot.app import build_app
    from bot.service import select_platforms, serve

    names = select_platforms(settings, args.platforms)
    async with build_app(settings) as app:
        for notice in app.notices:
            print(f"veilbot: {notice}", file=sys.stderr)
        await serve(app, names)
    return 0


def _redact_line(redactor: Any, line: str) -> dict[str, Any]:
    """One output object for one input line; ``ValueError`` for a malformed line."""
    item = json.loads(line)
    if not isinstance(item, dict) or not isinstance(item.get("text"), str):
        raise ValueError('expected an object with a string "text"')
    platform = item.get("platform", "console")
    if platform not in get_args(Platform):
        raise ValueError(f"platform must be one of {', '.join(get_args(Platform))}")
    redacted = redactor.redact(item["text"], cast(Platform, platform))
    entities = [
        {"type": e.type, "start": e.start, "end": e.end, "placeholder": e.placeholder}
        for e in redacted.entities
    ]
    return {"id": item.get("id"), "text": redacted.text, "entities": entities}


def _redact(settings: Settings, stdin: IO[str], stdout: IO[str]) -> int:
    """Redact JSONL from stdin; a bad line becomes an error object and the run goes on."""
    from bot.app import build_redactor

    redactor = build_redactor(settings)
    failed = 0
    for number, line in enumerate(stdin, start=1):
        if not line.strip():
            continue
        try:
            out = _redact_line(redactor, line)
        except (ValueError, InputRejected, GuardrailError) as exc:  # JSONDecodeError: ValueError
            failed += 1
            # The message names the problem, never the text (json's message quotes no input).
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            out = {"line": number, "error": f"{type(exc).__name__}: {reason}"}
        stdout.write(json.dumps(out, ensure_ascii=False) + "\n")
        stdout.flush()
    return 1 if failed else 0


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


def _log_level(settings: Settings, command: str) -> str:
    # The console and the tools are for people and pipes: keep INFO lines out of their output
    # unless asked for (``run`` and ``admin serve`` are services: the configured level).
    quiet = ("console", "redact", "audit", "forget")
    if command in quiet and "VEILBOT_LOG_LEVEL" not in os.environ:
        return "WARNING"
    return settings.log_level


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``veilbot`` console script."""
    args = _parser().parse_args(argv)
    try:
        check_filter_now(args)
        settings = load_settings()
        from bot.core.logsafe import configure_logging

        configure_logging(_log_level(settings, args.command))
        if args.command == "redact":
            return _redact(settings, sys.stdin, sys.stdout)
        if args.command in ("console", "run"):
            return asyncio.run((_run if args.command == "run" else _console)(settings, args))
        return asyncio.run(run_command(settings, args))
    except ConfigError as exc:
        print(f"veilbot: configuration error: {exc}", file=sys.stderr)
        return 2
    except InputRejected as exc:
        print(f"veilbot: {exc}", file=sys.stderr)
        return 2
    except VeilbotError as exc:
        print(f"veilbot: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
