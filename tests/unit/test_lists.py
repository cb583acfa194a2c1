"""Lists of names: the items a model missed in a list whose other items it found."""

from guardrails.rules.lists import complete
from guardrails.text.spans import Detection

LINE_UP = "Golz - Rohde - Kober, Hartmann - Dotschew (73. Weichert), Spies, Babbel, Bode."


def found(text, *values, kind="PERSON"):
    return [Detection(kind, text.index(v), text.index(v) + len(v), 0.85) for v in values]


def added(text, found_before):
    return [(d.type, text[d.start : d.end]) for d in complete(found_before, text)]


def test_a_line_up_whose_players_were_mostly_found_is_found_whole():
    before = found(LINE_UP, "Golz", "Rohde", "Hartmann", "Spies", "Babbel")
    assert added(LINE_UP, before) == [
        ("PERSON", "Kober"),
        ("PERSON", "Dotschew"),
        ("PERSON", "Weichert"),  # a substitute, after the minute he came on
        ("PERSON", "Bode"),  # the full stop ends the list, not the name
    ]


def test_a_list_found_in_part_or_not_at_all_stays_as_it_was():
    assert added(LINE_UP, found(LINE_UP, "Golz", "Rohde", "Spies")) == []  # under half
    products = "We sell Siemens, Bosch, Miele, Braun and more"
    assert added(products, []) == []
    short = "Anna, Bob, Carl"  # three items make no list
    assert added(short, found(short, "Anna", "Bob")) == []


def test_a_list_of_people_and_places_alike_takes_no_side():
    text = "Anna, Berlin, Carl, Paris, Dora, Edgar"
    before = found(text, "Anna", "Carl") + found(text, "Berlin", "Paris", kind="LOCATION")
    assert added(text, before) == []


def test_towns_along_a_route_are_places_and_the_sentence_before_is_not():
    text = "Die Bahnstrecke Griesheim - Höchst - Hochheim - Kriftel - Eppstein."
    before = found(text, "Höchst", "Hochheim", "Kriftel", kind="LOCATION")
    assert added(text, before) == [("LOCATION", "Eppstein")]  # not "Die Bahnstrecke ..."


def test_roles_clubs_and_initials_in_a_list_are_not_its_names():
    roles = "Team: Kim Lee - Analyst, Ana Ruiz - Analyst, Bo Chan, Tia Moss, Jo Park"
    before = found(roles, "Kim Lee", "Ana Ruiz", "Bo Chan", "Tia Moss")
    assert added(roles, before) == [("PERSON", "Jo Park")]  # "Team" before the colon neither
    clubs = "Galán (Recreativo), Berruet (Villarreal), Goio (Eibar), Unai (Mérida)"
    assert added(clubs, found(clubs, "Galán", "Berruet", "Goio")) == [("PERSON", "Unai")]
    towns = "London, Calgary, Toronto, Omaha, Portland (ENA) or Houston"
    before = found(towns, "London", "Calgary", "Toronto", kind="LOCATION")
    assert added(towns, before) == [
        ("LOCATION", "Omaha"),
        ("LOCATION", "Portland"),  # "(ENA)": initials, and in brackets
        ("LOCATION", "Houston"),
    ]


def test_a_line_ends_a_list():
    text = "Anna, Bob, Carl, Dora\nEdgar, Fritz, Gina, Hugo"
    assert added(text, found(text, "Anna", "Bob", "Carl")) == [("PERSON", "Dora")]
