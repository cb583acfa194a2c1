"""E-mail addresses and IP addresses from two third-party generators, in chat sentences.

Values come from ``hypothesis`` (``strategies.emails()`` over ``provisional.domains()``,
``strategies.ip_addresses(v=4)`` and ``(v=6)``: RFC-shaped values, edge cases included) and
from ``Faker`` (``email``, ``free_email``, ``company_email``, ``ipv4_public``, ``ipv6``, in
several locales). Neither
generator was written with veilbot in mind. Each value goes into one of a few neutral chat
sentences (the same sentences for every generator), so the only personal value in a text is
the labelled one: labels are complete.

Reproducible: fixed seeds (``hypothesis.seed``, database off, generation phase only, and
``Faker.seed_instance`` per locale); the same package versions (the ``eval`` extra pins their
ranges; ``Origin`` records the version used) give the same values. IPv6 ``::`` (unspecified)
is left out: veilbot deliberately keeps it, and it names no host.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterator
from importlib import metadata
from typing import Any

from tests.perf.sources.cases import Case, Origin, label

HYPOTHESIS = "hypothesis"
FAKER = "faker"
SEED = 9
PER_STRATEGY = 150
PER_LOCALE = 6
LOCALES = (
    "en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "pl_PL", "pt_BR", "sv_SE",
    "cs_CZ", "da_DK", "fi_FI", "hu_HU", "ro_RO", "tr_TR", "ru_RU", "ja_JP", "zh_CN", "hi_IN",
)  # fmt: skip
SENTENCES = {
    "EMAIL_ADDRESS": (
        "can you send the invoice to {v} before friday?",
        "Contact: {v}",
        "I wrote to {v} yesterday but got no answer",
        "please cc {v} on the thread.",
        "{v} is the address on my account",
    ),
    "IP_ADDRESS": (
        "the login came from {v} at 3am, is that us?",
        "Server: {v}",
        "can you allowlist {v} in the firewall?",
        "my home IP is {v}.",
        "{v} keeps timing out when I connect",
    ),
}
"""Neutral sentences, one value slot each; a value goes into one of them, in turn."""


def _case(source: str, version: str, test: str, index: int, kind: str, value: str) -> Case:
    sentences = SENTENCES[kind]
    text = sentences[index % len(sentences)].format(v=value)
    start = text.index(value)
    return Case(
        source=source,
        id=f"{source}:{version}:{SEED}:{test}",
        origin=Origin(source, version, "", test),
        text=text,
        labels=(label(kind, text, start, start + len(value)),),
    )


def _kept(kind: str, value: str) -> bool:
    """Whether a generated value goes in: not ``::``, not a value a sentence would split."""
    if kind == "IP_ADDRESS" and ipaddress.ip_address(value).compressed == "::":
        return False
    return bool(value) and not any(c.isspace() for c in value)


def hypothesis_values(strategy: Any, count: int, seed: int) -> list[str]:
    """``count`` distinct values of ``strategy`` (fewer if it has fewer), seeded."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as seeded
    from hypothesis import strategies as st

    drawn: list[str] = []

    @seeded(seed)
    @settings(
        max_examples=count * 3,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def draw(data: Any) -> None:
        value = str(data.draw(strategy))  # always drawn: hypothesis replays draws
        if len(drawn) < count and value not in drawn:
            drawn.append(value)

    draw()
    return drawn


def load_hypothesis(count: int = PER_STRATEGY, seed: int = SEED) -> Iterator[Case]:
    """Values of hypothesis' e-mail and IP strategies, each in a sentence.

    Raises:
        ImportError: hypothesis is not installed (``pip install -e '.[eval]'``).
    """
    from hypothesis import provisional
    from hypothesis import strategies as st

    version = metadata.version("hypothesis")
    strategies: dict[str, tuple[str, Any]] = {
        "emails": ("EMAIL_ADDRESS", st.emails(domains=provisional.domains())),
        "ip_addresses(v=4)": ("IP_ADDRESS", st.ip_addresses(v=4)),
        "ip_addresses(v=6)": ("IP_ADDRESS", st.ip_addresses(v=6)),
    }
    for name, (kind, strategy) in strategies.items():
        values = [v for v in hypothesis_values(strategy, count, seed) if _kept(kind, v)]
        for index, value in enumerate(values):
            yield _case(HYPOTHESIS, version, f"{name}[{index}]", index, kind, value)


FAKER_METHODS: dict[str, str] = {
    "email": "EMAIL_ADDRESS",
    "free_email": "EMAIL_ADDRESS",
    "company_email": "EMAIL_ADDRESS",
    "ipv4_public": "IP_ADDRESS",
    "ipv6": "IP_ADDRESS",
}


def load_faker(per_locale: int = PER_LOCALE, seed: int = SEED) -> Iterator[Case]:
    """Values of Faker's e-mail and IP providers in each locale of ``LOCALES``, in sentences.

    Raises:
        ImportError: Faker is not installed (``pip install -e '.[eval]'``).
    """
    from faker import Faker

    version = metadata.version("faker")
    index = 0
    for locale in LOCALES:
        fake = Faker(locale)
        fake.seed_instance(seed)
        for method, kind in FAKER_METHODS.items():
            make: Callable[[], str] = getattr(fake, method)
            seen: set[str] = set()
            for n in range(per_locale):
                value = make()
                if value in seen or not _kept(kind, value):
                    continue
                seen.add(value)
                yield _case(FAKER, version, f"{locale}.{method}[{n}]", index, kind, value)
                index += 1
