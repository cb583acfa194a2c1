"""Word and PowerPoint files (docx, pptx) redacted in their XML, part by part, runs kept.

Every XML part of the package is read, not only those a library models, so what a reader
process reads for the model (the body, headers, footers, footnotes, endnotes, comments, text
boxes, speaker notes, slide comments) is all written back redacted, and so are the copies the
reader skips but the bytes still hold: a text box's VML fallback, tracked deletions, field
codes (``HYPERLINK "mailto:…"``), layouts and masters. The units:

- each paragraph (``w:p``, ``a:p``) alone: its runs' text with tabs and breaks, in one unit,
  so a value split across runs of different formatting is found whole and written back into
  its first run (``bot.files.out.splice``); deleted text and field codes are units of their own;
- a paragraph in a table cell is read under its column's header (the table's first row);
- a classic slide comment's text; the names people leave on a file: comment and tracked-change
  authors, their initials and user ids, comment-author lists;
- the document properties (``docProps``): author, last modified by, manager, title, subject,
  keywords, description, category, company, and custom properties under their names;
- the target of every external relationship (``_rels``): a hyperlink's ``mailto:`` address,
  which Word makes of every e-mail address typed, or a link with a name in it.

The XML is parsed with entities and the network off; a part no unit changed is copied as it
was, byte for byte.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lxml import etree  # type: ignore[import-untyped]

from bot.files.out.splice import Edit, spliced

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_XML_SPACE = "{http://www.w3.org/XML/1998/namespace}space"
_PARAGRAPHS = frozenset({f"{_W}p", f"{_A}p"})
_TEXT = {f"{_W}t": "text", f"{_A}t": "text", f"{_W}delText": "deleted", f"{_W}instrText": "code"}
"""Elements holding a paragraph's text, by the unit they go to."""
_MARKS = {
    f"{_W}tab": "\t",
    f"{_W}br": "\n",
    f"{_W}cr": "\n",
    f"{_W}noBreakHyphen": "-",
    f"{_A}br": "\n",
}
_CELLS = frozenset({f"{_W}tc", f"{_A}tc"})
_PERSON = "Full name"
"""The heading a name of a person is read under (a key the structure rules type as a name)."""
_PEOPLE_ATTRIBUTES = frozenset({"author", "initials", "userId"})
_NAMED_PEOPLE = frozenset({"cmAuthor", "author", "person"})
"""Elements whose ``name`` attribute is a person's (comment-author lists)."""
_PROPERTIES = {
    "creator": _PERSON,
    "lastModifiedBy": _PERSON,
    "Manager": _PERSON,
    **dict.fromkeys(
        "title subject description keywords category contentStatus identifier Company".split()
    ),
}
"""The document properties read, and the heading each is read under (``None``: none)."""
_STRINGS = frozenset({"lpstr", "lpwstr"})
"""A string of a property list: a title of a part (a slide's), or a custom property's value."""
_PROPERTY_PARTS = ("docProps/core.xml", "docProps/app.xml", "docProps/custom.xml")
_PREFIXES = {"docx": "word/", "pptx": "ppt/"}
_RELATIONSHIP = "{http://schemas.openxmlformats.org/package/2006/relationships}Relationship"


def _parser() -> Any:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)


@dataclass(slots=True)
class _Piece:
    """A piece of a unit's text: an element's text, an attribute, or a fixed mark."""

    element: Any
    attribute: str | None = None
    mark: str | None = None

    @property
    def text(self) -> str:
        if self.mark is not None:
            return self.mark
        if self.attribute is not None:
            return str(self.element.get(self.attribute) or "")
        return str(self.element.text or "")

    def set(self, value: str) -> None:
        if self.attribute is not None:
            self.element.set(self.attribute, value)
        else:
            self.element.text = value
            if self.element.tag == f"{_W}t":
                self.element.set(_XML_SPACE, "preserve")


@dataclass(slots=True)
class _Unit:
    """One unit in a part: its pieces and the heading it sits under."""

    pieces: list[_Piece]
    context: str | None = None

    @property
    def text(self) -> str:
        return "".join(piece.text for piece in self.pieces)

    def apply(self, edits: Sequence[Edit]) -> None:
        texts = [piece.text for piece in self.pieces]
        fixed = [piece.mark is not None for piece in self.pieces]
        for piece, new, old in zip(self.pieces, spliced(texts, fixed, edits), texts, strict=True):
            if new != old:
                piece.set(new)


