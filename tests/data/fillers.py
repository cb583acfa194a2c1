"""Slot fillers for the corpus: each returns the parts of one slot, in a plain or a hard form.

A part is plain text, a ``Pii`` (a labelled personal value, with hard-case tags) or a ``Keep``
(a harmless token that must survive). Platform markup around a value is plain text.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from tests.data import pools as p


@dataclass(frozen=True)
class Pii:
    """A personal value as it appears in the text."""

    type: str
    text: str
    tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Keep:
    """A harmless token that redaction must leave alone."""

    kind: str
    text: str


Part = str | Pii | Keep
Filler = Callable[[random.Random, str], list[Part]]
ZW = "\u200b"


def _hard(rng: random.Random, rate: float = 0.4) -> bool:
    return rng.random() < rate


def _zero_width(rng: random.Random, value: str) -> str:
    cut = rng.randrange(1, len(value) - 1)
    return value[:cut] + rng.choice([ZW, "\u2060", "\u200c"]) + value[cut:]


def _bold(platform: str) -> tuple[str, str]:
    return ("*", "*") if platform == "slack" else ("**", "**")


def person(rng: random.Random, platform: str) -> list[Part]:
    """A name: full, first only, lower case, a word name, non-Latin, or glued to markup."""
    full = f"{rng.choice(p.FIRST)} {rng.choice(p.LAST)}"
    roll = rng.random()
    if roll < 0.4:
        return [Pii("PERSON", full if rng.random() < 0.7 else full.split()[0])]
    if roll < 0.52:
        return [Pii("PERSON", full.lower(), ("lowercase_name",))]
    if roll < 0.64:
        first, last = rng.choice(p.WORD_NAMES)
        return [Pii("PERSON", f"{first} {last}", ("name_is_word",))]
    if roll < 0.76:
        return [Pii("PERSON", rng.choice(p.NON_LATIN), ("non_latin_name",))]
    if roll < 0.88:
        opening, closing = _bold(platform)
        if platform == "discord" and rng.random() < 0.5:
            opening = closing = "||"
        return [opening, Pii("PERSON", full, ("glued_markup",)), closing]
    return ["(", Pii("PERSON", full, ("glued_punct",)), ")'s" if rng.random() < 0.5 else "),"]


def _email_value(rng: random.Random) -> str:
    first, last = rng.choice(p.FIRST).lower(), rng.choice(p.LAST).lower()
    local = rng.choice(
        [f"{first}.{last}", f"{first[0]}{last}", f"{first}_{last}{rng.randint(1, 99)}"]
    )
    return f"{local}@{rng.choice(p.DOMAINS)}"


def email(rng: random.Random, platform: str) -> list[Part]:
    """An e-mail: plain, as a platform link, spelled out, or with a zero-width char inside."""
    value = _email_value(rng)
    roll = rng.random()
    if roll < 0.45:
        return [Pii("EMAIL_ADDRESS", value)]
    if roll < 0.65:
        if platform == "slack":
            return ["<mailto:", Pii("EMAIL_ADDRESS", value), "|", Pii("EMAIL_ADDRESS", value), ">"]
        return ["[", Pii("EMAIL_ADDRESS", value), "](mailto:", Pii("EMAIL_ADDRESS", value), ")"]
    if roll < 0.82:
        spelled = value.replace(".", " dot ").replace("@", " at ").replace("_", " underscore ")
        return [Pii("EMAIL_ADDRESS", spelled, ("spelled_email",))]
    return [Pii("EMAIL_ADDRESS", _zero_width(rng, value), ("zero_width",))]


def phone(rng: random.Random, platform: str) -> list[Part]:
    """A phone: national or international, other separators, split across lines, tel: links."""
    area, _, rest = rng.choice(p.US_PHONES).partition("-")
    mid, last = rest.split("-")
    roll = rng.random()
    if roll < 0.35:
        return [Pii("PHONE_NUMBER", rng.choice([f"{area}-{mid}-{last}", f"({area}) {mid}-{last}"]))]
    if roll < 0.5:
        return [Pii("PHONE_NUMBER", f"+1 {area} {mid} {last}", ("phone_international",))]
    if roll < 0.6:
        return [Pii("PHONE_NUMBER", rng.choice(p.UK_PHONES), ("phone_international",))]
    if roll < 0.7:
        return [Pii("PHONE_NUMBER", f"{area}.{mid}.{last}", ("phone_format",))]
    if roll < 0.8:
        return [Pii("PHONE_NUMBER", f"+1 {area}\n{mid} {last}", ("phone_split",))]
    if platform == "slack":
        shown = f"{area}-{mid}-{last}"
        return [
            "<tel:",
            Pii("PHONE_NUMBER", f"+1{area}{mid}{last}"),
            "|",
            Pii("PHONE_NUMBER", shown),
            ">",
        ]
    return [Pii("PHONE_NUMBER", f"{area}{mid}{last}", ("phone_format",))]


def _grouped(digits: str, sizes: list[int], sep: str) -> str:
    parts, at = [], 0
    for size in sizes:
        parts.append(digits[at : at + size])
        at += size
    if at < len(digits):
        parts.append(digits[at:])
    return sep.join(x for x in parts if x)


def card(rng: random.Random, platform: str) -> list[Part]:
    """A test card number with standard, unusual or no grouping, or a zero-width char inside."""
    digits = rng.choice(p.CARDS)
    roll = rng.random()
    if roll < 0.45:
        return [Pii("CREDIT_CARD", _grouped(digits, [4, 4, 4, 4], rng.choice([" ", "-"])))]
    if roll < 0.6:
        return [Pii("CREDIT_CARD", digits, ("card_grouping",))]
    if roll < 0.85:
        sizes = rng.choice([[4, 8, 4], [2, 2, 4, 4, 4], [4, 6, 5], [8, 8]])
        return [
            Pii(
                "CREDIT_CARD",
                _grouped(digits, sizes, rng.choice([" ", "-", "."])),
                ("card_grouping",),
            )
        ]
    return [
        Pii("CREDIT_CARD", _zero_width(rng, _grouped(digits, [4, 4, 4, 4], " ")), ("zero_width",))
    ]


def iban(rng: random.Random, platform: str) -> list[Part]:
    """A published example IBAN, grouped by 4, compact, or grouped oddly."""
    value = rng.choice(p.IBANS)
    roll = rng.random()
    if roll < 0.5:
        return [Pii("IBAN_CODE", _grouped(value, [4] * 8, " "))]
    if roll < 0.75:
        return [Pii("IBAN_CODE", value, ("iban_grouping",))]
    return [
        Pii("IBAN_CODE", _grouped(value, [4, 6, 6, 6], rng.choice([" ", "-"])), ("iban_grouping",))
    ]


def ssn(rng: random.Random, platform: str) -> list[Part]:
    """A synthetic SSN with dashes, spaces or none."""
    value = rng.choice(p.SSNS)
    roll = rng.random()
    if roll < 0.6:
        return [Pii("US_SSN", value)]
    return [Pii("US_SSN", value.replace("-", rng.choice([" ", ""])), ("ssn_format",))]


def ip(rng: random.Random, platform: str) -> list[Part]:
    """A documentation-range IP, bare or inside a URL."""
    value = rng.choice(p.IPS)
    if ":" not in value and _hard(rng, 0.3):
        return ["http://", Pii("IP_ADDRESS", value, ("pii_in_url",)), ":8080/admin"]
    return [Pii("IP_ADDRESS", value)]


def crypto(rng: random.Random, platform: str) -> list[Part]:
    """A Bitcoin or Ethereum address."""
    if rng.random() < 0.55:
        return [Pii("CRYPTO", rng.choice(p.BTC), ("crypto_btc",))]
    return [Pii("CRYPTO", rng.choice(p.ETH), ("crypto_eth",))]


def licence(rng: random.Random, platform: str) -> list[Part]:
    """A driver's licence number."""
    return [Pii("DRIVER_LICENSE", rng.choice(p.LICENSES), ("drivers_license",))]


