"""Files written back as their kind (``veilbot redact --out``): guarded against bare, per kind.

One file of each kind (docx, xlsx, pptx, csv, pdf), the same on every run, with ``--rows``
customers (a name, an e-mail, a phone) in the places each kind keeps them: a docx's
paragraphs and a table, a workbook's rows, a deck's slides (a text box and a table each ten
customers), a CSV's rows, a PDF's lines. For each kind, prints

- warm, in this process with spaCy loaded: bare (the two confined reader phases alone:
  the units listed, the file written back with no edit) against guarded (the whole of
  ``bot.files.out``: listed, each unit redacted under its header, written), the best of
  ``--repeat`` runs, their ratio, and the guardrail's CPU on the units alone with the ratio
  it sets as a floor (bare plus detection and nothing else);
- from the command line, a fresh process each: bare (``--bare FILE``: this module in a new
  interpreter, the same two phases, no guardrail) against ``veilbot redact FILE --out``;
  then one ``veilbot redact`` of all five files, which loads the guardrail once.

The module keeps its top-level imports light: a reader process started from the fork
server runs the main module again (multiprocessing's ``__mp_main__``), so what it imports at
the top every child would import too. Run on demand (prints figures; not a pytest test):

    .venv/bin/python -m tests.perf.bench_files_out [--rows 200] [--repeat 3] [--no-command-line]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""

from typing import TYPE_CHECKING, Any  # noqa: E402

from bot.core.types import Redaction  # noqa: E402
from bot.files.confine import Deadline, Readers  # noqa: E402
from bot.files.limits import FileLimits  # noqa: E402
from bot.files.out.redacted import list_units, redact_units  # noqa: E402
from bot.files.out.units import written  # noqa: E402
from tests.perf.customers import customer  # noqa: E402

if TYPE_CHECKING:
    from bot.cli.redact_file import Guard

LIMITS = FileLimits(max_bytes=200 * 1024 * 1024, max_chars=10**8, max_pages=10_000)
HEADER = ["Name", "E-mail", "Phone", "Item", "Amount"]


def files(rows: int, seed: int = 7) -> dict[str, bytes]:
    """One file of each kind holding ``rows`` customers."""
    from tests.fixtures.documents import pdf_of

    rng = random.Random(seed)
    people = [customer(rng) for _ in range(rows)]
    return {
        "customers.docx": _docx(people),
        "customers.xlsx": _xlsx(people),
        "customers.pptx": _pptx(people),
        "customers.csv": _csv(people),
        "customers.pdf": pdf_of(
            [
                [
                    f"{n} ({e}, {p}) asked about the {i} of {a}."
                    for n, e, p, i, a in people[s : s + 40]
                ]
                for s in range(0, rows, 40)
            ]
        ),
    }


def _docx(people: list[tuple[str, ...]]) -> bytes:
    import docx

    from tests.fixtures.documents import saved

    document = docx.Document()
    half = len(people) // 2
    for name, email, phone, item, amount in people[:half]:
        document.add_paragraph(f"{name} ({email}, {phone}) asked about the {item} of {amount}.")
    table = document.add_table(rows=1, cols=len(HEADER))
    for cell, text in zip(table.rows[0].cells, HEADER, strict=True):
        cell.text = text
    for person in people[half:]:
        for cell, text in zip(table.add_row().cells, person, strict=True):
            cell.text = text
    return saved(document)


def _xlsx(people: list[tuple[str, ...]]) -> bytes:
    import openpyxl

    from tests.fixtures.documents import saved

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(HEADER)
    for person in people:
        sheet.append(list(person))
    return saved(book)


def _pptx(people: list[tuple[str, ...]]) -> bytes:
    import pptx
    from pptx.util import Inches

    from tests.fixtures.documents import saved

    deck = pptx.Presentation()
    for start in range(0, len(people), 20):
        slide = deck.slides.add_slide(deck.slide_layouts[5])
        slide.shapes.title.text = f"Customers {start + 1}-{start + 20}"
        box = slide.shapes.add_textbox(Inches(0.5), Inches(1.5), Inches(9), Inches(2))
        box.text_frame.text = "\n".join(
            f"{n}, {e}, {p}" for n, e, p, _, _ in people[start : start + 10]
        )
        chunk = people[start + 10 : start + 20]
        frame = slide.shapes.add_table(
            len(chunk) + 1, 3, Inches(0.5), Inches(4), Inches(9), Inches(3)
        )
        for cell, text in zip(frame.table.rows[0].cells, HEADER[:3], strict=True):
            cell.text = text
        for row, person in zip(list(frame.table.rows)[1:], chunk, strict=True):
            for cell, text in zip(row.cells, person[:3], strict=True):
                cell.text = text
    return saved(deck)


def _csv(people: list[tuple[str, ...]]) -> bytes:
    lines = [",".join(h.lower() for h in HEADER), *(",".join(p) for p in people)]
    return ("\n".join(lines) + "\n").encode()


async def bare(data: bytes, suffix: str, readers: Readers) -> None:
    """The reader phases alone: the units listed, the file written back unedited."""
    deadline = Deadline(1, 600)
    listing = await list_units(data, 1, suffix, readers, deadline)
    assert listing.form is not None  # noqa: S101
    await readers.run(deadline, written, data, 1, readers.limits, listing.form, {})


async def guarded(data: bytes, suffix: str, readers: Readers, guard: Guard) -> int:
    """The whole of ``bot.files.out``; the values redacted."""
    from guardrails.redact import Numbering

    numbering = Numbering()

    async def redact_texts(units: Sequence[tuple[str, str | None]]) -> list[Redaction]:
        return guard.redact_many(numbering, units)

    deadline = Deadline(1, 600)
    listing = await list_units(data, 1, suffix, readers, deadline)
    done = await redact_units(data, 1, listing, redact_texts, readers, deadline)
    return sum(done.counts.values())


async def best(repeat: int, run: Any, *args: Any) -> tuple[float, Any]:
    """The shortest of ``repeat`` runs of ``run(*args)``, and its result."""
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = await run(*args)
        times.append(time.perf_counter() - started)
    return min(times), result


async def warm(built: dict[str, bytes], repeat: int) -> None:
    from bot.cli.redact_file import Guard
    from bot.config.settings import load_settings

    guard = Guard(load_settings())
    guard.redactor.redact("warm up: Maria Gonzalez", "console")
    readers = Readers(LIMITS)
    print(f"warm (spaCy loaded; best of {repeat}; load average {os.getloadavg()[0]:.1f})")
    print(
        f"{'kind':6} {'size':>9} {'bare':>9} {'guarded':>9} {'ratio':>6} "
        f"{'detection CPU':>14} {'floor':>6} values"
    )
    for name, data in built.items():
        suffix = Path(name).suffix
        await bare(data, suffix, readers)  # the fork server's first start
        plain, _ = await best(repeat, bare, data, suffix, readers)
        whole, found = await best(repeat, guarded, data, suffix, readers, guard)
        detecting = await detection_cpu(data, suffix, readers, guard)
        print(
            f"{suffix[1:]:6} {len(data) / 1024:>7.0f}KB {plain * 1000:>7.0f}ms "
            f"{whole * 1000:>7.0f}ms {whole / plain:>5.2f}x {detecting * 1000:>12.0f}ms "
            f"{(plain + detecting) / plain:>5.2f}x {found}"
        )
    print(
        "ratio: guarded / bare (wall); detection CPU: the guardrail's own work on the file's "
        "units, in this process; floor: (bare + detection) / bare, the ratio with nothing "
        "but detection added"
    )


async def detection_cpu(data: bytes, suffix: str, readers: Readers, guard: Guard) -> float:
    """CPU seconds of the guardrail alone on the file's units, as ``redact_units`` runs it."""
    from bot.files.out.redacted import BATCH
    from guardrails.redact import Numbering

    listing = await list_units(data, 1, suffix, readers, Deadline(1, 600))
    keys = list(dict.fromkeys((u.text, u.context) for u in listing.units if u.text.strip()))
    started = time.process_time()
    numbering = Numbering()
    for start in range(0, len(keys), BATCH):
        guard.redact_many(numbering, keys[start : start + BATCH])
    return time.process_time() - started


