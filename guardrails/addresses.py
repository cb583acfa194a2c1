"""Street addresses: "221B Baker Street", "1600 Pennsylvania Ave NW", "Hauptstraße 5, 10115 Berlin".

Small NER models see at most a fragment of an address ("Baker" as a person, "Harbour Road" as
a place), so the house number and the rest reach the model. An address is found by its shape
instead: a house number, capitalized street words and a street-type word (English order), or
a street word with a German/Dutch/Scandinavian suffix and then the number (continental
order), or a Romance street type ("rue", "calle", "via") with its name. A following postcode
and town belong to the address. A US town with its state and ZIP code ("Austin, TX 78701"),
a British postcode (with the town before it) and a post-office box are addresses on their
own. Addresses are ``LOCATION``, like the cities NER finds.
"""

from __future__ import annotations

import re

_CAP = r"(?:[A-ZÀ-ÖØ-Þ][\w'’\-]*|\d{1,3}(?:st|nd|rd|th))"
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
_EU_STREET = r"[A-ZÀ-ÖØ-Þ][\w\-]{0,60}?"
"""A street name before its suffix ("Karl-Marx-"), bounded: tried from every capital."""
_EU_SUFFIX = (
    r"(?:straße|strasse|str\.|weg|platz|gasse|allee|ring|damm|ufer|gade|vej|gatan|straat|laan"
    r"|plein|gracht)"
)
_POSTCODE_TOWN = r"(?:,?[ \t]+(?:[A-Z]{1,2}-)?\d{4,5}(?:[ \t]+[A-Z]{2})?[ \t]+[A-ZÀ-ÖØ-Þ][\w\-]+)?"
_ROMANCE_TYPE = (
    r"(?:rue|avenue|boulevard|chemin|quai|impasse|allée|calle|avenida|paseo|plaza|rua|travessa"
    r"|via|viale|piazza|corso)"
)
_ROMANCE_NAME = (
    r"(?:(?:de|del|dels|della|delle|dei|des|la|le|les|du|da|do|dos|das|di|d'|l')[ \t]?){0,2}"
    r"[A-ZÀ-ÖØ-Þ][\w\-]+(?:[ \t]+[A-ZÀ-ÖØ-Þ][\w\-]+)?"
)
_US_STATES = (
    r"(?:A[KLRZ]|C[AOT]|D[CE]|FL|GA|HI|I[ADLN]|K[SY]|LA|M[ADEINOST]|N[CDEHJMVY]|O[HKR]|PA|RI"
    r"|S[CD]|T[NX]|UT|V[AT]|W[AIVY]|PR)"
)
_UK_POSTCODE = r"(?:GIR ?0AA|[A-Z]{1,2}\d[A-Z\d]?[ \t]?\d[ABD-HJLNP-UW-Z]{2})"
_TOWN = r"[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+(?:[ \t\-][A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+){0,2}"

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
            rf"\b{_EU_STREET}{_EU_SUFFIX}(?<!\.)[ \t]+\d{{1,4}}[a-z]?\b{_POSTCODE_TOWN}"
            rf"|\b{_EU_STREET}str\.[ \t]*\d{{1,4}}[a-z]?\b{_POSTCODE_TOWN}"
        ),
        0.9,
    ),
    (
        re.compile(
            rf"\b\d{{1,4}}(?:bis|ter)?,?[ \t]+(?i:{_ROMANCE_TYPE})[ \t]+{_ROMANCE_NAME}\b"
            rf"{_POSTCODE_TOWN}"
            rf"|\b(?i:{_ROMANCE_TYPE})[ \t]+{_ROMANCE_NAME},?[ \t]+\d{{1,4}}\b{_POSTCODE_TOWN}"
        ),
        0.9,
    ),
    # "Austin, TX 78701": a town, a state code and a ZIP code.
    (re.compile(rf"\b{_TOWN},?[ \t]+{_US_STATES}[ \t]+\d{{5}}(?:-\d{{4}})?\b"), 0.85),
    # A British postcode has a checkable shape; the town before it belongs to the address.
    (re.compile(rf"(?:\b{_TOWN},?[ \t]+)?\b{_UK_POSTCODE}\b"), 0.85),
    (re.compile(r"(?i:\bP\.?[ \t]?O\.?[ \t]+Box|\bPostfach)[ \t]+\d{1,6}\b"), 0.85),
)
"""``LOCATION`` patterns for street addresses, with their scores."""
