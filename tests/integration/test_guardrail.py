"""The Presidio guardrail on a real spaCy model and a real Redis."""

import asyncio
import os
import time

import pytest
import redis.asyncio as aioredis
from presidio_analyzer import AnalyzerEngine, Pattern, PatternRecognizer

from bot.core.errors import GuardrailError, StoreUnavailable
from bot.core.keys import KeySpace
from bot.core.types import ThreadId
from guardrails.engine import build_analyzer, build_pattern_analyzer
from guardrails.policy import default_policy
from guardrails.presidio import PresidioGuardrail
from guardrails.restore.placeholders import NEUTRAL
from guardrails.vault.store import RedisVault
from tests.fixtures.guardrail import TEST_VAULT_KEY
from tests.fixtures.services import free_port, redis_dump

T1 = ThreadId("slack:T1:C1:1700000000.000100")
T2 = ThreadId("discord:G1:4242")
SEEDED_TEXT = (
    "Hi, I'm Maria Gonzalez. Write to maria.gonzalez@example.com or call 212-555-0187. "
    "My card is 4111 1111 1111 1111 and my IBAN is DE89 3704 0044 0532 0130 00."
)
SEEDED_VALUES = [
    "Maria Gonzalez",
    "maria.gonzalez@example.com",
    "212-555-0187",
    "4111 1111 1111 1111",
    "DE89 3704 0044 0532 0130 00",
]


async def test_personal_data_is_replaced_by_placeholders(guardrail, redis_url, redis_prefix):
    redaction = await guardrail.anonymize(T1, SEEDED_TEXT, platform="slack")
    assert redaction.text == (
        "Hi, I'm <PERSON_1>. Write to <EMAIL_ADDRESS_1> or call <PHONE_NUMBER_1>. "
        "My card is <CREDIT_CARD_1> and my IBAN is <IBAN_CODE_1>."
    )
    assert redaction.counts() == {
        "PERSON": 1,
        "EMAIL_ADDRESS": 1,
        "PHONE_NUMBER": 1,
        "CREDIT_CARD": 1,
        "IBAN_CODE": 1,
    }
    dump = redis_dump(redis_url, redis_prefix)
    assert "<IBAN_CODE_1>" in dump
    for value in SEEDED_VALUES:
        assert value not in dump


async def test_answer_round_trip_restores_the_values(guardrail):
    redaction = await guardrail.anonymize(T1, SEEDED_TEXT, platform="slack")
    restorer = await guardrail.restorer(T1, platform="slack", private=True)
    restoration = restorer.restore(redaction.text)
    assert restoration.text == SEEDED_TEXT
    assert restoration.unknown_placeholders == 0
    # In a shared channel the default reveal policy masks the card and the IBAN.
    shared = (await guardrail.restorer(T1, platform="slack", private=False)).restore(redaction.text)
    assert shared.text == SEEDED_TEXT.replace("4111 1111 1111 1111", "•••• 1111").replace(
        "DE89 3704 0044 0532 0130 00", "DE•• •••• 3000"
    )


async def test_a_device_address_reaches_the_model_as_a_placeholder(
    guardrail, redis_url, redis_prefix
):
    text = "Please allow my laptop 3c:22:fb:9a:10:7e and phone 0012.3456.789a on the guest wifi"
    redaction = await guardrail.anonymize(T1, text, platform="slack")
    assert redaction.text == (
        "Please allow my laptop <MAC_ADDRESS_1> and phone <MAC_ADDRESS_2> on the guest wifi"
    )
    assert "3c:22:fb" not in redis_dump(redis_url, redis_prefix)
    restorer = await guardrail.restorer(T1, platform="slack", private=False)
    answer = "Done: <MAC_ADDRESS_1> and <MAC_ADDRESS_2> are allowed."
    assert restorer.restore(answer).text == (
        "Done: 3c:22:fb:9a:10:7e and 0012.3456.789a are allowed."
    )


