"""The ``veilbot`` command line: parse, load the settings, run one command.

```
veilbot console [--thread NAME] [--show-redactions]   talk to the bot in a terminal or via JSONL
veilbot run [discord|slack ...]                       serve platforms (default: all configured),
                                                      /healthz, /readyz, the admin API, retention
veilbot redact --jsonl                                redact {"id","text","platform"} lines
veilbot redact FILE... [--out PATH] [--jsonl]         files or folders, each written as its kind
veilbot audit export [filters] [--format jsonl|csv] [--output FILE|-] [--gzip]  (summary on stderr)
veilbot audit list [filters] [--limit N] [--cursor C] [--json]   (tab-separated in a pipe)
veilbot audit show RUN_ID [--json]
veilbot audit stats [filters] [--by thread|user|channel|day] [--json]
veilbot audit purge --older-than 90d [--dry-run]
veilbot forget --user slack:TEAM:USER|discord:USER | --thread ID [--yes] [--dry-run] [--json]
veilbot forget --workspace TEAM --yes [--json]     (also: veilbot audit forget ...)
veilbot admin serve [--host H] [--port P] | new-token | hash-token
veilbot budget show [--month YYYY-MM] [--json] | raise KIND ID USD | reset KIND ID | rebuild
veilbot config check [FILE]                           validate a config file, print the settings
veilbot vault rotate [--page N]                       seal everything again with the current key
veilbot fork THREAD --first-k K|--last-n N [--into THREAD]   a new thread from another's turns
```
Filters: --thread --user --platform --workspace --channel --status --since --until --meta K=V.
Exit codes: 0 ok, 1 a runtime failure, 2 a configuration or usage error, 130 interrupted.

A command's module is imported only when that command runs: ``--help`` loads the parser
alone, and ``audit``, ``forget`` and ``admin`` never load spaCy, Presidio or the anthropic SDK.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from bot.cli.parser import build_parser, check_filter_now
from bot.cli.stopping import early_signals, stopped_early
from bot.core.errors import ConfigError, InputRejected, VeilbotError
from bot.core.logsafe import configure_logging
from guardrails.engine import offline

if TYPE_CHECKING:
    from bot.config.settings import Settings

Command = Callable[["Settings", argparse.Namespace], int]


def _command(name: str) -> Command:
    """The function that runs ``name``, importing its module now."""
    if name in ("console", "run", "redact"):
        from bot.cli import run

        return {"console": run.console, "run": run.serve, "redact": run.redact}[name]
    if name == "admin":
        from bot.cli.admin import run_admin

        return run_admin
    if name == "budget":
        from bot.cli.budgets import run_budget

        return run_budget
    if name == "fork":
        from bot.cli.fork import run_fork

        return run_fork
    if name == "vault":
        from bot.cli.vault import run_vault

        return run_vault
    from bot.cli.audit import run_audit

    return run_audit


def _log_level(settings: Settings, command: str) -> str:
    # The console and the tools are for people and pipes: keep INFO lines out of their output
    # unless asked for (``run`` and ``admin serve`` are services: the configured level).
    quiet = ("console", "redact", "audit", "forget", "vault", "fork")
    if command in quiet and "VEILBOT_LOG_LEVEL" not in os.environ:
        return "WARNING"
    return settings.log_level


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``veilbot`` console script."""
    offline()  # before a command imports tldextract (the rules do): it reads this at import
    args = build_parser().parse_args(argv)
    try:
        check_filter_now(args)
        if args.command == "config":
            from bot.cli.config import check_config

            return check_config(args.file)
        from bot.config.settings import load_settings  # pydantic-settings: not needed for --help

        settings = load_settings()
        configure_logging(_log_level(settings, args.command))
        if args.command == "run":
            from bot.platforms import preflight

            preflight(settings, args.platforms)  # before the guardrail's seconds of imports
        if args.command == "run" or getattr(args, "admin_command", None) == "serve":
            with early_signals():  # before the slow imports: SIGTERM too ends start-up
                return _command(args.command)(settings, args)
        return _command(args.command)(settings, args)
    except ConfigError as exc:
        if len(exc.problems) > 1:  # one per line: "invalid configuration:" and each problem
            head = str(exc).split(":", 1)[0]
            print(f"veilbot: configuration error: {head}:", file=sys.stderr)
            print("\n".join(f"  {problem}" for problem in exc.problems), file=sys.stderr)
        else:
            print(f"veilbot: configuration error: {exc}", file=sys.stderr)
        return 2
    except InputRejected as exc:
        print(f"veilbot: {exc}", file=sys.stderr)
        return 2
    except VeilbotError as exc:
        print(f"veilbot: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0 if stopped_early() else 130


if __name__ == "__main__":
    sys.exit(main())
