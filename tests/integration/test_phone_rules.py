"""Phone numbers through the real detection on the small spaCy model: numbers written in one
run, next to a CSV cell's comma or at a line's end, the formats libphonenumber prints, phone
words in other languages, and ids named as such."""

import phonenumbers
import pytest
from phonenumbers import PhoneNumberFormat, PhoneNumberType

from guardrails.detect.detection import detect
from guardrails.rules.phones import REGIONS


def found(analyzer, text):
    return [(d.type, text[d.start : d.end]) for d in detect(analyzer, text, "console")]


def phones(analyzer, text):
    return [value for kind, value in found(analyzer, text) if kind == "PHONE_NUMBER"]


@pytest.mark.parametrize(
    "text",
    [
        "ok so 9876543210 is the one to use",  # an Indian mobile, no phone word
        "Priya: 9876543210",
        "new one is 13812345678 from tomorrow",  # a Chinese mobile
        "11984565666 works after 6",  # a Brazilian mobile with its area code
        "try 5512345678 instead",  # Mexico City
    ],
)
def test_a_number_written_in_one_run_is_a_phone_number_without_a_phone_word(
    presidio_analyzer, text
):
    value = next(word for word in text.replace(":", " ").split() if word.isdigit())
    assert phones(presidio_analyzer, text) == [value]


@pytest.mark.parametrize(
    "text",
    [
        "order 9876543210 shipped",
        "ticket 4155550123 is closed",
        "tracking no. 9876543210",
        "Invoice #: 2125550187",
        "ts=1700000000",
        "build 6789 1234 passed",
        "created 1716224000 in the logs",  # a Unix time: ten digits from 1
    ],
)
def test_numbers_named_as_ids_and_unix_times_stay(presidio_analyzer, text):
    assert found(presidio_analyzer, text) == []


def test_an_international_number_is_a_phone_number_whatever_names_it(presidio_analyzer):
    assert phones(presidio_analyzer, "order +91 98765 43210 by noon") == ["+91 98765 43210"]


def test_a_phone_in_a_csv_row_ends_at_its_cell(presidio_analyzer):
    rows = "name,phone,qty\nx1,415-555-0123,42\nx2,07700 900123,12\nx3,+44 20 7946 0958,7"
    assert phones(presidio_analyzer, rows) == ["415-555-0123", "07700 900123", "+44 20 7946 0958"]


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("call 415-555-0123\n42 apples left", "415-555-0123"),
        ("Tel: 0176 1234567\n2024 was busy", "0176 1234567"),
        ("my number is +49 30\n123456 78", "+49 30\n123456 78"),  # broken across lines
    ],
)
def test_a_phone_at_a_line_end_does_not_run_into_the_next_line(presidio_analyzer, text, number):
    assert phones(presidio_analyzer, text) == [number]


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("Telefon 6123 4567", "6123 4567"),
        ("téléphone 87 47 98", "87 47 98"),
        ("llámame al móvil 612 34 56", "612 34 56"),
        ("il mio cellulare 347 1234", "347 1234"),
        ("ring på tlf 21 23 45 67", "21 23 45 67"),
        ("mein Handy: 4567 8901", "4567 8901"),
        ("Handynummer 4567 8901", "4567 8901"),
    ],
)
def test_phone_words_in_other_languages_make_a_short_number_count(presidio_analyzer, text, number):
    assert phones(presidio_analyzer, text) == [number]


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("PT SEEN ON WARD 4B, PAGER 45872.", "45872"),
        ("if it gets worse, beeper #4-5872", "4-5872"),
        ("covering tonight, pgr: 1234", "1234"),
    ],
)
def test_a_pager_number_is_a_phone_number(presidio_analyzer, text, number):
    assert phones(presidio_analyzer, text) == [number]


def test_a_short_number_beside_a_family_member_is_their_line(presidio_analyzer):
    text = "FAMILY: SON JAMES 555-3421, DAUGHTER SUSAN 555 8890"
    assert phones(presidio_analyzer, text) == ["555-3421", "555 8890"]


def test_numbers_near_a_pager_word_that_are_no_pager_number_stay(presidio_analyzer):
    text = "PagerDuty 2024 incident, pager 2.0 release, page 45 of the pager manual"
    assert phones(presidio_analyzer, text) == []


def _printed_numbers() -> list[str]:
    """libphonenumber's own example numbers of every region read without a prefix, in the
    national format it prints for them."""
    numbers = []
    for region in REGIONS:
        for kind in (PhoneNumberType.FIXED_LINE, PhoneNumberType.MOBILE):
            example = phonenumbers.example_number_for_type(region, kind)
            if example is not None:
                numbers.append(phonenumbers.format_number(example, PhoneNumberFormat.NATIONAL))
    return sorted(set(numbers))


def test_every_national_format_libphonenumber_prints_is_read_after_a_phone_word(
    presidio_analyzer,
):
    missed = [n for n in _printed_numbers() if phones(presidio_analyzer, f"call {n}") != [n]]
    assert missed == []


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("Tel. 0176 1234567", ["0176 1234567"]),
        (
            "Meine Nummer: Tel. 0176 1234567, mein Handy 0151 2345678",
            ["0176 1234567", "0151 2345678"],
        ),
        ("Mon numéro: 06 12 34 56 78", ["06 12 34 56 78"]),
    ],
)
def test_a_phone_word_in_another_language_is_not_taken_for_a_person(
    presidio_analyzer, text, numbers
):
    # The English model reads "Tel", "mein Handy" or "Meine Nummer" as a name: the message
    # then reached the model as "<PERSON_1>: Tel. <PHONE_NUMBER_1>".
    assert found(presidio_analyzer, text) == [("PHONE_NUMBER", n) for n in numbers]


def test_a_person_named_beside_a_phone_word_is_still_a_person(presidio_analyzer):
    text = "Maria Handy called from 0176 1234567; Tel Aviv office has it"
    kinds = found(presidio_analyzer, text)
    assert ("PERSON", "Maria Handy") in kinds
    assert ("PHONE_NUMBER", "0176 1234567") in kinds
