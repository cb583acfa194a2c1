r"""How the audit commands show runs: a table on a terminal, tab-separated lines in a pipe.

A pipe gets every value whole (full run ids, no wrapping), one run per line after a header
line, so ``cut``, ``awk`` and ``sort`` work; a terminal gets a table sized to the screen.
Values the audit log holds are placeholder text, but a model can write terminal control
sequences: every control character is shown escaped (``\x1b``), never sent to the screen.
"""

from __future__ import annotations

import json
import re
import sys
from datetime import UTC
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from bot.audit.export import record_dict
from bot.core.types import AuditRecord

_COLUMNS = ("started (UTC)", "run", "thread", "user", "status", "in/out", "cost $", "PII")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")


def safe(text: str) -> str:
    """``text`` with control characters escaped, line feeds and tabs kept."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def _cells(r: AuditRecord) -> list[str]:
    return [
        r.started_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S"),
        r.run_id,
        r.thread_id,
        r.user_id,
        str(r.status),
        f"{r.input_tokens}/{r.output_tokens}",
        f"{r.cost_usd:.4f}" if r.cost_usd is not None else "-",
        ", ".join(f"{k}={v}" for k, v in sorted(r.entity_counts.items())),
    ]


def print_runs(runs: list[AuditRecord], next_cursor: str | None) -> None:
    """The runs as a table (terminal) or tab-separated lines (pipe); a note when none match."""
    if not runs:
        print("no runs match", file=sys.stderr)
        return
    if not sys.stdout.isatty():
        print("\t".join(_COLUMNS))
        for r in runs:
            print("\t".join(safe(cell).replace("\t", " ") for cell in _cells(r)))
        if next_cursor:
            print(f"next page: --cursor {next_cursor}", file=sys.stderr)
        return
    table = Table(*_COLUMNS)
    table.columns[1].no_wrap = True  # a run id is copied whole into ``audit show``
    for r in runs:
        table.add_row(*(escape(safe(cell)) for cell in _cells(r)))
    console = Console()
    console.print(table)
    if next_cursor:
        console.print(f"next page: --cursor {next_cursor}", highlight=False)


def print_run(record: AuditRecord) -> None:
    """Every field of one run, one per line; prompt and answer below, indented."""
    data: dict[str, Any] = record_dict(record)
    texts = {name: data.pop(name) for name in ("prompt", "answer")}
    width = max(len(name) for name in data)
    for name, value in data.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        print(f"{name:<{width}}  {safe(shown if value is not None else '-')}")
    for name, text in texts.items():
        print(f"\n{name}:")
        for line in safe(text or "").splitlines() or [""]:
            print(f"  {line}")
