"""National identifiers: bare, in a scope's languages with a valid check (kept without one);
after their own name, in any language.

Every valid number here is made by computing its check digit in the test; an invalid one is
the same number with another check digit.
"""

from __future__ import annotations

import random

import pytest
from presidio_analyzer import AnalyzerEngine

from bot.core.scopes import PolicyOverride
from bot.core.types import ThreadId
from guardrails.detect.detection import detect
from guardrails.policy import default_policy, with_override
from guardrails.presidio import PresidioGuardrail

T1 = ThreadId("slack:T1:C1:1700000000.000300")
ICAO = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def de_tax_id(rng: random.Random) -> tuple[str, str]:
    """A valid and an invalid Steuer-ID (ISO 7064 mod 11,10)."""
    while True:
        body = [rng.randint(1, 9), *(rng.randint(0, 9) for _ in range(9))]
        if max(body.count(d) for d in body) <= 3:
            break
    product = 10
    for digit in body:
        total = (digit + product) % 10 or 10
        product = total * 2 % 11
    check = (11 - product) % 10
    digits = "".join(map(str, body))
    return f"{digits}{check}", f"{digits}{(check + 1) % 10}"


def de_id_card(rng: random.Random) -> tuple[str, str]:
    """A valid and an invalid identity card number with its ICAO 7-3-1 check digit."""
    alphabet = "CFGHJKLMNPRTVWXYZ0123456789"
    body = rng.choice("CFGHJKLMNPRTVWXYZ") + "".join(rng.choice(alphabet) for _ in range(7))
    body += str(rng.randint(0, 9))
    check = sum(ICAO.index(c) * (7, 3, 1)[i % 3] for i, c in enumerate(body)) % 10
    return f"{body}{check}", f"{body}{(check + 1) % 10}"


def fr_nir(rng: random.Random) -> tuple[str, str]:
    """A valid and an invalid NIR, written in its usual groups (key: 97 - n mod 97)."""
    sex, year, month = rng.choice("12"), rng.randint(40, 99), rng.randint(1, 12)
    body = f"{sex}{year:02d}{month:02d}{rng.randint(1, 95):02d}{rng.randint(1, 999):03d}"
    body += f"{rng.randint(1, 999):03d}"
    key = 97 - int(body) % 97
    spaced = f"{body[0]} {body[1:3]} {body[3:5]} {body[5:7]} {body[7:10]} {body[10:13]}"
    return f"{spaced} {key:02d}", f"{spaced} {(key % 96) + 1:02d}"


def _mod11(rng: random.Random, first: str, *, bsn: bool) -> tuple[str, str]:
    while True:
        body = [int(first), *(rng.randint(0, 9) for _ in range(7))]
        total = sum(d * w for d, w in zip(body, range(9, 1, -1), strict=True))
        if bsn:
            check = total % 11  # BSN: the weighted sum minus the last digit is a multiple of 11
        else:
            rest = total % 11
            check = 0 if rest < 2 else 11 - rest
        if check < 10:
            digits = "".join(map(str, body))
            wrong = (check + 1) % 10
            return f"{digits}{check}", f"{digits}{wrong}"


def pt_cc(rng: random.Random) -> tuple[str, str]:
    """A valid and an invalid Cartão de Cidadão number (Luhn, letters worth 10 to 35)."""
    civil = "".join(str(rng.randint(0, 9)) for _ in range(8))
    version = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(2))
    for check1 in range(10):
        for check2 in range(10):
            chars = f"{civil}{check1}{version}{check2}"
            total = 0
            for i, char in enumerate(reversed(chars)):
                worth = ICAO.index(char)
                if i % 2:  # every second from the right doubled, less 9 above 9
                    worth = worth * 2 - 9 if worth * 2 > 9 else worth * 2
                total += worth
            if total % 10 == 0:
                good = f"{civil} {check1} {version}{check2}"
                bad = f"{civil} {check1} {version}{(check2 + 5) % 10}"
                return good, bad
    raise AssertionError("no check digit")


def _digit_sum(number: int) -> int:
    return number // 10 + number % 10


