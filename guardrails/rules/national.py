"""National identifiers of the languages a scope reads, with their check digits; titled names.

Each language's recognizers run beside the English ones when a message was identified as that
language (``guardrails.text.language``); right after its own name ("BSN", "Steuer-ID", "NIR",
"NIF", "PESEL", "DNI", "NIE") a number of that shape is one in a message of any language, its
check digit right or not (``_NAMED``). Presidio's own country recognizers where it has them
(Spanish NIF and NIE, Italian fiscal code and identity card, Polish PESEL), rebuilt for the
one language the analyzer runs, and veilbot's where it has none or reads too little:

- German tax ID (Steuer-ID): eleven digits, also grouped ``86 095 742 719`` (Presidio's reads
  one run only); ISO 7064 mod 11,10 check digit and no digit more than three times in the
  first ten;
- German identity card: nine characters of its alphabet (no vowels, no B, D, Q, S) with a
  digit, then its ICAO 7-3-1 check digit; the nine alone only after an identity-card word;
- French NIR (INSEE number): sex, year, month, department (``2A``/``2B`` for Corsica),
  commune, order, and a key of 97 minus the number mod 97;
- Dutch BSN: nine digits (``123456782``, ``1234.56.782``) passing the 11-check;
- Portuguese NIF: nine digits with a mod 11 check digit;
- Portuguese Cartão de Cidadão: ``12345678 9 ZZ4``, the whole checked as Luhn with letters
  worth 10 to 35;
- German social insurance (pension) number: area, date of birth, the birth name's initial,
  serial, ``12 150780 M 123``; the letter as its place in the alphabet, weights 2, 1, 2, 5,
  7, 1, 2, 1, 2, 1, 2, 1, digit sums mod 10;
- German health insurance number (on the health card): a letter and nine digits, the letter
  as its place in the alphabet, weights 1 and 2, digit sums mod 10;
- French tax number (numéro fiscal, SPI): thirteen digits from 0 to 3 on, the last three the
  first ten mod 511;
- Spanish social security number (NUSS, NAF): province, number, two check digits (the two
  before them mod 97), ``28/12345678/40``;
- Portuguese social security number (NISS): eleven digits, 1 or 2 first, 9 minus the
  weighted sum (29, 23, 19, …, 2) mod 10;
- Polish identity card (dowód osobisty): three letters and six digits, ``ABA 300000``, weights
  7, 3, 1, 9, 7, 3, 1, 7, 3 summing to a multiple of ten (letters worth 10 to 35).

With them, a capitalised name after one of the language's courtesy titles is a person
(``local.titled_names``: "Frau Kowalczyk", "Madame Dubois").

A bare number that fails its check is no identifier (a mistyped one stays in the text, as a
card that fails Luhn does without a card word).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from typing import Any

from guardrails.rules import local
from guardrails.rules.recognizers import RegexRecognizer, Rule

ANALYZER_LANGUAGE = "en"
"""The one language the analyzer runs (``guardrails.engine.LANGUAGE``)."""

TYPES = (
    "DE_TAX_ID", "DE_ID_CARD", "DE_SOCIAL_SECURITY", "DE_HEALTH_INSURANCE", "FR_NIR",
    "FR_TAX_ID", "NL_BSN", "PT_NIF", "PT_CC", "PT_SOCIAL_SECURITY", "ES_NIF", "ES_NIE",
    "ES_SOCIAL_SECURITY", "IT_FISCAL_CODE", "IT_IDENTITY_CARD", "PL_PESEL", "PL_ID_CARD",
)  # fmt: skip
"""Every type this module's recognizers give."""

_DIGIT = re.compile(r"\d")
_NEVER = re.compile(r"(?!)")


