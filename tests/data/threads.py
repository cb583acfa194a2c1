"""Multi-turn threads for restore fidelity and placeholder stability across turns.

A thread has ``values`` (type and value) and ``turns``. A turn's ``user`` text carries some of
the values (labelled in ``pii``, with offsets); its ``reply`` is what the model answers, with
``{{i|form}}`` where the model wrote value ``i``'s placeholder in a mangled ``form``
(``FORMS``). The evaluation turns each marker into the placeholder the guardrail issued, written
in that form, and expects the restorer to give the value back (``form == "unknown"``: a
placeholder the thread never issued, which must come back neutral).
"""

from __future__ import annotations

import random
from typing import Any

from tests.data import pools as p

FORMS = [
    "canonical", "bare", "lower", "spaced", "double", "square", "code", "possessive", "link",
    "escaped", "bold", "unknown",
]  # fmt: skip
THREADS = 60

USER_TURNS = [
    "Hi, I'm {0}. Please email {2} about the refund for order 5512.",
    "This is {0} again, call me on {3} if the card {4} is declined.",
    "Also loop in {1}; {0} and {1} both work from {5}.",
    "Can you draft a note to {1} saying {0} approved the IBAN {6}?",
    "What did I tell you about {0} and {1}? Keep {2} as the contact.",
    "{1} changed phone, it's still {3} for {0} though.",
]
REPLIES = [
    "Sure {{0|canonical}}! I'll write to {{2|square}} today.",
    "Got it, {{0|bare}}. If {{4|code}} fails I'll call {{3|spaced}}.",
    "Noted: {{1|double}} and {{0|lower}} are in {{5|bold}}.",
    "Draft: Hi {{1|possessive}} team, {{0|canonical}} approved {{6|escaped}}.",
    "You mentioned {{0|link}} and {{1|bare}}; contact: {{2|canonical}}. {{1|unknown}} is new.",
    "Okay, {{0|possessive}} number is {{3|square}}, and {{1|lower}} was updated.",
]


def _values(rng: random.Random) -> list[dict[str, str]]:
    first_a, first_b = rng.sample(p.FIRST, 2)
    last_a, last_b = rng.sample(p.LAST, 2)
    area, mid, last = rng.choice(p.US_PHONES).split("-")
    card = rng.choice(p.CARDS)
    iban = rng.choice(p.IBANS)
    return [
        {"type": "PERSON", "value": f"{first_a} {last_a}"},
        {"type": "PERSON", "value": f"{first_b} {last_b}"},
        {"type": "EMAIL_ADDRESS", "value": f"{first_a.lower()}.{last_a.lower()}@example.com"},
        {
            "type": "PHONE_NUMBER",
            "value": rng.choice([f"+1 {area} {mid} {last}", f"({area}) {mid}-{last}"]),
        },
        {"type": "CREDIT_CARD", "value": " ".join(card[i : i + 4] for i in range(0, len(card), 4))},
        {"type": "LOCATION", "value": rng.choice(p.CITIES)},
        {"type": "IBAN_CODE", "value": " ".join(iban[i : i + 4] for i in range(0, len(iban), 4))},
    ]


def _user_turn(template: str, values: list[dict[str, str]], rng: random.Random) -> dict[str, Any]:
    text, pii, position = "", [], 0
    while True:
        start = template.find("{", position)
        if start < 0:
            break
        end = template.index("}", start)
        index = int(template[start + 1 : end])
        text += template[position:start]
        value = values[index]["value"]
        if values[index]["type"] == "PERSON" and rng.random() < 0.15:
            value = value.upper()  # same value, other case: still the same placeholder
        pii.append({"type": values[index]["type"], "value": value, "index": index,
                    "start": len(text), "end": len(text) + len(value)})  # fmt: skip
        text += value
        position = end + 1
    return {"user": text + template[position:], "pii": pii}


def make_threads(rng: random.Random) -> list[dict[str, Any]]:
    """``THREADS`` threads of 3 to 5 turns each, alternating Slack and Discord."""
    threads = []
    for number in range(THREADS):
        values = _values(rng)
        count = rng.randint(3, 5)
        order = rng.sample(range(len(USER_TURNS)), count)
        turns = []
        for turn_index in order:
            turn = _user_turn(USER_TURNS[turn_index], values, rng)
            turn["reply"] = REPLIES[turn_index]
            turns.append(turn)
        platform = "slack" if number % 2 == 0 else "discord"
        threads.append(
            {"id": f"t{number:03d}", "platform": platform, "values": values, "turns": turns}
        )
    return threads
