"""Generate the labelled guardrail corpus: ``corpus.jsonl`` and ``threads.jsonl`` (seeded).

Run ``python -m tests.data.make_corpus`` from the repository root; the output is committed and
the same seed always gives the same files. ``--holdout`` writes ``corpus_holdout.jsonl`` and
``threads_holdout.jsonl`` instead: another seed and fresh value pools (``pools.HOLDOUT``), never
used while tuning detection, so the evaluation can show whether the tuning generalizes.
``corpus.jsonl`` lines:
``{"id", "platform", "text", "pii": [{"type", "value", "start", "end"}],
"keep": [{"kind", "value", "start", "end"}], "hard": [tags]}``; ``threads.jsonl`` lines are
multi-turn threads whose model replies mangle placeholders (see ``tests.data.threads``).
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.data import pools
from tests.data.fillers import FILLERS, Keep, Part, Pii
from tests.data.regressions import REGRESSIONS
from tests.data.threads import make_threads

SEED = 20240611
HOLDOUT_SEED = 20251105
MESSAGES = 440
HERE = Path(__file__).parent
SLOT_RE = re.compile(r"\{([A-Z]+)\}")

TEMPLATES = [
    "Hi, I'm {PERSON}, can you email me at {EMAIL} or call {PHONE}? It's for {PRODUCT}.",
    "{PERSON} asked if we can move the {PRODUCT} review to {DATE}.",
    "Please refund card {CARD} for {PERSON}, order came through {COMPANY} on {DATE}.",
    "Wire the deposit to IBAN {IBAN}, account holder {PERSON} in {CITY}.",
    "my ssn is {SSN} and my dob is {DOB}, do you need anything else for the form?",
    "The VPN box at {IP} keeps dropping {PERSON}'s session since {VERSION}.",
    "Send the invoice to {EMAIL}, cc {PERSON}. Ticket {TICKET}.",
    "ping {PERSON} about {TICKET}, he said {WORD} before {DATE}",
    "Customer {PERSON} (phone {PHONE}) is moving to {CITY} next month.",
    "Can you check why {CODE} is null for {PERSON} after the {VERSION} deploy?",
    "Tips go to my wallet {CRYPTO} thanks!",
    "Driver's licence {DL}, name {PERSON}, born {DOB}.",
    "Here's the CRM link: {URLPII} can you update the record before {DATE}?",
    "{COMPANY} wants a demo of {PRODUCT} {DATE}, contact is {PERSON} at {EMAIL}.",
    "Reminder: {WORD} and the {PRODUCT} migration is due {DATE}. Owner: {PERSON}.",
    "lol {PERSON} just sent me {PHONE} as the support line",
    "I paid with {CARD} but {COMPANY} charged twice, my email is {EMAIL}.",
    "Our office moved to {CITY}, the new address is {CITY}. Ask {PERSON} for keys.",
    "Server {IP} and {IP} are both on {VERSION}; see {TICKET}.",
    "The test in {CODE} fails on {VERSION}, no PII here, just {PRODUCT} noise.",
    "Release notes for {VERSION}: {PRODUCT} now supports {COMPANY} SSO. Shipping {DATE}.",
    "{PERSON} and {PERSON} will pair on {TICKET} {DATE}.",
    "Please update {PERSON}'s payroll IBAN to {IBAN} and SSN on file {SSN}.",
    "ETH refund address: {CRYPTO}, BTC backup {CRYPTO}. Owner {PERSON}.",
    "Call me at {PHONE} or email {EMAIL}, I'm in {CITY} until {DATE}.",
    "{WORD}: the {PRODUCT} dashboard shows {TICKET} for {COMPANY}.",
    "Meeting with {PERSON} from {COMPANY} about {PRODUCT} pricing, {DATE}.",
    "Use {CODE} instead of {CODE}; it landed in {VERSION}.",
    "Patient {PERSON}, DOB {DOB}, phone {PHONE}, lives in {CITY}.",
    "new hire: {PERSON}, personal email {EMAIL}, start {DATE}, laptop {PRODUCT}",
]
MENTIONS = {
    "slack": ["<@U024BE7LH>", "<@W0123ABCD>"],
    "discord": ["<@123456789012345678>", "<@!296045870987390977>"],
}
WRAPS = {
    "slack": ["{}", "{}", "> {}", "&gt; quoted: {}", "```{}```"],
    "discord": ["{}", "{}", "> {}", "||{}||", "```{}```"],
}


def _expand(template: str, rng: random.Random, platform: str) -> list[Part]:
    parts: list[Part] = []
    position = 0
    for slot in SLOT_RE.finditer(template):
        parts.append(template[position : slot.start()])
        parts += FILLERS[slot.group(1)](rng, platform)
        position = slot.end()
    parts.append(template[position:])
    return parts


def assemble(parts: list[Part]) -> dict[str, Any]:
    """Concatenate parts into a text with the offsets of every labelled value."""
    text, pii, keep, hard = "", [], [], set()
    for part in parts:
        if isinstance(part, Pii):
            pii.append(
                {
                    "type": part.type,
                    "value": part.text,
                    "start": len(text),
                    "end": len(text) + len(part.text),
                }
            )
            hard.update(part.tags)
            text += part.text
        elif isinstance(part, Keep):
            keep.append(
                {
                    "kind": part.kind,
                    "value": part.text,
                    "start": len(text),
                    "end": len(text) + len(part.text),
                }
            )
            text += part.text
        else:
            text += part
    return {"text": text, "pii": pii, "keep": keep, "hard": sorted(hard)}


def _message(index: int, rng: random.Random) -> dict[str, Any]:
    platform = "slack" if index % 2 == 0 else "discord"
    parts = _expand(rng.choice(TEMPLATES), rng, platform)
    if rng.random() < 0.2:
        parts = [Pii("USER", rng.choice(MENTIONS[platform]), ("mention",)), " ", *parts]
    wrap = rng.choice(WRAPS[platform]) if rng.random() < 0.25 else "{}"
    head, tail = wrap.split("{}")
    record = assemble([head, *parts, tail])
    if head or tail:
        record["hard"] = sorted({*record["hard"], "markup_wrapped"})
    return {"id": f"m{index:04d}", "platform": platform, **record}


def regression_messages() -> list[dict[str, Any]]:
    """The hand-written regression messages (``tests.data.regressions``), dev corpus only."""
    records = []
    for index, (platform, parts) in enumerate(REGRESSIONS):
        record = {"id": f"r{index:04d}", "platform": platform, **assemble(list(parts))}
        check(record)
        records.append(record)
    return records


def check(record: dict[str, Any]) -> None:
    """Every offset must point at its value."""
    for item in record["pii"] + record["keep"]:
        assert record["text"][item["start"] : item["end"]] == item["value"], record["id"]


@contextmanager
def holdout_pools() -> Iterator[None]:
    """Swap the held-out value pools in for the duration."""
    saved = {name: getattr(pools, name) for name in pools.HOLDOUT}
    for name, values in pools.HOLDOUT.items():
        setattr(pools, name, values)
    try:
        yield
    finally:
        for name, values in saved.items():
            setattr(pools, name, values)


def generate(seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The corpus messages and threads of one seed, with the pools in force."""
    rng = random.Random(seed)
    messages = [_message(i, rng) for i in range(MESSAGES)]
    for record in messages:
        check(record)
    return messages, make_threads(random.Random(seed + 1))


def main() -> None:
    """Write the dev files (or with ``--holdout`` the held-out files) next to this script."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--holdout", action="store_true", help="fresh pools, held-out seed")
    args = parser.parse_args()
    suffix = "_holdout" if args.holdout else ""
    if args.holdout:
        with holdout_pools():
            messages, threads = generate(HOLDOUT_SEED)
    else:
        messages, threads = generate(SEED)
        messages += regression_messages()
    for name, rows in ((f"corpus{suffix}.jsonl", messages), (f"threads{suffix}.jsonl", threads)):
        lines = [json.dumps(r, ensure_ascii=False, sort_keys=True) for r in rows]
        (HERE / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    hard = sum(1 for m in messages if m["hard"])
    print(f"{len(messages)} messages ({hard / len(messages):.0%} hard), {len(threads)} threads")


if __name__ == "__main__":
    main()