def de_tax_id(value: str) -> bool:
    """Whether eleven digits are a German tax ID (mod 11,10 check, digit repetition)."""
    digits = [int(d) for d in re.sub(r"\D", "", value)]
    if len(digits) != 11 or digits[0] == 0 or max(Counter(digits[:10]).values()) > 3:
        return False
    product = 10
    for digit in digits[:10]:
        total = (digit + product) % 10 or 10
        product = total * 2 % 11
    return (11 - product) % 10 == digits[10]


_ICAO = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def icao_check(chars: str) -> int:
    """The ICAO 9303 check digit of ``chars`` (weights 7, 3, 1; letters worth 10 to 35)."""
    return sum(_ICAO.index(c) * (7, 3, 1)[i % 3] for i, c in enumerate(chars)) % 10


def de_id_card(value: str) -> bool:
    """Whether ten characters are an identity card number and its check digit."""
    return len(value) == 10 and icao_check(value[:9]) == int(value[9])


def fr_nir(value: str) -> bool:
    """Whether a French NIR's key is 97 minus its 13 characters mod 97 (2A as 19, 2B as 18)."""
    compact = re.sub(r"\s", "", value).upper()
    body, key = compact[:13], compact[13:]
    body = body.replace("2A", "19", 1) if body[5:7] == "2A" else body
    body = body.replace("2B", "18", 1) if body[5:7] == "2B" else body
    return body.isdigit() and key.isdigit() and 97 - int(body) % 97 == int(key)


def nl_bsn(value: str) -> bool:
    """Whether nine digits pass the Dutch 11-check (weights 9..2, the last digit -1)."""
    digits = [int(d) for d in re.sub(r"\D", "", value)]
    if len(digits) != 9 or digits[:3] == [0, 0, 0]:
        return False
    total = sum(d * w for d, w in zip(digits[:8], range(9, 1, -1), strict=True)) - digits[8]
    return total % 11 == 0


def pt_nif(value: str) -> bool:
    """Whether nine digits are a Portuguese NIF (mod 11 check digit, a NIF's first digit)."""
    digits = [int(d) for d in re.sub(r"\D", "", value)]
    if len(digits) != 9 or digits[0] in (0, 4):
        return False
    rest = sum(d * w for d, w in zip(digits[:8], range(9, 1, -1), strict=True)) % 11
    return (0 if rest < 2 else 11 - rest) == digits[8]


def pt_cc(value: str) -> bool:
    """Whether a Cartão de Cidadão number checks: Luhn over all 12 characters, A=10 … Z=35."""
    chars = re.sub(r"\s", "", value).upper()
    if len(chars) != 12:
        return False
    total = 0
    for i, char in enumerate(reversed(chars)):
        worth = _ICAO.index(char)
        if i % 2 == 1:
            worth *= 2
            worth -= 9 if worth > 9 else 0
        total += worth
    return total % 10 == 0


def _digit_sum(number: int) -> int:
    return sum(int(d) for d in str(number))


def _alphabet_place(letter: str) -> str:
    """A letter as its two-digit place in the alphabet (``A`` 01 … ``Z`` 26)."""
    return f"{ord(letter) - ord('A') + 1:02d}"


def de_social_security(value: str) -> bool:
    """Whether twelve characters are a German social insurance (pension) number.

    Area 02-89, a date of birth (day, month), a letter, serial, check digit: the letter as
    two digits, weights 2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1, the products' digit sums mod 10.
    """
    chars = re.sub(r"\s", "", value).upper()
    if not re.fullmatch(r"\d{8}[A-Z]\d{3}", chars):
        return False
    area, day, month = int(chars[:2]), int(chars[2:4]), int(chars[4:6])
    if not (2 <= area <= 89 and 1 <= day <= 31 and 1 <= month <= 12):
        return False
    digits = chars[:8] + _alphabet_place(chars[8]) + chars[9:11]
    weights = (2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1)
    total = sum(_digit_sum(int(d) * w) for d, w in zip(digits, weights, strict=True))
    return total % 10 == int(chars[11])


