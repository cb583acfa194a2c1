"""People by name: a lexicon of the world's first and last names, for what NER misses.

The small spaCy model misses full names it has not seen in context ("Call Jane Doe on ...",
"2. Tom Becker - tom@...", "Priya, can you ..."). ``names.tsv.gz`` (built from the
``names-dataset`` package by ``data/build_names.py``) lists first names that rank in some
country's top 1 000 and last names in some top 2 000. A name is found by its shape:

- a capitalized first name followed by one to three capitalized words (or a particle such as
  "van", "de la", or an initial "J.") that are last names or not English words:
  "Tom Becker", "Mark O'Brien", "Ana de la Cruz", "Jean-Luc Picard";
- a first name on its own, when it is not also an English word, a month or a town
  ("Priya", "Tom", but not "Will", "May", "Sydney"): ranked in some top 500;
- the same two shapes in lower case ("ask priya", "tariq kimura") when both words are names
  and neither is English, the first in some top 300.

"English" means a word the spaCy model's lemmatizer knows as a verb, adjective or adverb,
a chat word, or a noun that is not also a first name ("office", "street", but not "john").
In an English message, a word alone, with no context that names someone, is a name only
when it is no English noun either or a first name in an English-speaking country
(``ENGLISH_SPEAKING`` of ``data/build_names.py``): "Holly", "Jordan" and "Blessing" are;
"Boy", "Law" and "Fun", first names in Malaysia and Hong Kong, are not.
A last name that is also an English word ("Brown", "Park") counts only if it ranks in some
top 300, so "Grace Period", "Victoria Station" and "Berlin Office" are not people. A match
that is a town of the gazetteer ("San Francisco") or is followed by a company word ("Morgan
Stanley Bank") is left to the NER model.
"""

from __future__ import annotations

import functools
import gzip
import re
import unicodedata
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources

from guardrails.rules import local, places
from guardrails.rules.casing import Lexicon, foreign_function_words, reads_as_english
from guardrails.rules.names import (
    AFTER_OFFICE,
    AFTER_WORD,
    BEFORE_ACT,
    CLUB_WORDS,
    COMMON_WORDS,
    COMPANY_WORDS,
    CONTRACTIONS,
    INSTITUTION_WORDS,
    LEGAL_FORMS,
    MONTHS,
    PARTICLES,
    RELATIVES,
)
from guardrails.rules.parts import PROPER
from guardrails.rules.stopwords import STOP_WORDS
from guardrails.text.language import ENGLISH

FIRST_RANK = 1000
SINGLE_RANK = 500
LOWER_RANK = 300
ENGLISH_SURNAME_RANK = 300
RUN_TOGETHER_RANK = 500
"""Best rank of each part of names run together in a user name ("evanwagner")."""

