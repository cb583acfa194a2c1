"""Skype and other platforms' account names, UK National Insurance and driving licence
numbers, towns with a state code and places by name, through the real detection on the small
spaCy model."""

import pytest

from bot.core.scopes import PolicyOverride
from guardrails.detect.detection import detect
from guardrails.policy import default_policy, with_override
from tests.data.make_corpus import regression_messages


def found(analyzer, text):
    return [(d.type, text[d.start : d.end]) for d in detect(analyzer, text, "console")]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("ping me on skype (lena.novak88) after lunch", "lena.novak88"),
        ("Skype: ohaddad_work\nthanks", "ohaddad_work"),
        ("I added you on Skype. My ID is priya-rao.ops", "priya-rao.ops"),
        ("skype id live:.cid.3f9a2b7c1d if you need me", "live:.cid.3f9a2b7c1d"),
        ("skype: marekzielinski", "marekzielinski"),
    ],
)
def test_skype_names_after_the_word_skype_are_redacted(presidio_analyzer, text, name):
    hits = found(presidio_analyzer, text)
    assert any(name in value for _, value in hits), hits
    assert all(t != "USERNAME" or value == name for t, value in hits)


@pytest.mark.parametrize(
    "text",
    [
        "let's skype tomorrow at 10",
        "download it from skype.com please",
        "we dropped Skype for Business in 2019",
        "the skype integration fails on release 4.2.1",
        "our config.yaml has no skype section",
    ],
)
def test_skype_words_without_an_account_stay(presidio_analyzer, text):
    assert [v for t, v in found(presidio_analyzer, text) if t == "USERNAME"] == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("my discord is janedoe#1234", "janedoe#1234"),
        ("add me on discord: jane.doe_88 tonight", "jane.doe_88"),
        ("my steam is xXjaneXx, add me", "xXjaneXx"),
        ("github: jdoe-dev", "jdoe-dev"),
        ("my twitch is kaylee_plays", "kaylee_plays"),
        ("venmo @Jane-Doe-42 for the tickets", "Jane-Doe-42"),
        ("my cashapp is $janedoe", "janedoe"),
        ("send it on cash app to $JaneD88", "JaneD88"),
        ("paypal: jane.doe88", "jane.doe88"),
        ("add me on facebook: jane.doe.1988", "jane.doe.1988"),
        ("my linkedin is jane-doe-4b2a1", "jane-doe-4b2a1"),
        ("her snap is priyankad99", "priyankad99"),
    ],
)
def test_account_names_right_after_a_platform_word_are_redacted(presidio_analyzer, text, name):
    assert ("USERNAME", name) in found(presidio_analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "check the github workflow ci-build again",  # a build later on the line
        "I use discord daily",
        "join the discord server at discord.gg/abcd",
        "oh my github is down again",
        "the steam deck ships in may",
        "see discord #dev-ops for the logs",  # a channel
        "links to #Twitter #Facebook #YouTube but no email",  # hashtags
        "my venmo is broken lol",
        "oh snap is that right",
        "pay me on venmo later",
        "follow us on twitter @SkySports",  # an organization's handle
    ],
)
def test_platform_words_without_an_account_stay(presidio_analyzer, text):
    assert [v for t, v in found(presidio_analyzer, text) if t == "USERNAME"] == []


@pytest.mark.parametrize(
    ("language", "text", "name"),
    [
        ("de", "Mein Discord ist janedoe#1234", ["janedoe#1234"]),
        ("de", "Auf Steam gibt es Rabatt", []),
        ("es", "Hablamos en Twitch mañana", []),
        ("it", "Ci vediamo su Twitch domani", []),
        ("nl", "Kom op Discord vanavond", []),
    ],
)
def test_an_account_after_a_platform_word_in_another_language(
    presidio_analyzer, language, text, name
):
    # A plain word after the platform's is the sentence's, in whatever language.
    policy = with_override(default_policy(), PolicyOverride(language=language))
    found = detect(presidio_analyzer, text, "console", policy)
    assert [text[d.start : d.end] for d in found if d.type == "USERNAME"] == name


