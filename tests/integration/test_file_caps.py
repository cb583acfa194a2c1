"""Small files that describe a great deal: refused at a cap, read in a confined process.

Each hostile file is written in the test (``tests.fixtures.bombs``: XML streamed into a zip,
a PNG written row by row) and is small, under the size limit and the zip-bomb check. What a
person would notice: the one-line answer naming the file by its position, and a service that
stays small while it reads (this process's resident memory is sampled throughout; the parse
happens in a reader process with a memory and a CPU limit). The caps are checked at their
exact numbers, and a reader that runs out of time or memory is answered and stopped, with
the Tesseract it started.
"""

from __future__ import annotations

import asyncio
import io
import math
import os
import resource
import subprocess
import threading
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import openpyxl
import pytest
from lxml import etree

from bot.core.attachments import IncomingFile
from bot.core.errors import InputRejected
from bot.core.types import Redaction, ThreadId
from bot.files.confine import Deadline, Readers
from bot.files.content import redact_content
from bot.files.extract import extract
from bot.files.intake import redact_files
from bot.files.limits import MIB, FileLimits
from tests.fixtures import bombs
from tests.fixtures.documents import saved, scanned_pdf, seeded_docx
from tests.fixtures.images import encoded, screenshot, tesseract_or_skip
from tests.fixtures.processes import until

T1 = ThreadId("slack:T1:C1:1700000000.004200")
LIMITS = FileLimits()
GROWTH_MB = 60
"""How much this process's resident memory may grow while a hostile file is read: the file's
bytes and the answer, nothing the file describes."""


@contextmanager
def resident_peak() -> Iterator[Callable[[], float]]:
    """This process's resident memory sampled every 5 ms; yields the peak growth in MB."""
    page = os.sysconf("SC_PAGE_SIZE")

    def resident() -> int:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * page

    start, peak, stop = resident(), [0], threading.Event()

    def sample() -> None:
        while not stop.wait(0.005):
            peak[0] = max(peak[0], resident())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield lambda: max(0, peak[0] - start) / MIB
    finally:
        stop.set()
        sampler.join()


async def _unchanged(text: str, *, ocr: bool = False) -> Redaction:
    return Redaction(text, (), ())


HOSTILE = {
    "xlsx-one-row": (
        lambda: bombs.empty_cells_xlsx(14_000_000, per_row=14_000_000),  # 14 million cells
        "File 2 has a row past Excel's 16,384 columns",
        "too_many_cells",
    ),
    "xlsx-rows": (
        lambda: bombs.empty_cells_xlsx(3_000_000),
        "File 2 has more than 500,000 cells; I read up to 500,000 in one file.",
        "too_many_cells",
    ),
    "docx": (
        lambda: bombs.empty_paragraphs_docx(9_500_000),
        "File 2 has more than 100,000 paragraphs; I read up to 100,000 in one file.",
        "too_many_paragraphs",
    ),
    "pptx": (
        lambda: bombs.empty_shapes_pptx(2_000_000),
        "File 2 has more than 10,000 shapes; I read up to 10,000 in one file.",
        "too_many_shapes",
    ),
    "png": (
        lambda: bombs.dense_png(7_200, 5_400),  # 39 megapixels of small text
        "File 2 is an image of more than 24 megapixels; please send a smaller one.",
        "image_too_large",
    ),
}


@pytest.mark.parametrize("kind", HOSTILE)
async def test_a_small_file_describing_millions_of_elements_gets_its_cap_and_stays_out_of_here(
    guardrail, kind
):
    build, answer, reason = HOSTILE[kind]
    data = build()
    assert len(data) < LIMITS.max_bytes // 20, "a small file, far under the size limit"
    files = [IncomingFile("notes.txt", b"see the attachment"), IncomingFile("f", data)]
    with resident_peak() as growth, pytest.raises(InputRejected) as caught:
        await redact_files(guardrail, T1, files, platform="slack", limits=LIMITS)
    assert str(caught.value).startswith(answer)
    assert caught.value.reason == reason
    assert growth() < GROWTH_MB, f"this process grew {growth():.0f} MB"


