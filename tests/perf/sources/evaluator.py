"""Sentences from ``presidio-evaluator``'s generator and its shipped templates, as cases.

``PresidioSentenceFaker`` (PyPI ``presidio-evaluator``, the ``eval`` extra) fills the
package's own ``templates.txt`` with fake values and labels every slot, so labels are
complete. Seeded (Python's ``random`` too, which the package draws from before it seeds
anything, and Faker's clock, from which it draws date-times): the same package version and
seed give the same sentences. Its hospital
provider is left out because it queries WikiData when built (no template uses it). Templates
write line breaks as ``\\n``: they become real line breaks, spans moved to match. ORGANIZATION
spans are keep spans.
"""

from __future__ import annotations

import contextlib
import datetime
import io
import random
import re
from collections.abc import Iterator
from importlib import metadata
from typing import Any

from tests.perf.sources.cases import Case, Origin, keep, label, merge_labels

NAME = "presidio-evaluator"
PACKAGE = "presidio-evaluator"
SEED = 42
SENTENCES = 1000
LOWER_CASE_RATIO = 0.05
"""As in the package's own example run."""
KEEP_TYPES = {"ORGANIZATION"}
_ESCAPE = re.compile(r"\\n")


def unescape(
    text: str, spans: list[tuple[str, int, int]]
) -> tuple[str, list[tuple[str, int, int]]]:
    """``text`` with each literal ``\\n`` made a line break, and ``spans`` moved to match."""
    escapes = [m.start() for m in _ESCAPE.finditer(text)]

    def moved(offset: int) -> int:
        return offset - sum(1 for f in escapes if f + 2 <= offset or f + 1 == offset)

    return text.replace("\\n", "\n"), [(k, moved(a), moved(b)) for k, a, b in spans]


@contextlib.contextmanager
def _frozen_clock() -> Iterator[None]:
    """Faker draws date-times relative to now: make now a fixed moment while generating."""
    from faker.providers import date_time

    class Frozen(datetime.datetime):
        @classmethod
        def now(cls, tz: datetime.tzinfo | None = None) -> Frozen:
            return cls(2025, 6, 1, 12, 0, 0, tzinfo=tz)

    real = date_time.datetime
    date_time.datetime = Frozen  # type: ignore[misc]
    try:
        yield
    finally:
        date_time.datetime = real  # type: ignore[misc]


def _generate(count: int, seed: int) -> list[Any]:
    from presidio_evaluator.data_generator import presidio_sentence_faker as faker_module
    from presidio_evaluator.data_generator.faker_extensions import HospitalProvider

    providers = [
        p for p in faker_module.presidio_additional_entity_providers if p is not HospitalProvider
    ]
    random.seed(seed)  # the package draws its name formats before it seeds anything itself
    quiet = contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO())
    with quiet[0], quiet[1], _frozen_clock():
        faker = faker_module.PresidioSentenceFaker(
            "en_US", lower_case_ratio=LOWER_CASE_RATIO, entity_providers=providers, random_seed=seed
        )
        return list(faker.generate_new_fake_sentences(num_samples=count))


def load(count: int = SENTENCES, seed: int = SEED) -> Iterator[Case]:
    """``count`` generated sentences.

    Raises:
        ImportError: ``presidio-evaluator`` is not installed (``pip install -e '.[eval]'``).
    """
    version = metadata.version(PACKAGE)
    for index, sample in enumerate(_generate(count, seed)):
        raw = [(s.entity_type, s.start_position, s.end_position) for s in sample.spans]
        text, spans = unescape(sample.full_text, raw)
        test = f"seed {seed} sentence {index} template {sample.template_id}"
        yield Case(
            source=NAME,
            id=f"{NAME}:{version}:{seed}:{index}",
            origin=Origin(PACKAGE, version, "raw_data/templates.txt", test),
            text=text,
            labels=merge_labels([label(k, text, a, b) for k, a, b in spans if k not in KEEP_TYPES]),
            keeps=tuple(keep(k.lower(), text, a, b) for k, a, b in spans if k in KEEP_TYPES),
        )
