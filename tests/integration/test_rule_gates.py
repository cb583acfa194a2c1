"""A rule skips a text without the character every match of it needs, and loses nothing by it.

``Rule.needs`` (and the same check on Presidio's number and e-mail patterns) lets a text that
no rule can match, such as a long run of dot-joined words, cost one pass over its distinct
characters instead of a scan per rule. A wrong class would silently drop personal data, so
every gated rule must find exactly what it finds without its gate, on the labelled corpus
(every entity type, Slack and Discord markup) and on the values alone.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from guardrails.detect.detection import detect, text_recognizers
from guardrails.rules.recognizers import RegexRecognizer, Rule

DATA = Path(__file__).parents[1] / "data"


def _texts() -> list[str]:
    with (DATA / "corpus.jsonl").open(encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines]
    values = [item["value"] for row in rows for item in row["pii"]]
    return [row["text"] for row in rows] + values


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return _texts()


def _gated_rules(analyzer: Any) -> list[tuple[str, Rule]]:
    return [
        (f"{r.name}[{i}]", rule)
        for r in text_recognizers(analyzer)
        if isinstance(r, RegexRecognizer)
        for i, rule in enumerate(r.rules)
        if rule.needs is not None
    ]


def test_every_gated_rule_finds_what_it_finds_ungated(
    presidio_analyzer: Any, texts: list[str]
) -> None:
    rules = _gated_rules(presidio_analyzer)
    assert len(rules) > 30  # the gates are on: the comparison below compares something
    lost: dict[str, list[str]] = {}
    found = 0
    for name, rule in rules:
        ungated = dataclasses.replace(rule, needs=None)
        for text in texts:
            expected = list(ungated.find(text))
            found += len(expected)
            if list(rule.find(text)) != expected:
                lost.setdefault(name, []).append(text[:60])
    assert found > 500  # the corpus gives the rules values to find
    assert lost == {}


def test_presidio_patterns_find_what_they_find_ungated(
    presidio_analyzer: Any, texts: list[str]
) -> None:
    gated = [r for r in text_recognizers(presidio_analyzer) if getattr(r, "veilbot_gated", False)]
    assert {type(r).__name__ for r in gated} >= {"IpRecognizer", "UsSsnRecognizer"}
    for recognizer in gated:
        entities = list(recognizer.supported_entities)
        for text in texts:
            mine = recognizer.analyze(text, entities, None)
            theirs = type(recognizer).analyze(recognizer, text, entities, None)
            assert [(r.start, r.end, r.score) for r in mine] == [
                (r.start, r.end, r.score) for r in theirs
            ], (type(recognizer).__name__, text[:60])


def test_values_in_a_run_of_dot_joined_words_are_still_found(presidio_analyzer: Any) -> None:
    """The run alone is skipped by every rule; a value in it brings its rules back."""
    run = ".".join(["the", "deploy", "failed", "again"] * 500)
    assert detect(presidio_analyzer, run, "console") == []
    text = f"{run} mail jane.doe@acme.com or call +1 415 555 0123 from 192.168.10.24 {run}"
    found = {text[d.start : d.end]: d.type for d in detect(presidio_analyzer, text, "console")}
    assert found == {
        "jane.doe@acme.com": "EMAIL_ADDRESS",
        "+1 415 555 0123": "PHONE_NUMBER",
        "192.168.10.24": "IP_ADDRESS",
    }