def command_line(built: dict[str, bytes]) -> None:
    environ = {**os.environ, "VEILBOT_DATA_DIR": tempfile.mkdtemp()}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = []
        for name, data in built.items():
            (folder / name).write_bytes(data)
            paths.append(folder / name)
        print(f"\ncommand line (a fresh process each; load average {os.getloadavg()[0]:.1f})")
        print(f"{'kind':6} {'bare':>9} {'veilbot redact --out':>21} {'ratio':>6}")
        for path in paths:
            plain = timed(
                [sys.executable, "-m", "tests.perf.bench_files_out", "--bare", str(path)], environ
            )
            out = folder / "out" / path.name
            whole = timed(
                [sys.executable, "-m", "bot", "redact", str(path), "--out", str(out)], environ
            )
            print(f"{path.suffix[1:]:6} {plain:>8.2f}s {whole:>20.2f}s {whole / plain:>5.2f}x")
        together = timed(
            [sys.executable, "-m", "bot", "redact", *map(str, paths), "--out", str(folder / "all")],
            environ,
        )
        print(f"all five in one veilbot redact: {together:.2f}s (the guardrail loaded once)")
        print(f"load average {os.getloadavg()[0]:.1f} at the end")


def timed(command: list[str], environ: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=environ, check=True, capture_output=True)  # noqa: S603
    return time.perf_counter() - started


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--bare", metavar="FILE", help="run the bare phases on FILE and exit")
    parser.add_argument(
        "--no-command-line", action="store_true", help="leave out the fresh processes"
    )
    arguments = parser.parse_args()
    if arguments.bare:
        source = Path(arguments.bare)
        asyncio.run(bare(source.read_bytes(), source.suffix, Readers(LIMITS)))
        sys.exit(0)
    built = files(arguments.rows)
    asyncio.run(warm(built, arguments.repeat))
    if not arguments.no_command_line:
        command_line(built)