@pytest.mark.parametrize("value", ["JA 12 34 56 C", "JG103759A", "AB 123456 D"])
def test_national_insurance_numbers_are_redacted(presidio_analyzer, value):
    assert ("UK_NINO", value) in found(presidio_analyzer, f"my NI number is {value}, ta")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("My PAYE temp number is 12C34567, which is not permanent.", "12C34567"),
        ("HMRC gave me a temporary reference number: 45 K 12345", "45 K 12345"),
        ("it's on my payslip. For example, 07X 55501.", "07X 55501"),
    ],
)
def test_temporary_reference_numbers_after_an_hmrc_word_are_redacted(
    presidio_analyzer, text, value
):
    assert ("UK_NINO", value) in found(presidio_analyzer, text)


def test_a_temporary_reference_shape_without_an_hmrc_word_stays(presidio_analyzer):
    assert found(presidio_analyzer, "part 12C34567 ships with rev 45 K 12345") == []


@pytest.mark.parametrize(
    "text",
    [
        "NI: GB 12 34 56 A is never issued",  # a prefix HMRC never issues
        "ticket DQ123456A is closed",  # D is never a first letter
        "build ab123456c passed",  # lower case: a hash or a code
        "order AB123456 shipped",  # no suffix letter
    ],
)
def test_number_shapes_that_are_no_national_insurance_number_stay(presidio_analyzer, text):
    assert [v for t, v in found(presidio_analyzer, text) if t == "UK_NINO"] == []


@pytest.mark.parametrize(
    "value",
    ["MORGA753116SM9IJ", "MORGA 753116 SM9IJ 01", "WOOD9 612305 AB7CD", "SMITH 860225 J99ZX"],
)
def test_uk_driving_licence_numbers_are_one_value_without_a_licence_word(presidio_analyzer, value):
    assert found(presidio_analyzer, f"it is {value} if that helps") == [("DRIVER_LICENSE", value)]


@pytest.mark.parametrize(
    "text",
    [
        "the sku is ABCDE 123456 AB1CD",  # month 34 does not exist
        "see MORGA 771316 SM9IJ",  # month 71 does not exist
        "job ABCD1 753116 SM9IJ failed",  # a digit inside the surname part
    ],
)
def test_licence_shapes_with_impossible_birth_dates_stay(presidio_analyzer, text):
    assert [v for t, v in found(presidio_analyzer, text) if t == "DRIVER_LICENSE"] == []


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("to benefit a 3 year old girl of Mesa, AZ who had surgery", "Mesa, AZ"),
        ("new show announced in Orillia, ON at the museum", "Orillia, ON"),
        ("we are hiring in boise, ID this spring", "boise, ID"),
    ],
)
def test_a_known_town_with_its_state_code_is_one_place(presidio_analyzer, text, place):
    assert ("LOCATION", place) in found(presidio_analyzer, text)


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("Customer: Sam Reid, 41 Deansgate, Manchester M3 2AY", "41 Deansgate, Manchester M3 2AY"),
        ("- 41 Deansgate, Manchester M3 2AY", "41 Deansgate, Manchester M3 2AY"),
        ("| 41 Deansgate, Manchester M3 2AY |", "41 Deansgate, Manchester M3 2AY"),
        ("Sam Reid,41 Deansgate,Manchester,M3 2AY", "41 Deansgate,Manchester,M3 2AY"),
        ("Flat 3, 41 Deansgate, M3 2AY", "Flat 3, 41 Deansgate, M3 2AY"),
        ("- 14 Temple Bar, Dublin 2, D02 X285", "14 Temple Bar, Dublin 2, D02 X285"),
        ("- 7 Main, Ballymore, Co. Kildare, W91 X2Y3", "7 Main, Ballymore, Co. Kildare, W91 X2Y3"),
        ("Eircode: D02 X285", "D02 X285"),
    ],
)
def test_a_house_number_and_name_before_a_uk_or_irish_postcode_are_one_place(
    presidio_analyzer, text, address
):
    assert ("LOCATION", address) in found(presidio_analyzer, text)


@pytest.mark.parametrize("text", ["part T12 3456 ships today", "ref D02 2024 closed"])
def test_an_eircode_shape_without_a_letter_after_its_routing_key_stays(presidio_analyzer, text):
    assert found(presidio_analyzer, text) == []


def test_a_town_with_its_state_code_is_one_place_with_or_without_a_comma(presidio_analyzer):
    hits = found(presidio_analyzer, "we moved to Austin TX last year, then Madison, WI")
    assert hits == [("LOCATION", "Austin TX"), ("LOCATION", "Madison, WI")]


