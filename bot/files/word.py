"""The text of a Word document (docx): every story a reader sees, not only the body.

python-docx walks a body's paragraphs and tables, but a paragraph's text there leaves out
what Word shows from deeper in the XML: tracked insertions, content controls (form fields),
and text boxes; and footnotes, endnotes and comments are parts of their own. People put
personal data in all of them (a reviewer's comment, a footnote citing a patient, a text box
on a form), so each is read here and goes through the guardrail with the rest:

- the body, in reading order: a paragraph, then the text boxes anchored in it; a table one
  line per row, cells tab-separated; content controls opened;
- every header and footer part once (sections that link to the previous one share its part);
- ``# Footnotes``, ``# Endnotes``, and ``# Comments`` (each under its author's name).

Deleted text of tracked changes (``w:delText``), the old place of moved text (``w:moveFrom``)
and field codes are not shown by Word and are not read. A text box is stored twice (DrawingML
and a VML fallback for old readers); the fallback is skipped.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator

import docx
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.part import Part, XmlPart
from docx.oxml.parser import parse_xml
from docx.oxml.xmlchemy import BaseOxmlElement

from bot.files.extracted import Extracted, TextAllowance
from bot.files.limits import FileLimits
from bot.files.office import check_package, one_line

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_UNSEEN = {
    "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback",
    f"{_W}moveFrom",
}
"""Copies Word does not show: a text box's VML fallback, and where tracked moved text was."""
_P, _TBL, _TR, _TC, _R, _T = (f"{_W}{tag}" for tag in ("p", "tbl", "tr", "tc", "r", "t"))
_OPENED = {f"{_W}body": None, f"{_W}sdt": f"{_W}sdtContent", f"{_W}customXml": None}
"""Wrappers whose content is read: the body, a content control, custom XML markup."""
_RUN_MARKS = {f"{_W}tab": "\t", f"{_W}br": "\n", f"{_W}cr": "\n", f"{_W}noBreakHyphen": "-"}
_NOTES = (("Footnotes", RT.FOOTNOTES, "footnote"), ("Endnotes", RT.ENDNOTES, "endnote"))
_APP_PAGES = re.compile(rb"<(?:\w+:)?Pages>(\d+)</(?:\w+:)?Pages>")


def read_docx(data: bytes, position: int, limits: FileLimits) -> Extracted:
    """The body, headers and footers, footnotes, endnotes and comments of a docx file."""
    app = check_package(data, "docx", position, limits)
    found = _APP_PAGES.search(app or b"")
    pages = max(1, int(found.group(1))) if found else 1
    limits.check_pages(position, pages)
    part = docx.Document(io.BytesIO(data)).part
    allowance = TextAllowance(position, limits)
    for line in _document_lines(part):
        allowance.add(line)
    return Extracted.of_text(allowance.text(), pages=pages)


def _document_lines(part: Part) -> Iterator[str]:
    yield from _story(_element(part))
    for related in _related(part, RT.HEADER, RT.FOOTER):
        yield from _story(_element(related))
    for heading, reltype, tag in _NOTES:
        for notes in _related(part, reltype):
            yield from _headed(heading, _notes(_element(notes), tag))
    for comments in _related(part, RT.COMMENTS):
        yield from _headed("Comments", _comments(_element(comments)))


def _related(part: Part, *reltypes: str) -> list[Part]:
    """The parts ``part`` relates to by any of ``reltypes``, each once, in relationship order."""
    found: dict[int, Part] = {}
    for rel in part.rels.values():
        if rel.reltype in reltypes and not rel.is_external:
            found.setdefault(id(rel.target_part), rel.target_part)
    return list(found.values())


def _element(part: Part) -> BaseOxmlElement:
    """The XML of a part, whether python-docx parsed it (body, headers) or left it bytes."""
    return part.element if isinstance(part, XmlPart) else parse_xml(part.blob)


def _headed(heading: str, lines: Iterator[str]) -> Iterator[str]:
    """``lines`` under a ``# heading``, or nothing when there are none."""
    first = next(lines, None)
    if first is not None:
        yield f"# {heading}"
        yield first
        yield from lines


def _notes(root: BaseOxmlElement, tag: str) -> Iterator[str]:
    """The lines of every footnote (endnote); the separators Word keeps among them hold none."""
    for note in root.iterchildren(f"{_W}{tag}"):
        if note.get(f"{_W}type") in (None, "normal"):
            yield from _story(note)


def _comments(root: BaseOxmlElement) -> Iterator[str]:
    """Each comment's lines, the first after its author's name (personal data too)."""
    for comment in root.iterchildren(f"{_W}comment"):
        author = comment.get(f"{_W}author") or ""
        lines = _story(comment)
        first = next(lines, None)
        if first is not None:
            yield f"{author}: {first}" if author else first
            yield from lines


def _story(container: BaseOxmlElement, *, tables: bool = True) -> Iterator[str]:
    """The non-empty lines of a body, header, note, comment or cell, in reading order.

    A cell's own text is read with ``tables=False``: its nested tables follow its row.
    """
    for child in container.iterchildren():
        if child.tag == _P:
            yield from (line for line in _paragraph_lines(child) if line.strip())
        elif child.tag == _TBL and tables:
            yield from _table(child)
        elif child.tag in _OPENED:
            inner = _OPENED[child.tag]
            content = child if inner is None else child.find(inner)
            if content is not None:
                yield from _story(content, tables=tables)


def _paragraph_lines(paragraph: BaseOxmlElement) -> Iterator[str]:
    """The paragraph's own text, then that of each paragraph in its text boxes."""
    yield _own_text(paragraph)
    for inner in paragraph.iter(_P):
        if inner is not paragraph and not _unseen(inner, paragraph):
            yield _own_text(inner)


def _own_text(paragraph: BaseOxmlElement) -> str:
    """The text of the runs that belong to this paragraph, not to a text box inside it.

    Runs nested in insertions, content controls, hyperlinks, fields or smart tags count.
    """
    return "".join(
        _run_text(run)
        for run in paragraph.iter(_R)
        if _nearest(run, _P) is paragraph and not _unseen(run, paragraph)
    )


def _run_text(run: BaseOxmlElement) -> str:
    return "".join(
        (child.text or "") if child.tag == _T else _RUN_MARKS.get(child.tag, "") for child in run
    )


def _unseen(element: BaseOxmlElement, stop: BaseOxmlElement) -> bool:
    """Whether ``element`` lies, below ``stop``, in a copy Word does not show."""
    up = element.getparent()
    while up is not None and up is not stop:
        if up.tag in _UNSEEN:
            return True
        up = up.getparent()
    return False


def _table(table: BaseOxmlElement) -> Iterator[str]:
    """One line per row, cells tab-separated; tables nested in a cell follow its row."""
    for row in table.iterchildren(_TR):
        cells = list(row.iter(_TC))
        own = [cell for cell in cells if _nearest(cell, _TR) is row]
        line = "\t".join(one_line(" ".join(_story(cell, tables=False))) for cell in own)
        if line.strip():
            yield line
        for cell in own:
            for nested in cell.iterchildren(_TBL):
                yield from _table(nested)


def _nearest(element: BaseOxmlElement, tag: str) -> BaseOxmlElement | None:
    """The nearest element around ``element`` with ``tag``."""
    up: BaseOxmlElement | None = element.getparent()
    while up is not None and up.tag != tag:
        up = up.getparent()
    return up
