"""Where veilbot's entity model ships: the one part of ``guardrails.ner`` read at run time."""

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
