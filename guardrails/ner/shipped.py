"""Where veilbot's entity model ships: the one part of ``guardrails.ner`` read at run time."""

import gzip
from dataclasses import dataclass
from pathlib import Path

MODEL_NAME = "veilbot_ner"
MODEL_DIR = Path(__file__).with_name("model")
"""The shipped spaCy pipeline (the small English model with veilbot's NER in it)."""

LANGUAGE_MODELS = Path(__file__).with_name("models")
"""Entity models of other languages, one spaCy pipeline folder per language code
(``models/es``), built by ``python -m guardrails.ner.build --language es``."""


def language_model(language: str) -> Path:
    """The folder of ``language``'s shipped entity model (it may not exist)."""
    return LANGUAGE_MODELS / language


WORDS = "words.txt.gz"
NAMES = "names.txt.gz"
LOWER = "lower.txt.gz"


@dataclass(frozen=True)
class Vocabulary:
    """A language's capitalised words that are no names, those that are people's, its others.

    Read from its training text, shipped beside its model (``guardrails.ner.words``).
    """

    words: frozenset[str] = frozenset()
    names: frozenset[str] = frozenset()
    lower: frozenset[str] = frozenset()
    """The words it writes in lower case: one of them opening a sentence is no name there."""


def read_vocabulary(folder: Path) -> Vocabulary:
    """The vocabulary shipped in a model's ``folder``; an empty one when it has none."""
    parts = []
    for name in (WORDS, NAMES, LOWER):
        path = folder / name
        text = gzip.decompress(path.read_bytes()).decode("utf-8") if path.is_file() else ""
        parts.append(frozenset(text.split()))
    return Vocabulary(*parts)
