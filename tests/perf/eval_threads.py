"""Thread evaluation: restore fidelity of mangled replies, placeholder stability across turns.

Each thread runs through the real ``PresidioGuardrail`` on a real Redis vault. A reply marker
``{{i|form}}`` becomes the placeholder the guardrail issued for value ``i``, written in
``form`` (as models mangle it); the restorer must give back exactly what the vault holds. A
value the guardrail did not detect has no placeholder: the model saw it, so the marker is
written as the value and the reply is not counted for fidelity (it is a leak, counted there).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

from bot.core.types import ThreadId
from guardrails.presidio import PresidioGuardrail
from guardrails.restore.placeholders import NEUTRAL
from guardrails.text.values import normalize_value

MARKER = re.compile(r"\{\{(\d+)\|(\w+)\}\}")


def written(form: str, placeholder: str, platform: str) -> str:
    """How a model wrote ``<TYPE_n>`` in a given mangled form."""
    name = placeholder.strip("<>")
    return {
        "canonical": placeholder,
        "bare": name,
        "lower": f"<{name.lower()}>",
        "spaced": f"< {name} >",
        "double": f"<<{name}>>",
        "square": f"[{name}]",
        "code": f"`{placeholder}`",
        "possessive": f"{placeholder}'s",
        "link": f"[{placeholder}](https://example.com/p)",
        "escaped": name.replace("_", "\\_"),
        "bold": f"*{placeholder}*" if platform == "slack" else f"**{placeholder}**",
        "unknown": f"<{name.rsplit('_', 1)[0]}_99>",
    }[form]


def expected(form: str, value: str, platform: str) -> str:
    """What the user must read for that form."""
    if form == "unknown":
        return NEUTRAL
    return {
        "code": f"`{value}`",
        "possessive": value if value.endswith("'s") else f"{value}'s",
        "link": f"[{value}](https://example.com/p)",
        "bold": f"*{value}*" if platform == "slack" else f"**{value}**",
    }.get(form, value)


def placeholder_for(value: str, mapping: dict[str, tuple[str, str]], text: str) -> str | None:
    """The placeholder in ``text`` that stands for ``value`` (equal, else containing it)."""
    wanted = normalize_value(value)
    present = [ph for ph in mapping if ph in text]
    for ph in present:
        if normalize_value(mapping[ph][1]) == wanted:
            return ph
    for ph in present:
        if wanted in normalize_value(mapping[ph][1]):
            return ph
    return None


@dataclass
class ThreadScore:
    """Restore fidelity and same-value-same-placeholder counts."""

    replies: int = 0
    faithful: int = 0
    skipped: int = 0
    pairs: int = 0
    same: int = 0
    failures: list[str] = field(default_factory=list)

    def stability(self) -> float:
        """Share of repeated values that got their first placeholder again."""
        return self.same / self.pairs if self.pairs else 0.0

    def fidelity(self) -> float:
        """Share of restorable replies restored exactly."""
        return self.faithful / self.replies if self.replies else 0.0


def _reply(
    template: str, placeholders: dict[int, str], mapping: Any, platform: str
) -> tuple[str, str] | None:
    model, user = "", ""
    position = 0
    for marker in MARKER.finditer(template):
        index, form = int(marker.group(1)), marker.group(2)
        placeholder = placeholders.get(index)
        if placeholder is None:
            return None
        model += template[position : marker.start()] + written(form, placeholder, platform)
        value = mapping[placeholder][1]
        user += template[position : marker.start()] + expected(form, value, platform)
        position = marker.end()
    return model + template[position:], user + template[position:]


async def score_thread(
    guardrail: PresidioGuardrail,
    vault: Any,
    tid: ThreadId,
    thread: dict[str, Any],
    rng: random.Random,
    score: ThreadScore,
) -> None:
    """Run one thread's turns and add its figures to ``score``."""
    platform = thread["platform"]
    first: dict[int, str] = {}
    for turn in thread["turns"]:
        redaction = await guardrail.anonymize(tid, turn["user"], platform=platform)
        mapping = await vault.mapping(tid)
        seen: dict[int, str] = {}
        for item in turn["pii"]:
            ph = placeholder_for(item["value"], mapping, redaction.text)
            if ph is None:
                continue
            seen[item["index"]] = ph
            if item["index"] in first:
                score.pairs += 1
                score.same += int(first[item["index"]] == ph)
            else:
                first[item["index"]] = ph
        await _score_reply(guardrail, tid, turn, seen, mapping, platform, rng, score)


async def _score_reply(
    guardrail: PresidioGuardrail, tid: ThreadId, turn: dict[str, Any], seen: dict[int, str],
    mapping: Any, platform: str, rng: random.Random, score: ThreadScore,
) -> None:  # fmt: skip
    rendered = _reply(turn["reply"], seen, mapping, platform)
    if rendered is None:
        score.skipped += 1
        return
    model_text, user_text = rendered
    restorer = await guardrail.restorer(tid, platform=platform, private=True)
    position, shown = 0, ""
    while position < len(model_text):  # stream in random chunks, as the API does
        step = rng.randint(1, 12)
        shown += restorer.feed(model_text[position : position + step])
        position += step
    result = restorer.finish()
    score.replies += 1
    ok = result.text == user_text and result.text.startswith(shown)
    score.faithful += int(ok)
    if not ok:
        score.failures.append(f"{tid}: {turn['reply']!r}")
