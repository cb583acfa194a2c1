"""Phone numbers: the candidate net and libphonenumber's verdict (no NLP model)."""

import pytest

from guardrails.rules.phones import find, score_number


def phones_in(text):
    return [text[start:end] for start, end, score in find(text) if score >= 0.4]


@pytest.mark.parametrize(
    "number",
    [
        "+4915112345678",  # E.164, no separators
        "+44 20 7946 0958",
        "0049 151 1234 5678",
        "+33 6 12 34 56 78",
        "06.12.34.56.78",  # French national, dotted: no date
        "030/12345678",  # German national with a slash
        "(415) 555-0123",
        "415.555.0123 x204",
        "+1-202-555-0173",
        "+91 98765 43210",
        "+55 11 91234-5678",
        "+86 138 0013 8000",
        "07700 900123",
        "0612345678",  # national, undivided, with its trunk 0
        "4155550123",
        "9876543210",  # India, in one run
        "13812345678",  # a Chinese mobile, in one run
        "(06 1) 234 5678",  # Hungarian, trunk and area code in brackets
        "(0-312) 34567",  # Lithuanian
        "(+44) 20 7946 0958",  # the country code in brackets
        "415\u2013555\u20130123",  # en dashes, as word processors put them for hyphens
        "0176 \u2013 1234567",
    ],
)
def test_numbers_written_as_countries_write_them(number):
    assert phones_in(f"reach me on {number} today") == [number]


@pytest.mark.parametrize(
    "text",
    [
        "release 2024-03-14, order 987654321, build 123456 at 10:30",
        "HTTP 503 2024-06-30",
        "v1.2.3 on 10.0.0.1 and 192.168.10.24",
        "ts 1700000000 and order 9876543210",
        "total $1,234,567.89 or 1.234.567",
        "SSN 536-22-8714",
        "build 6789 1234",  # eight digits with no phone word near
        "order no. 6789 1234",  # an id word before a phone word
        "Invoice #: 2125550187",
        "created 1716224000",  # ten digits from 1: a Unix time
        "qty 1,234,567 and 12,345,678.90",
        "released 2024\u201303\u201314, SSN 536\u201322\u20138714, pages 120\u2013145",
        "sent on 08/16/2000 03:14:14 PM and on 01.02.2024 10:30",  # a date, then its hour
    ],
)
def test_dates_ids_versions_and_amounts_are_not_phones(text):
    assert phones_in(text) == []


def test_a_short_national_number_counts_after_a_phone_word():
    assert phones_in("ring me on 6789 1234") == ["6789 1234"]


def test_a_number_broken_across_lines_and_glued_figures():
    assert phones_in("my number is +49 30\n123456 78") == ["+49 30\n123456 78"]
    assert score_number("2024-03-14") == 0


def test_a_phone_in_a_tab_separated_row_ends_at_its_cell():
    row = "Maria\t+1 415 555 0137\t4111 1111 1111 1111\t12\t(415) 555-0123\t2024"
    assert phones_in(row) == ["+1 415 555 0137", "(415) 555-0123"]


def test_a_number_in_a_csv_cell_ends_at_the_comma():
    row = "id,phone,qty\n17,415-555-0123,42\nx,07700 900123,12"
    assert phones_in(row) == ["415-555-0123", "07700 900123"]


def test_a_line_break_after_a_whole_number_ends_it():
    assert phones_in("call 415-555-0123\n42 apples") == ["415-555-0123"]
    assert phones_in("Tel +49 30 1234567\n2024 was busy") == ["+49 30 1234567"]


def test_an_international_number_counts_whatever_names_it():
    assert phones_in("order +91 98765 43210") == ["+91 98765 43210"]