def package_units(data: bytes, kind: str) -> Iterator[tuple[str, str | None]]:
    """The text and heading of every unit of a docx or pptx file, in a fixed order."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for name, root in _parts(archive, kind):
            for unit in _units(root, properties=name in _PROPERTY_PARTS):
                if unit.text.strip():
                    yield unit.text, unit.context


def rewritten(data: bytes, kind: str, edits: Mapping[int, Sequence[Edit]]) -> bytes:
    """The file with each unit's edits (by its place in ``package_units``) made in place."""
    out = io.BytesIO()
    number = 0
    with (
        zipfile.ZipFile(io.BytesIO(data)) as archive,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as written,
    ):
        changed: dict[str, bytes] = {}
        for name, root in _parts(archive, kind):
            touched = False
            for unit in _units(root, properties=name in _PROPERTY_PARTS):
                if not unit.text.strip():
                    continue
                if number in edits:
                    unit.apply(edits[number])
                    touched = True
                number += 1
            if touched:
                changed[name] = etree.tostring(
                    root, xml_declaration=True, encoding="UTF-8", standalone=True
                )
        for info in archive.infolist():
            written.writestr(info, changed.get(info.filename) or archive.read(info))
    return out.getvalue()


def _parts(archive: zipfile.ZipFile, kind: str) -> Iterator[tuple[str, Any]]:
    """Each XML part that holds text (and each relationships part), parsed, in the zip's order."""
    prefix = _PREFIXES[kind]
    for info in archive.infolist():
        name = info.filename
        if not name.endswith((".xml", ".rels")):
            continue
        if name.startswith(prefix) or name in _PROPERTY_PARTS or name.endswith(".rels"):
            try:
                root = etree.fromstring(archive.read(info), _parser())
            except etree.XMLSyntaxError:
                continue  # a broken part: the reader read none of it either
            yield name, root


def _units(root: Any, *, properties: bool) -> Iterator[_Unit]:
    """The units of one part (see the module docstring), in document order.

    ``properties``: the part is one of ``docProps``, whose leaves are the properties.
    """
    # keyed by the element itself: an lxml proxy lives while it is referenced, and its id()
    # can be reused by another once it is not
    paragraphs: dict[tuple[Any, str], _Unit] = {}
    headers = _Headers()
    for element in root.iter():
        if not isinstance(element.tag, str):
            continue  # a comment or a processing instruction
        yield from _attribute_units(element)
        local = element.tag.rsplit("}", 1)[-1]
        group = _TEXT.get(element.tag)
        mark = _MARKS.get(element.tag)
        if group is not None or mark is not None:
            paragraph = _nearest(element, _PARAGRAPHS)
            if paragraph is None:
                continue
            key = (paragraph, group or "text")
            unit = paragraphs.get(key)
            if unit is None:
                unit = paragraphs[key] = _Unit([], headers.of(paragraph))
            unit.pieces.append(_Piece(element, mark=mark))
        elif element.tag == f"{_P}text":
            yield _Unit([_Piece(element)])  # a classic slide comment
        elif element.tag == _RELATIONSHIP and element.get("TargetMode") == "External":
            yield _Unit([_Piece(element, attribute="Target")])
        elif properties and len(element) == 0 and (local in _PROPERTIES or local in _STRINGS):
            yield _Unit([_Piece(element)], _property_heading(element, local))
    yield from paragraphs.values()


def _attribute_units(element: Any) -> Iterator[_Unit]:
    """The names of people an element carries in its attributes."""
    local = element.tag.rsplit("}", 1)[-1]
    for attribute in element.attrib:
        name = attribute.rsplit("}", 1)[-1]
        if name in _PEOPLE_ATTRIBUTES or name == "name" and local in _NAMED_PEOPLE:
            yield _Unit([_Piece(element, attribute=attribute)], _PERSON)


def _property_heading(element: Any, local: str) -> str | None:
    """The heading a property is read under: its kind's, or a custom property's own name."""
    if local in _PROPERTIES:
        return _PROPERTIES[local]
    parent = element.getparent()
    if parent is not None and parent.tag.rsplit("}", 1)[-1] == "property":
        return str(parent.get("name") or "") or None
    return None


class _Headers:
    """The column header of a paragraph in a table cell: the table's first row's cell."""

    def __init__(self) -> None:
        self._tables: dict[Any, list[str]] = {}

    def of(self, paragraph: Any) -> str | None:
        cell = _nearest(paragraph, _CELLS)
        if cell is None:
            return None
        row = cell.getparent()
        table = row.getparent() if row is not None else None
        if table is None:
            return None
        rows = [child for child in table if child.tag == row.tag]
        if not rows or rows[0] is row:
            return None  # the header row itself: each header read alone
        header = self._tables.get(table)
        if header is None:
            header = self._tables[table] = [_cell_text(c) for c in rows[0] if c.tag in _CELLS]
        column = [c for c in row if c.tag in _CELLS].index(cell)
        return header[column] if column < len(header) and header[column].strip() else None


def _cell_text(cell: Any) -> str:
    return " ".join(
        "".join(str(t.text or "") for t in p.iter(f"{_W}t", f"{_A}t"))
        for p in cell.iter(*_PARAGRAPHS)
    )


def _nearest(element: Any, tags: frozenset[str]) -> Any:
    """The nearest element around ``element`` whose tag is one of ``tags``."""
    up = element.getparent()
    while up is not None and up.tag not in tags:
        up = up.getparent()
    return up
