"""Audit exports on real SQLite and PostgreSQL: formats, metadata line, constant memory."""

from __future__ import annotations

import csv
import gc
import gzip
import io
import json
import os
import threading
import unicodedata

import pytest

from bot.audit.export import CSV_META_PREFIX, EXPORT_FIELDS, export_chunks
from bot.audit.store import SqlAuditStore
from bot.audit.types import RunFilter
from tests.fixtures.audit_db import bulk_insert, many_rows, run


async def collect(store: SqlAuditStore, run_filter: RunFilter, fmt: str, **kw: object) -> bytes:
    return b"".join([c async for c in export_chunks(store, run_filter, fmt, **kw)])  # type: ignore[arg-type]


async def test_jsonl_opens_with_a_meta_line_then_one_run_per_line(
    audit_store: SqlAuditStore,
) -> None:
    records = [run(minutes=i, metadata={"n": i}) for i in range(5)]
    for r in records:
        await audit_store.record(r)
    lines = (await collect(audit_store, RunFilter(metadata={"n": 3}), "jsonl")).splitlines()
    meta = json.loads(lines[0])["_meta"]
    assert meta["contains_personal_data"] is False
    assert "placeholder" in meta["notice"]
    assert meta["filter"] == {"metadata": {"n": 3}}
    assert meta["fields"] == list(EXPORT_FIELDS)
    assert len(lines) == 2
    row = json.loads(lines[1])
    assert row["run_id"] == records[3].run_id
    assert row["entity_counts"] == {"EMAIL_ADDRESS": 1, "PERSON": 1}
    assert row["started_at"].endswith("+00:00")


async def test_csv_has_a_comment_meta_line_a_header_and_defused_formulas(
    audit_store: SqlAuditStore,
) -> None:
    await audit_store.record(run(prompt='=HYPERLINK("http://x")', answer='a, "b"\nc'))
    data = gzip.decompress(await collect(audit_store, RunFilter(), "csv", gzip=True)).decode()
    first, rest = data.split("\n", 1)
    assert first.startswith(CSV_META_PREFIX)
    assert json.loads(first[len(CSV_META_PREFIX) :])["contains_personal_data"] is False
    rows = list(csv.DictReader(io.StringIO(rest)))
    assert list(rows[0]) == list(EXPORT_FIELDS)
    assert rows[0]["prompt"] == '\'=HYPERLINK("http://x")'
    assert rows[0]["answer"] == 'a, "b"\nc'
    assert json.loads(rows[0]["latencies_ms"]) == {"model": 800.0}


@pytest.mark.parametrize(
    "cell",
    ["  =1+1", "\u3000+SUM(A1)", "\uff1dcmd|' /C calc'!A0", "\uff0b1", " \uff0d1", "\uff20x"],
)
async def test_csv_defuses_formulas_behind_spaces_and_in_full_width(
    audit_store: SqlAuditStore, cell: str
) -> None:
    await audit_store.record(run(prompt=cell, answer="- a list item"))
    data = (await collect(audit_store, RunFilter(), "csv")).decode()
    row = next(csv.DictReader(io.StringIO(data.split("\n", 1)[1])))
    assert row["prompt"] == "'" + cell
    assert row["answer"] == "'- a list item"


TRIGGERS = "=+-@\u2212"


def _spreadsheet_start(line: str) -> str:
    """The first character a spreadsheet would read: invisible and blank characters skipped."""
    for char in line:
        if unicodedata.category(char)[0] not in "CZM":
            return unicodedata.normalize("NFKC", char)[0]
    return ""


INJECTIONS = [
    'ok\r=HYPERLINK("http://x","y")',
    "ok\r\n+1+1",
    "one\u2028@SUM(1)",
    "\u22121+1",
    "\ufe66 1+1",
    "\ufe62 1",
    "\ufe63 1",
    "\uff1d1",
    "\u200e=1+1",
    "\u202e=1+1",
    "\u00ad=1+1",
    "\u200b\u2060 \ufeff=1",
    "\t=1",
    "\u207c1",
]


