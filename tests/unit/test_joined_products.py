"""A listed firm's "A & B" name read across the ampersand (no NLP model)."""

import pytest

from guardrails.rules.precision import in_joined_product


def _side(text, word):
    start = text.index(word)
    return in_joined_product(text, start, start + len(word))


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Procter & Gamble makes it", "Procter"),
        ("Procter & Gamble makes it", "Gamble"),
        ("Procter & Gamble's results beat Unilever", "Procter"),  # the possessive after it
        ("I bought it at Marks&Spencer", "Marks"),
        ("at Smith & Wesson's store", "Smith"),
    ],
)
def test_a_side_of_a_listed_firms_name_is_the_firm(text, word):
    assert _side(text, word)


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Anna & Tom's wedding", "Anna"),
        ("Tom Marks & Anna Spencer are here", "Tom Marks"),
        ("Procter and Gamble", "Procter"),  # no ampersand: the rule reads none
        ("Marks is here", "Marks"),
    ],
)
def test_people_joined_by_an_ampersand_are_no_firm(text, word):
    assert not _side(text, word)
