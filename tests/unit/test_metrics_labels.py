"""Metric labels are bounded: whatever a record carries, no label holds free text."""

from __future__ import annotations

from datetime import UTC, datetime

from prometheus_client.parser import text_string_to_metric_families

from bot.core.types import AuditRecord, TurnStatus
from bot.metrics import PrometheusMetrics


def record(**fields: object) -> AuditRecord:
    now = datetime.now(UTC)
    values: dict[str, object] = {
        "run_id": "r1",
        "thread_id": "slack:T1:C1:1.1",
        "platform": "slack",
        "workspace": "T1",
        "channel": "C1",
        "user_id": "U1",
        "message_id": "1.1",
        "started_at": now,
        "finished_at": now,
        "status": TurnStatus.OK,
    }
    values.update(fields)
    return AuditRecord(**values)  # type: ignore[arg-type]


def labels(metrics: PrometheusMetrics) -> set[str]:
    text = metrics.exposition().decode()
    return {
        value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        for name, value in sample.labels.items()
        if name != "le"
    }


def test_values_outside_the_label_grammar_become_other() -> None:
    metrics = PrometheusMetrics()
    metrics.turn_finished(
        record(
            platform="Maria's laptop",
            entity_counts={"Maria Gonzalez": 1, "PERSON": 2},
            latencies_ms={"call maria@example.org": 3.0, "model": 5.0},
            model="a model named Maria Gonzalez",
            input_tokens=10,
        )
    )
    metrics.duplicate_dropped("maria@example.org")

    assert labels(metrics) == {"other", "ok", "PERSON", "model", "input"}


def test_two_apps_do_not_share_counts() -> None:
    first, second = PrometheusMetrics(), PrometheusMetrics()
    first.turn_finished(record())
    assert "veilbot_turns_total{" in first.exposition().decode()
    assert "veilbot_turns_total{" not in second.exposition().decode()
