"""Which words of a message the vault is asked about: none in markup or inside a finding."""

from hypothesis import given
from hypothesis import strategies as st

from guardrails.presidio import _Blocked

TEXTS = st.text(alphabet="ab <>|", max_size=40)
SPANS = st.lists(st.tuples(st.integers(0, 40), st.integers(1, 12)), max_size=8)


def _by_definition(text: str, start: int, end: int, fixed: list[tuple[int, int]]) -> bool:
    """Inside markup: the last ``<`` before ``start`` comes after the last ``>``."""
    in_markup = text.rfind("<", 0, start) > text.rfind(">", 0, start)
    return in_markup or any(start < b and a < end for a, b in fixed)


@given(TEXTS, SPANS, SPANS)
def test_each_word_span_is_blocked_exactly_when_the_definition_says(text, fixed, words):
    findings = [(a, a + n) for a, n in fixed]
    blocked = _Blocked(text, findings)
    for a, n in words:
        assert blocked(a, a + n) == _by_definition(text, a, a + n, findings)


def test_a_word_in_a_link_or_a_finding_is_blocked_and_one_beside_them_is_not():
    text = "see <https://x.io/jane|jane> and jane doe at 12"
    blocked = _Blocked(text, [(text.index("doe"), text.index("doe") + 3)])
    assert blocked(text.index("jane"), text.index("jane") + 4)  # in the link's markup
    assert blocked(text.index("doe"), text.index("doe") + 3)  # in the finding
    assert not blocked(text.index("and"), text.index("and") + 3)
    assert not blocked(text.rindex("jane"), text.rindex("jane") + 4)