_UPPER = "A-ZÀ-ÖØ-ÞĀĂĄĆČĎĐĒĘĚĞĪİŁŃŇŌŐŒŘŚŞŠŢŤŪŮŰŹŻŽȘȚ"
_LOWER = "a-zß-öø-ÿāăąćčďđēęěğīıłńňōőœřśşšţťūůűźżžșț"
_CAP = rf"(?:[{_UPPER}][{_LOWER}]?['’])?[{_UPPER}][{_LOWER}]+(?:[{_UPPER}][{_LOWER}]+)?"
_CAP_WORD = rf"{_CAP}(?:-{_CAP})?"
_LOW_WORD = rf"[{_LOWER}]{{2,}}(?:-[{_LOWER}]{{2,}})?"
_PARTICLE = "(?:" + "|".join(PARTICLES) + ")"
_RUN = re.compile(
    rf"(?<![\w@#/.\-])(?P<run>{_CAP_WORD}(?:[ \t]+(?:{_PARTICLE}[ \t]+)*"
    rf"(?:{_CAP_WORD}|[{_UPPER}]\.))*)(?![\w@])"
)
_LOWER_PAIR = re.compile(rf"(?<![\w@#/.\-'’])({_LOW_WORD})(?=[ \t]+({_LOW_WORD})(?![\w@/]|['’]\w))")
_RUN_TOGETHER = re.compile(rf"(?<![\w@#/.\-'’])[{_LOWER}]{{8,}}(?![\w@/.\-]|['’]\w)")
"""A lower-case word long enough to be a first and a last name run together."""
_TOKEN = re.compile(rf"{_CAP_WORD}|[{_UPPER}]\.|\S+")
_MORE_NAME = re.compile(
    rf"(?P<join>[ \t]+(?:(?![AI][ \t])[{_UPPER}]\.?|{_PARTICLE}(?:[ \t]+{_PARTICLE})?))?"
    rf"[ \t]+(?P<last>{_CAP_WORD})"
    rf"(?![\w@])"
)
"""What may follow a detected name: an initial or particles, then a capitalized word."""
_AFTER_INITIAL = re.compile(rf"\.[ \t]*(?P<last>{_CAP_WORD})(?![\w@])")
"""The full stop after a name that is an initial alone, and the surname after it."""
_BOOKED = re.compile(
    r"(?<![\w/])(?P<last>[A-Z][A-Z'\-]+)/(?P<first>[A-Z][A-Z'\-]+(?: [A-Z][A-Z'\-]+)?)"
    r"(?: (?P<title>MRS|MR|MS|MISS|MSTR|DR|MX))?(?![\w/])"
)
"""A name as a ticket prints it, surname first: "MORGAN/SARAH MS", "NGUYEN/VAN AN MR"; with
its title, or a first name and a surname of the lexicon ("TCP/IP", "AC/DC" are none)."""
_FAMILY = re.compile(r"\b[Tt]he[ \t]+(?P<v>[A-Z][a-z]{2,}s)(?![\w'’\-]|[ \t]+[A-Z])")
"""A family by its name: "the Johnsons", "the Joneses" (``PeopleFinder._family``)."""
_VIETNAMESE = re.compile("[ăĂđĐơƠưƯ\u1ea0-\u1ef9]")
"""Letters only Vietnamese writes: a name with one is Vietnamese, whose syllables after it
("Nguyễn Văn An", "Lê Văn Long") are its own though English knows them."""
_SYLLABLE = 5
"""The longest capitalized word read as a Vietnamese name's syllable though English knows it."""
_JOINING = frozenset("and or the of in at on to for but with from is was".split())
"""English words a title-case line capitalizes, which no Vietnamese syllable is."""
# The name is atomic: in any case its two capitalized parts are any split of one word, which
# backtracking would try pair by pair (quadratic in a long word).
_VOCATIVE = re.compile(
    rf"(?:^|(?<=[.!?\n])[ \t]*|\b(?:hi|hey|hello|thanks|thank\s+you|dear|ok|okay)[ \t]+)"
    rf"(?P<v>(?>{_CAP_WORD})),[ \t]+(?=(?:can|could|would|will|please|pls|do|did|are|is|have"
    rf"|you|i|we|thanks|thank)\b)",
    re.IGNORECASE | re.MULTILINE,
)
"""A word someone is addressed by: "Warrane, can I ...", "thanks Ubul, you ..."."""
_LIST = re.compile(
    rf"{_CAP_WORD}(?:[ \t]*,[ \t]*{_CAP_WORD}){{1,}}(?:,?[ \t]+(?:and|&|or)[ \t]+{_CAP_WORD})"
)
_CAP_ITEM = re.compile(_CAP_WORD)
_WITH_INITIAL = re.compile(
    rf"(?<![\w@#/.\-])(?P<first>{_CAP_WORD})[ \t]+(?![AI][ \t])[{_UPPER}]\.?[ \t]+"
    rf"(?P<last>{_CAP_WORD})"
    rf"(?![\w@])"
)
_INITIAL_SURNAME = re.compile(
    rf"(?<=[a-z,;:(] )(?![AI]\.)[{_UPPER}]\.[ \t]?(?P<last>{_CAP_WORD})(?![\w@'’\-]|\.\w)"
)
"""An initial and a surname inside a sentence: "order for D. Washington", "cc J. Okafor";
not at a line's start, where "A. Green light" is an item of a list, nor after a capitalized
word, whose middle initial it is."""
_SIGNED = re.compile(
    rf"(?:^|(?<=[^\d\s][ \t]))[-–—~][ \t]?(?P<v>{_CAP_WORD}(?:[ \t]+{_CAP_WORD})?)"
    r"[ \t]*[.!]?[ \t]*$",
    re.MULTILINE,
)
"""A first name signed after a dash at a line's end: "Thx! -Kevin", "see you -Priya";
"the range is 5 -Max" (a figure before the dash) is none."""
_AFTER_RELATIVE = re.compile(
    rf"(?i:\b(?:{'|'.join(RELATIVES)})(?:['’]s)?)(?:[ \t]*[:,(][ \t]*|[ \t]+)"
    rf"(?P<v>[{_UPPER}]{{2,}}|{_CAP_WORD}|[{_LOWER}]{{2,}})(?![\w@'’\-])"
)
"""A word after a family word ("SON JAMES", "wife (Mary)", "my daughter grace"): a first name
of the lexicon's most common there is a person in any case, though English also knows it."""
_LOWER_TITLE = re.compile(
    rf"(?<![\w@#/.\-])(?:mr|mrs|ms|mx|miss|dr|prof)\.?[ \t]+(?P<v>[{_LOWER}][{_LOWER}'’\-]+)"
    r"(?![\w@'’\-])"
)
"""A courtesy title and a word after it, all in lower case ("f/u with dr. patel")."""
_WORDS = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
NEEDS = re.compile(rf"[ \t{_UPPER}]")
"""What every name ``PeopleFinder`` finds contains: a capital or a space between two words."""
_TITLES = frozenset(
    """princess prince king queen lord lady sir dame duke duchess saint pope president
    doctor captain general colonel major sergeant judge father mother sister brother
    uncle aunt baby mr mrs ms mx dr prof""".split()
)
"""Words before a name, never its first word ("Princess Royal", "Captain Hook")."""
_FUNCTION_WORDS = frozenset(STOP_WORDS) - {"will"}
"""English function words: never a name by its context ("He said"; "Will said" is a name)."""
_STRETCHED = re.compile(r"([^\W\d_])\1\1")
_LAUGHTER = re.compile(r"[ah]+|[eh]+|[hm]+|[hu]+|[ox]+")
_WEEKDAYS = frozenset("monday tuesday wednesday thursday friday saturday sunday".split())


@dataclass(frozen=True)
class NameLexicon:
    """Best rank of each first and last name (lower case, NFC) in any country.

    ``english_first``: the best first-name rank in an English-speaking country (the US, the
    UK, Canada, Ireland, Jamaica, Nigeria, Ghana, South Africa), where it is in the top
    ``FIRST_RANK``.
    """

    first: dict[str, int]
    last: dict[str, int]
    english_first: dict[str, int]