def de_health_insurance(value: str) -> bool:
    """Whether a letter and nine digits are a German health insurance number (KVNR).

    The letter as two digits, with the eight after it weighted 1, 2, 1, 2, …; the products'
    digit sums mod 10 are the check digit.
    """
    chars = value.upper()
    if not re.fullmatch(r"[A-Z]\d{9}", chars):
        return False
    digits = _alphabet_place(chars[0]) + chars[1:9]
    total = sum(_digit_sum(int(d) * (1, 2)[i % 2]) for i, d in enumerate(digits))
    return total % 10 == int(chars[9])


def fr_tax_id(value: str) -> bool:
    """Whether thirteen digits are a French tax number (SPI): the first ten mod 511 end it."""
    digits = re.sub(r"\s", "", value)
    return (
        len(digits) == 13 and digits.isdigit() and digits[0] in "0123"
        and int(digits[:10]) % 511 == int(digits[10:])
    )  # fmt: skip


def es_social_security(value: str) -> bool:
    """Whether a Spanish social security number's two check digits are the rest mod 97.

    Province (01-53, 66), the number (eight digits, or seven in older ones), the check: the
    province and number read as one number when the number is eight digits long and at least
    10 000 000, else the province times 10 000 000 plus the number.
    """
    digits = re.sub(r"[\s/.-]", "", value)
    if not digits.isdigit() or len(digits) not in (11, 12):
        return False
    province, number, check = int(digits[:2]), int(digits[2:-2]), int(digits[-2:])
    if not (1 <= province <= 53 or province == 66):
        return False
    whole = int(digits[:-2]) if number >= 10_000_000 else province * 10_000_000 + number
    return whole % 97 == check


def pt_social_security(value: str) -> bool:
    """Whether eleven digits are a Portuguese NISS (weights 29 … 2, check 9 minus mod 10)."""
    digits = [int(d) for d in re.sub(r"\s", "", value) if d.isdigit()]
    if len(digits) != 11 or digits[0] not in (1, 2):
        return False
    weights = (29, 23, 19, 17, 13, 11, 7, 5, 3, 2)
    return 9 - sum(d * w for d, w in zip(digits[:10], weights, strict=True)) % 10 == digits[10]


def pl_id_card(value: str) -> bool:
    """Whether three letters and six digits are a Polish identity card number.

    Letters worth 10 to 35, weights 7, 3, 1, 9, 7, 3, 1, 7, 3 (the fourth character is the
    check digit): the weighted sum is a multiple of ten.
    """
    chars = re.sub(r"\s", "", value).upper()
    if not re.fullmatch(r"[A-Z]{3}\d{6}", chars):
        return False
    weights = (7, 3, 1, 9, 7, 3, 1, 7, 3)
    return sum(_ICAO.index(c) * w for c, w in zip(chars, weights, strict=True)) % 10 == 0


def _named(words: str, value: str) -> re.Pattern[str]:
    """A value right after one of its own names: ``BSN: 111222333``, ``PESEL nr 4405…``."""
    return re.compile(
        rf"(?i:\b(?:{words}))\b[ \t]*(?:(?i:is|ist|es|est|é|è|to|jest|lautet|nr\.?|no\.?|"
        rf"num(?:ber|mer|ero|éro)?|número|n[°º]\.?)"
        rf"[ \t]*|[:#=][ \t]*)*(?P<v>(?<![\w.,/+-])(?:{value}))(?![\w/-]|[.,]\d)"
    )


