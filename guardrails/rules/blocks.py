"""Address blocks: everything an address is made of, after a phrase that announces one.

Street patterns (``guardrails.rules.addresses``) know the usual shapes, but addresses come in every
country's order and are often typed on several lines::

    Billing address: 28245 Puruntie 82 Apt. 595
        LAPPEENRANTA
        53650

After a phrase that announces an address ("address:", "lives at", "ship it to", "billing",
"moved to"...), or at a line that starts with a house number, the block takes every token
an address is made of: numbers ("221B", "3610-114"), capitalized and upper-case words in
any script, lower-case words that are not common English ("terrasse", "ul."), unit words,
commas and short abbreviations ("Apt.", "St."). It ends at a sentence end, at a common word
("for a business trip", "please") or at a line that is not address-like. A block counts
when it has a number and a word of three letters or more: it is one ``LOCATION``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from guardrails.rules.names import COMMON_WORDS, MONTHS
from guardrails.rules.stopwords import STOP_WORDS

TRIGGER = re.compile(
    r"(?i:\b(?:(?:home|postal|mailing|billing|shipping|delivery|street|office)\s+)?"
    r"address(?:es)?\b(?:\s+(?:is|was|will\s+be))?|\baddr\.?"
    r"|\b(?:lives?|living|resides?|residing|located|staying|based)\s+(?:at|on|in)"
    r"|\b(?:ship|send|sent|deliver|mail|post|forward)(?:ed|ing|s)?\b[^.?!\n]{0,30}?\bto"
    r"|\bmoved\s+to|\bcorner\s+of|\bvisit\s+(?:us|me)\s+at"
    r"|\b(?:is|are|was|were|it's|i'm|we're)\s+(?:at|in|on))"
    r"\s*[:\-]?\s*"
)
"""A phrase after which an address may follow."""
_TOKEN = re.compile(r"[^\s,;:!?()\"“”]+")
_ABBREVIATION = re.compile(r"[^\W\d_]{1,4}\.|(?:[^\W\d_]\.){1,3}")
_ADDRESS_WORDS = frozenset(
    """de del della delle dei des la le les du da do dos das di d' van von der den ter ten
    rue ul ul. al. str. apt apt. suite ste ste. unit flat floor fl. no. nr. box po bis ter
    street st st. road rd rd. avenue ave ave. lane ln drive dr way place court
    via viale piazza calle avenida rua praça strasse straße gasse weg platz""".split()
)
_STREET_JOINS = frozenset("of the and at on upon by".split())
"""Function words a street's or a place's name may hold ("Avenue of the Americas",
"Stratford upon Avon")."""
_LINE_LIMIT = 48
MAX_TOKENS = 24


def find(text: str, *, lines: bool = True) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each address block in ``text``.

    ``lines``: also blocks at a line that starts with a house number. Off in a message of
    another language than English, whose lower-case words are all "not common English"
    and whose nouns are capitalized in German: "12 Leute kommen morgen zum Essen" would be
    a block.
    """
    taken = 0
    for trigger in TRIGGER.finditer(text):
        if trigger.end() < taken:
            continue
        block = _block(text, trigger.end(), numbered=False)
        if block is not None:
            taken = block[1]
            yield block[0], block[1], 0.8
    if not lines:
        return
    for line in re.finditer(r"(?m)^[ \t>]*(?=\d)", text):
        if line.end() < taken:
            continue
        block = _block(text, line.end(), numbered=True)
        if block is not None:
            taken = block[1]
            yield block[0], block[1], 0.75


_GAP = re.compile(r"[ \t,]*(?:\n[ \t>]*)?[ \t,]*")
"""What may come between two tokens of a block (matched in place: no copy of the rest)."""


def _block(text: str, start: int, *, numbered: bool) -> tuple[int, int] | None:
    """The address block starting at ``start``, if the tokens there make one."""
    tokens: list[tuple[int, int]] = []
    position = start
    while len(tokens) < MAX_TOKENS:
        gap = _GAP.match(text, position)
        gap_text = gap.group() if gap else ""
        if "\n" in gap_text and tokens and not _address_line(text, position + len(gap_text)):
            break
        match = _TOKEN.match(text, position + len(gap_text))
        if match is None or not _address_token(match.group(), first=not tokens):
            if match is not None and match.group().strip(".,").lower() in _COUNTED:
                while tokens and text[tokens[-1][0] : tokens[-1][1]].isdigit():
                    tokens.pop()  # "3 years": a count, not a house number
            break
        end = match.end()
        if match.group().endswith(".") and not _ABBREVIATION.fullmatch(match.group()):
            end -= 1  # a sentence's full stop, not an abbreviation
            tokens.append((match.start(), end))
            break
        tokens.append((match.start(), end))
        position = end
    return _accepted(text, tokens, numbered)


