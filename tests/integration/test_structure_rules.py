"""Structured text, European addresses, US licences and dates of birth, through the guardrail.

Each value must become ONE placeholder of its type, nothing of it left in what the model sees,
and come back exactly; the negatives must reach the model untouched.
"""

import re

import pytest

from bot.core.types import ThreadId
from guardrails.detect.detection import detect


def typed(analyzer, text):
    """Each detection of ``text`` as ``(type, value)``, in reading order."""
    return [(d.type, text[d.start : d.end]) for d in detect(analyzer, text, "console")]


T = ThreadId("slack:T1:C1:1700000000.000300")

FORMS = [
    # key/value structure: JSON, YAML, form lines, bullets, headers, role lines, markup
    ('{"name": "Ruby Hope", "team": "ops"}', "Ruby Hope", "PERSON"),
    ("full_name: Grant Will\nteam: ops", "Grant Will", "PERSON"),
    ("• Name: Tariq Oyelaran\n• Phone: 0171 2345678", "Tariq Oyelaran", "PERSON"),
    ("- Phone: 0171 2345678\n- Name: Tariq Oyelaran", "0171 2345678", "PHONE_NUMBER"),
    ("Ruby Grant — Head of Sales\nWill Amber — backend engineer", "Will Amber", "PERSON"),
    ("the file was signed /Faina Yefremova/ yesterday", "Faina Yefremova", "PERSON"),
    ("ping [Ruby Grant] and «Jane Okafor» today", "Ruby Grant", "PERSON"),
    ("| Name | Team |\n|---|---|\n| Grant Will | ops |", "Grant Will", "PERSON"),
    ("| name | dob |\n| Ruby Hope | 12/05/1969 |", "12/05/1969", "DATE_OF_BIRTH"),
    # tables without their outer bars, and rows pasted from a spreadsheet or a CSV file
    ("Name | Phone | City\nLuis Ortega | +34 612 345 678 | Sevilla", "Sevilla", "LOCATION"),
    ("Name,Phone,City\nLuis Ortega,+34 612 345 678,Sevilla", "Sevilla", "LOCATION"),
    ('name,city\n"Ortega, Luis",Sevilla', "Ortega, Luis", "PERSON"),
    ("name\tcity\nLuis Ortega\tSevilla", "Sevilla", "LOCATION"),
    ("name;city\nLuis Ortega;Sevilla", "Sevilla", "LOCATION"),
    ('{"dob": "1969-05-12", "plan": "pro"}', "1969-05-12", "DATE_OF_BIRTH"),
    (
        "address: Konrad-Adenauer-Allee 1, 53113 Bonn\nphone: none",
        "Konrad-Adenauer-Allee 1, 53113 Bonn",
        "LOCATION",
    ),
    ("DL: NY 12345678", "12345678", "DRIVER_LICENSE"),
    # European addresses
    (
        "Send it to Calle de Alcalá 42, CP 28013 Madrid please",
        "Calle de Alcalá 42, CP 28013 Madrid",
        "LOCATION",
    ),
    (
        "Office: Via Giuseppe Garibaldi 12, 00184 Roma",
        "Via Giuseppe Garibaldi 12, 00184 Roma",
        "LOCATION",
    ),
    ("ship to Strada Statale 142, Torino today", "Strada Statale 142, Torino", "LOCATION"),
    (
        "meet at Camino de Santiago 14, Santiago de Compostela",
        "Camino de Santiago 14, Santiago de Compostela",
        "LOCATION",
    ),
    ("new flat: Rua Augusta 100, 1100-053 Lisboa", "Rua Augusta 100, 1100-053 Lisboa", "LOCATION"),
    (
        "Marszałkowska 10, 00-950 Warszawa is the office",
        "Marszałkowska 10, 00-950 Warszawa",
        "LOCATION",
    ),
    (
        "we moved to Unter den Linden 77, 10117 Berlin",
        "Unter den Linden 77, 10117 Berlin",
        "LOCATION",
    ),
    ("post it to 75008 Paris", "75008 Paris", "LOCATION"),
    ("write to Hauptstraße 5, Bonn, Germany today", "Hauptstraße 5, Bonn, Germany", "LOCATION"),
    ("Via Roma 12, Thanks!", "Via Roma 12", "LOCATION"),
    ("the postcode is CP 28013", "CP 28013", "LOCATION"),
    ("send it to Harrogate HG1 2RT by Friday", "Harrogate HG1 2RT", "LOCATION"),
    ("our office: EC1A 1BB", "EC1A 1BB", "LOCATION"),
    ("Drottninggatan 5, 111 51 Stockholm", "Drottninggatan 5, 111 51 Stockholm", "LOCATION"),
    # US driver's licences after a licence word, with the state's format
    ("license IL K325-4313-6208", "K325-4313-6208", "DRIVER_LICENSE"),
    ("driver license OH TJ009946 expired", "TJ009946", "DRIVER_LICENSE"),
    ("DL# CA D1234567", "D1234567", "DRIVER_LICENSE"),
    ("my Illinois driver's license is K325 4313 6208.", "K325 4313 6208", "DRIVER_LICENSE"),
    ("Ohio DL TJ009946, exp 2027", "TJ009946", "DRIVER_LICENSE"),
    # dates of birth
    ("see https://x.io/form?dob=1969-05-12 thanks", "1969-05-12", "DATE_OF_BIRTH"),
    ("D.O.B. 1969/05/12 on file", "1969/05/12", "DATE_OF_BIRTH"),
    ("date of birth: 19690512", "19690512", "DATE_OF_BIRTH"),
    ("my birthday is May 12, don't forget", "May 12", "DATE_OF_BIRTH"),
    ("Jane's dad (b. 1948) retired", "1948", "DATE_OF_BIRTH"),
    ("born in Boston on 12 May 2001", "12 May 2001", "DATE_OF_BIRTH"),
    ("geboren am 12.05.1969 in Köln", "12.05.1969", "DATE_OF_BIRTH"),
    ("nacido el 4 de julio de 1980", "4 de julio de 1980", "DATE_OF_BIRTH"),
]