@pytest.mark.parametrize(
    ("build", "cap", "what"),
    [
        (bombs.empty_cells_xlsx, "max_cells", "cells"),
        (bombs.empty_paragraphs_docx, "max_paragraphs", "paragraphs"),
        (bombs.empty_shapes_pptx, "max_shapes", "shapes"),
    ],
)
def test_each_element_cap_holds_at_its_number(build, cap, what):
    limits = FileLimits(**{cap: 300})
    extract(_kind(build), build(300), 1, limits)  # at the cap: read
    with pytest.raises(InputRejected, match=f"File 1 has more than 300 {what}") as caught:
        extract(_kind(build), build(301), 1, limits)
    assert caught.value.reason == f"too_many_{what}"


def test_every_element_of_every_part_counts_against_the_element_cap():
    data = bombs.empty_paragraphs_docx(100)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        parts = [archive.read(name) for name in archive.namelist()]
    elements = len(parts) + sum(len(list(etree.fromstring(part).iter())) for part in parts)
    assert elements > 100, "the paragraphs, and every other element"
    extract("docx", data, 1, FileLimits(max_elements=elements))
    with pytest.raises(InputRejected, match=f"more than {elements - 1} XML elements") as caught:
        extract("docx", data, 1, FileLimits(max_elements=elements - 1))
    assert caught.value.reason == "too_many_xml_elements"


def test_a_row_counts_every_column_up_to_its_last_cell():
    """Two empty cells, in columns A and XFD, on each of 40 rows: openpyxl fills the 16,382
    columns between, so the sheet costs 655,360 cells to read though it stores 80."""
    book = openpyxl.Workbook()
    for row in range(1, 41):
        book.active.cell(row, 1).number_format = "0.00"
        book.active.cell(row, 16_384).number_format = "0.00"
    data = saved(book)
    with pytest.raises(InputRejected, match="File 1 has more than 500,000 cells"):
        extract("xlsx", data, 1, LIMITS)
    assert extract("xlsx", data, 1, FileLimits(max_cells=655_360)).text == "# Sheet"


def test_a_pdfs_scanned_pictures_count_their_pixels_before_any_is_decoded():
    scan = scanned_pdf(images_per_page=2)  # four 200 x 80 pictures: 64,000 pixels
    assert len(extract("pdf", scan, 1, FileLimits(max_pixels=64_000)).parts) == 2
    with pytest.raises(InputRejected) as caught:
        extract("pdf", scan, 3, FileLimits(max_pixels=40_000))
    assert str(caught.value) == (
        "File 3 has more than 0.04 megapixels of scanned pictures; I read up to 0.04 "
        "megapixels in one file. Please send the pages you need."
    )
    assert caught.value.reason == "image_too_large"


def _kind(build: Callable[[int], bytes]) -> str:
    return {
        bombs.empty_cells_xlsx: "xlsx",
        bombs.empty_paragraphs_docx: "docx",
        bombs.empty_shapes_pptx: "pptx",
    }[build]


async def test_a_file_needing_more_memory_than_its_reader_has_is_refused_and_stays_out_of_here():
    lifted = FileLimits(max_paragraphs=10**9, max_elements=10**9, max_memory=64 * MIB)
    data = bombs.empty_paragraphs_docx(1_000_000)
    with resident_peak() as growth, pytest.raises(InputRejected) as caught:
        await redact_content(
            data, 1, _unchanged, limits=lifted, images="redacted", tesseract="tesseract"
        )
    assert str(caught.value) == (
        "File 1 needs more than 64 MB of memory to read; please send a smaller file or the "
        "part you need."
    )
    assert caught.value.reason == "too_much_memory"
    assert growth() < GROWTH_MB