@pytest.mark.parametrize(
    ("text", "code"),
    [("fly to Paris OR Lyon", "OR"), ("is Jordan OK with it", "OK"), ("Austin IN 2019", "IN")],
)
def test_a_code_that_is_an_english_word_needs_the_comma(presidio_analyzer, text, code):
    assert [v for _, v in found(presidio_analyzer, text) if code in v.split()] == []


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("anyone from TX here? asking for a friend", "TX"),
        ("flying to CA tomorrow", "CA"),
        ("we moved the whole family to WA in 2019", "WA"),
    ],
)
def test_a_state_code_alone_after_a_place_word_is_a_place(presidio_analyzer, text, code):
    assert ("LOCATION", code) in found(presidio_analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "the data lives in MS Excel",  # a capitalized word after it
        "ship it to OR not to",  # an English word
    ],
)
def test_a_state_code_with_another_reading_stays(presidio_analyzer, text):
    assert [v for t, v in found(presidio_analyzer, text) if len(v) == 2] == []


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("pt's daughter lives in springfeild now", "springfeild"),
        ("son moved to bostn last year", "bostn"),
        ("we drove from manchster to leeds", "manchster"),
    ],
)
def test_a_large_town_misspelt_by_a_letter_after_a_place_word_is_a_place(
    presidio_analyzer, text, place
):
    assert ("LOCATION", place) in found(presidio_analyzer, text)


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("my sis lives in st. louis now", "st. louis"),
        ("we moved to st louis in may", "st louis"),
        ("flying back to st. petersburg", "st. petersburg"),
        ("greetings from saint albans", "saint albans"),
    ],
)
def test_a_saints_town_in_lower_case_is_a_place_however_saint_is_written(
    presidio_analyzer, text, place
):
    assert ("LOCATION", place) in found(presidio_analyzer, text)


def test_a_saint_the_name_lexicon_read_as_a_person_is_the_saint_s_town(presidio_analyzer):
    text = "He played 13 seasons for the St. Louis Eagles."
    assert ("LOCATION", "St. Louis") in found(presidio_analyzer, text)


@pytest.mark.parametrize(
    "text",
    [
        "Sempre in questa sezione due sonetti sono dedicati alla madre.",  # not Quetta
        "Il viaggio in treno della famiglia non è stato facile per loro.",  # not Trento
        "TROPAS LEALES FRUSTRAN UN INTENTO DE GOLPE DE ESTADO",  # capitals: no misspelling
    ],
)
def test_other_languages_words_a_letter_off_a_town_are_no_place(presidio_analyzer, text):
    kept = ("questa", "treno", "GOLPE")
    assert not [v for t, v in found(presidio_analyzer, text) if v in kept], text


@pytest.mark.parametrize(
    "text",
    [
        "in realy bad shape, see you tommorow",  # typos of English words
        "the mocks are in figma, the queue goes to kafka, deploys to heroku",
        "she went to marie for help",  # a name
    ],
)
def test_typos_tools_and_names_after_a_place_word_are_no_place(presidio_analyzer, text):
    assert [v for t, v in found(presidio_analyzer, text) if t == "LOCATION"] == []


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("RT @someone: the tour ends in Mexico on December 24", "Mexico"),
        ("made it back home to California. it sucks to leave", "California"),
        ("New Mexico is hot this week", "New Mexico"),
    ],
)
def test_countries_and_states_by_name_are_places(presidio_analyzer, text, place):
    assert ("LOCATION", place) in found(presidio_analyzer, text)


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("We drove down to Old Goa for the weekend, the beaches were empty.", "Old Goa"),
        ("Bengal floods every monsoon, my cousins say.", "Bengal"),
        ("Iguazu was the highlight of our honeymoon.", "Iguazu"),
        ("We hiked around Attica last spring with the kids.", "Attica"),
    ],
)
def test_places_whose_names_the_lemmatizer_lists_as_nouns_are_places(
    presidio_analyzer, text, place
):
    assert ("LOCATION", place) in found(presidio_analyzer, text)


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("The Israeli air strikes were all over the news today.", "Israeli"),
        ("They moved the team to the North office.", "North"),
        ("I used to work at Loqate Inc before this job.", "Loqate"),
        ("He works for the State Railway of Thailand now.", "Railway"),
    ],
)
def test_describing_words_companies_and_institutions_are_no_places(presidio_analyzer, text, word):
    assert not [v for t, v in found(presidio_analyzer, text) if word in v], text


