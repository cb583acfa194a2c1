"""Every rule detection runs on the text is linear in its input, whatever the text's shape.

One harness over every text rule the guardrail registers (veilbot's own rules, one by one,
and the analyzer's pattern recognizers), so a rule added later is covered without a test of
its own. Nothing is timed against a clock: the CPU time of this thread on an input eight
times longer is compared with the CPU time on the input itself (for a random shape, on
each eighth of the longer one: ``slices``), the best of several interleaved runs each,
and may grow at most 2.2x per doubling (10.6x, where a linear rule costs 8x and a
quadratic one 64x). A ratio is what a busy machine cannot fake: both inputs run in the
same moments. A rule over the bound is measured again before it fails.
"""

from __future__ import annotations

import gc
import random
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.scopes import PolicyOverride
from guardrails.detect.detection import detect, text_recognizers
from guardrails.policy import default_policy, with_override
from guardrails.rules import credentials, lists, local
from guardrails.rules.ocr import as_printed
from guardrails.rules.recognizers import RegexRecognizer, Rule
from guardrails.rules.repeats import repeats
from guardrails.text.spans import Detection, merge_overlaps, resolve_overlaps

GROWTH = 8
BOUND = 2.2**3
"""The most an input ``GROWTH`` times longer may cost: 2.2x per doubling."""
SMALL = 1000
_FLOOR = 20e-6
"""Below a few tens of microseconds a ratio is the timer's noise."""
_WORDS = "the deploy failed again jane doe at acme dot com build 42 ok Maria Denver".split()
_TOKENS = [
    "-", ".", " ", "@", "at", "dot", " at ", " dot ", "(at)", "[dot]", "1", "12", "1234", "+",
    "/", "_", "a", "Jane", "x-", "\n", ":", "%40", "www", "http://", "0x", "DE89", ": ", "O",
]  # fmt: skip

Unit = tuple[str, Callable[[str], Any]]


def _rng_text(make: Callable[[random.Random], str]) -> Callable[[int], str]:
    def build(size: int) -> str:
        rng, out, length = random.Random(25), [], 0
        while length < size:
            out.append(make(rng))
            length += len(out[-1])
        return "".join(out)[:size]

    return build


SHAPES: dict[str, Callable[[int], str]] = {
    "chat": _rng_text(lambda r: r.choice(_WORDS) + r.choice([" ", " ", ", ", ". "])),
    "one token": _rng_text(lambda r: r.choice("abcdefghij0123456789")),
    "one long word": lambda n: "a" * n,
    "numbered lines": _rng_text(lambda r: f"\n{r.randint(1, 99)} 0x-"),
    "digits and dashes": _rng_text(lambda r: f"{r.randint(10, 99)}-"),
    "hyphen-joined words": _rng_text(lambda r: r.choice(_WORDS) + "-"),
    "dot-joined words": _rng_text(lambda r: r.choice(_WORDS) + "."),
    "spelled dots": _rng_text(lambda r: r.choice(_WORDS) + " dot "),
    "repeated at": _rng_text(lambda r: r.choice(_WORDS) + " at "),
    "long number": _rng_text(lambda r: r.choice("0123456789")),
    "digit groups": _rng_text(lambda r: f"{r.randint(1000, 9999)} "),
    "csv rows of numbers": _rng_text(
        lambda r: (
            f"{r.randint(100, 999)}-{r.randint(100, 999)}-{r.randint(1000, 9999)},"
            + str(r.randint(1, 99))
            + r.choice([",", "\n"])
        )
    ),
    "ids and phones": _rng_text(
        lambda r: f"{r.choice(['order', 'ticket #', 'call', 'ts='])} {r.randint(10**9, 10**10)} "
    ),
    "hex groups broken after colons": _rng_text(
        lambda r: f"{r.randint(0, 65535):x}:{r.choice(' :')}"
    ),
    "spaced domain dots": _rng_text(lambda r: r.choice(_WORDS) + r.choice(["@", ". ", " .", " "])),
    "letters for digits": _rng_text(lambda r: r.choice(["DE89 ", "37O4 ", "0l30 ", "OI ", "S@"])),
    "dot run": lambda n: "." * n,
    "space run": lambda n: " " * n,
    "dash run": lambda n: "-" * n,
    "urls": _rng_text(
        lambda r: f"https://{r.choice(_WORDS)}.com/{r.choice(_WORDS)}?q={r.randint(1, 9)} "
    ),
    "code": _rng_text(lambda r: f"def f_{r.randint(1, 99)}(x): return x.{r.choice(_WORDS)}[0]\n"),
    "config lines": _rng_text(
        lambda r: (
            r.choice(["password", "api_key", "user", "pw", "token", "https://u"])
            + r.choice([": ", "=", " is ", " ", ":"])
            + f"{r.choice(_WORDS)}{r.randint(1, 99)}"
            + r.choice(["\n", " ", ", ", "@", ":"])
        )
    ),
    "key headers without an end": _rng_text(
        lambda r: r.choice(["-----BEGIN RSA PRIVATE KEY-----\n", "eyJhbGciOiJIUzI1NiJ9.", "ab12 "])
    ),
}


