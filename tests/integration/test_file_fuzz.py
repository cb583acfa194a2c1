"""Generated office files through the confined reader: text, or an answer, never a failure.

Hypothesis draws small Word documents (paragraphs, tables, content controls, nested), workbooks
(rows of words and numbers with gaps between the cells) and presentations (text boxes, groups),
the same ones on every run. Each is read the way a turn reads it (``redact_content``: a reader
process under the limits) with small caps, so that many cross them:

- under the caps, every word the file holds is in the text read;
- over a cap, the answer is that cap's, named by the file's position;
- the same files cut short, with a byte changed or a part dropped or replaced, get text or a
  one-line answer; never "reading it failed", which would mean a reader broke on its own.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from typing import TypeVar

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from bot.core.errors import InputRejected
from bot.core.types import Redaction
from bot.files.content import redact_content
from bot.files.limits import FileLimits
from tests.fixtures.bombs import docx_of, pptx_of, xlsx_of

T = TypeVar("T")
EXAMPLES = 40
CAPS = FileLimits(max_paragraphs=14, max_cells=40, max_shapes=8)
ANSWERS = {
    "unreadable_file",
    "unsupported_file",
    "too_many_cells",
    "too_many_paragraphs",
    "too_many_shapes",
    "too_many_xml_elements",
    "too_many_pages",
    "too_much_text",
    "zip_bomb",
}
"""The one-line answers a generated or damaged office file may get."""


def drawn(strategy: st.SearchStrategy[T], count: int = EXAMPLES) -> list[T]:
    """``count`` values of ``strategy``, the same on every run (hypothesis, derandomized)."""
    found: list[T] = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        deadline=None,
    )
    @given(strategy)
    def collect(value: T) -> None:
        found.append(value)

    collect()
    return found


@dataclass(frozen=True)
class Office:
    """A generated file, the words it holds and how much of each unit it is built of."""

    kind: str
    data: bytes
    words: tuple[str, ...]
    units: dict[str, int]


WORD = st.from_regex(r"[A-Za-z]{3,9}", fullmatch=True)
WORDS = st.lists(WORD, max_size=3)


# ---------------------------------------------------------------------------- Word documents
BLOCK = st.recursive(
    st.tuples(st.just("p"), WORDS),
    lambda inner: st.one_of(
        st.tuples(st.just("sdt"), st.lists(inner, max_size=3)),
        st.tuples(st.just("tbl"), st.lists(st.lists(WORDS, min_size=1, max_size=3), max_size=3)),
    ),
    max_leaves=12,
)


def _docx(blocks: list[tuple[str, object]]) -> Office:
    words: list[str] = []
    units = {"paragraphs": 0, "cells": 0}

    def paragraph(runs: list[str]) -> str:
        units["paragraphs"] += 1
        words.extend(runs)
        return "<w:p>" + "".join(f"<w:r><w:t>{w}</w:t></w:r>" for w in runs) + "</w:p>"

    def block(kind: str, content: object) -> str:
        if kind == "p":
            return paragraph(content)  # type: ignore[arg-type]
        if kind == "sdt":
            inner = "".join(block(*b) for b in content)  # type: ignore[attr-defined]
            return f"<w:sdt><w:sdtContent>{inner}</w:sdtContent></w:sdt>"
        rows = []
        for row in content:  # type: ignore[attr-defined]
            units["cells"] += len(row)
            rows.append("<w:tr>" + "".join(f"<w:tc>{paragraph(c)}</w:tc>" for c in row) + "</w:tr>")
        return "<w:tbl>" + "".join(rows) + "</w:tbl>"

    body = "".join(block(*b) for b in blocks)
    return Office("docx", docx_of([body.encode()]), tuple(words), units)


# ---------------------------------------------------------------------------------- workbooks
CELL = st.tuples(st.integers(0, 3), st.one_of(WORD, st.integers(0, 99_999), st.none()))
ROW = st.lists(CELL, max_size=6)


def _xlsx(rows: list[list[tuple[int, object]]]) -> Office:
    words: list[str] = []
    cells = 0
    xml = []
    for number, row in enumerate(rows, start=1):
        column, parts = 0, []
        for gap, value in row:
            column += 1 + gap
            ref = f"{_letters(column)}{number}"
            if value is None:
                parts.append(f'<c r="{ref}"/>')
            elif isinstance(value, int):
                parts.append(f'<c r="{ref}"><v>{value}</v></c>')
            else:
                parts.append(f'<c r="{ref}" t="inlineStr"><is><t>{value}</t></is></c>')
            if value is not None:
                words.append(str(value))
        cells += column
        xml.append(f'<row r="{number}">{"".join(parts)}</row>')
    return Office("xlsx", xlsx_of(["".join(xml).encode()]), tuple(words), {"cells": cells})


def _letters(column: int) -> str:
    name = ""
    while column:
        column, rest = divmod(column - 1, 26)
        name = chr(65 + rest) + name
    return name


# ------------------------------------------------------------------------------ presentations
SHAPE = st.recursive(
    st.tuples(st.just("sp"), st.lists(WORDS, max_size=2)),
    lambda inner: st.tuples(st.just("grp"), st.lists(inner, max_size=3)),
    max_leaves=10,
)


def _pptx(shapes: list[tuple[str, object]]) -> Office:
    words: list[str] = []
    count = {"shapes": 0}
    ids = iter(range(2, 10_000))

    def shape(kind: str, content: object) -> str:
        count["shapes"] += 1
        props = f'<p:cNvPr id="{next(ids)}" name="s"/>'
        if kind == "grp":
            inner = "".join(shape(*s) for s in content)  # type: ignore[attr-defined]
            return (
                f"<p:grpSp><p:nvGrpSpPr>{props}<p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr>"
                f"<p:grpSpPr/>{inner}</p:grpSp>"
            )
        paragraphs = ""
        for runs in content:  # type: ignore[attr-defined]
            words.extend(runs)
            paragraphs += "<a:p>" + "".join(f"<a:r><a:t>{w}</a:t></a:r>" for w in runs) + "</a:p>"
        return (
            f"<p:sp><p:nvSpPr>{props}<p:cNvSpPr/><p:nvPr/></p:nvSpPr><p:spPr/>"
            f"<p:txBody><a:bodyPr/>{paragraphs or '<a:p/>'}</p:txBody></p:sp>"
        )

    tree = "".join(shape(*s) for s in shapes)
    return Office("pptx", pptx_of([tree.encode()]), tuple(words), count)


GENERATED = {
    "docx": st.lists(BLOCK, max_size=8).map(_docx),
    "xlsx": st.lists(ROW, max_size=10).map(_xlsx),
    "pptx": st.lists(SHAPE, max_size=6).map(_pptx),
}


async def _unchanged(text: str, *, ocr: bool = False) -> Redaction:
    return Redaction(text, (), ())


async def _read(data: bytes) -> str | InputRejected:
    try:
        content = await redact_content(
            data, 3, _unchanged, limits=CAPS, images="text-only", tesseract="tesseract"
        )
    except InputRejected as exc:
        return exc
    return content.text


def _over(office: Office) -> set[str]:
    """The caps ``office`` passes, as the reasons of their answers."""
    caps = {"paragraphs": CAPS.max_paragraphs, "cells": CAPS.max_cells, "shapes": CAPS.max_shapes}
    return {f"too_many_{unit}" for unit, n in office.units.items() if n > caps[unit]}


@pytest.mark.parametrize("kind", GENERATED)
async def test_a_generated_office_file_is_read_whole_or_gets_the_answer_of_the_cap_it_passes(
    kind,
):
    read = over = 0
    for office in drawn(GENERATED[kind]):
        outcome = await _read(office.data)
        passed = _over(office)
        if passed:
            over += 1
            assert isinstance(outcome, InputRejected), office
            assert outcome.reason in passed, (str(outcome), office)
            assert str(outcome).startswith("File 3 has more than ")
        else:
            read += 1
            assert not isinstance(outcome, InputRejected), (str(outcome), office)
            assert [w for w in office.words if w not in outcome] == [], (outcome, office)
    assert read, "some drawn files are under the caps"
    assert over, "some drawn files pass a cap"


def _damaged(office: Office, how: str, where: float, byte: int) -> bytes:
    """``office`` cut short, with one byte changed, or with a part dropped or replaced."""
    data = office.data
    at = int(where * (len(data) - 1))
    if how == "cut":
        return data[:at]
    if how == "byte":
        return data[:at] + bytes([byte]) + data[at + 1 :]
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w") as target:
        names = source.namelist()
        chosen = names[int(where * (len(names) - 1))]
        for name in names:
            if name != chosen:
                target.writestr(name, source.read(name))
            elif how == "junk":
                target.writestr(name, bytes([byte]) * 40 + b"<a><b></a>")
    return out.getvalue()


DAMAGED = st.tuples(
    st.one_of(*GENERATED.values()),
    st.sampled_from(["cut", "byte", "drop", "junk"]),
    st.floats(0, 1),
    st.integers(0, 255),
)


async def test_a_damaged_office_file_gets_text_or_a_one_line_answer_never_a_failure():
    outcomes = []
    for office, how, where, byte in drawn(DAMAGED, 60):
        outcome = await _read(_damaged(office, how, where, byte))
        if isinstance(outcome, InputRejected):
            assert outcome.reason in ANSWERS, (str(outcome), how, office.kind)
            assert "\n" not in str(outcome)
            assert str(outcome).startswith("File 3 ")
        outcomes.append(outcome.reason if isinstance(outcome, InputRejected) else "read")
    assert "read" in outcomes, "some damage leaves a file that still reads"
    assert "unreadable_file" in outcomes, "some damage leaves one that does not"
