"""The README's first command installs veilbot without extras; the console must run on that.

A subprocess runs ``veilbot console`` with every module that only an extra brings made
unimportable (the extras' requirements, all the way down, less what the base install needs
anyway), and asks about a PDF: the turn reads documents, so their readers must come with the
base install. It failed when the PDF reader needed PDFium from the ``files`` extra.
"""

from __future__ import annotations

import importlib.metadata as md
import json
import textwrap
from collections.abc import Iterable
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.e2e.test_console import (  # noqa: F401  (fixture)
    CONSOLE_TIMEOUT,
    console_env,
    run_console,
)
from tests.fakes.anthropic_server import FakeAnthropic
from tests.fixtures.documents import pdf_of

pytestmark = CONSOLE_TIMEOUT


def _needed(requirements: Iterable[str], extras: Iterable[str]) -> set[str]:
    """The distributions ``requirements`` bring under ``extras``, transitively (installed ones)."""
    found: set[str] = set()
    todo = [(line, frozenset(extras)) for line in requirements]
    while todo:
        line, chosen = todo.pop()
        requirement = Requirement(line)
        marker = requirement.marker
        if marker and not any(marker.evaluate({"extra": e}) for e in (chosen or {""})):
            continue
        name = canonicalize_name(requirement.name)
        if name in found:
            continue
        found.add(name)
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue
        todo += [(sub, frozenset(requirement.extras)) for sub in dist.requires or []]
    return found


def extras_only_modules() -> set[str]:
    """Top-level modules whose every distribution only veilbot's extras bring."""
    veilbot = md.distribution("veilbot")
    requirements = veilbot.requires or []
    extras = veilbot.metadata.get_all("Provides-Extra") or []
    base = _needed(requirements, [])
    extra_only = _needed(requirements, extras) - base - {"veilbot"}
    return {
        module
        for module, dists in md.packages_distributions().items()
        if dists and all(canonicalize_name(d) in extra_only for d in dists)
    }


def test_the_extras_bring_modules_the_base_install_lacks() -> None:
    """The check below blocks something real: OCR and the other providers are extras."""
    blocked = extras_only_modules()
    assert {"pytesseract", "cv2", "openai"} <= blocked
    assert not {"pypdf", "pypdfium2", "spacy", "presidio_analyzer"} & blocked


def test_the_console_answers_about_a_pdf_without_any_extra(
    console_env: dict[str, str],  # noqa: F811
    fake_anthropic: FakeAnthropic,
    tmp_path: Path,
) -> None:
    document = tmp_path / "notes.pdf"
    document.write_bytes(pdf_of([["Meeting notes", "Call Jane Doe on +1 415 555 0123"]]))
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text(
        textwrap.dedent(
            f"""
            import sys
            BLOCKED = {sorted(extras_only_modules())!r}

            class _Extras:
                def find_spec(self, name, path=None, target=None):
                    if name.partition(".")[0] in BLOCKED:
                        raise ModuleNotFoundError(f"No module named {{name!r}} (an extra)")
                    return None

            sys.meta_path.insert(0, _Extras())
            """
        ),
        encoding="utf-8",
    )
    line = json.dumps({"thread": "base", "text": "What does it say?", "files": [str(document)]})
    env = {**console_env, "PYTHONPATH": f"{tmp_path}:{Path(__file__).resolve().parents[2]}"}

    done = run_console([line], env)

    assert done.returncode == 0, done.stderr[-2000:]
    assert "an extra" not in done.stderr
    [answer] = [json.loads(x) for x in done.stdout.splitlines() if x.strip()]
    assert answer["status"] == "ok", answer
    sent = fake_anthropic.all_text_sent()
    assert "Meeting notes" in sent  # the PDF was read,
    assert "Jane Doe" not in sent  # and redacted
    assert "555 0123" not in sent