async def test_an_image_at_the_pixel_cap_is_read_within_the_readers_memory():
    tesseract = tesseract_or_skip()
    side = math.isqrt(LIMITS.max_pixels * 3 // 2)  # 3:2, as a camera takes it
    size = (side, LIMITS.max_pixels // side)
    lines = [f"Ticket {n} opened by the support desk" for n in range(4821, 4841)]
    data = encoded(screenshot(lines, size=size, font_px=40))
    content = await redact_content(
        data, 1, _unchanged, limits=LIMITS, images="redacted", tesseract=tesseract
    )
    assert "Ticket 4821 opened by the support desk" in content.text


def _processes() -> dict[int, tuple[int, str]]:
    """Every process: its parent and its command name."""
    found = subprocess.run(
        ["ps", "-eo", "pid=,ppid=,comm="], capture_output=True, text=True, check=True
    )
    rows = (line.split(None, 2) for line in found.stdout.splitlines())
    return {int(pid): (int(parent), name.strip()) for pid, parent, name in rows}


def _our_tesseracts() -> set[int]:
    """The Tesseract processes this test process started (through a reader and its server)."""
    processes = _processes()

    def ours(pid: int) -> bool:
        while pid > 1:
            pid = processes.get(pid, (0, ""))[0]
            if pid == os.getpid():
                return True
        return False

    return {pid for pid, (_, name) in processes.items() if name == "tesseract" and ours(pid)}


async def _started(reading: asyncio.Future[object]) -> set[int]:
    """The Tesseract processes seen while ``reading`` runs, once one was seen (or it ended)."""
    seen: set[int] = set()
    while not reading.done() and not seen:
        seen |= _our_tesseracts()
        await asyncio.sleep(0.02)
    return seen


def _gone(pids: set[int]) -> bool:
    return not pids & set(_processes())


async def test_a_file_past_its_time_is_refused_and_its_ocr_is_stopped():
    tesseract = tesseract_or_skip()
    dense = bombs.dense_png(1_600, 1_000)  # Tesseract takes well over a second on it
    reading = asyncio.ensure_future(
        redact_content(
            dense,
            2,
            _unchanged,
            limits=FileLimits(max_seconds=1),
            images="redacted",
            tesseract=tesseract,
        )
    )
    started = await _started(reading)
    with pytest.raises(InputRejected) as caught:
        await reading
    assert str(caught.value) == (
        "File 2 takes more than 1 s to read; I stop there. Please send a smaller file or the "
        "part you need."
    )
    assert caught.value.reason == "too_slow"
    assert started, "Tesseract was reading when the time ran out"
    await until(lambda: _gone(started), "the reader's Tesseract to be killed", 10)


async def test_a_cancelled_turn_stops_its_files_reader():
    tesseract = tesseract_or_skip()
    reading = asyncio.ensure_future(
        redact_content(
            bombs.dense_png(1_600, 1_000),
            1,
            _unchanged,
            limits=LIMITS,
            images="redacted",
            tesseract=tesseract,
        )
    )
    started = await _started(reading)
    assert started, "Tesseract is reading"
    reading.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reading
    await until(lambda: _gone(started), "the reader's Tesseract to be killed", 10)


def _confinement() -> tuple[int, int, int, int, int]:
    """In a reader: its pid, its process group, and the limits it runs under."""
    memory, _ = resource.getrlimit(resource.RLIMIT_AS)
    cpu, _ = resource.getrlimit(resource.RLIMIT_CPU)
    with open("/proc/self/status", encoding="ascii") as status:
        size = next(int(line.split()[1]) for line in status if line.startswith("VmSize:"))
    return os.getpid(), os.getpgid(0), memory, cpu, size * 1024


async def test_a_file_is_read_in_a_process_of_its_own_under_a_memory_and_cpu_limit():
    limits = FileLimits(max_memory=300 * MIB, max_seconds=7.5)
    pid, group, memory, cpu, size = await Readers(limits).run(Deadline(1, 7.5), _confinement)
    assert pid != os.getpid()
    assert group == pid, "its own process group: Tesseract goes with it"
    assert size < memory <= size + 300 * MIB
    assert cpu == math.ceil(7.5)


def _fails_quoting_the_file() -> None:
    raise ValueError("Maria Oliveira, +1 415 555 0137")


async def test_a_reader_that_fails_is_told_by_position_and_logged_by_type_only(caplog):
    with pytest.raises(InputRejected) as caught:
        await Readers(LIMITS).run(Deadline(4, 5), _fails_quoting_the_file)
    assert str(caught.value).startswith("File 4 could not be read: reading it failed.")
    assert caught.value.reason == "reader_failed"
    assert "file reader failed file=4 error=ValueError" in caplog.text
    assert "Maria" not in caplog.text + str(caught.value)


async def test_a_normal_document_is_read_as_before(guardrail):
    files = [IncomingFile("letter.docx", seeded_docx())]
    intake = await redact_files(guardrail, T1, files, platform="slack", limits=LIMITS)
    assert "update the payment details" in intake.as_text()
