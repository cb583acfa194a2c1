"""Audit exports as JSON lines or CSV, streamed in constant memory.

Both formats open with one metadata line that says what the file holds and what it never
holds:

- JSONL: the first line is ``{"_meta": {...}}``; every further line is one run.
- CSV: the first line is ``#veilbot-audit-export {...json...}`` (skip it: ``tail -n +2``,
  ``pandas.read_csv(f, skiprows=1)``); the second is the header row. Nested fields
  (``entity_counts``, ``latencies_ms``, ``metadata``) are JSON text. Every text field is
  quoted, so a line break inside one (CR, LF or any other) never starts a new row. Each line
  of a text cell that a spreadsheet could run as a formula is prefixed with ``'``: after
  Unicode compatibility folding (full-width and small forms) and skipping blanks and
  invisible or format characters, it begins with ``= + - @`` or a minus sign, or it begins
  with a tab or a control character. The JSONL export keeps text exactly.

Every field is placeholder text, entity types and counts, ids, tokens, cost, latencies or
status: the audit log never held an original value, so no export can contain one.
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
import zlib
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import fields
from datetime import UTC, datetime
from typing import Any, Literal

from bot import __version__
from bot.audit.types import AuditQueryStore, RunFilter
from bot.core.types import AuditRecord

ExportFormat = Literal["jsonl", "csv"]
FORMATS: tuple[ExportFormat, ...] = ("jsonl", "csv")
PII_NOTICE = (
    "Redacted audit log: prompts and answers hold placeholders such as <PERSON_1> in place of "
    "personal data; the other fields are ids, entity types and counts, tokens, cost, latencies "
    "and status. No original personal value is stored, so none is exported."
)
CSV_META_PREFIX = "#veilbot-audit-export "
EXPORT_FIELDS = tuple(f.name for f in fields(AuditRecord))
"""Every field of a run, in the order of ``AuditRecord``."""
_JSON_FIELDS = {"entity_counts", "latencies_ms", "metadata"}
_FORMULA_CHARS = frozenset("=+-@\u2212\u2795\u2796")
"""What a formula starts with, after NFKC folding (``＝ ﹦ ⁼`` become ``=``, ``﹣ －`` ``-``)."""
_SKIPPED = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp", "Mn", "Me"})
"""Unicode categories a spreadsheet shows as nothing or blank before the first character."""
_LINE_BREAK = re.compile(r"(\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029])")


def _formula_like(line: str) -> bool:
    """Whether a spreadsheet could run ``line`` as a formula (see the module docstring)."""
    if line[:1] and unicodedata.category(line[0]) == "Cc":
        return True  # a leading tab, CR or other control: a trigger in some importers
    for char in line:
        if unicodedata.category(char) not in _SKIPPED:
            return unicodedata.normalize("NFKC", char)[:1] in _FORMULA_CHARS
    return False


def _defuse(value: str) -> str:
    """``value`` with ``'`` before every line a spreadsheet could run as a formula."""
    parts = _LINE_BREAK.split(value)
    for i in range(0, len(parts), 2):
        if _formula_like(parts[i]):
            parts[i] = "'" + parts[i]
    return "".join(parts)


_CHUNK_BYTES = 64 * 1024


def record_dict(record: AuditRecord) -> dict[str, Any]:
    """A run as JSON-ready data, fields in export order."""
    out: dict[str, Any] = {}
    for name in EXPORT_FIELDS:
        value = getattr(record, name)
        out[name] = value.isoformat() if isinstance(value, datetime) else value
    out["status"] = str(record.status)
    return out


def meta(run_filter: RunFilter, fmt: ExportFormat, **extra: Any) -> dict[str, Any]:
    """The metadata line's content: what, when, which filter, and the PII statement."""
    return {
        "kind": "veilbot-audit-export",
        "schema_version": 1,
        "format": fmt,
        "generated_at": datetime.now(UTC).isoformat(),
        "veilbot_version": __version__,
        "filter": run_filter.describe(),
        "order": "started_at desc, run_id desc",
        "fields": list(EXPORT_FIELDS),
        "contains_personal_data": False,
        "notice": PII_NOTICE,
        **extra,
    }


def _json_line(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


def _csv_cell(name: str, value: Any) -> Any:
    if value is None:
        return ""
    if name in _JSON_FIELDS:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    if isinstance(value, str):
        return _defuse(value)
    return value


class _CsvLine:
    """Formats one CSV row at a time into a reusable buffer."""

    def __init__(self) -> None:
        self._buffer = io.StringIO()
        # Every text cell quoted: Python's minimal quoting leaves a bare CR unquoted when the
        # line terminator is LF, and that CR splits the row in a spreadsheet.
        self._writer = csv.writer(self._buffer, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)

    def __call__(self, cells: list[Any]) -> str:
        self._buffer.seek(0)
        self._buffer.truncate()
        self._writer.writerow(cells)
        return self._buffer.getvalue()


async def export_lines(
    store: AuditQueryStore,
    run_filter: RunFilter,
    fmt: ExportFormat,
    *,
    max_rows: int | None = None,
    **extra: Any,
) -> AsyncGenerator[str, None]:
    """The export, line by line: the metadata line, (CSV: the header,) then one per run."""
    header = meta(run_filter, fmt, **extra, **({"max_rows": max_rows} if max_rows else {}))
    left = max_rows if max_rows is not None else -1
    if fmt == "jsonl":
        yield _json_line({"_meta": header})
    else:
        line = _CsvLine()
        yield CSV_META_PREFIX + json.dumps(header, ensure_ascii=False) + "\n"
        yield line(list(EXPORT_FIELDS))
    async with aclosing(store.iter_runs(run_filter)) as runs:
        async for record in runs:
            if left == 0:
                return
            left -= 1
            data = record_dict(record)
            if fmt == "jsonl":
                yield _json_line(data)
            else:
                yield line([_csv_cell(k, v) for k, v in data.items()])


async def export_chunks(
    store: AuditQueryStore,
    run_filter: RunFilter,
    fmt: ExportFormat,
    *,
    gzip: bool = False,
    on_row: Callable[[], None] | None = None,
    max_rows: int | None = None,
    **extra: Any,
) -> AsyncGenerator[bytes, None]:
    """The export as byte chunks of about 64 KiB, gzip-compressed when asked.

    Args:
        store: where the runs are read.
        run_filter: which runs.
        fmt: ``jsonl`` or ``csv``.
        gzip: compress the stream (gzip container).
        on_row: called once per run written (progress bars).
        max_rows: stop after this many runs (the newest).
        **extra: more keys for the metadata line.
    """
    packer = zlib.compressobj(6, zlib.DEFLATED, 31) if gzip else None  # 31: gzip container
    pending: list[bytes] = []
    size = 0
    headers = 1 if fmt == "jsonl" else 2
    async with aclosing(export_lines(store, run_filter, fmt, max_rows=max_rows, **extra)) as lines:
        async for line in lines:
            if headers:
                headers -= 1
            elif on_row is not None:
                on_row()
            data = line.encode("utf-8")
            pending.append(packer.compress(data) if packer else data)
            size += len(data)
            if size >= _CHUNK_BYTES:
                yield b"".join(pending)
                pending, size = [], 0
    if packer is not None:
        pending.append(packer.flush())
    if pending:
        yield b"".join(pending)
