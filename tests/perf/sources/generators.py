"""E-mail addresses and IP addresses from two third-party generators, in chat sentences.

``load_forms`` (source ``faker-forms``) writes Faker's values in the other forms that
standards and peers document, one form per text (``FORMS``): e-mails with "at" or a spaced
or fullwidth "@" (scrubadub's ``EmailDetector`` reads "john at gmail.com"; U+FF20 is what
CJK input methods type), in Slack's ``<mailto:…|…>`` and Markdown links, in a URL's query,
upper case; IP addresses with a port (RFC 5952 section 6: ``[2001:db8::1]:443``), a zone id
(RFC 4007 section 11: ``fe80::…%eth0``), a prefix length (RFC 4632), IPv4-mapped (RFC 4291
section 2.5.5.2), inside a URL (RFC 3986 ``IP-literal``), after a ``label:``, before a log
line's colon, upper case (RFC 5952 section 4.3 allows it on input), and glued to the words
of a Chinese or Japanese sentence from Faker's own ``zh_CN`` and ``ja_JP`` providers.

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
import random
from collections.abc import Callable, Iterator
from importlib import metadata
from typing import Any

from tests.perf.sources.cases import Case, Origin, label

HYPOTHESIS = "hypothesis"
FAKER = "faker"
FORMS_SOURCE = "faker-forms"
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


PER_FORM = 12
_CJK_LOCALES = ("zh_CN", "ja_JP")


def _email(fake: Any) -> tuple[str, str, str]:
    """A Faker address as (whole, local part, domain)."""
    value = fake.email()
    local, _, domain = value.partition("@")
    return value, local, domain


def _ipv4(fake: Any) -> str:
    return str(fake.ipv4_public())


def _ipv6(fake: Any) -> str:
    return str(ipaddress.IPv6Address(fake.ipv6()))


def _link_local(fake: Any) -> str:
    """fe80::/64 with the interface id of a Faker IPv6 address (RFC 4291 section 2.5.6)."""
    low = int(ipaddress.IPv6Address(fake.ipv6())) & (2**64 - 1)
    return str(ipaddress.IPv6Address((0xFE80 << 112) | low))


Form = Callable[[Any], tuple[str, list[str], str]]
"""Faker -> (text, the labelled values in it, platform)."""


def _in_sentence(kind: str, index: int, written: str) -> str:
    sentences = SENTENCES[kind]
    return sentences[index % len(sentences)].format(v=written)


def _cjk(fake_cjk: Any, value: str) -> str:
    """``value`` glued between the words of a Faker sentence, as CJK text is written."""
    sentence = fake_cjk.sentence(nb_words=6).rstrip(".。")
    cut = max(1, len(sentence) // 2)
    return f"{sentence[:cut]}{value}{sentence[cut:]}。"


def _email_forms(fake: Any, cjk: Any, i: int) -> dict[str, tuple[str, list[str], str]]:
    value, local, domain = _email(fake)
    at_word, at_spaced = f"{local} at {domain}", f"{local} @ {domain}"
    wide = f"{local}\uff20{domain}"
    url = f"https://{fake.domain_name()}/unsubscribe?email={value}&list=news"
    return {
        "at-word": (_in_sentence("EMAIL_ADDRESS", i, at_word), [at_word], "console"),
        "at-spaced": (_in_sentence("EMAIL_ADDRESS", i, at_spaced), [at_spaced], "console"),
        "at-fullwidth": (_in_sentence("EMAIL_ADDRESS", i, wide), [wide], "console"),
        "slack-mailto": (f"mail <mailto:{value}|{value}> please", [value, value], "slack"),
        "markdown-mailto": (f"write to [{value}](mailto:{value})", [value, value], "discord"),
        "url-query": (f"click {url} to stop", [value], "console"),
        "upper": (_in_sentence("EMAIL_ADDRESS", i, value.upper()), [value.upper()], "console"),
        "cjk": (_cjk(cjk, value), [value], "console"),
    }


def _ip_forms(fake: Any, cjk: Any, i: int) -> dict[str, tuple[str, list[str], str]]:
    v4, v6, local = _ipv4(fake), _ipv6(fake), _link_local(fake)
    port, prefix = fake.port_number(), fake.random_int(8, 30)
    zone = f"{local}%eth{fake.random_digit()}"
    cidr, mapped = f"{v4}/{prefix}", f"::ffff:{_ipv4(fake)}"
    url = f"http://{v4}:{port}/admin"
    url6 = f"https://[{v6}]/status"

    def said(value: str) -> str:
        return _in_sentence("IP_ADDRESS", i, value)

    return {
        "v6-port": (said(f"[{v6}]:{port}"), [v6], "console"),
        "v4-port": (said(f"{v4}:{port}"), [v4], "console"),
        "zone-id": (said(zone), [zone], "console"),
        "cidr": (said(cidr), [cidr], "console"),
        "v4-mapped": (said(mapped), [mapped], "console"),
        "url": (f"the panel is at {url} now", [v4], "console"),
        "url-v6": (f"status page {url6} is down", [v6], "console"),
        "label": (f"addr:{v6} dropped", [v6], "console"),
        "log-colon": (f"{v6}: connection reset by peer", [v6], "console"),
        "upper-v6": (said(v6.upper()), [v6.upper()], "console"),
        "cjk-v4": (_cjk(cjk, v4), [v4], "console"),
        "cjk-v6": (_cjk(cjk, v6), [v6], "console"),
    }


def load_forms(per_form: int = PER_FORM, seed: int = SEED) -> Iterator[Case]:
    """Faker's e-mail and IP values in the written forms of the module docstring.

    Raises:
        ImportError: Faker is not installed (``pip install -e '.[eval]'``).
    """
    from faker import Faker

    version = metadata.version("faker")
    fake = Faker("en_US")
    fake.seed_instance(seed)
    cjk = [Faker(locale) for locale in _CJK_LOCALES]
    for index, other in enumerate(cjk):
        other.seed_instance(seed + index)
    pick = random.Random(seed)
    for n in range(per_form):
        other = pick.choice(cjk)
        for kind, forms in (
            ("EMAIL_ADDRESS", _email_forms(fake, other, n)),
            ("IP_ADDRESS", _ip_forms(fake, other, n)),
        ):
            for form, (text, values, platform) in forms.items():
                yield _written(version, f"{kind}.{form}[{n}]", kind, text, values, platform)


def _written(
    version: str, test: str, kind: str, text: str, values: list[str], platform: str
) -> Case:
    labels, position = [], 0
    for value in values:
        start = text.index(value, position)
        labels.append(label(kind, text, start, start + len(value)))
        position = start + len(value)
    return Case(
        source=FORMS_SOURCE,
        id=f"{FORMS_SOURCE}:{version}:{SEED}:{test}",
        origin=Origin(FAKER, version, "", test),
        text=text,
        labels=tuple(labels),
        platform=platform,
        complete=frozenset({kind}),
    )