@pytest.mark.parametrize(("text", "value", "entity_type"), FORMS)
async def test_each_form_is_one_placeholder_of_its_type_and_comes_back(
    presidio_analyzer, guardrail, text, value, entity_type
):
    found = typed(presidio_analyzer, text)
    assert (entity_type, value) in found  # one detection, the whole value
    redaction = await guardrail.anonymize(T, text, platform="console")
    for part in re.findall(r"\w{3,}", value):
        assert part not in redaction.text
    restorer = await guardrail.restorer(T, platform="console", private=True)
    assert restorer.restore(redaction.text).text == text


@pytest.mark.parametrize(
    "text",
    [
        "We ship v4.2.1 in 12345 Users; order 28013 and 75008 items on 2024-03-14.",
        "license: MIT\nlicense: GPL-3\nlicense: 2024\nversion: 4.2.1",
        "license key ABCD-1234-EFGH-5678 for the IDE; the MIT license 2024 edition; licence 1234",
        "DL 2 of the mailing list; download the DL link",
        "The meeting moved to 2024-03-14; deadline 12 May 2025; the birthday party is on Friday.",
        "my son was born in a hurry. Version 2.0.1 born from feedback.",
        '{"name": "veilbot", "version": "1.2.3", "license": "Apache-2.0"}',
        "city: TBD\naddress: see above\nzip: n/a",
        "Release notes — product update\nQ3 Planning — engineering sync",
        "The Ring 2 was fun, see ticket OPS-1234",
        "batch QX9 9QQ and lot VA1 1AA passed the checks",  # postcode shapes, no UK area
        "| Status | Owner |\n|---|---|\n| Done | platform-team |\n| Open | [Deploy Script] |",
        "Status,Owner,City\ndone,platform-team,TBD",  # no city and no person in a CSV row
    ],
)
def test_values_that_only_look_structured_stay(presidio_analyzer, text):
    assert detect(presidio_analyzer, text, "console") == []


def test_a_row_of_totals_under_a_name_column_is_no_person(presidio_analyzer):
    text = "name,city\nMaria Gonzalez,Lisbon\nTotal,3 rows\n"
    found = [text[d.start : d.end] for d in detect(presidio_analyzer, text, "console")]
    assert found == ["Maria Gonzalez", "Lisbon"]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("To: Amber Christian <amber@acme.io>", "Amber Christian"),
        ("Cc: June Park <jp@acme.io>, Will Grant <wg@acme.io>", "Will Grant"),
        ('From: "Grant, Ruby" <ruby@acme.io>', "Grant, Ruby"),
        ('"Townsend, George" <gtownsend@manorisd.net> wrote:', "Townsend, George"),  # no key
        ("cc: Robert Bryngelson@AZURIX on 08/16/2000 03:14 PM", "Robert Bryngelson"),  # Notes
        ("Mark Taylor/HOU/ECT@ECT", "Mark Taylor"),
    ],
)
async def test_a_mail_headers_display_names_are_people(presidio_analyzer, guardrail, text, name):
    found = typed(presidio_analyzer, text)
    assert ("PERSON", name) in found
    redaction = await guardrail.anonymize(T, text, platform="console")
    assert not set(re.findall(r"\w+", name)) & set(re.findall(r"\w+", redaction.text))


def test_a_team_sender_is_not_a_person(presidio_analyzer):
    text = "From: Acme Support <support@acme.io>"
    found = typed(presidio_analyzer, text)
    assert found == [("EMAIL_ADDRESS", "support@acme.io")]


def test_a_table_read_cell_by_cell_keeps_its_quantities_items_and_amounts(presidio_analyzer):
    """A PDF invoice's table as a text extractor gives it, one cell a line: a quantity alone
    on its line starts no address, and an amount is no part of one."""
    text = (
        "Item\nCity\nContact\nQty\nAmount\n"
        "Oak desk\nSpringfield\nJordan Miles\n2\n310.00\n"
        "Lamp\nLyon\njordan@miles.example\n1\n45.50\n"
        "Chair\nPortland\nPriya Natarajan\n4\n690.00\n"
        "Total due 1,165.50 EUR."
    )
    found = {text[d.start : d.end] for d in detect(presidio_analyzer, text, "console")}
    assert {"Jordan Miles", "jordan@miles.example", "Priya Natarajan"} <= found
    for kept in ("310.00", "Lamp", "45.50", "Chair", "690.00", "Total"):
        assert not any(kept in value for value in found), f"{kept!r} was taken into {found}"