def birthdate(rng: random.Random, platform: str) -> list[Part]:
    """A date of birth in one of the usual spellings."""
    day, month, year = rng.randint(1, 28), rng.randrange(1, 13), rng.randint(1950, 2004)
    value = rng.choice(
        [f"{day} {p.MONTHS[month % len(p.MONTHS)]} {year}", f"{month:02d}/{day:02d}/{year}",
         f"{year}-{month:02d}-{day:02d}"]
    )  # fmt: skip
    return [Pii("DATE_OF_BIRTH", value, ("birthdate",))]


def location(rng: random.Random, platform: str) -> list[Part]:
    """A city (sometimes lower case) or a street address."""
    roll = rng.random()
    if roll < 0.6:
        return [Pii("LOCATION", rng.choice(p.CITIES))]
    if roll < 0.8:
        return [Pii("LOCATION", rng.choice(p.CITIES).lower(), ("lowercase_location",))]
    return [Pii("LOCATION", rng.choice(p.STREETS), ("street_address",))]


def url_pii(rng: random.Random, platform: str) -> list[Part]:
    """Personal data inside a URL: a query string or a profile slug."""
    if rng.random() < 0.6:
        mail = _email_value(rng)
        parts: list[Part] = [
            "https://crm.example.com/contacts?email=",
            Pii("EMAIL_ADDRESS", mail, ("pii_in_url",)),
            "&ref=chat",
        ]
    else:
        slug = f"{rng.choice(p.FIRST)}-{rng.choice(p.LAST)}".lower()
        parts = ["https://profiles.example.org/in/", Pii("PERSON", slug, ("pii_in_url",))]
    if platform == "slack" and rng.random() < 0.5:
        return ["<", *parts, "|profile>"]
    return parts


def _keep(kind: str, pool: list[str]) -> Filler:
    def fill(rng: random.Random, platform: str) -> list[Part]:
        return [Keep(kind, rng.choice(pool))]

    return fill


def code(rng: random.Random, platform: str) -> list[Part]:
    """A code identifier, in backticks."""
    return ["`", Keep("code", rng.choice(p.CODE)), "`"]


FILLERS: dict[str, Filler] = {
    "PERSON": person, "EMAIL": email, "PHONE": phone, "CARD": card, "IBAN": iban, "SSN": ssn,
    "IP": ip, "CRYPTO": crypto, "DL": licence, "DOB": birthdate, "CITY": location,
    "URLPII": url_pii, "CODE": code,
    "PRODUCT": _keep("product", p.PRODUCTS), "COMPANY": _keep("company", p.COMPANIES),
    "VERSION": _keep("version", p.VERSIONS), "DATE": _keep("date", p.DATES),
    "TICKET": _keep("ticket", p.TICKETS), "WORD": _keep("word_name", p.WORD_USES),
}  # fmt: skip