async def test_a_message_with_hundreds_of_values_round_trips(guardrail):
    """A pasted log: its values' identities are folded off the event loop, same outcome."""
    lines = [
        f"user{i:03d}.ops@acme-corp.com failed login from 10.0.{i // 200}.{i % 200}"
        for i in range(150)
    ]
    text = ". ".join(lines + lines[:10])  # ten lines said twice
    redaction = await guardrail.anonymize(T1, text, platform="slack")
    assert "@acme-corp.com" not in redaction.text
    assert "10.0.0." not in redaction.text
    placeholders = [e.placeholder for e in redaction.entities]
    assert len(placeholders) == 320
    assert len(set(placeholders)) == 300  # a repeated value keeps its placeholder
    restorer = await guardrail.restorer(T1, platform="slack", private=True)
    assert restorer.restore(redaction.text).text == text


async def test_turn_restorer_knows_the_vault_as_the_turn_left_it(guardrail):
    """The turn's restorer, once it fetched what the text uses: values placed by this very
    anonymization, values of earlier turns, names linked to them and typed placeholders
    all restore as a fresh read of the vault restores them. What it reports for retention
    is what this turn placed new."""
    texts = [
        SEEDED_TEXT,
        "maria gonzalez and Jane Doe met at 12 Baker Street; ask MARIA about <PERSON_9>.",
        "Jane said 212 555 0187 is right; write jane.doe@example.org.",
    ]
    for private in (True, False):
        for text in texts:
            redaction, restorer = await guardrail.anonymize_turn(
                T1, guardrail.analyze(text, platform="slack"), private=private
            )
            fresh = await guardrail.restorer(T1, platform="slack", private=private)
            assert set(restorer.placeholders) <= set(fresh.placeholders)
            await restorer.fetch(redaction.text, end=True)
            restored = restorer.restore(redaction.text)
            assert restored == fresh.restore(redaction.text)
            assert restored.unknown_placeholders == 0
            if private and text == SEEDED_TEXT:  # later mentions restore as first written
                assert restored.text == text


async def test_same_person_same_placeholder_across_turns(guardrail):
    first = await guardrail.anonymize(T1, "Please email John Smith about Berlin.", platform="slack")
    second = await guardrail.anonymize(
        T1, "Actually Priya Natarajan and john smith are both in Berlin.", platform="slack"
    )
    assert "<LOCATION_1>" in first.text
    assert second.text == "Actually <PERSON_2> and <PERSON_1> are both in <LOCATION_1>."
    assert [e.placeholder for e in second.entities] == ["<PERSON_2>", "<PERSON_1>", "<LOCATION_1>"]


async def test_two_replicas_anonymizing_at_once_agree(presidio_analyzer, redis_url, guardrail_keys):
    clients = [aioredis.Redis.from_url(redis_url) for _ in range(2)]
    guards = [
        PresidioGuardrail(
            presidio_analyzer, RedisVault(c, guardrail_keys, key=TEST_VAULT_KEY, ttl_seconds=600)
        )
        for c in clients
    ]
    text = "John Smith and Maria Gonzalez met in Denver."
    results = await asyncio.gather(*(g.anonymize(T1, text, platform="slack") for g in guards * 3))
    assert {r.text for r in results} == {"<PERSON_1> and <PERSON_2> met in <LOCATION_1>."}
    for client in clients:
        await client.aclose()


async def test_a_placeholder_of_another_thread_is_never_filled(guardrail):
    await guardrail.anonymize(T1, "Maria Gonzalez lives in Denver.", platform="slack")
    restorer = await guardrail.restorer(T2, platform="discord", private=True)
    restoration = restorer.restore("Say hi to <PERSON_1> in <LOCATION_1>.")
    assert restoration.text == f"Say hi to {NEUTRAL} in {NEUTRAL}."
    assert restoration.unknown_placeholders == 2


async def test_streamed_restoration_matches_the_whole(guardrail):
    redaction = await guardrail.anonymize(T1, SEEDED_TEXT, platform="slack")
    answer = f"Noted: {redaction.text} Also <PERSON_7>."
    whole = (await guardrail.restorer(T1, platform="slack", private=False)).restore(answer)
    for cut in range(0, len(answer) + 1, 3):
        restorer = await guardrail.restorer(T1, platform="slack", private=False)
        shown = restorer.feed(answer[:cut]) + restorer.feed(answer[cut:])
        result = restorer.finish()
        assert result == whole
        assert whole.text.startswith(shown)