@functools.cache
def name_lexicon() -> NameLexicon:
    """The shipped lexicon, loaded once per process (about 140 000 names)."""
    data = resources.files("guardrails").joinpath("data/names.tsv.gz").read_bytes()
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    english: dict[str, int] = {}
    for line in gzip.decompress(data).decode("utf-8").splitlines():
        name, first_rank, last_rank, english_rank = line.split("\t")
        if first_rank != "0":
            first[name] = int(first_rank)
        if last_rank != "0":
            last[name] = int(last_rank)
        if english_rank != "0":
            english[name] = int(english_rank)
    return NameLexicon(first, last, english)


def _key(word: str) -> str:
    return unicodedata.normalize("NFC", word.replace("’", "'")).casefold()


class PeopleFinder:
    """Finds names by the lexicon (see the module docstring); a ``recognizers.Finder``.

    Args:
        words: the English words the spaCy lemmatizer knows, nouns left out.
        nouns: the same with its nouns (which include many names).
        towns: lower-case town names of the gazetteer.
        names: the name lexicon; the shipped one when ``None``.
    """

    def __init__(
        self,
        words: Lexicon,
        nouns: Lexicon,
        towns: frozenset[str] | set[str] | dict[str, int],
        names: NameLexicon | None = None,
    ) -> None:
        self._words = words
        self._nouns = nouns
        self._towns = towns
        self._names = names or name_lexicon()

    def __call__(self, text: str, *, language: str = ENGLISH) -> Iterator[tuple[int, int, float]]:
        """``(start, end, score)`` of each name the lexicon finds in ``text``.

        ``language``: the message's. In English a lone English noun is no name ("Boy"); in
        another language it is ("Wagner", "Stalin": English knows them as nouns too), but
        none begins with one of that language's no-name words but a particle of names
        (``local.article``: "La" and "Le" are first names somewhere, "La Révolution" no
        person, "De Prins" one), and names in lower case are looked for in English only.
        """
        english = language == ENGLISH
        for run in _RUN.finditer(text):
            yield from self._in_run(text, run.start(), run.end(), language)
        for vocative in _VOCATIVE.finditer(text):  # "Warrane, can you ..."
            if self._name_alone(vocative.group("v")):
                yield vocative.start("v"), vocative.end("v"), 0.6
        yield from self._in_lists(text)
        for initial in _WITH_INITIAL.finditer(text):  # "Faina D. Yefremova": a name's shape
            first, last = initial.group("first"), initial.group("last")
            verb = self._words.knows(_key(last))  # "Tom A Question"; nouns may be names
            if not (self.english(first) or verb or _company_after(text, initial.end())):
                if first.casefold() not in COMMON_WORDS and last.casefold() not in COMMON_WORDS:
                    yield initial.start(), initial.end(), 0.9
        for signed in _SIGNED.finditer(text) if any(d in text for d in "-–—~") else ():
            if self._first(signed["v"].split()[0]) and _key(signed["v"]) not in COMMON_WORDS:
                yield signed.start("v"), signed.end("v"), 0.86  # "Thx! -Kevin"
        for initial in _INITIAL_SURNAME.finditer(text):  # "order for D. Washington"
            last = initial["last"]
            words_before = text[max(0, initial.start() - 40) : initial.start()].split()
            before = words_before[-1] if words_before else ""
            # After a capitalized word: "John F. Kennedy" has a middle initial, "University,
            # B.Sc." a degree; "M. Chen, R. Gupta" is a list, its items spaced
            spaced = initial.group()[2:3].isspace()
            middle = before[:1].isupper() and (before[-1:].isalpha() or not spaced)
            if (
                not middle
                and self._names.last.get(_key(last), 10**9) <= LOWER_RANK
                and _key(last) not in COMMON_WORDS
            ):
                yield initial.start(), initial.end(), 0.86
        for booked in _BOOKED.finditer(text) if "/" in text else ():  # "MORGAN/SARAH MS"
            last, first = booked["last"].title(), booked["first"].split()[0].title()
            if booked["title"] or (self._first(first) and self.listed_last(last)):
                yield booked.start(), booked.end(), 0.9
        for tag in places.CAMEL_TAG.finditer(text):  # "#LaurenBacall"
            words = places.TAG_WORD.findall(tag.group("v"))
            if len(words) == 2 and self._tagged_name(*words):
                yield tag.start("v"), tag.end("v"), 0.6
        # In a message that reads as English only: lower-case name pairs, names run together
        # ("carrelli" is Italian), lower-case titles and family words ("son" is Spanish for
        # "are"); the text is read for its language once, when one of them is found.
        pairs: list[re.Match[str]] = []
        joined: list[re.Match[str]] = []
        titled: list[re.Match[str]] = []
        related: list[re.Match[str]] = []
        if english:
            pairs = [p for p in _LOWER_PAIR.finditer(text) if self._lower_name(p[1], p[2])]
            joined = [
                w for w in _RUN_TOGETHER.finditer(text) if self.run_together(w[0], ordered=True)
            ]
            titled = [t for t in _LOWER_TITLE.finditer(text) if self._lower_titled(t["v"])]
            related = [
                r
                for r in _AFTER_RELATIVE.finditer(text)
                if self._relative(r["v"]) and not _company_after(text, r.end())
            ]
        in_english = bool(pairs or joined or titled or related) and reads_as_english(
            text, self._nouns
        )
        if in_english:  # not Dutch
            yield from ((pair.start(), pair.end(2), 0.6) for pair in pairs)
            yield from ((word.start(), word.end(), 0.6) for word in joined)  # "jimmyfallon"
        # Above the NER model's 0.85, whose finding of the same word ("Will") the check for
        # English words would drop.
        for found in BEFORE_ACT.finditer(text):  # "June is out sick": a month may act
            before = text[max(0, found.start() - 12) : found.start()]
            if _key(found.group("v")) in MONTHS and _DATE_BEFORE.search(before):
                continue  # "a raffle in August and I won": a month after "in" is a date
            if self._named_by_context(found.group("v"), month=True):
                yield found.start("v"), found.end("v"), 0.86
        if in_english:
            yield from ((t.start(), t.end(), 0.86) for t in titled)
            yield from ((r.start("v"), r.end("v"), 0.86) for r in related)
        for family in _FAMILY.finditer(text) if english else ():  # "the Johnsons next door"
            if self._family(family["v"]):
                yield family.start("v"), family.end("v"), 0.86
        for found in AFTER_WORD.finditer(text):
            addressed = found.group("said") is not None  # "contact Vernon", not "to Vernon"
            if self._named_by_context(found.group("v"), addressed=addressed):
                yield found.start("v"), found.end("v"), 0.86
        for found in AFTER_OFFICE.finditer(text):  # "Emperor Norton", "Secretary Cardona"
            if _NUMBER_BEFORE.search(text, max(0, found.start() - 8), found.start()):
                continue  # "2nd Gen Blue Link": a generation, no general
            if english and self._titled(found.group("v")) and not _company_after(text, found.end()):
                yield found.start("v"), found.end("v"), 0.86

    def _family(self, word: str) -> bool:
        """Whether a plural after "the" is a family by its surname ("the Johnsons").

        The surname is one of the lexicon's common ones and no English word, and the plural
        no surname of its own: "the Browns", "the Rockies" and "the Collins dictionary" stay.
        """
        if _key(word) in self._names.last:
            return False  # "the Collins dictionary": a surname of its own
        stems = [word[:-1]] + ([word[:-2]] if word.endswith("es") else [])
        return any(
            self._names.last.get(_key(stem), 10**9) <= ENGLISH_SURNAME_RANK
            and not self.english(stem)
            for stem in stems
        )

    def _lower_titled(self, word: str) -> bool:
        """Whether a lower-case word after a lower-case title is a name (``_LOWER_TITLE``).

        No English word ("dr. patel", "mr. bojangles"), or a first or last name ranked
        ``LOWER_RANK`` or better that English also has ("dr. green"); not "dr. who", "mr.
        right", "mr. nice".
        """
        key = _key(word)
        if key in COMMON_WORDS or key in MONTHS or key in _WEEKDAYS:
            return False
        if not self.english(word):
            return True
        ranks = (self._names.first.get(key, 10**9), self._names.last.get(key, 10**9))
        return min(ranks) <= LOWER_RANK

    def _relative(self, word: str) -> bool:
        """Whether a word after a family word is a name (``_AFTER_RELATIVE``).

        A first name ranked ``LOWER_RANK`` or better, no function or chat word, month or
        weekday ("SON WILL CALL", "daughter may"); in lower case also no English word
        ("mother hope").
        """
        key = _key(word)
        if self._names.first.get(key, 10**9) > LOWER_RANK:
            return False
        if key in COMMON_WORDS or key in MONTHS or key in _WEEKDAYS:
            return False
        return not word.islower() or self.name_word(word)

    def plausible(self, span: str) -> bool:
        """Whether an NER ``PERSON`` span could be a name: not only English words.

        "Guilty Pleasures", "Tales", "Salesperson" are not; a word of the name lexicon
        ("Mark Brown", "Will Smith", any last name of it: "Bush", "Clements") or a word English
        does not know ("Ubul") is enough.
        """
        words = _WORDS.findall(span)
        if words and words[-1].casefold() in COMPANY_WORDS and len(words) > 1:
            return False  # "Bob Smith Inc"
        if not span.islower() and any(_foreign_word(w) for w in span.split()):
            return False  # "Ik kan niet wachten", "Gawin mo na": a sentence of another language
        # "As", "You", "Oh", "Mrs" alone are no name
        names = [w for w in words if _key(w) not in COMMON_WORDS and _key(w) not in _TITLES]
        if span.isupper() and all(self.english(w) for w in names):
            return False  # shouted English: "APRIL", "SUMMER", "BBQ TIME"
        return any(self._name_word(w) or self.listed_last(w) or not self.english(w) for w in names)

    def lower_case_name(self, span: str) -> bool:
        """Whether a lower-case span may be a name: a word of it is in the name lexicon.

        "chuck norris" and "george" may be; "u kno", "smdh", "hub" and "von meinem bruder"
        (a particle alone makes no name) are not.
        """
        words = [w for w in _WORDS.findall(span) if _key(w) not in COMMON_WORDS]
        return any(self._name_word(w) for w in words if _key(w) not in PARTICLES)

    def unknown_word(self, span: str) -> bool:
        """Whether a span has a word English does not know ("Tunisia", not "the White ...")."""
        words = _WORDS.findall(span)
        if words and words[-1].casefold() in COMPANY_WORDS:
            return False
        return any(not self.english(w) for w in words)

    def complete(
        self,
        text: str,
        start: int,
        end: int,
        nouns: Container[str] = frozenset(),
        *,
        initial: bool = False,
    ) -> tuple[int, int]:
        """A person's span grown over the initials, particles and last names after it.

        "Jennifer [B. Eiffel]", "Christiane [de Vaan]", "Markha [R Aslakhanov]": the model
        often stops at the first name, and with ``initial`` (English) a rule at an initial's
        full stop ("[R]. Ibekwe"; in French "M." is Monsieur's title). Not over one of
        ``nouns``, the nouns of a language that capitalises them ("Zabels [Entscheidung]",
        "Holman [das Finale]").
        """
        vietnamese = _VIETNAMESE.search(text, start, end) is not None
        after = _AFTER_INITIAL.match(text, end) if initial and end - start == 1 else None
        if after and not self.english(after.group("last")):
            end = after.end()  # "my name is [R]. Ibekwe": a rule stopped at the dot
        while match := _MORE_NAME.match(text, end):
            joined = match.group("join") is not None  # an initial or a particle before it
            last = _key(match.group("last"))
            syllable = vietnamese and not joined and len(last) <= _SYLLABLE and last not in _JOINING
            if (
                (
                    self.english(last)
                    and not (joined and not self._words.knows(last))
                    and not syllable  # "Nguyễn Văn [An]": a Vietnamese name's syllable
                )
                or match.group("last") in nouns
                or _company_after(text, match.end())
            ):
                break
            end = match.end()
        return start, end

    def without_trailing_words(self, text: str, start: int, end: int) -> int:
        """Where a capitalized name ends before the lower-case English words it ran on with.

        "ping [Mei instead]", "ask [Tom instead]": a rule or the model took the adverb in;
        a word that is a name of the lexicon ("Mike jones") or a particle stays, and a name
        written all in one case is read as it is.
        """
        words = list(_SPAN_TOKEN.finditer(text, start, end))
        if (
            len(words) < 2
            or not words[0].group()[:1].isupper()
            or text[start:end].isupper()
            or text[max(0, start - 1) : start] in ("@", "#")  # a handle is whole
        ):
            return end
        kept = len(words)
        while kept > 1:
            word = words[kept - 1].group()
            if not (
                _LOWER_WORD.fullmatch(word)
                and _key(word) not in PARTICLES
                and self.english(word)
                and not self.listed(word)
            ):
                break
            kept -= 1
        if kept == len(words):
            return end
        cut = words[kept - 1].end()
        possessive = text[cut - 2 : cut] in ("'s", "’s")
        return cut - 2 if possessive else cut  # "[Melanie]'s mom"

    def place(self, span: str) -> bool:
        """Whether an NER ``PERSON`` span is a place: a known one with no first name in it.

        "Manchester", "Dayton NJ" and "Eastern Ukraine" are places; "Jordan", "Paris Hilton"
        and "Florence" stay people.
        """
        words = _WORDS.findall(span)
        return places.known_place(span) and not any(self._first(w) for w in words)

    def lone_first_name(self, span: str) -> bool:
        """Whether a place span is a person's first name alone: a common one, no known place.

        Another language's entity model reads a first name where a place could stand ("an
        Jürgen weiter", "Grüße aus Köln, Anna") as a place; "Florence" and "Victoria", known
        places, stay places.
        """
        words = _WORDS.findall(span)
        return len(words) == 1 and self._first(span) and not places.known_place(span)

    def club(self, text: str, start: int, end: int) -> bool:
        """Whether a place is a town's sports club: "Manchester United", "Birmingham City FC".

        The club word ends the span or follows it, and the town with it is no known place
        ("Mexico City", "Kansas City" are towns).
        """
        following = _NEXT_WORD.match(text, end)
        name = text[start:end] + (" " + following.group(1) if following else "")
        town, _, word = name.rpartition(" ")
        if word.casefold() not in CLUB_WORDS or not town or word.islower() and not name.islower():
            return False  # "Galway city" is the town
        after = _NEXT_WORD.match(text, following.end() if following else end)
        if after and after.group(1)[0].isupper() and after.group(1).casefold() not in CLUB_WORDS:
            return False  # "Montreal City Hall"
        return places.known_place(town) and not places.known_place(name)

    def employer(self, text: str, start: int, end: int, *, place: bool = False) -> bool:
        """Whether a name is where someone works: "I work for Citigroup", "employed by Socrata".

        Only a name with no first or last name of the lexicon in it, and no known place:
        "I work for Priya", "works at Heathrow" stay. A ``place`` only after "for" or "by":
        "worked at Swynnerton" is a village.
        """
        context = _EMPLOYED_BY if place else _EMPLOYED
        if not context.search(text, max(0, start - 30), start):
            return False
        words = _WORDS.findall(text[start:end])
        return not places.known_place(text[start:end]) and not any(self.listed(w) for w in words)

    def paired(self, text: str, people: Sequence[tuple[int, int]]) -> Iterator[tuple[int, int]]:
        """``(start, end)`` of each name joined to a found person by "and", "&" or "or".

        "Shreya and [Aarav] from Bengaluru", "[Aarav] & Shreya": a capitalized word that is
        no English word ("and Development", "and Will" stay), no common word and no known
        place ("Maria and Jordan": a country as often), not already part of a finding, with
        no figure or capitalized word after it ("and Eyrarodda 66", "and Bridgton Junction")
        and no company word after the pair ("Brown and Abt Associates").
        The model reads each name of such a pair by its own context and misses one now and
        then.
        """
        taken = sorted(people)
        for start, end in taken:
            for match in (
                _PAIRED_AFTER.match(text, end),
                _PAIRED_BEFORE.search(text, max(0, start - 40), start),
            ):
                if match is None:
                    continue
                word = match.group("v")
                first, last = match.span("v")
                if (
                    _NAME_GOES_ON.match(text, last) is None
                    and not _company_after(text, max(end, last))
                    and not self.english(word)
                    and _key(word) not in COMMON_WORDS
                    and not places.known_place(word)
                    and not any(a < last and first < b for a, b in taken)
                ):
                    yield first, last

    def company(self, text: str, end: int) -> bool:
        """Whether a company word follows ``end`` ("Miller Ltd", "Russell Investments")."""
        return _company_after(text, end)

    def common_name(self, word: str) -> bool:
        """Whether a word is among the lexicon's commonest first or last names ("Patel")."""
        return (
            self._first(word, LOWER_RANK)
            or self._rank(_key(word), last=True) <= ENGLISH_SURNAME_RANK
        )

    def name_word(self, word: str) -> bool:
        """Whether one word is a first or last name of the lexicon and no English word."""
        return self._name_word(word) and not self.english(word)

    def link_form(self, word: str) -> str:
        """How a word of a detected name is looked up when it comes again alone.

        A word English does not know links in any case ("maria", "Gonzalez"); one English
        knows ("Park", "Mark", "Ring" in "Ring Maria Gonzalez") only where it is written as
        a name (``guardrails.vault.linking.PROPER``): "ask Park", not "the park" or "Ring me".
        """
        key = _key(word)
        return PROPER + key if self.english(word) else key

    def first_name(self, word: str) -> bool:
        """Whether a word is a common first name of the lexicon (``FIRST_RANK``)."""
        return self._first(word)

    def lower_first_name(self, word: str) -> bool:
        """Whether a word is a first name common enough to be one in lower case (``LOWER_RANK``).

        "javi", "kasia", "pieter"; not a rarer one that is a word of chat too ("has").
        """
        return self._first(word, LOWER_RANK)

    def listed_last(self, word: str) -> bool:
        """Whether a word is a last name of the lexicon at any rank ("Bush")."""
        return _key(word) in self._names.last

    def listed(self, word: str) -> bool:
        """Whether a word is a first or last name of the lexicon at any rank."""
        key = _key(word)
        return key in self._names.first or key in self._names.last

    def user_name(self, word: str) -> bool:
        """Whether a word is a name, or names run together as user names are made.

        "john"; "evanwagner" (first and last), "pughanthony" (last and first), "raustin" (an
        initial and a last name). Each part has four letters or more, ranks high in the lexicon
        and is no English word: "grafana" ("graf" + "ana"), "proxy" ("p" + "roxy") are not.
        """
        if self.name_word(word):
            return True
        return self.run_together(word, initial=True)

    def run_together(self, word: str, *, initial: bool = False, ordered: bool = False) -> bool:
        """Whether a word is a first and a last name run together ("jimmyfallon").

        Each part has four letters or more, ranks high in the lexicon and is no English word,
        nor is the whole; ``initial``: an initial and a last name count too ("raustin");
        ``ordered``: the first name first, as user names run in free text (an e-mail's local
        part may put the last name first; in another language, "carrelli" is "Carr Elli").
        """
        key = _key(word)
        if not initial and self.english(key):
            return False
        for cut in ((1,) if initial else ()) + tuple(range(4, len(key) - 3)):
            head, tail = key[:cut], key[cut:]
            if len(tail) < 4 or self.english(tail) or cut > 1 and self.english(head):
                continue
            if cut == 1 and self._rank(tail, last=True) <= ENGLISH_SURNAME_RANK:
                return True
            if cut > 1 and (
                self._first_last(head, tail) or not ordered and self._first_last(tail, head)
            ):
                return True
        return False

    def _tagged_name(self, first: str, last: str) -> bool:
        """Whether a hashtag's two words are a first and a last name ("#LaurenBacall").

        Two English words are a topic ("#FollowFriday", "#ZodiacFacts"), a town a place.
        """
        if self.english(first) and self.english(last) or _key(first + " " + last) in self._towns:
            return False
        return self._first(first) and self._surname(last)

    def _first_last(self, first: str, last: str) -> bool:
        ranks = self._rank(first), self._rank(last, last=True)
        return max(ranks) <= RUN_TOGETHER_RANK

    def _rank(self, key: str, *, last: bool = False) -> int:
        return (self._names.last if last else self._names.first).get(key, 10**9)

    def _name_word(self, word: str) -> bool:
        key = _key(word)
        first = self._names.first.get(key, 10**9) <= FIRST_RANK
        return first or self._names.last.get(key, 10**9) <= ENGLISH_SURNAME_RANK

    def _name_alone(self, word: str) -> bool:
        """A capitalized word in a name's place is a name unless English knows it."""
        key = _key(word)
        return key not in COMMON_WORDS and key not in _TITLES and not self.english(word)

    def _word_alone(self, word: str) -> bool:
        """Whether a word on its own is English.

        An English word, or an English noun that English speakers do not give as a first name
        ("Boy", "Law").
        """
        key = _key(word)
        return self.english(word) or self._nouns.knows(key) and not self._spoken(key)

    def _spoken(self, key: str) -> bool:
        """Whether a name is a first name in an English-speaking country."""
        return self._names.english_first.get(key, 10**9) <= FIRST_RANK

    def _in_lists(self, text: str) -> Iterator[tuple[int, int, float]]:
        """Every item of a list of two first names or more ("Efimiya, Mary, Ariana and Jodi")."""
        for listed in _LIST.finditer(text):
            items = [m for m in _CAP_ITEM.finditer(listed.group()) if m.group().strip()]
            firsts = sum(self._first(m.group()) and not self.english(m.group()) for m in items)
            towns = sum(_key(m.group()) in self._towns for m in items)
            if firsts < 2 or firsts * 2 < len(items) or towns * 2 > len(items):
                continue  # not a list of people, or a list of towns ("Paris, London, ...")
            for item in items:
                if self._name_alone(item.group()) or self._first(item.group()):
                    # Above the NER model's 0.85: "Ariana" in a list of names is no place.
                    yield listed.start() + item.start(), listed.start() + item.end(), 0.86

    def is_name(self, words: list[str]) -> bool:
        """Whether lower-case words ("jane", "doe") form a first and last name."""
        first, last = words[0], words[-1]
        if len(words) < 2 or not self._first(first) or self.english(first):
            return False
        return not self.english(last) or _key(last) in self._names.last

    def english(self, word: str) -> bool:
        """Whether ``word`` is an English word rather than a name (see the module docstring)."""
        key = _key(word)
        if "'" in key.strip("'"):
            return False  # O'Brien, D'Angelo
        if key in COMMON_WORDS or key in MONTHS or self._words.knows(key):
            return True
        if key in CONTRACTIONS and word.islower():
            return True  # "hi im new"; "Jony Ive" is a name
        if _STRETCHED.search(key) or len(key) > 3 and _LAUGHTER.fullmatch(key):
            return True  # chat noise: "Zzzzz", "Ummm", "Hahaha", "Hehe" are no names
        return self._nouns.knows(key) and self._names.first.get(key, 10**9) > FIRST_RANK

    def _first(self, word: str, limit: int = FIRST_RANK) -> bool:
        key = _key(word)
        if self._names.first.get(key, 10**9) <= limit:
            return True
        parts = key.split("-")  # "Jean-Luc": each part a first name
        return len(parts) > 1 and all(self._names.first.get(p, 10**9) <= limit for p in parts)

    def _surname(self, word: str) -> bool:
        """Whether a capitalized word after a first name continues the name."""
        if len(word) == 2 and word.endswith("."):
            return True  # an initial
        if _key(word) in MONTHS or _key(word) in _WEEKDAYS:
            return False  # "Africa December Debate": "December" is a surname somewhere
        if not self.english(word):
            return True
        return self._names.last.get(_key(word), 10**9) <= ENGLISH_SURNAME_RANK

    def _in_run(
        self, text: str, start: int, end: int, language: str
    ) -> Iterator[tuple[int, int, float]]:
        english = language == ENGLISH
        local_words = language in local.LANGUAGES
        tokens = [(start + m.start(), start + m.end()) for m in _TOKEN.finditer(text[start:end])]
        i = 0
        while i < len(tokens):
            a, b = tokens[i]
            word = text[a:b]
            key = _key(word)
            # A run's lower-case word is a particle ("de", "van": first names somewhere), which
            # may be inside a name but never begins one: "the Packers de Green Bay".
            particle = word[0].islower()
            common = key in COMMON_WORDS or key in _TITLES
            common = common or local_words and local.article(language, word)
            first = self._first(word)
            declined = (
                local_words
                and not first
                and local.declined_first_name(language, self._first, text, a, b)
            )
            if particle or word.endswith(".") or common or not (first or declined):
                i += 1
                continue
            j = i + 1
            while j < len(tokens) and j - i <= 3:
                nxt = text[tokens[j][0] : tokens[j][1]]
                if declined and not local.named(language, self.listed, nxt):
                    break  # "Annę Nowak", "Marka Nowaka"; not "Armia Czerwona" ("Armi")
                if nxt[0].islower():  # particles ("de la"): only inside a name
                    if local_words and _key(nxt) not in local.PARTICLES[language]:
                        break  # "Anna Weber [das Angebot]": an article, not "von der"
                    k = j
                    while k < len(tokens) and text[tokens[k][0]].islower():
                        k += 1
                    if k < len(tokens) and self._surname(text[tokens[k][0] : tokens[k][1]]):
                        j = k + 1
                        continue
                    break
                if not self._surname(nxt):
                    break
                j += 1
            last_end = tokens[j - 1][1]
            if self._is_person(text, a, last_end, single=j == i + 1, english=english):
                yield a, last_end, 0.7 if j > i + 1 else 0.6
            i = j

    def _is_person(
        self, text: str, start: int, end: int, *, single: bool, english: bool = True
    ) -> bool:
        name = text[start:end]
        if _key(name) in self._towns or _company_after(text, end):
            return False
        first = name.split()[0]
        if single:
            alone = self._word_alone(first) if english else self.english(first)
            return self._first(first, SINGLE_RANK) and not alone
        surnames = name.split()[1:]
        # "Will Smith" is a person, "Will Call" is not: an English first name needs a
        # last name that is no English word.
        return not self.english(first) or any(not self.english(s) for s in surnames)

    def _named_by_context(self, word: str, *, month: bool = False, addressed: bool = False) -> bool:
        """Whether a word a person's context surrounds is a name.

        Capitalized: a first name, even one English also has ("Will", "Hope", "Grant",
        "Ruby"), or a word English does not know ("Okonkwo"); not a town, nor a month but
        before an act ("June is out"). In lower case only a first name English does not have
        ("priya"). ``addressed``: after a verb one says to a person ("contact", "ask",
        "email"), a town that is also a first name is the person ("contact Vernon"), where
        after "to" or "from" it is the town.
        """
        key = _key(word)
        if key in MONTHS and not (month and word[0].isupper() and key != "may"):
            return False
        if key in self._towns and not (addressed and self._first(word)):
            return False
        if key in _TITLES or key in _WEEKDAYS:
            return False
        if word[0].islower():
            return self._first(word, LOWER_RANK) and not self.english(word)
        if key in COMMON_WORDS and (key not in self._names.first or key in _FUNCTION_WORDS):
            return False  # "Will said" is a name, "He said" is not
        return self._first(word) or not self.english(word)

    def _titled(self, value: str) -> bool:
        """Whether the capitalized words after a title, an office or a rank are a name.

        A word of them is a first or last name of the lexicon or no English word ("Norton",
        "Cardona"); none is a common word, and the last is no company's, institution's or
        place's ("General Motors", "Prince Edward Island"); no country or state is named
        ("Captain America").
        """
        words = value.split()
        keys = [_key(w) for w in words]
        last = keys[-1]
        if any(k in COMMON_WORDS for k in keys) or last in INSTITUTION_WORDS:
            return False
        if keys[0] in _TITLES:
            return False  # "Governor General", "Major General": one office, no one named yet
        if places.place_kind(last) or any(k in places.countries_and_states() for k in keys):
            return False
        return any(self._first(w) or self.listed_last(w) or not self.english(w) for w in words)

    def _lower_name(self, first: str, last: str) -> bool:
        if not self._first(first, LOWER_RANK) or self.english(first) or self.english(last):
            return False
        return _key(last) in self._names.last or _key(last) in self._names.first


