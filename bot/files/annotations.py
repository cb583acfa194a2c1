"""Comments people leave on a workbook's cells and a presentation's slides, with their authors.

Neither openpyxl's read-only mode nor python-pptx reads them, yet they hold personal data as
often as the cells and slides do ("call Maria on +1 415 …", and the reviewer's own name), so
they are read from their parts here and go through the guardrail with the rest of the file:

- Excel: each sheet's notes (``xl/comments*.xml``; Excel also writes a threaded comment's
  thread there, for older readers), after the sheet's rows: ``Note on B2 by <author>: …``;
- PowerPoint: each slide's comments, classic (``ppt/comments/``) and modern
  (``ppt/comments/modernComment_*.xml``, replies too), after its notes:
  ``Comment by <author>: …``; authors come from ``commentAuthors.xml`` or ``authors.xml``.
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from typing import Any

from openpyxl.comments.comment_sheet import CommentSheet  # type: ignore[import-untyped]
from openpyxl.packaging.relationship import (  # type: ignore[import-untyped]
    get_dependents,
    get_rels_path,
)
from openpyxl.xml.constants import COMMENTS_NS  # type: ignore[import-untyped]
from openpyxl.xml.functions import fromstring  # type: ignore[import-untyped]
from pptx.opc.package import Part
from pptx.oxml import parse_xml


def sheet_notes(archive: zipfile.ZipFile, sheet_path: str) -> Iterator[str]:
    """The notes on a worksheet's cells, one line each, in the order Excel stores them."""
    rels_path = get_rels_path(sheet_path)
    if rels_path not in archive.namelist():
        return
    for rel in get_dependents(archive, rels_path).find(COMMENTS_NS):
        notes = CommentSheet.from_tree(fromstring(archive.read(rel.target)))
        for ref, comment in notes.comments:
            text = " ".join(str(comment.text or "").split())
            if text:
                yield f"Note on {ref} by {comment.author}: {text}"


def comment_authors(presentation: Part) -> dict[str, str]:
    """The names of a presentation's comment authors by id (classic ids and modern GUIDs)."""
    names: dict[str, str] = {}
    for part in _related(presentation, "/commentAuthors", "/authors"):
        for author in parse_xml(part.blob).iter():
            if _local(author.tag) in ("cmAuthor", "author") and author.get("id") is not None:
                names[str(author.get("id"))] = str(author.get("name") or "")
    return names


def slide_comments(slide: Part, authors: dict[str, str]) -> Iterator[str]:
    """A slide's comments and their replies, one line each, under their authors' names."""
    for part in _related(slide, "/comments"):
        for comment in parse_xml(part.blob).iter():
            if _local(comment.tag) in ("cm", "reply"):
                text = " ".join(_comment_text(comment).split())
                if text:
                    author = authors.get(str(comment.get("authorId")), "")
                    yield f"Comment by {author}: {text}" if author else f"Comment: {text}"


def _comment_text(comment: Any) -> str:
    """A classic comment's ``p:text``, or the paragraphs of a modern one's own ``txBody``."""
    for child in comment.iterchildren():
        if _local(child.tag) == "text":
            return str(child.text or "")
        if _local(child.tag) == "txBody":
            return " ".join(
                "".join(str(t.text or "") for t in p.iter() if _local(t.tag) == "t")
                for p in child.iter()
                if _local(p.tag) == "p"
            )
    return ""


def _related(part: Part, *suffixes: str) -> list[Part]:
    """The parts ``part`` relates to by a relationship type ending in one of ``suffixes``."""
    return [
        rel.target_part
        for rel in part.rels.values()
        if not rel.is_external and rel.reltype.endswith(suffixes)
    ]


def _local(tag: object) -> str:
    """An element's tag without its namespace (comments are ``p:cm`` or ``p188:cm``)."""
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""