@pytest.mark.parametrize(
    "text",
    [
        "Thanks Bob, OK with me",  # not a town before the code
        "Victoria will call you back",  # a state that is a person's name
        "Georgia said she would come",
        "got the coupon from Kmart Australia today",  # a company's name
        "the South Jersey Industries report is out",
        "the Bank of England held rates",  # a name that ends in a place
        "Texas A & M won again",
        "final score: Nigeria 1 Bosnia 0",  # a team
        "we are going to the Chicago Symphony Orchestra",  # an institution named after a place
        "according to the Sydney Morning Herald.",
        "the Newfoundland and Labrador Court of Appeal decided",
    ],
)
def test_codes_after_names_and_regions_that_are_names_are_no_places(presidio_analyzer, text):
    assert [v for t, v in found(presidio_analyzer, text) if t == "LOCATION"] == []


@pytest.mark.parametrize("record", regression_messages(), ids=lambda r: r["id"])
def test_the_corpus_regression_messages_hide_their_values_and_keep_the_rest(
    presidio_analyzer, record
):
    spans = [(d.start, d.end) for d in detect(presidio_analyzer, record["text"], "console")]
    for item in record["pii"]:
        covered = sum(
            min(e, item["end"]) - max(s, item["start"])
            for s, e in spans
            if s < item["end"] and e > item["start"]
        )
        assert covered == item["end"] - item["start"], item
    for item in record["keep"]:
        assert not [(s, e) for s, e in spans if s < item["end"] and e > item["start"]], item


@pytest.mark.parametrize(
    ("text", "storm"),
    [
        ("Upon return to New Orleans after the Hurricane Katrina evacuation", "Katrina"),
        ("Cyclone Phailin has winds that have been measured at 200 km/h", "Phailin"),
        ("Storm Ciara closed the bridge", "Ciara"),
    ],
)
def test_a_storm_is_no_person_and_no_place(presidio_analyzer, text, storm):
    assert [v for _, v in found(presidio_analyzer, text) if storm in v] == []


@pytest.mark.parametrize(
    "text",
    [
        "the bar caters to the yuppy crowd now",  # a word the model read as a place
        "it was great, altough the food was cold",
        "I spoke to our contact at NTRC about the transfer.",  # initials
        "according to the IUCN, last year was bad for frogs",
    ],
)
def test_unknown_lower_case_words_and_initials_are_no_place(presidio_analyzer, text):
    assert [v for t, v in found(presidio_analyzer, text) if t == "LOCATION"] == []


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("moving back to london next month", "london"),
        ("we stayed in miramar florida for a week", "florida"),
        ("took the ferry to alcatraz island", "alcatraz island"),
        ("GREETINGS FROM TROWBRIDGE EVERYONE", "TROWBRIDGE"),
        ("WE ALL MET AT KANBO LAST NIGHT", "KANBO"),  # capitals all round: no initials
    ],
)
def test_known_lower_case_places_and_places_in_capitals_stay_places(presidio_analyzer, text, place):
    hits = found(presidio_analyzer, text)
    assert any(place in v for _, v in hits), hits


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("We spent the weekend in Glenwood Springs, CO. Great hiking.", "Glenwood Springs"),
        ("Apparently Sweden is like the new model country for schools", "Sweden"),
    ],
)
def test_a_state_code_and_a_sentence_opener_leave_the_place_whole(presidio_analyzer, text, place):
    # "CO" after a comma is Colorado, not "Co." ending a company; "Apparently" opens the
    # sentence and is no part of the country's name
    hits = found(presidio_analyzer, text)
    assert any(place in v for t, v in hits if t == "LOCATION"), hits


@pytest.mark.parametrize(
    ("text", "club"),
    [
        ("She played 40 matches for Bristol before she retired.", "Bristol"),
        ("Two years later he signed with Leeds on a free transfer.", "Leeds"),
        ("My uncle coached Sheffield in the nineties.", "Sheffield"),
    ],
)
def test_a_town_played_for_is_a_club_not_a_place(presidio_analyzer, text, club):
    assert not [v for t, v in found(presidio_analyzer, text) if t == "LOCATION" and club in v]


@pytest.mark.parametrize(
    "text", ["We played for hours in Bristol last summer.", "I played with Sarah in Leeds."]
)
def test_a_town_after_playing_somewhere_stays_a_place(presidio_analyzer, text):
    assert [t for t, v in found(presidio_analyzer, text) if v in ("Bristol", "Leeds")] == [
        "LOCATION"
    ]
