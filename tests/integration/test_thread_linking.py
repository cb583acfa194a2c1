"""A thread's known values and people keep their placeholders (real spaCy model, real Redis)."""

import threading

import pytest

from bot.core.types import ThreadId
from guardrails.detect.workers import ThreadDetector
from guardrails.presidio import LINK_OFF_LOOP_CHARS, PresidioGuardrail
from guardrails.text.spans import Detection

pytestmark = pytest.mark.redis_cluster

T1 = ThreadId("slack:T1:C1:1700000000.000300")


async def test_a_known_value_is_replaced_in_any_case_or_accent(guardrail):
    first = await guardrail.anonymize(T1, "Hi, I'm José Müller from Porto.", platform="slack")
    assert first.text == "Hi, I'm <PERSON_1> from <LOCATION_1>."
    later = await guardrail.anonymize(
        T1, "so jose muller and JOSÉ MÜLLER both moved from porto?", platform="slack"
    )
    assert later.text == "so <PERSON_1> and <PERSON_1> both moved from <LOCATION_1>?"


async def test_a_first_name_keeps_the_full_names_placeholder(guardrail):
    await guardrail.anonymize(T1, "Please add Priya Raghunathan to the call.", platform="slack")
    later = await guardrail.anonymize(T1, "priya said yes, and Raghunathan too", platform="slack")
    assert later.text == "<PERSON_1> said yes, and <PERSON_1> too"


class _PlaceReader:
    """Detection as a model that reads a known first name as a place would give it."""

    def __init__(self, inner):
        self._inner = inner

    async def detect(self, text, platform, *, prose=True, policy=None):
        found = await self._inner.detect(text, platform, prose=prose, policy=policy)
        if text.startswith("Jane called"):
            return [Detection("LOCATION", 0, 4, 0.85)]
        return found


async def test_a_known_person_keeps_the_placeholder_whatever_type_the_model_gives(
    presidio_analyzer, guardrail_vault
):
    detector = _PlaceReader(ThreadDetector(presidio_analyzer, None, 4000))
    guardrail = PresidioGuardrail(None, guardrail_vault, detector=detector)
    await guardrail.anonymize(T1, "Jane Doe will join us.", platform="slack")
    later = await guardrail.anonymize(T1, "Jane called again", platform="slack")
    assert later.text == "<PERSON_1> called again"


async def test_an_address_written_out_keeps_the_placeholder_of_the_address(guardrail):
    first = await guardrail.anonymize(T1, "Mail me: jane.doe@acme.com", platform="slack")
    assert first.text == "Mail me: <EMAIL_ADDRESS_1>"
    later = await guardrail.anonymize(
        T1, "or jane.doe at acme.com, or JANE.DOE @ ACME.COM", platform="slack"
    )
    assert later.text == "or <EMAIL_ADDRESS_1>, or <EMAIL_ADDRESS_1>"


class _NotingThreads(PresidioGuardrail):
    """The guardrail, noting which thread cut a message into the words it looks up."""

    linked_on: list[int]

    def _lookup_words(self, *args):
        self.linked_on.append(threading.get_ident())
        return super()._lookup_words(*args)


@pytest.mark.parametrize("long", [False, True])
async def test_a_long_message_is_looked_up_off_the_event_loop(
    presidio_analyzer, guardrail_vault, long
):
    guardrail = _NotingThreads(presidio_analyzer, guardrail_vault)
    guardrail.linked_on = []
    await guardrail.anonymize(T1, "Please add Priya Raghunathan to the call.", platform="slack")
    filler = "the deploy failed again on staging after lunch. "
    text = "priya said yes. " + filler * (LINK_OFF_LOOP_CHARS // len(filler) + (1 if long else -1))
    assert (len(text) > LINK_OFF_LOOP_CHARS) == long

    later = await guardrail.anonymize(T1, text, platform="slack")

    assert later.text.startswith("<PERSON_1> said yes. the deploy failed")
    assert len(guardrail.linked_on) == 1  # the first message, in a new thread, looked up nothing
    assert (guardrail.linked_on[0] != threading.get_ident()) == long


async def test_a_word_taken_into_a_name_does_not_stand_for_the_person_later(guardrail):
    first = await guardrail.anonymize(T1, "Ring Maria Gonzalez at the office", platform="slack")
    assert first.text == "<PERSON_1> at the office"
    later = await guardrail.anonymize(
        T1, "ring me when you can. Ring the front desk if Maria is out", platform="slack"
    )
    assert later.text == "ring me when you can. Ring the front desk if <PERSON_1> is out"


async def test_a_name_that_is_also_a_word_links_only_where_written_as_a_name(guardrail):
    await guardrail.anonymize(T1, "Ask Grace Park about the budget.", platform="slack")
    later = await guardrail.anonymize(
        T1, "the park is closed. Park the car and ask Park, or GRACE PARK", platform="slack"
    )
    assert later.text == "the park is closed. Park the car and ask <PERSON_1>, or <PERSON_1>"


async def test_a_word_of_a_name_is_left_alone_later_in_the_same_message(guardrail):
    redaction = await guardrail.anonymize(
        T1, "Ring Maria Gonzalez at the office, then ring me. Maria knows", platform="slack"
    )
    assert redaction.text == "<PERSON_1> at the office, then ring me. <PERSON_1> knows"
