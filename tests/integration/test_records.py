"""Record numbers (``ID_NUMBER``) through the real detection on the small spaCy model: a
number after the word that names it as someone's record, account or membership, and a
vehicle's VIN and plate."""

import pytest

from guardrails.detect.detection import detect


def found(analyzer, text):
    return [(d.type, text[d.start : d.end]) for d in detect(analyzer, text, "console")]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("MRN 4482910, admitted overnight", "4482910"),
        ("MRN: 4482910", "4482910"),
        ("patient id: 4482910 (see chart)", "4482910"),
        ("her member ID is W123456789", "W123456789"),
        ("account number 12345678, sort code to follow", "12345678"),
        ("policy no. 5534221 covers it", "5534221"),
        ("customer #88123 called twice", "88123"),
        ("employee id E-44821 starts Monday", "E-44821"),
        ("update the address for emp #44821", "44821"),
        ("acct # 12-3345-9", "12-3345-9"),
        ("check acct 554-221-09, it bounced", "554-221-09"),  # "acct" alone names it
        ("claim number 7781-2231-009 was denied", "7781-2231-009"),
        ("NHS number 943 476 5919", "943 476 5919"),
        ("TIN: 98-7654321", "98-7654321"),
        ("sort code 20-00-00 acc no 12345678", "12345678"),
        ("passport no. 533380006", "533380006"),
        ("her German passport C01X00T47 expired", "C01X00T47"),
        ("her medicare number is 1EG4-TE5-MK73", "1EG4-TE5-MK73"),  # CMS's published example
        ("Medicare ID: 1EG4TE5MK73", "1EG4TE5MK73"),
        ("my health card number is 1234-567-890-AB", "1234-567-890-AB"),  # with its version
        ("Her NHI is ZAA0067, please update", "ZAA0067"),  # New Zealand's health number
        ("my UTR is 1234567890", "1234567890"),  # a UK taxpayer's reference
        ("her green card number is SRC1234567890", "SRC1234567890"),
        ("A-number A012345678", "A012345678"),  # a US alien registration number
        # a bank's branch beside the account, and numbers read as phone numbers
        ("sort code 20-45-67 account 41234567", "20-45-67"),
        ("BSB 062-000 acct 12345678", "062-000"),
        ("routing number 021000021 account 1234567890", "021000021"),
        ("my medicare number is 2123 45670 1", "2123 45670 1"),  # the last digit went in clear
        ("tax file number 123 456 782", "123 456 782"),
    ],
)
def test_a_number_named_as_a_persons_record_is_an_id_number(presidio_analyzer, text, value):
    assert ("ID_NUMBER", value) in found(presidio_analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "my account is fine, 3 patients today, member since 2019",
        "account balance 1200 after the refund",  # no word for a number
        "order 9876543210 shipped, case 4471 closed",  # ids of things, not of people
        "member id 123 is a test user",  # three digits
        "I have a number 5 in mind and a number 12345 too",  # "a number" is no A-number
        "my passport expired, passport 2024 renewal",  # a year is no passport's number
        "the serial is 1EG4TE5MK73",  # a Medicare number's shape, undashed and unnamed
        "the routing table has 3 entries, sort code and account number to follow",
    ],
)
def test_record_words_without_a_record_number_stay(presidio_analyzer, text):
    assert [v for t, v in found(presidio_analyzer, text) if t == "ID_NUMBER"] == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("my booking reference is K7QX2P, surname Hoffmann", "K7QX2P"),
        ("PNR: QWERTY", "QWERTY"),  # an airline's six capitals after their own word
        ("record locator GHJKLM", "GHJKLM"),
        ("confirmation code: 8XJ4LM for the hotel", "8XJ4LM"),
        ("reservation number 48213377", "48213377"),
        ("ticket: MORGAN/SARAH MS, e-ticket 1252345678901", "1252345678901"),
    ],
)
def test_a_bookings_reference_is_an_id_number(presidio_analyzer, text, value):
    # With the surname it opens the booking (and the passport in it); it went in clear.
    assert ("ID_NUMBER", value) in found(presidio_analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "flight number BA117 lands at six",  # a flight is everyone's
        "my booking is confirmed, see you Friday",
        "the reservation code is in the EMAIL",  # a word in capitals
    ],
)
def test_booking_words_without_a_reference_stay(presidio_analyzer, text):
    assert [v for t, v in found(presidio_analyzer, text) if t == "ID_NUMBER"] == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("my vin is 1HGCM82633A004352 if that helps", "1HGCM82633A004352"),  # check digit
        ("VIN: WVWZZZ1JZXW000001", "WVWZZZ1JZXW000001"),  # European: no check digit, keyed
        ("the car with plate 7ABC123 was towed", "7ABC123"),
        ("reg no. AB12 CDE, silver", "AB12 CDE"),
        ("license plate KA-01-AB-1234 outside", "KA-01-AB-1234"),  # four groups
    ],
)
def test_a_vehicles_vin_and_plate_are_id_numbers(presidio_analyzer, text, value):
    assert ("ID_NUMBER", value) in found(presidio_analyzer, text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("His Aadhaar is 2345 6789 0123", "2345 6789 0123"),
        ("My CURP is GODE561231HDFRRN09", "GODE561231HDFRRN09"),
        ("Her NRIC is S1234567D", "S1234567D"),
        ("my NINO is AB 12 34 56 C", "AB 12 34 56 C"),  # Nino is a given name too
    ],
)
def test_the_name_of_a_national_number_stays_for_the_model_to_read(presidio_analyzer, text, value):
    # The entity model read "Aadhaar", "CURP" and "NRIC" as people: the model got "His
    # <PERSON_1> is <ID_NUMBER_1>" and could not tell what the number was.
    assert [v for _, v in found(presidio_analyzer, text)] == [value]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("PAN ABCDE1234F for the invoice", "ABCDE1234F"),
        ("my aadhaar number is 2345 6789 0123", "2345 6789 0123"),
        ("my SIN is 046 454 286", "046 454 286"),
        ("my cpf is 123.456.789-09", "123.456.789-09"),
        ("CURP GODE561231HDFRRN09", "GODE561231HDFRRN09"),
        ("RUT 12.345.678-5", "12.345.678-5"),
        ("HKID A123456(7)", "A123456(7)"),
        ("my national id is 8001015009087", "8001015009087"),
        ("my ID card number: X12345678 thanks", "X12345678"),
        ("TFN 123 456 782", "123 456 782"),
        ("NRIC S1234567D", "S1234567D"),
        ("personnummer 19900101-1234", "19900101-1234"),
        ("henkilötunnus 131052-308T", "131052-308T"),
        ("CPR 010190-1234", "010190-1234"),
        ("RFC GODE561231GR8", "GODE561231GR8"),
        ("cédula 1234567890", "1234567890"),
        ("iqama 2123456789", "2123456789"),
        ("emirates id 784-1990-1234567-1", "784-1990-1234567-1"),
        ("personal id 12345678", "12345678"),
        ("identity number 8001015009087", "8001015009087"),
    ],
)
def test_a_national_number_after_its_countrys_name_for_it_is_an_id_number(
    presidio_analyzer, text, value
):
    # These reached the model in clear (PAN, CURP, HKID) or as a phone number.
    assert ("ID_NUMBER", value) in found(presidio_analyzer, text)
    assert [t for t, _ in found(presidio_analyzer, text) if t == "PHONE_NUMBER"] == []