def de_social_security(rng: random.Random) -> tuple[str, str]:
    """A valid and an invalid Rentenversicherungsnummer (weights 2,1,2,5,7,1,2,1,2,1,2,1)."""
    area, day, month = rng.randint(2, 89), rng.randint(1, 28), rng.randint(1, 12)
    year = rng.randint(40, 99)
    letter, serial = rng.choice("ABCDEFGHIJKLMNOPRSTUVWZ"), rng.randint(0, 99)
    digits = f"{area:02d}{day:02d}{month:02d}{year:02d}{ord(letter) - 64:02d}{serial:02d}"
    weights = (2, 1, 2, 5, 7, 1, 2, 1, 2, 1, 2, 1)
    check = sum(_digit_sum(int(d) * w) for d, w in zip(digits, weights, strict=True)) % 10
    body = f"{area:02d} {day:02d}{month:02d}{year:02d} {letter} {serial:02d}"
    return f"{body}{check}", f"{body}{(check + 1) % 10}"


def de_health_insurance(rng: random.Random) -> tuple[str, str]:
    """A valid and an invalid Krankenversichertennummer (letter as 01-26, weights 1, 2)."""
    letter = rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    number = "".join(str(rng.randint(0, 9)) for _ in range(8))
    digits = f"{ord(letter) - 64:02d}{number}"
    check = sum(_digit_sum(int(d) * (1, 2)[i % 2]) for i, d in enumerate(digits)) % 10
    return f"{letter}{number}{check}", f"{letter}{number}{(check + 1) % 10}"


def fr_tax_id(rng: random.Random) -> tuple[str, str]:
    """A valid and an invalid numéro fiscal (the first ten digits mod 511), in its groups."""
    head = f"{rng.randint(0, 3)}{rng.randint(0, 999_999_999):09d}"
    key = int(head) % 511
    spaced = f"{head[:2]} {head[2:4]} {head[4:7]} {head[7:10]}"
    return f"{spaced} {key:03d}", f"{spaced} {(key + 1) % 511:03d}"


def es_social_security(rng: random.Random) -> tuple[str, str]:
    """A valid and an invalid NUSS: province, eight digits, the two before mod 97."""
    province, number = rng.randint(1, 52), rng.randint(10_000_000, 99_999_999)
    check = int(f"{province:02d}{number}") % 97
    return f"{province:02d}/{number}/{check:02d}", f"{province:02d}/{number}/{(check + 1) % 97:02d}"


def pt_social_security(rng: random.Random) -> tuple[str, str]:
    """A valid and an invalid NISS (weights 29 … 2, check 9 minus the sum mod 10)."""
    digits = [1, *(rng.randint(0, 9) for _ in range(9))]
    total = sum(d * w for d, w in zip(digits, (29, 23, 19, 17, 13, 11, 7, 5, 3, 2), strict=True))
    check = 9 - total % 10
    body = "".join(map(str, digits))
    return f"{body}{check}", f"{body}{(check + 1) % 10}"


def pl_id_card(rng: random.Random) -> tuple[str, str]:
    """A valid and an invalid dowód osobisty number (weights 7,3,1,9,7,3,1,7,3; 4th: check)."""
    series = "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(3))
    number = "".join(str(rng.randint(0, 9)) for _ in range(5))
    rest = sum(
        ICAO.index(c) * w for c, w in zip(series + number, (7, 3, 1, 7, 3, 1, 7, 3), strict=True)
    )
    check = rest % 10  # weight 9 is -1 mod 10: the check digit equals the others' sum
    return f"{series}{check}{number}", f"{series}{(check + 1) % 10}{number}"


def values(text: str, analyzer: AnalyzerEngine, language: str) -> list[tuple[str, str]]:
    policy = with_override(default_policy(), PolicyOverride(language=language))
    return [(d.type, text[d.start : d.end]) for d in detect(analyzer, text, "console", policy)]


