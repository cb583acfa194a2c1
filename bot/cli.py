"""The ``veilbot`` command line.

```
veilbot console [--thread NAME] [--show-redactions]   talk to the bot in a terminal or via JSONL
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
import os
import sys
from collections.abc import Sequence

from bot import __version__
from bot.cli_audit import add_commands, check_filter_now, run_command
from bot.errors import ConfigError, InputRejected, VeilbotError
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
    add_commands(sub)
    return parser


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
    # The console and the admin tools are for people: keep INFO lines out of their output
    # unless asked for (``admin serve`` is a service and logs at the configured level).
    if command in ("console", "audit", "forget") and "VEILBOT_LOG_LEVEL" not in os.environ:
        return "WARNING"
    return settings.log_level


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``veilbot`` console script."""
    args = _parser().parse_args(argv)
    try:
        check_filter_now(args)
        settings = load_settings()
        from bot.app import configure_logging

        configure_logging(_log_level(settings, args.command))
        if args.command == "console":
            return asyncio.run(_console(settings, args))
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