def _numbered_start(words: list[str], same_line: bool) -> bool:
    """A house number, then on its line a number or a capitalized word.

    Not "2. Tom", "10 minutes", a number alone on its line (a quantity in a table read cell
    by cell), a figure with thousands ("100,000 Newsgroups"), nor a headline in title case,
    whose function words are capitalized ("6 Reasons Your Competitors Are On Instagram").
    """
    if len(words) < 3 or not same_line or not re.fullmatch(r"\d{1,6}[A-Za-z]?", words[0]):
        return False
    if any(_headline_word(w) for w in words[1:]):
        return False
    return words[1][0].isdigit() or words[1][0].isupper()


def _headline_word(word: str) -> bool:
    """A capitalized English function word, which no street's name has ("Your", "Are", "On")."""
    key = word.lower()
    return word[0].isupper() and key in STOP_WORDS and key not in _ADDRESS_WORDS | _STREET_JOINS


_NOT_ADDRESS = re.compile(r"@|://|\d+\.\d+\.\d+|^[\d.\-/]{9,}$|^\d{1,3}(?:,\d{3})*\.\d{2}$")
"""E-mail addresses, URLs, IP addresses, long figures, amounts ("310.00", "1,165.50"): a
block never runs over them."""


_COUNTED = frozenset(
    """years year months month weeks week days day hours hour minutes minute mins seconds ago
    times percent people men women feet foot inches miles kilometres kilometers km metres
    meters""".split()
)
"""Words a number counts, which no address has: "moved to Paris 3 years ago" ends at "3",
"9 FEET OF SNOW" and "4 Men Releases" are no house numbers."""


def _address_token(token: str, *, first: bool) -> bool:
    word = token.strip(".'’-").lower()
    if not word or _NOT_ADDRESS.search(token) or word in _COUNTED:
        return False
    if any(c.isdigit() for c in token):
        return True
    if token[0].isupper() or token.lower() in _ADDRESS_WORDS or word in _ADDRESS_WORDS:
        return not (first and word in COMMON_WORDS)
    return not first and word not in COMMON_WORDS and word.isalpha()


def _date(words: list[str]) -> bool:
    """Whether a block's words are a date: a month's name with figures and no street word."""
    keys = {w.strip(".,'’-").lower() for w in words}
    return (
        bool(keys & MONTHS)
        and not keys & _ADDRESS_WORDS
        and all(
            k in MONTHS or k.isdigit() or re.fullmatch(r"\d{1,2}(?:st|nd|rd|th)", k) for k in keys
        )
    )


_FIGURE_DATE = re.compile(r"(\d{1,2})[/.\-](\d{1,2})(?:[/.\-](?:\d{2}|\d{4}))?")
"""A date in figures: a day and a month in either order, maybe a year ("14/02", "3.4.25")."""


def _figure_date(words: list[str]) -> bool:
    """Whether a block opens with a date in figures and names nothing after it.

    "the party is on [14/02, ideas]?" is no address; "is at 3/4 Main St" (a unit and a house
    number) is one, by its capitalized or street words.
    """
    match = _FIGURE_DATE.fullmatch(words[0].rstrip(".,")) if words else None
    if match is None:
        return False
    first, second = int(match[1]), int(match[2])
    if not (1 <= first <= 31 and 1 <= second <= 12 or 1 <= first <= 12 and 1 <= second <= 31):
        return False
    return not any(w[0].isupper() or w.lower() in _ADDRESS_WORDS for w in words[1:])


def _address_line(text: str, start: int) -> bool:
    """Whether the line at ``start`` is short and starts like part of an address."""
    end = text.find("\n", start)
    line = text[start : end if end >= 0 else len(text)]
    line = re.split(r"[?!;]|\.(?:\s|$)", line, maxsplit=1)[0].strip()
    return 0 < len(line) <= _LINE_LIMIT and (line[0].isupper() or line[0].isdigit())


def _accepted(text: str, tokens: list[tuple[int, int]], numbered: bool) -> tuple[int, int] | None:
    words = [text[a:b] for a, b in tokens]
    if _date(words) or _figure_date(words):
        return None  # "It's on January 4", "2 nov", "3333 February 03, 2015", "on 14/02, ideas"
    while words and words[-1].strip(".").lower() in _ADDRESS_WORDS | COMMON_WORDS:
        words.pop()
        tokens.pop()
    if not tokens:
        return None
    has_number = any(any(c.isdigit() for c in w) for w in words)
    has_word = any(len(w) >= 3 and w.strip(".'’-").isalpha() for w in words)
    if not (has_number and has_word):
        return None
    if numbered and not _numbered_start(words, "\n" not in text[tokens[0][1] : tokens[1][0]]):
        return None
    if numbered and text[tokens[0][1] : tokens[1][0]] == "," and len(words[1]) == 3:
        return None  # "100,000 Newsgroups": a figure with thousands, no house number
    return tokens[0][0], tokens[-1][1]