def _units(analyzer: Any) -> list[Unit]:
    """Each of veilbot's rules alone, each pattern recognizer of the analyzer, and the
    reading of OCR'd text that runs before them on a picture's text.

    The rules of every language a scope may name too (its national identifiers, titled and
    lone names): each distinct rule once, under the first language that has it.
    """
    units: list[Unit] = [("ocr.as_printed", as_printed)]
    seen: set[Any] = set()
    for language in ("en", *sorted(local.LANGUAGES)):
        policy = with_override(default_policy(), PolicyOverride(language=language))
        for recognizer in text_recognizers(analyzer, policy):
            if isinstance(recognizer, RegexRecognizer):
                for i, rule in enumerate(recognizer.rules):
                    if (key := _rule_key(rule)) not in seen:
                        seen.add(key)
                        name = f"{language}:{recognizer.name}[{i}]"
                        units.append((name, lambda t, r=rule: _cold(r.find, t)))
            elif recognizer.name not in seen:
                seen.add(recognizer.name)
                entities = list(recognizer.supported_entities)
                units.append(
                    (recognizer.name, lambda t, r=recognizer, e=entities: r.analyze(t, e, None))
                )
    return units


def _rule_key(rule: Rule) -> tuple[Any, ...]:
    """What makes a rule itself: its type, pattern, and finder with its plain arguments."""
    finder: Any = rule.finder
    function = getattr(finder, "func", finder)
    name = getattr(function, "__qualname__", type(function).__qualname__)
    plain = (str, bool, int)
    arguments = [a for a in getattr(finder, "args", ()) if isinstance(a, plain)]
    keywords = getattr(finder, "keywords", {})
    arguments += sorted((k, v) for k, v in keywords.items() if isinstance(v, plain))
    validate = getattr(rule.validate, "__qualname__", None)
    return (rule.type, rule.regex.pattern, name, tuple(arguments), validate)


def _cold(find: Callable[[str], Any], text: str) -> list[Any]:
    """A rule's findings with the read its rules share forgotten: each run pays for it."""
    credentials.read_all.cache_clear()
    return list(find(text))


def _best(fn: Callable[[Any], Any], texts: list[Any], runs: int) -> list[float]:
    """The least CPU time of ``fn`` on each text, the texts measured in turns."""
    best = [float("inf")] * len(texts)
    gc.disable()  # a collection is whoever allocated last's bad luck, not a rule's cost
    try:
        for _ in range(runs):
            for i, text in enumerate(texts):
                began = time.thread_time()
                fn(text)
                best[i] = min(best[i], time.thread_time() - began)
    finally:
        gc.enable()
    return best


def growth(fn: Callable[[Any], Any], small: Any, large: Any) -> float:
    """How many times more CPU ``fn`` takes on ``large`` than on ``small`` (re-measured
    up to twice while over the bound: noise passes, a superlinear rule fails every time).
    ``small`` may be a list of inputs (``slices``): then their mean cost is the measure.
    Each runs once first, untimed: what a rule loads on first use (a language's place names)
    is no cost of the input it happened to meet."""
    texts = [*small, large] if isinstance(small, list) else [small, large]
    for text in texts:
        fn(text)

    def measured(runs: int) -> tuple[float, float]:
        *low, high = _best(fn, texts, runs)
        return max(high, _FLOOR) / max(sum(low) / len(low), _FLOOR), high

    ratio, high = measured(1)
    if ratio > 3 * BOUND and high > 0.05:
        return ratio  # far over, and slow: a superlinear rule, not worth its time again
    for runs in (5, 9, 15):
        ratio = min(ratio, measured(runs)[0])
        if ratio <= BOUND:
            break
    return ratio