_NAMED: tuple[Rule, ...] = tuple(
    Rule(entity_type, _named(words, value), 0.95, needs=_DIGIT)
    for entity_type, words, value in (
        (
            "NL_BSN",
            r"bsn|burgerservicenummer|sofi-?nummer",
            r"\d{9}|\d{4}\.\d\d\.\d{3}|\d{3} \d{3} \d{3}",
        ),
        (
            "DE_TAX_ID",
            r"steuer-?id|steuer-?identifikationsnummer|steuerliche[ \t]+identifikationsnummer",
            r"\d{11}|\d\d(?: \d{3}){3}",
        ),
        (
            "FR_NIR",
            r"nir|insee|num[ée]ro[ \t]+de[ \t]+s[ée]curit[ée][ \t]+sociale|s[ée]cu",
            r"[1-478] ?\d\d ?\d\d ?(?:\d\d|2[AaBb]) ?\d{3} ?\d{3} ?\d\d",
        ),
        ("PT_NIF", r"nif|contribuinte", r"\d{9}|\d{3} \d{3} \d{3}"),
        ("PL_PESEL", r"pesel", r"\d{11}"),
        ("ES_NIF", r"dni|nif", r"\d{8}[ -]?[A-Za-z]"),
        ("ES_NIE", r"nie", r"[XYZxyz][ -]?\d{7}[ -]?[A-Za-z]"),
        (
            "IT_FISCAL_CODE",
            r"codice[ \t]+fiscale|cf",
            r"[A-Za-z]{6}[ ]?\d\d[A-Za-z]\d\d[ ]?[A-Za-z]\d{3}[A-Za-z]",
        ),
    )
)
"""Each identifier after its own name, in a message of any language ("my BSN is 111222333",
written in English by a Dutch colleague): the name says what it is, and a mistyped one that
fails its check digit is still the person's number (as a card after a card word is)."""

_DE_CARD_CHARS = "[CFGHJKLMNPRTVWXYZ0-9]"
_DE_CARD_WORD = (
    r"(?i:\b(?:personalausweis(?:nummer|[ \t]+nr\.?|[ \t]+nummer)?|ausweis(?:nummer|[ \t]+nr\.?)?"
    r"|ausweis-nr\.?|perso(?:nalausweis)?-?nr\.?))[ \t:#.]*"
)
_RULES: dict[str, tuple[Rule, ...]] = {
    "de": (
        Rule(
            "DE_TAX_ID",
            re.compile(r"(?<![\w.,/-])[1-9]\d(?: ?\d{3}){3}(?![\w/-]|[.,]\d|[ ]\d)"),
            1.0,  # a check digit and the message's language: above a national phone number
            de_tax_id,
            needs=_DIGIT,
        ),
        Rule(
            "DE_ID_CARD",
            re.compile(rf"\b(?=[A-Z0-9]*\d)[CFGHJKLMNPRTVWXYZ]{_DE_CARD_CHARS}{{8}}\d\b"),
            1.0,
            de_id_card,
            needs=_DIGIT,
        ),
        Rule(
            "DE_ID_CARD",
            re.compile(
                rf"{_DE_CARD_WORD}(?P<v>\b(?=[A-Z0-9]*\d)[CFGHJKLMNPRTVWXYZ]{_DE_CARD_CHARS}{{8}}\b)"
            ),
            0.8,
            needs=_DIGIT,
        ),
        Rule(
            "DE_SOCIAL_SECURITY",
            re.compile(r"(?<![\w.,/-])\d\d[ ]?\d{6}[ ]?[A-Za-z][ ]?\d\d[ ]?\d(?![\w/-]|[.,]\d)"),
            1.0,
            de_social_security,
            needs=_DIGIT,
        ),
        Rule(
            "DE_HEALTH_INSURANCE",
            re.compile(r"\b[A-Za-z]\d{9}\b"),
            1.0,
            de_health_insurance,
            needs=_DIGIT,
        ),
    ),
    "fr": (
        Rule(
            "FR_NIR",
            re.compile(
                r"(?<![\w.,/-])[1-478][ ]?\d\d[ ]?(?:0[1-9]|1[0-2]|[2-9]\d)[ ]?(?:\d\d|2[AaBb])"
                r"[ ]?\d{3}[ ]?\d{3}[ ]?\d\d(?![\w/-]|[.,]\d|[ ]\d)"
            ),
            1.0,
            fr_nir,
            needs=_DIGIT,
        ),
        Rule(
            "FR_TAX_ID",
            re.compile(r"(?<![\w.,/-])[0-3]\d[ ]?\d\d(?:[ ]?\d{3}){3}(?![\w/-]|[.,]\d|[ ]\d)"),
            1.0,
            fr_tax_id,
            needs=_DIGIT,
        ),
    ),
    "es": (
        Rule(
            "ES_SOCIAL_SECURITY",
            re.compile(r"(?<![\w.,/+-])\d\d[ /-]?\d{7,8}[ /-]?\d\d(?![\w/-]|[.,]\d|[ ]\d)"),
            1.0,
            es_social_security,
            needs=_DIGIT,
        ),
    ),
    "pl": (
        Rule(
            "PL_ID_CARD",
            re.compile(r"\b[A-Z]{3}[ ]?\d{6}\b"),
            1.0,
            pl_id_card,
            needs=_DIGIT,
        ),
    ),
    "nl": (
        Rule(
            "NL_BSN",
            re.compile(
                r"(?<![\w.,/+-])(?:\d{9}|\d{4}\.\d\d\.\d{3}|\d{3} \d{3} \d{3})(?![\w/-]|[.,]\d)"
            ),
            0.9,  # one 9-digit number in 11 passes: below a phone number libphonenumber accepts
            nl_bsn,
            needs=_DIGIT,
        ),
    ),
    "pt": (
        Rule(
            "PT_NIF",
            re.compile(r"(?<![\w.,/+-])(?:\d{9}|\d{3} \d{3} \d{3})(?![\w/-]|[.,]\d)"),
            0.9,
            pt_nif,
            needs=_DIGIT,
        ),
        Rule(
            "PT_CC",
            re.compile(r"\b\d{8}[ ]?\d[ ]?[A-Z0-9]{2}\d\b", re.IGNORECASE),
            1.0,
            pt_cc,
            needs=_DIGIT,
        ),
        Rule(
            "PT_SOCIAL_SECURITY",
            re.compile(r"(?<![\w.,/+-])[12]\d{10}(?![\w/-]|[.,]\d)"),
            0.9,  # one such eleven-digit number in ten passes, as PT_NIF
            pt_social_security,
            needs=_DIGIT,
        ),
    ),
}