def test_an_address_typed_over_lines_from_its_house_number_is_still_one_place(presidio_analyzer):
    text = "Please post it to me.\n221B Baker Street\nLondon NW1 6XE\nThanks!"
    found = typed(presidio_analyzer, text)
    assert any(t == "LOCATION" and v.startswith("221B Baker Street") for t, v in found), found


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("visiting grandma, she's at 1200 ocean blvd now", "1200 ocean blvd"),
        ("send it to 55 elm street apt 4b please", "55 elm street apt 4b"),
        ("we moved to 9 cherry tree ln. last spring", "9 cherry tree ln."),
        ("my addy is 55 w 42nd st apt 3", "55 w 42nd st apt 3"),
        ("i live at 300 east 57th street now", "300 east 57th street"),
    ],
)
def test_an_address_typed_in_lower_case_is_one_place(presidio_analyzer, text, address):
    found = typed(presidio_analyzer, text)
    assert ("LOCATION", address) in found, found


@pytest.mark.parametrize(
    "text",
    [
        "it's 5 miles down the road",
        "a 4 lane highway",
        "a 2 hour drive",
        "top 10 st patricks day",
        "we ran 5 miles on 2nd ave",
        "it's 3 w of here on 5th st",
    ],
)
def test_counts_and_measures_before_a_street_word_are_no_address(presidio_analyzer, text):
    assert detect(presidio_analyzer, text, "console") == []


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("Send it to No. 12, Jalan Tun Razak, 50400 Kuala Lumpur.", "No. 12, Jalan Tun Razak"),
        ("Kirim ke Jl. Sudirman No. 5, Jakarta ya", "Jl. Sudirman No. 5"),
        ("office: Lorong Haji Taib 3, Kuala Lumpur", "Lorong Haji Taib 3"),
    ],
)
def test_a_malay_or_indonesian_street_and_its_number_are_one_place(
    presidio_analyzer, text, address
):
    # The house number went in clear, the street read as a person.
    found = typed(presidio_analyzer, text)
    assert any(t == "LOCATION" and v.startswith(address) for t, v in found), found


@pytest.mark.parametrize(
    ("text", "address"),
    [
        (
            "my flat is at Unit 12/34 Smith St, Parramatta NSW 2150",
            "Unit 12/34 Smith St, Parramatta NSW 2150",
        ),
        ("courier to Andheri West, Mumbai 400053 please", "Mumbai 400053"),
        ("office: Pune - 411001", "Pune - 411001"),
        # the five-digit and Japanese codes after the town went in clear
        ("my office is Jl. Sudirman 5, Jakarta 10220", "Jl. Sudirman 5, Jakarta 10220"),
        (
            "the office: 12 Jalan Ampang, Kuala Lumpur 50450, Malaysia",
            "12 Jalan Ampang, Kuala Lumpur 50450, Malaysia",
        ),
        ("ship to PO Box 4412, Nairobi 00100", "PO Box 4412, Nairobi 00100"),
        ("the hotel is 1-2-3 Shibuya, Tokyo 150-0002", "Tokyo 150-0002"),
        (
            "she lives on Rue Sainte-Catherine in Montreal, H3B 1A7",  # the code had stayed
            "Montreal, H3B 1A7",
        ),
        ("〒150-0002 東京都渋谷区渋谷2-21-1 まで", "〒150-0002 東京都渋谷区渋谷2-21-1"),
        ("ship to 北京市朝阳区建国路88号 thanks", "北京市朝阳区建国路88号"),
        ("my address is 서울특별시 강남구 테헤란로 123", "서울특별시 강남구 테헤란로 123"),
    ],
)
def test_an_address_whose_postcode_follows_the_town_is_one_place(presidio_analyzer, text, address):
    # The postcodes, the Australian unit and the whole Asian addresses went in clear.
    found = typed(presidio_analyzer, text)
    assert ("LOCATION", address) in found, found


@pytest.mark.parametrize(
    "text",
    [
        "we sold 123456 units in Paris last year",
        "the Paris 2024 games",
        "room 4.12, NSW 2150",
        "Tokyo 20000 fans came to the game",
    ],
)
def test_a_town_before_a_number_that_is_no_postcode_keeps_the_number(presidio_analyzer, text):
    found = [text[d.start : d.end] for d in detect(presidio_analyzer, text, "console")]
    assert not any(any(c.isdigit() for c in value) for value in found), found


@pytest.mark.parametrize(
    ("text", "box"),
    [
        ("My PO box is 4471 in Fairbanks", "PO box is 4471"),  # the box number went in clear
        ("P.O. Box #88, Nome", "P.O. Box #88"),
    ],
)
def test_a_post_office_box_said_in_words_is_a_place(presidio_analyzer, text, box):
    found = typed(presidio_analyzer, text)
    assert ("LOCATION", box) in found, found