def slices(large: str) -> list[str]:
    """``large`` in ``GROWTH`` pieces: what it costs per ``GROWTH``-th.

    A random shape's first thousand characters are no fair sample of the next seven: the
    chat shape's hold 16 capitalized words a thousand, its first 8 000 25, and a rule that
    works per capitalized word read 10.8x against them while its cost per character was
    flat from 2 000 to 64 000 characters.
    """
    step = len(large) // GROWTH
    return [large[i * step : (i + 1) * step] for i in range(GROWTH)]


@pytest.fixture(scope="module")
def units(presidio_analyzer: Any) -> list[Unit]:
    return _units(presidio_analyzer)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_rule_is_linear_in_its_input(units: list[Unit], shape: str) -> None:
    large = SHAPES[shape](SMALL * GROWTH)
    slow = {
        name: round(ratio, 1)
        for name, fn in units
        if (ratio := growth(fn, slices(large), large)) > BOUND
    }
    assert slow == {}, f"{shape}: cost x{GROWTH} input grows more than x{BOUND:.1f}"


@pytest.mark.parametrize("shape", ["dot-joined words", "one token", "urls"])
def test_the_whole_detection_is_linear_in_its_input(presidio_analyzer: Any, shape: str) -> None:
    """Normalization, chunks, every rule, NER and repeats together, not only rule by rule."""
    small, large = SHAPES[shape](SMALL), SHAPES[shape](SMALL * GROWTH)
    ratio = growth(lambda t: detect(presidio_analyzer, t, "console"), small, large)
    assert ratio <= BOUND, f"{shape}: detection of a x{GROWTH} input costs x{ratio:.1f}"


def test_the_harness_sees_every_kind_of_rule(units: list[Unit]) -> None:
    names = {name.split("[")[0].split(":")[-1] for name, _ in units}
    assert {"veilbot_email_address", "veilbot_person", "veilbot_location"} <= names
    assert {"EmailRecognizer", "UsSsnRecognizer", "IbanRecognizer", "ocr.as_printed"} <= names


@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(unit=st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=5).map("".join))
def test_adversarial_shapes_cost_linear_time(units: list[Unit], unit: str) -> None:
    """Runs of separators, repeated tokens, long numbers: every rule at once stays linear."""

    def text(size: int) -> str:
        return (unit * (size // len(unit) + 1))[:size]

    def all_rules(t: str) -> None:
        for _, fn in units:
            fn(t)

    ratio = growth(all_rules, text(SMALL), text(SMALL * GROWTH))
    assert ratio <= BOUND, f"x{GROWTH} input of {unit!r} repeated costs x{ratio:.1f}"


def _dense(values: int) -> tuple[str, list[Detection]]:
    """Chat where every few words are a value, each said twice: findings grow with the text."""
    rng = random.Random(25)
    words, found, at = [], [], 0
    for i in range(values):
        value = f"{rng.choice(_WORDS).title()}{i:05d}"
        for k, piece in enumerate(("met", value, "and", "later", value, "again,")):
            if k == 1:  # the first mention is found, the second is a repeat
                found.append(Detection("PERSON", at, at + len(value), 0.8))
            words.append(piece)
            at += len(piece) + 1
    return " ".join(words), found


def test_dense_text_costs_linear_time_in_its_findings() -> None:
    """Repeats, lists and overlap resolution read the text once, not once per finding."""

    def post(case: tuple[str, list[Detection]]) -> None:
        text, found = case
        merged = merge_overlaps([*found, *found[::3]], text)
        resolve_overlaps(merged)
        merge_overlaps([*merged, *repeats(merged, text), *lists.complete(merged, text)], text)

    small, large = _dense(150), _dense(150 * GROWTH)
    assert len(repeats(small[1], small[0])) == 150  # each value's second mention
    ratio = growth(post, small, large)
    assert ratio <= BOUND, f"x{GROWTH} findings cost x{ratio:.1f}"