@pytest.mark.parametrize(
    "text",
    [
        "the pan is 1234 degrees hot",  # four digits: no national number
        "identity crisis in 2024 and 2025",
        "I sin 1234 times a day",
        "lo compré sin 15.000 euros",  # Spanish "without"
    ],
)
def test_words_for_a_national_number_without_one_stay(presidio_analyzer, text):
    assert [v for t, v in found(presidio_analyzer, text) if t == "ID_NUMBER"] == []


@pytest.mark.parametrize(
    "text",
    [
        "build 1HGCM82633A004353 failed",  # a VIN's shape, its check digit wrong, no VIN word
        "the plate is dirty, registration opens in 2024",
    ],
)
def test_a_vin_shape_or_a_plate_word_alone_stays(presidio_analyzer, text):
    assert [v for t, v in found(presidio_analyzer, text) if t == "ID_NUMBER"] == []


def test_a_record_number_that_could_be_a_phone_number_is_the_record(presidio_analyzer):
    assert found(presidio_analyzer, "account number 4155550123") == [("ID_NUMBER", "4155550123")]


def test_an_international_number_after_a_record_word_is_a_phone_number(presidio_analyzer):
    text = "account number +44 20 7946 0958"
    assert found(presidio_analyzer, text) == [("PHONE_NUMBER", "+44 20 7946 0958")]


def test_a_phone_number_after_a_record_word_the_record_cannot_read_stays_a_phone_number(
    presidio_analyzer,
):
    text = "account number (415) 555-0123"  # brackets: no record number's shape
    assert found(presidio_analyzer, text) == [("PHONE_NUMBER", "(415) 555-0123")]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("my ssn is 078-05-1120", "078-05-1120"),
        ("social security number 123-45-6789, please keep it", "123-45-6789"),
        ("my social is 536 22 1847", "536 22 1847"),
        ("my social security no. 123456789 please", "123456789"),
    ],
)
def test_a_number_named_as_a_social_security_number_is_one_whatever_its_digits(
    presidio_analyzer, text, value
):
    """Presidio drops the published sample numbers and areas never issued, which people type
    as their own all the same: "123-" had stayed in clear beside a phone number "45-6789"."""
    assert found(presidio_analyzer, text) == [("US_SSN", value)]


def test_a_social_security_numbers_shape_without_its_word_is_no_ssn(presidio_analyzer):
    assert found(presidio_analyzer, "social media post 123-45-6789 views") == []
