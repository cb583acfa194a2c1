"""Files written back as their kind: what was found, and what was lost that was not personal.

The documents of ``bench_files_out`` (a docx's paragraphs and table, a workbook's rows, a
deck's text boxes and tables, a CSV, a PDF of sentences) and an invoice PDF whose table is
placed by column, each holding ``--rows`` made-up customers. Every value planted is known
(names, e-mails, phones, and the invoice's towns), and so is every word that is not personal
(items, amounts, quantities, the headers, the sentences' own words). Each file goes through
``veilbot redact --out``'s path (``bot.files.out``, the guardrail loaded once) and is opened
again with the library a user would read it with (python-docx, openpyxl, python-pptx, csv,
pypdf), and per kind this prints

- **found**: of the values planted, the share no longer readable in the output (a name
  counts as left if its first or last name is);
- **over-redaction**: of the words that are not personal, the share the output lost;
- the placeholders written, against the values planted.

These are veilbot's own labelled files: they show the structure is kept and what it costs,
not how the guardrail does on files people wrote. Run on demand:

    .venv/bin/python -m tests.perf.eval_files [--rows 200]
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import io
import os
import random
import re
from collections import Counter
from collections.abc import Sequence

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""

from bot.core.types import Redaction  # noqa: E402
from bot.files.confine import Deadline, Readers  # noqa: E402
from bot.files.out.redacted import list_units, redact_units  # noqa: E402
from tests.perf.bench_files_out import HEADER, LIMITS, files  # noqa: E402
from tests.perf.customers import customer  # noqa: E402

TOWNS = ["Springfield", "Lyon", "Portland", "Denver", "Leeds", "Utrecht", "Porto", "Graz"]
INVOICE_HEADER = ("Item", "City", "Contact", "Qty", "Amount")
FRAME = ("asked", "about", "the", "Customers", "Invoice", "Total", "due", "EUR")
_PLACEHOLDER = re.compile(r"<[A-Z_]+_\d+>")
NOTES = [
    "Renewal moved to March after the Q3 Planning review",
    "Shipped with DHL Express on Monday, tracking in Zendesk",
    "Asked for the Premium plan and a Slack channel",
    "Needs the Excel export before the Board meeting",
    "Escalated to Tier 2 Support; Jira ticket OPS-1234",
    "Prefers invoices as PDF, paid by SEPA transfer",
    "Trial of Analytics Pro ends in June",
    "Onboarding call booked for Friday with the Customer Success team",
]
"""Notes of the kind a customer table holds: capitalized words, none of them personal."""


def invoice(rows: int, seed: int = 11) -> tuple[bytes, list[str], list[str]]:
    """An invoice PDF whose table is placed by column: its bytes, values and other words."""
    from tests.fixtures.documents import table_pdf

    rng = random.Random(seed)
    table: list[tuple[str, ...]] = [INVOICE_HEADER]
    values, others = [], list(INVOICE_HEADER)
    for _ in range(rows):
        name, _, phone, item, amount = customer(rng)
        town, quantity = rng.choice(TOWNS), str(rng.randint(1, 9))
        contact = name if rng.random() < 0.5 else phone
        table.append((item, town, contact, quantity, amount))
        values += [town, contact]
        others += [item, quantity, amount]
    pages = [table[start : start + 36] for start in range(1, len(table), 36)]
    pdfs = [
        table_pdf([f"Invoice page {n + 1}"], [table[0], *page], []) for n, page in enumerate(pages)
    ]
    return _joined(pdfs), values, others


def memo(rows: int, seed: int = 13) -> tuple[bytes, list[str], list[str]]:
    """A docx table of customers, their towns and a note each: bytes, values, other words."""
    import docx

    from tests.fixtures.documents import saved

    rng = random.Random(seed)
    document = docx.Document()
    document.add_paragraph("Account review, customer notes")
    table = document.add_table(rows=1, cols=3)
    for cell, text in zip(table.rows[0].cells, ("Customer", "City", "Note"), strict=True):
        cell.text = text
    values, others = [], ["Account", "review", "customer", "notes", "Customer", "City", "Note"]
    for _ in range(rows):
        name, town, note = customer(rng)[0], rng.choice(TOWNS), rng.choice(NOTES)
        for cell, text in zip(table.add_row().cells, (name, town, note), strict=True):
            cell.text = text
        values += [name, town]
        others.append(note)
    return saved(document), values, others


def _joined(pdfs: list[bytes]) -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for data in pdfs:
        for page in PdfReader(io.BytesIO(data)).pages:
            writer.add_page(page)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def read_back(name: str, data: bytes) -> str:
    """The text a user sees on opening the file with the usual library."""
    if name.endswith(".docx"):
        import docx

        document = docx.Document(io.BytesIO(data))
        cells = [c.text for t in document.tables for r in t.rows for c in r.cells]
        return "\n".join([p.text for p in document.paragraphs] + cells)
    if name.endswith(".xlsx"):
        import openpyxl

        book = openpyxl.load_workbook(io.BytesIO(data))
        return "\n".join(
            str(v) for s in book.worksheets for row in s.iter_rows(values_only=True) for v in row
        )
    if name.endswith(".pptx"):
        import pptx

        deck = pptx.Presentation(io.BytesIO(data))
        texts = []
        for slide in deck.slides:
            for shape in slide.shapes:
                if shape.has_text_frame:
                    texts.append(shape.text_frame.text)
                if shape.has_table:
                    texts += [c.text for r in shape.table.rows for c in r.cells]
        return "\n".join(texts)
    if name.endswith(".csv"):
        return "\n".join(",".join(r) for r in csv.reader(io.StringIO(data.decode())))
    from pypdf import PdfReader

    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


def words(text: str) -> Counter[str]:
    """The text's words and figures, placeholders left out."""
    return Counter(re.findall(r"[\w.@+-]+", _PLACEHOLDER.sub(" ", text)))


