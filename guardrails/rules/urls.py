"""Personal parts of URLs: the path segment or subdomain that names a person.

A URL is not personal data, but ``calendly.com/jane-doe/30min``, ``linkedin.com/in/janedoe``
and ``jane-doe.github.io`` carry a person in them. Only that part becomes a placeholder, so
the model still sees what kind of link it is. A part is personal when it is:

- the first path segment on a site where that segment is an account: scheduling pages
  (Calendly, Cal.com, ...), social and code profiles, payment handles; or the subdomain of a
  personal-page host (``jane.substack.com``, ``jane-doe.github.io``);
- a segment shaped like a full name anywhere ("jane-doe", "jane.doe", "jane_doe"), when the
  name lexicon agrees (``guardrails.rules.people``).

Query parameters are typed by their keys (``field_type``): the value under ``name``, ``email``,
``phone``, ``dob``, ``ssn``, ``address`` and their variants is personal, decoded
(``guardrails.text.linkdecode``). ``/users/<name>``-style paths are found by the rules in
``guardrails.rules.recognizers``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

ACCOUNT_HOSTS = frozenset(
    """calendly.com cal.com savvycal.com tidycal.com zcal.co koalendar.com youcanbook.me
    github.com gitlab.com bitbucket.org codeberg.org twitter.com x.com facebook.com fb.com
    instagram.com threads.net tiktok.com t.me telegram.me linktr.ee about.me keybase.io
    behance.net dribbble.com paypal.me venmo.com cash.app buymeacoffee.com ko-fi.com
    patreon.com pinterest.com soundcloud.com twitch.tv vimeo.com flickr.com
    leetcode.com hackerrank.com kaggle.com huggingface.co""".split()
)
"""Sites whose first path segment is an account (``x.com/janedoe``)."""
PAGE_HOSTS = frozenset(
    "github.io substack.com gitlab.io netlify.app vercel.app wordpress.com".split()
)
"""Hosts whose subdomain is a person's page (``jane.substack.com``)."""
_NOT_ACCOUNT = frozenset(
    """about help login signup settings home explore search pricing features docs blog
    events event team teams org orgs organizations apps app api www topics trending
    marketplace sponsors collections notifications pulls issues in p d s i share intent
    watch hashtag status""".split()
)
_URL = re.compile(
    r"(?:(?P<scheme>https?://)|(?<![\w.@/:\-]))(?P<host>[\w\-]+(?:\.[\w\-]+)+)(?::\d+)?"
    r"(?P<path>/[^\s<>|()\[\]\"'`]*)?",
    re.I,
)
"""A URL, or a link typed without its scheme ("github.com/janedoe"), read only on the hosts
above: "file.py/…" or "e.g." are no links."""
_SEGMENT = re.compile(r"[^/?#&=]+")
_NAME_SHAPE = re.compile(r"[A-Za-zÀ-ÿ]{2,}(?:[\-._][A-Za-zÀ-ÿ]{2,}){1,2}")

NameCheck = Callable[[list[str]], bool]
"""Whether the words of a segment ("jane", "doe") are a person's name."""


def personal_parts(text: str, is_name: NameCheck | None = None) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each personal part of each URL in ``text``."""
    for url in _URL.finditer(text):
        host = url.group("host").lower().removeprefix("www.")
        if not url.group("scheme") and not _known_host(host):
            continue
        yield from _subdomain(url, host)
        if url.group("path"):
            yield from _path(url, host, is_name)


def _known_host(host: str) -> bool:
    """Whether a host is one of ``ACCOUNT_HOSTS`` or a page on one of ``PAGE_HOSTS``."""
    return host in ACCOUNT_HOSTS or host.partition(".")[2] in PAGE_HOSTS


def _subdomain(url: re.Match[str], host: str) -> Iterator[tuple[int, int]]:
    label, _, parent = host.partition(".")
    if parent in PAGE_HOSTS and label not in _NOT_ACCOUNT:
        start = url.start("host") + url.group("host").lower().index(label)
        yield start, start + len(label)


def _path(url: re.Match[str], host: str, is_name: NameCheck | None) -> Iterator[tuple[int, int]]:
    base = url.start("path")
    path = url.group("path").split("?", 1)[0].split("#", 1)[0]
    for index, segment in enumerate(_SEGMENT.finditer(path)):
        value = segment.group().rstrip(".,;:!")
        start, end = base + segment.start(), base + segment.start() + len(value)
        account = index == 0 and host in ACCOUNT_HOSTS and value.lower() not in _NOT_ACCOUNT
        if account and not value.startswith(("@", "~")):  # "/@jane" is a recognizer rule
            yield start, end
        elif is_name and _NAME_SHAPE.fullmatch(value) and is_name(re.split(r"[\-._]", value)):
            yield start, end


FIELD_TYPES: dict[str, str] = {
    **dict.fromkeys(
        """name firstname lastname fullname fname lname surname givenname familyname
        middlename contactname customername patientname displayname""".split(),
        "PERSON",
    ),
    **dict.fromkeys("email mail emailaddress useremail contactemail".split(), "EMAIL_ADDRESS"),
    **dict.fromkeys(
        """phone tel telephone mobile cell phonenumber mobilenumber msisdn whatsapp""".split(),
        "PHONE_NUMBER",
    ),
    **dict.fromkeys("dob birthdate dateofbirth birthday bday".split(), "DATE_OF_BIRTH"),
    **dict.fromkeys("ssn socialsecuritynumber".split(), "US_SSN"),
    **dict.fromkeys(
        """address street streetaddress addr address1 address2 addressline1 addressline2
        homeaddress""".split(),
        "LOCATION",
    ),
    "iban": "IBAN_CODE",
}
"""What the value of a URL parameter is, by its key (folded as ``Normalized.fields`` folds it).

A form's own key is the strongest context there is: ``?dob=1969-05-12``, ``?name=Jane+Doe``.
"""
_NEEDS_DIGITS = frozenset({"PHONE_NUMBER", "DATE_OF_BIRTH", "US_SSN", "IBAN_CODE"})


def field_type(key: str, value: str) -> str | None:
    """The entity type of a URL parameter's decoded ``value`` under ``key``, if personal.

    Values with no letter or digit ("", "-") are none; a phone number, date, SSN or IBAN
    needs digits, a name or address letters.
    """
    entity_type = FIELD_TYPES.get(key)
    if entity_type is None or not any(c.isalnum() for c in value):
        return None
    if entity_type in _NEEDS_DIGITS and sum(c.isdigit() for c in value) < 4:
        return None
    if entity_type in ("PERSON", "LOCATION") and not any(c.isalpha() for c in value):
        return None
    return entity_type