SEEDS = range(5)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(
    ("language", "entity", "make", "template"),
    [
        ("de", "DE_TAX_ID", de_tax_id, "Meine Nummer beim Finanzamt: {} für die Lohnabrechnung."),
        ("de", "DE_ID_CARD", de_id_card, "Die Nummer auf meinem Ausweis: {} bitte prüfen."),
        ("fr", "FR_NIR", fr_nir, "Mon numéro de sécurité sociale est le {} merci."),
        ("nl", "NL_BSN", lambda r: _mod11(r, "1", bsn=True), "Mijn nummer is {} voor het dossier."),
        ("pt", "PT_NIF", lambda r: _mod11(r, "2", bsn=False), "O meu número é {} para a fatura."),
        ("pt", "PT_CC", pt_cc, "O número do cartão de cidadão é {} obrigado."),
        (
            "de",
            "DE_SOCIAL_SECURITY",
            de_social_security,
            "Meine Sozialversicherungsnummer: {} für die Anmeldung.",
        ),
        ("de", "DE_HEALTH_INSURANCE", de_health_insurance, "Versichertennummer {} bei der AOK."),
        ("fr", "FR_TAX_ID", fr_tax_id, "Mon numéro fiscal est le {} pour la déclaration."),
        (
            "es",
            "ES_SOCIAL_SECURITY",
            es_social_security,
            "Mi número de la Seguridad Social es {} para el alta.",
        ),
        ("pt", "PT_SOCIAL_SECURITY", pt_social_security, "O meu NISS é {} para o contrato."),
        ("pl", "PL_ID_CARD", pl_id_card, "Seria i numer dowodu: {} do umowy."),
    ],
)
def test_a_valid_number_is_found_and_one_with_a_wrong_check_is_kept(  # not after its name
    presidio_analyzer: AnalyzerEngine, seed: int, language: str, entity: str, make, template: str
) -> None:
    good, bad = make(random.Random(f"{entity}{seed}"))
    assert (entity, good) in values(template.format(good), presidio_analyzer, language)
    assert not any(
        t == entity for t, _ in values(template.format(bad), presidio_analyzer, language)
    )


def test_a_bare_number_is_read_as_an_identifier_only_in_its_language(
    presidio_analyzer: AnalyzerEngine,
) -> None:
    good, _ = _mod11(random.Random(7), "1", bsn=True)
    text = f"Het nummer {good} staat in het dossier."
    assert ("NL_BSN", good) in values(text, presidio_analyzer, "nl")
    assert not any(t == "NL_BSN" for t, _ in values(text, presidio_analyzer, "en"))


@pytest.mark.parametrize("check", ["right", "wrong"])
@pytest.mark.parametrize(
    ("entity", "make", "template"),
    [
        ("NL_BSN", lambda rng: _mod11(rng, "1", bsn=True), "my BSN is {}, for the payroll"),
        ("DE_TAX_ID", de_tax_id, "Steuer-ID: {} (for the tax office)"),
        ("FR_NIR", fr_nir, "my NIR is {} if HR asks"),
    ],
)
def test_an_identifier_after_its_own_name_is_found_in_any_language(
    presidio_analyzer: AnalyzerEngine, check: str, entity: str, make, template: str
) -> None:
    # A Dutch colleague writing in English: the name says what the number is, and a
    # mistyped one (its check digit wrong) is still theirs.
    good, bad = make(random.Random(f"{entity}named"))
    number = good if check == "right" else bad
    assert (entity, number) in values(template.format(number), presidio_analyzer, "en")


@pytest.mark.parametrize(
    ("text", "entity", "value"),
    [
        ("my PESEL is 44051401458, thanks", "PL_PESEL", "44051401458"),
        ("DNI: 12345678Z", "ES_NIF", "12345678Z"),
        ("my NIE is X1234567L", "ES_NIE", "X1234567L"),
        ("NIF 123456789 on the invoice", "PT_NIF", "123456789"),
        ("my codice fiscale is RSSMRA85T10A562S", "IT_FISCAL_CODE", "RSSMRA85T10A562S"),
        ("CF: BNCGLI85M41H501X, mistyped", "IT_FISCAL_CODE", "BNCGLI85M41H501X"),
    ],
)
def test_presidios_country_numbers_after_their_name_in_any_language(
    presidio_analyzer: AnalyzerEngine, text: str, entity: str, value: str
) -> None:
    assert (entity, value) in values(text, presidio_analyzer, "en")