def score(
    before: str, after: str, values: Sequence[str], others: Sequence[str]
) -> tuple[int, float, float, int, int]:
    """Values planted, found %, over-redaction %, non-personal words, placeholders written."""
    left = 0
    for value in set(values):
        parts = [value, *(p for p in value.split() if len(p) >= 3 and p.isalpha())]
        if any(re.search(rf"(?<![\w.@]){re.escape(p)}(?![\w@])", after) for p in parts):
            left += values.count(value)
    kept_before, kept_after = words(before), words(after)
    plain = {w for o in others for w in re.findall(r"[\w.@+-]+", o)}
    total = sum(kept_before[w] for w in plain)
    lost = sum(max(0, kept_before[w] - kept_after[w]) for w in plain)
    found = 100 * (1 - left / len(values)) if values else 100.0
    over = 100 * lost / total if total else 0.0
    return len(values), found, over, total, len(_PLACEHOLDER.findall(after))


def labelled(rows: int) -> dict[str, tuple[bytes, list[str], list[str]]]:
    """Each file with its planted values and its words that are not personal."""
    rng = random.Random(7)  # the seed ``files`` draws its customers with
    people = [customer(rng) for _ in range(rows)]
    values = [v for name, email, phone, _, _ in people for v in (name, email, phone)]
    others = [w for _, _, _, item, amount in people for w in (item, amount)]
    built = files(rows)
    out = {}
    for name, data in built.items():
        planted = list(values)
        plain = (
            [*others, *HEADER, *FRAME] if name.endswith((".docx", ".pdf")) else [*others, *HEADER]
        )
        if name.endswith(".pptx"):  # a deck keeps three columns of each customer
            planted = [v for n, e, p, _, _ in people for v in (n, e, p)]
            plain = [*HEADER[:3], "Customers"]
        out[name] = (data, planted, plain)
    out["invoice.pdf"] = invoice(rows)
    out["notes.docx"] = memo(rows)
    return out


async def redacted(name: str, data: bytes, readers: Readers, guard: object) -> bytes:
    from guardrails.redact import Numbering

    numbering = Numbering()

    async def redact_texts(units: Sequence[tuple[str, str | None]]) -> list[Redaction]:
        return guard.redact_many(numbering, units)  # type: ignore[attr-defined, no-any-return]

    deadline = Deadline(1, 600)
    listing = await list_units(data, 1, os.path.splitext(name)[1], readers, deadline)
    done = await redact_units(data, 1, listing, redact_texts, readers, deadline)
    return done.data


async def main(rows: int) -> None:
    from bot.cli.redact_file import Guard
    from bot.config.settings import load_settings

    guard = Guard(load_settings())
    readers = Readers(LIMITS)
    print(  # noqa: T201
        "| file | values | found | non-personal words | over-redaction | placeholders |\n"
        "|---|---|---|---|---|---|"
    )
    for name, (data, values, others) in labelled(rows).items():
        after = read_back(name, await redacted(name, data, readers, guard))
        count, found, over, plain, placeholders = score(
            read_back(name, data), after, values, others
        )
        print(  # noqa: T201
            f"| {name} | {count} | {found:.1f}% | {plain} | {over:.1f}% | {placeholders} |"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200)
    asyncio.run(main(parser.parse_args().rows))