async def test_scan_output_redacts_new_values_and_keeps_placeholders(guardrail):
    await guardrail.anonymize(T1, "Ask Maria Gonzalez, please.", platform="slack")
    answer = "I asked <PERSON_1>; she says Robert Johnson is at robert.johnson@example.org."
    redaction = await guardrail.scan_output(T1, answer, platform="slack")
    # The output scan is pattern-only: a name the model writes itself is its own, not the user's.
    assert redaction.text == "I asked <PERSON_1>; she says Robert Johnson is at <EMAIL_ADDRESS_1>."
    assert redaction.counts() == {"EMAIL_ADDRESS": 1}
    restorer = await guardrail.restorer(T1, platform="slack", private=False)
    assert restorer.restore(redaction.text).text == answer.replace("<PERSON_1>", "Maria Gonzalez")


async def test_scan_output_finds_identifiers_without_ner(guardrail):
    answer = (
        "Barack Obama worked at 1600 Pennsylvania Ave NW. Call 212-555-0143, card "
        "4111 1111 1111 1111, IBAN DE89 3704 0044 0532 0130 00, SSN 536-22-8714, host "
        "10.0.0.12, https://acme.com/users/jane.doe, 0x52908400098527886E0F7030069857D2E4169EE7"
    )
    redaction = await guardrail.scan_output(T2, answer, platform="slack")
    assert redaction.counts() == {
        "PHONE_NUMBER": 1,
        "CREDIT_CARD": 1,
        "IBAN_CODE": 1,
        "US_SSN": 1,
        "IP_ADDRESS": 1,
        "PERSON": 1,
        "CRYPTO": 1,
    }
    assert redaction.text.startswith("Barack Obama worked at 1600 Pennsylvania Ave NW. Call <")


async def test_scan_output_of_placeholder_only_text_changes_nothing(guardrail):
    answer = "<PERSON_1> and <PERSON_2> met at < location_1 > with <EMAIL_ADDRESS_1>."
    redaction = await guardrail.scan_output(T1, answer, platform="slack")
    assert redaction.text == answer
    assert redaction.entities == ()


async def test_ordinary_text_has_no_false_positives(guardrail):
    for text in [
        "Can you summarize the meeting notes from yesterday?",
        "The deploy failed with error 500 on build 123456 at 10:30.",
        "Please review PR 4821 and ticket OPS-1234 before Friday.",
        "We sold 250000 units in Q3, revenue 1234567 dollars, order 987654321.",
        "Version 2.3.1 shipped in 2024; run with --threads 16 --batch 1024.",
    ]:
        redaction = await guardrail.anonymize(T1, text, platform="slack")
        assert redaction.text == text


async def test_invisible_characters_do_not_hide_a_value(guardrail):
    redaction = await guardrail.anonymize(
        T1, "mail maria\u200b.gonzalez@exam\u2060ple.com now", platform="slack"
    )
    assert redaction.text == "mail <EMAIL_ADDRESS_1> now"


class BrokenAnalyzer(AnalyzerEngine):  # failure injection only: analyze raises
    def __init__(self) -> None:
        pass

    def analyze(self, *args, **kwargs):
        raise RuntimeError("model exploded on 'Maria Gonzalez'")


async def test_detection_failure_fails_closed(guardrail_vault, redis_url, redis_prefix):
    guard = PresidioGuardrail(BrokenAnalyzer(), guardrail_vault)
    with pytest.raises(GuardrailError) as info:
        await guard.anonymize(T1, SEEDED_TEXT, platform="slack")
    assert "Maria" not in str(info.value)
    with pytest.raises(GuardrailError):
        await guard.scan_output(T1, SEEDED_TEXT, platform="slack")
    with pytest.raises(GuardrailError):
        await guard.warm_up()
    assert redis_dump(redis_url, redis_prefix) == ""