async def test_csv_no_line_a_spreadsheet_reads_starts_a_formula(
    audit_store: SqlAuditStore,
) -> None:
    for i, cell in enumerate(INJECTIONS):
        await audit_store.record(run(minutes=i, prompt=cell, answer="fine\r" + cell))
    raw = (await collect(audit_store, RunFilter(), "csv")).decode()
    rows = list(csv.DictReader(io.StringIO(raw.split("\n", 1)[1])))
    assert len(rows) == len(INJECTIONS)
    for row, cell in zip(rows, reversed(INJECTIONS), strict=True):
        for line in row["prompt"].splitlines():
            assert _spreadsheet_start(line) not in TRIGGERS, line
        assert row["prompt"] != cell
        assert row["prompt"].replace("'", "") == cell.replace("'", "")
        assert row["answer"].startswith("fine\r")
    lines = raw.splitlines()  # every line break a lenient importer could split on
    assert len(lines) > len(INJECTIONS) + 2
    for line in lines:
        assert _spreadsheet_start(line) not in TRIGGERS or not line, line


async def test_csv_keeps_plain_text_and_numbers_as_they_were(audit_store: SqlAuditStore) -> None:
    await audit_store.record(run(prompt='a\rb\nc, "d"', answer="x - y = z"))
    raw = (await collect(audit_store, RunFilter(), "csv")).decode()
    row = next(csv.DictReader(io.StringIO(raw.split("\n", 1)[1])))
    assert row["prompt"] == 'a\rb\nc, "d"'
    assert row["answer"] == "x - y = z"


async def test_max_rows_keeps_the_newest(audit_store: SqlAuditStore) -> None:
    records = [run(minutes=i) for i in range(5)]
    await bulk_insert(audit_store, records)
    lines = (await collect(audit_store, RunFilter(), "jsonl", max_rows=2)).splitlines()
    assert [json.loads(x)["run_id"] for x in lines[1:]] == [records[4].run_id, records[3].run_id]


class RssSampler:
    """Samples this process's resident memory every few milliseconds in a thread."""

    def __init__(self) -> None:
        self.base = self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @staticmethod
    def rss() -> int:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    def _run(self) -> None:
        while not self._stop.wait(0.005):
            self.peak = max(self.peak, self.rss())

    def __enter__(self) -> RssSampler:
        gc.collect()
        self.base = self.peak = self.rss()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def growth(self) -> int:
        return self.peak - self.base


async def _export_growth(store: SqlAuditStore, run_filter: RunFilter) -> tuple[int, int]:
    lines = 0
    with RssSampler() as sampler:
        async for chunk in export_chunks(store, run_filter, "jsonl"):
            lines += chunk.count(b"\n")
    return sampler.growth, lines


@pytest.mark.timeout(400)
async def test_export_memory_stays_flat_from_20k_to_200k_rows(audit_store: SqlAuditStore) -> None:
    assert (
        await bulk_insert(audit_store, many_rows(20_000, prefix="s", thread_id="console:s"))
        == 20_000
    )
    assert (
        await bulk_insert(audit_store, many_rows(180_000, prefix="b", thread_id="console:b"))
        == 180_000
    )
    await _export_growth(audit_store, RunFilter(thread_id="console:s"))  # warm caches and pools
    small, lines_small = await _export_growth(audit_store, RunFilter(thread_id="console:s"))
    every, lines_all = await _export_growth(audit_store, RunFilter())
    assert lines_small == 20_001
    assert lines_all == 200_001
    # Ten times the rows, about the same peak: nothing grows with the row count. (Holding
    # 200 000 runs would take hundreds of MB; the allowance is a few batches of 1 000.)
    assert every < small + 16 * 1024 * 1024, (small, every)
