"""Detection of several messages at once finds exactly what one at a time finds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from guardrails.detect.detection import detect, detect_many
from guardrails.engine import build_pattern_analyzer

DATA = Path(__file__).parents[1] / "data"


def _corpus() -> list[tuple[str, str]]:
    """Every labelled message (Slack and Discord markup), long messages, blank ones."""
    with (DATA / "corpus.jsonl").open(encoding="utf-8") as lines:
        messages = [(r["text"], r["platform"]) for r in map(json.loads, lines)]
    texts = [text for text, _ in messages]
    long = [(" ".join(texts[i : i + 25]), "console") for i in range(0, 100, 25)]
    blank = [("", "console"), (" \n\t ", "slack"), ("``` ```", "discord")]
    return [*messages, *long, *blank]


@pytest.mark.parametrize("prose", [True, False])
@pytest.mark.parametrize("chunk_chars", [4000, 300])
def test_a_batch_finds_what_one_message_at_a_time_finds(
    presidio_analyzer: Any, prose: bool, chunk_chars: int
) -> None:
    analyzer = presidio_analyzer if prose else build_pattern_analyzer(presidio_analyzer)
    messages = _corpus()

    def one(text: str, platform: Any) -> list[Any]:
        return detect(analyzer, text, platform, chunk_chars=chunk_chars, prose=prose)

    expected = [one(text, platform) for text, platform in messages]
    got: list[Any] = []
    for i in range(0, len(messages), 32):
        batch = messages[i : i + 32]
        got += detect_many(analyzer, batch, chunk_chars=chunk_chars, prose=prose)  # type: ignore[arg-type]
    assert got == expected
    assert sum(map(len, expected)) > len(messages) // 2  # the corpus is full of personal data


def test_a_message_that_breaks_the_model_fails_alone(presidio_analyzer: Any) -> None:
    """A chunk longer than spaCy accepts (``nlp.max_length``) makes the NER pass raise: the
    batch's shared pass fails, and each message is analysed again on its own."""
    too_long = "I'm Maria Gonzalez. " * 51_000  # over 1,000,000 characters, in one chunk
    messages = [
        ("Write to maria.gonzalez@example.com", "console"),
        (too_long, "console"),
        ("<@U024BE7LH> call +1 415 555 0123", "slack"),
    ]
    got = detect_many(presidio_analyzer, messages, chunk_chars=2_000_000)  # type: ignore[arg-type]
    assert isinstance(got[1], ValueError)
    assert got[0] == detect(presidio_analyzer, *messages[0])  # type: ignore[arg-type]
    assert got[2] == detect(presidio_analyzer, *messages[2])  # type: ignore[arg-type]
    assert [d.type for d in got[0]] == ["EMAIL_ADDRESS"]  # type: ignore[union-attr]
    assert {d.type for d in got[2]} == {"USER", "PHONE_NUMBER"}  # type: ignore[union-attr]