_NUMBER_BEFORE = re.compile(r"\d(?:st|nd|rd|th)?[ \t]+\Z")
"""A number or an ordinal just before a word: "2nd Gen" counts, it names no one."""
_DATE_BEFORE = re.compile(
    r"\b(?:in|since|until|till|by|during|of|from|last|next|this|early|late|mid|every|through)"
    r"[ \t]+$",
    re.IGNORECASE,
)
"""A word before a month that makes it a date ("in August", "since June")."""
_EMPLOYED = re.compile(
    r"\b(?:work(?:s|ed|ing)?[ \t]+(?:for|at)|employed[ \t]+(?:by|at)|(?:job|internship)[ \t]+at)"
    r"[ \t]+(?:the[ \t]+)?$",
    re.IGNORECASE,
)
_EMPLOYED_BY = re.compile(
    r"\b(?:work(?:s|ed|ing)?[ \t]+for|employed[ \t]+by)[ \t]+(?:the[ \t]+)?$", re.IGNORECASE
)
_NEXT_WORD = re.compile(r"[ \t]+([A-Za-z]+)\b")
_SPAN_TOKEN = re.compile(r"\S+")
_LOWER_WORD = re.compile(r"[a-z]+")
_NAME_GOES_ON = re.compile(r"[ \t]+(?:\d|[A-Z])")
"""A figure or a capitalized word after a name: a street ("Eyrarodda 66") or a longer name."""
_PAIR_WORD = r"(?P<v>[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)"
_PAIRED_AFTER = re.compile(rf"[ \t]+(?:and|&|or)[ \t]+{_PAIR_WORD}(?![\w'’\-@.]\w)")
_PAIRED_BEFORE = re.compile(rf"(?<![\w'’\-@.]){_PAIR_WORD}[ \t]+(?:and|&|or)[ \t]+\Z")
_CAP_WORD = r"[A-ZÀ-ÖØ-Þ][^\W\d_]*"
"""A capitalized word, accented letters in it ("Söhne", "Élan")."""
_FOLLOWING = re.compile(r"[ \t,]*(?:&[ \t]*)?([^\W\d_]+\.?)")
_RUN_ON = re.compile(rf"(?:[ \t]+(?:{_CAP_WORD}|&)){{0,4}}[ \t]+(?P<last>{_CAP_WORD})\b")


def _foreign_word(word: str) -> bool:
    """Whether a word is a lower-case function word of another language ("kan", "mo").

    Not a particle of a name ("de", "van").
    """
    key = _key(word)
    return word.islower() and key not in PARTICLES and key in foreign_function_words()


def _company_after(text: str, end: int) -> bool:
    """Whether a company word follows ``end``, or a legal form ends the capitalized run there.

    "Miller Ltd", "Russell Investments"; "JP Morgan Asian Investment Trust Plc", "the Graf
    Acquisition Corp.": a name inside a company's is no person's.
    """
    following = _FOLLOWING.match(text[end : end + 80])
    if following is None:
        return False
    word = following.group(1)
    if "," in following.group() and word.rstrip(".") in places.codes():
        return False  # "Glenwood Springs, CO": a town and its state, not "Co."
    if word.rstrip(".").lower() in COMPANY_WORDS:
        return True
    run = _RUN_ON.match(text, end, end + 80)  # not across a comma: "in Noville, Base Ltd"
    return run is not None and run.group("last").lower() in LEGAL_FORMS