async def test_redis_down_is_store_unavailable(presidio_analyzer):
    client = aioredis.Redis.from_url(f"redis://127.0.0.1:{free_port()}/0", socket_connect_timeout=1)
    vault = RedisVault(client, KeySpace("vbtest-down"), key=TEST_VAULT_KEY, ttl_seconds=60)
    guard = PresidioGuardrail(presidio_analyzer, vault)
    with pytest.raises(StoreUnavailable):
        await guard.anonymize(T1, SEEDED_TEXT, platform="slack")
    with pytest.raises(StoreUnavailable):
        await guard.restorer(T1, platform="slack", private=False)
    await client.aclose()


async def test_analysis_does_not_block_the_event_loop(guardrail):
    # Long enough that the NER's longest hold of the GIL (one batch of the model, ~0.1 s
    # idle, several times that on a loaded machine) stays well under half the analysis.
    text = "Maria Gonzalez called John Smith about the Denver office. " * 900
    ticks: list[float] = []

    async def ticker() -> None:
        while True:
            await asyncio.sleep(0.005)
            ticks.append(time.perf_counter())

    task = asyncio.create_task(ticker())
    started = time.perf_counter()
    await guardrail.anonymize(T1, text, platform="slack")
    elapsed = time.perf_counter() - started
    task.cancel()
    ticked = [t for t in ticks if t >= started]
    assert elapsed > 0.2  # long enough for a blocked loop to show
    assert len(ticked) >= 10
    gaps = [b - a for a, b in zip([started, *ticked], ticked, strict=False)]
    assert max(gaps) < elapsed / 2


async def test_warm_up_runs(guardrail):
    await guardrail.warm_up()


def test_the_default_policy_redacts_the_required_types():
    required = {
        "PERSON",
        "EMAIL_ADDRESS",
        "PHONE_NUMBER",
        "LOCATION",
        "CREDIT_CARD",
        "US_SSN",
        "IBAN_CODE",
        "IP_ADDRESS",
    }
    assert required <= default_policy().enabled


def test_missing_model_names_the_setting_and_stays_offline(monkeypatch):
    monkeypatch.setenv("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "https://publicsuffix.org/list")
    with pytest.raises(GuardrailError, match="VEILBOT_SPACY_MODEL"):
        build_analyzer("en_core_web_lg")
    assert os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] == ""


def test_the_analyzer_uses_recognizers_added_or_removed_after_it_answered(presidio_analyzer):
    # the registry remembers which recognizers serve a request (engine.remember_recognizers)
    analyzer = build_pattern_analyzer(presidio_analyzer)  # a registry of its own to change
    ticket = PatternRecognizer("TICKET", patterns=[Pattern("ticket", r"\bZX-\d{4}\b", 0.9)])
    text = "my ticket is ZX-4471, write to ana@example.com"

    def found(**kwargs):
        results = analyzer.analyze(text, language="en", **kwargs)
        return {r.entity_type for r in results} & {"EMAIL_ADDRESS", "TICKET"}

    assert found() == {"EMAIL_ADDRESS"}
    analyzer.registry.add_recognizer(ticket)
    assert found() == {"EMAIL_ADDRESS", "TICKET"}
    assert found(entities=["TICKET"]) == {"TICKET"}
    analyzer.registry.remove_recognizer("PatternRecognizer")
    assert found() == {"EMAIL_ADDRESS"}
    other = PatternRecognizer("TICKET", patterns=[Pattern("ticket", r"\bZX-\d{4}\b", 0.9)])
    assert found(ad_hoc_recognizers=[other]) == {"EMAIL_ADDRESS", "TICKET"}
    assert found() == {"EMAIL_ADDRESS"}


async def test_scan_output_skips_answers_that_cannot_hold_an_identifier(guardrail_vault):
    guard = PresidioGuardrail(BrokenAnalyzer(), guardrail_vault)  # any scan that runs fails
    answer = "Sure, <PERSON_1>: roll back first, then summarise what changed for the team."
    assert (await guard.scan_output(T1, answer, platform="slack")).text == answer
    for candidate in ("call 212-555-0143", "mail bob@example.org", "jane dot doe at acme dot com"):
        with pytest.raises(GuardrailError):
            await guard.scan_output(T1, candidate, platform="slack")