@pytest.mark.parametrize(
    ("language", "text", "entity", "value"),
    [
        # Presidio's country recognizers (after their names they count in any language)
        ("es", "Mi documento es el 12345678Z, gracias.", "ES_NIF", "12345678Z"),
        ("pl", "Mój numer to 44051401458, dziękuję.", "PL_PESEL", "44051401458"),
        # example numbers published by others: kryptografie.de's Sozialversicherungsnummer,
        # python-stdnum's French tax number, the specimen number of the Polish identity card
        # and numbers of a public Polish test-data generator (poland.gg)
        ("de", "SV-Nummer 10010490A443, bitte eintragen.", "DE_SOCIAL_SECURITY", "10010490A443"),
        ("fr", "Numéro fiscal : 30 23 217 600 053.", "FR_TAX_ID", "30 23 217 600 053"),
        ("pl", "Dowód osobisty ABA300000, ważny do 2030.", "PL_ID_CARD", "ABA300000"),
        ("pl", "numer dowodu VBW001463 i RWW948527", "PL_ID_CARD", "RWW948527"),
    ],
)
def test_published_numbers_are_found_in_their_language_only(
    presidio_analyzer: AnalyzerEngine, language: str, text: str, entity: str, value: str
) -> None:
    assert (entity, value) in values(text, presidio_analyzer, language)
    assert (entity, value) not in values(text, presidio_analyzer, "en")


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("de", "Bestellung A123456789 ist unterwegs."),  # a letter and nine digits, no check
        ("pl", "Kod produktu ABC123456 w magazynie."),  # three letters, six digits, no check
        ("es", "El pedido 281234567801 llegó ayer."),  # twelve digits, wrong rest mod 97
    ],
)
def test_look_alikes_that_fail_their_check_stay(
    presidio_analyzer: AnalyzerEngine, language: str, text: str
) -> None:
    found = values(text, presidio_analyzer, language)
    assert not any(
        t.endswith(("_ID_CARD", "_SOCIAL_SECURITY", "_HEALTH_INSURANCE")) for t, _ in found
    )


async def test_a_german_scope_replaces_a_steuer_id_an_english_only_scope_keeps_it(
    guardrail: PresidioGuardrail,
) -> None:
    good, _ = de_tax_id(random.Random(3))
    text = f"Hallo, meine Nummer beim Finanzamt ist {good}, bitte für die Abrechnung verwenden."
    german = await guardrail.anonymize(
        T1, text, platform="slack", policy=PolicyOverride(languages=("de", "fr"))
    )
    assert good not in german.text
    assert "<DE_TAX_ID_1>" in german.text
    english = await guardrail.anonymize(T1, text, platform="slack")
    assert "DE_TAX_ID" not in english.text


@pytest.mark.parametrize(
    ("language", "text", "date"),
    [
        ("de", "Geburtsdatum: 14.03.1987, Wohnort bekannt.", "14.03.1987"),
        ("de", "Sie ist am 2. März 1990 geboren, geboren am 02.03.90 laut Akte.", "02.03.90"),
        ("fr", "Il est né le 14 mars 1987 à l'hôpital.", "14 mars 1987"),
        ("es", "Fecha de nacimiento: 14/03/1987 según el expediente.", "14/03/1987"),
        ("it", "Data di nascita 14 marzo 1987, residente altrove.", "14 marzo 1987"),
        ("nl", "Zij is geboren op 14 maart 1987 in het ziekenhuis.", "14 maart 1987"),
        (
            "pt",
            "Data de nascimento: 14 de março de 1987, conforme o registo.",
            "14 de março de 1987",
        ),
        ("pl", "Pacjent urodzony 14 marca 1987 r. w szpitalu.", "14 marca 1987"),
        ("pl", "Data urodzenia: 14.03.1987", "14.03.1987"),
        # as chat says it
        ("es", "Nací el 3 de abril de 1985 en Sevilla.", "3 de abril de 1985"),
        ("pt", "Nasci a 12 de maio de 1985, no Porto.", "12 de maio de 1985"),
        ("pl", "Urodziłam się 12 maja 1985 w Gdańsku.", "12 maja 1985"),
        ("de", "Ich bin am 3. April 1985 geboren.", "3. April 1985"),
    ],
)
def test_a_date_of_birth_is_found_after_its_language_s_birth_word(
    presidio_analyzer: AnalyzerEngine, language: str, text: str, date: str
) -> None:
    assert ("DATE_OF_BIRTH", date) in values(text, presidio_analyzer, language)


def test_a_date_without_a_birth_word_stays(presidio_analyzer: AnalyzerEngine) -> None:
    text = "Die Rechnung vom 14.03.2024 ist bezahlt, Lieferung am 2. April 2024."
    assert not any(t == "DATE_OF_BIRTH" for t, _ in values(text, presidio_analyzer, "de"))