_PRESIDIO: dict[str, tuple[str, ...]] = {
    "es": ("EsNifRecognizer", "EsNieRecognizer"),
    "it": ("ItFiscalCodeRecognizer", "ItIdentityCardRecognizer"),
    "pl": ("PlPeselRecognizer",),
}
"""Presidio's recognizers of each language, by class name."""


def recognizers(language: str | None, enabled: frozenset[str]) -> list[Any]:
    """The national-identifier recognizers of ``language`` for the enabled types."""
    return list(_built(language or ANALYZER_LANGUAGE, enabled))


@functools.lru_cache(maxsize=32)
def _built(language: str, enabled: frozenset[str]) -> tuple[Any, ...]:
    from presidio_analyzer import predefined_recognizers

    own = [r for r in (*_RULES.get(language, ()), *_NAMED) if r.type in enabled]
    by_type: dict[str, list[Rule]] = {}
    for rule in own:
        by_type.setdefault(rule.type, []).append(rule)
    if "PERSON" in enabled and language in local.LANGUAGES:  # "Frau Kowalczyk", "pani Nowak"
        titled = functools.partial(local.titled_names, language)
        by_type.setdefault("PERSON", []).append(Rule("PERSON", _NEVER, 0.0, finder=titled))
    built: list[Any] = [RegexRecognizer(f"veilbot_{t.lower()}", rs) for t, rs in by_type.items()]
    for name in _PRESIDIO.get(language, ()):
        recognizer = getattr(predefined_recognizers, name)(supported_language=ANALYZER_LANGUAGE)
        if set(recognizer.supported_entities) & enabled:
            built.append(recognizer)
    return tuple(built)
