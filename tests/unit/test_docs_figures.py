"""A measured figure is written once, in docs/performance.md; other pages link to it.

Retyped figures drift apart (the service process was 370 MB on one page and 214 MiB on
another; a detection process 250-290, 250 and 252). These checks find a memory figure of a
process or pod, or an ack latency percentile, anywhere else.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOME = ROOT / "docs" / "performance.md"
PAGES = sorted(
    [
        ROOT / "README.md",
        *(ROOT / "docs").glob("*.md"),
        *(ROOT / "deploy").rglob("*.md"),
        *(ROOT / "deploy").rglob("*.y*ml"),
        ROOT / "deploy" / "Dockerfile",
    ]
)
SIZE = r"\d[\d.,]*(?:-\d[\d.,]*)? ?(?:MB|MiB|GB|GiB)\b"
WHAT = r"(?:process(?:es)?|pods?|resident|RSS|PSS)\b"
MEMORY = re.compile(rf"{WHAT}[^.|]{{0,60}}{SIZE}|{SIZE}[^.|]{{0,60}}\b{WHAT}", re.IGNORECASE)
ACK_LATENCY = re.compile(r"\backs?\b[^.|]{0,40}\bp\d\d\b[^.|]{0,40}\d+(?:\.\d+)? ?ms")


def prose(text: str) -> str:
    """The text with its lines joined (wrapped sentences, YAML comments) into one."""
    return re.sub(r"[ \t]*\n[ \t]*#?[ \t]*", " ", text)


@pytest.mark.parametrize("page", [p for p in PAGES if p != HOME], ids=lambda p: p.name)
def test_no_page_but_performance_md_states_a_memory_or_ack_figure(page: Path) -> None:
    text = prose(page.read_text(encoding="utf-8"))
    found = [m.group() for m in (*MEMORY.finditer(text), *ACK_LATENCY.finditer(text))]
    assert found == [], f"{page.relative_to(ROOT)}: link to docs/performance.md instead"


def test_performance_md_states_them() -> None:
    text = prose(HOME.read_text(encoding="utf-8"))
    assert MEMORY.search(text)
    assert "ack" in text
