"""Account names on messengers and platforms: after "Skype", "Discord", "Steam", "GitHub", ….

A Skype name ("dean.malmgren", "live:.cid.9a8b", "jdoe_42") names one person as surely as an
e-mail address, but on its own it is any dotted word or identifier, so it is read only shortly
after "skype" on the same line ("contact me on skype (dean.malmgren)", "skype: jdoe_42", "I
added you on Skype. My ID is dean.malmgren"). A name there is a Skype name when it has
Skype's shape (a letter, then 5 to 31 letters, digits, ``.``, ``_`` or ``-``, or Microsoft's
``live:`` ids) and either holds a separator or digit inside it (no English word does), or
stands right after the word, its colon or bracket ("skype: deanmalmgren") and is no English
word ("skype: tomorrow" is not a name). A host name ("skype.com") is not an account.

The other platforms' names are as short as three characters and follow their word only
right after it, its colon or "is" in any language ("my discord is janedoe#1234", "add me on
discord: jane.doe_88", "my steam is xXjaneXx", "github: jdoe-dev", "mein Discord ist …"): a
word later on the line is as often a repository, a channel or a build ("the github workflow
ci-build"). They hold a separator, a digit, a tag or a capital inside: a plain word there is
one of the sentence's, in whatever language it is written ("auf Steam gibt es", "en Twitch
mañana").

On a payment app (Venmo, Cash App, PayPal, Revolut, Monzo) an ``@`` or ``$`` handle after the
word is a person's whatever its shape ("venmo @jane", "cash app $janedoe"); on the others an
``@`` handle is left to the handle rules, which know an organization's.

An organization's account name ("@SkySports", "@BBCBreaking") is no person's
(``organization_handle``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import tldextract

from guardrails.rules.names import ORGANIZATION_WORDS
from guardrails.rules.places import known_place

_PLATFORMS = (
    "discord steam github gitlab telegram snapchat snap instagram insta tiktok twitter twitch xbox "
    "psn gamertag battletag reddit mastodon bluesky kik wechat keybase roblox minecraft "
    "venmo cashapp paypal revolut monzo facebook fb linkedin youtube onlyfans patreon"
).split()
_WORDS = (*_PLATFORMS, "cash app")
_PAYMENTS = frozenset(["venmo", "cashapp", "cash app", "paypal", "revolut", "monzo"])
"""Payment apps: an ``@`` or ``$`` handle there is a person's, whatever its shape."""
CONTEXT = re.compile(rf"(?<!#)\b(?i:(?P<skype>skype)|cash[ \t]app|{'|'.join(_PLATFORMS)})\b")
WINDOW = 60
"""How far after the word a Skype name is looked for (the rest of its line at most)."""
_NAME = re.compile(
    r"(?<![\w.:/\-#])(?<![\w.]@)(?:live:[\w.\-]{3,40}|[A-Za-z][\w.\-]{1,31}#\d{4}"
    r"|[A-Za-z][\w.\-]{2,31})"
    r"(?![\w@/#]|[.\-]\w)"
)
"""An account name: Microsoft's ``live:`` ids, Discord's old name and tag, letters, digits,
``.``, ``_`` and ``-`` from a letter; not a hashtag or a channel ("#general"), as its platform
word is none after "#" ("#Twitter #Facebook")."""
_LEAD = re.compile(
    r"(?:[ \t]*(?:[:(\[#\-@$]|(?i:name|id|handle|tag|username|user|is|me|at|on|as|ist|es|est|é|è"
    r"|to|jest|är)\b))*[ \t]*"
)
"""What may stand between the word and a name that has no separator of its own."""
_INSIDE = re.compile(r"[._\-\d]")
_SKYPE_SHORTEST = 6


def find(
    text: str, english: Callable[[str], bool] | None = None
) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each account name after a platform's word in ``text``.

    Args:
        text: the text.
        english: whether a word is English; without it, only names with a separator or a
            digit inside count.
    """
    folded = text.casefold()
    if "skype" not in folded and not any(word in folded for word in _WORDS):
        return  # a substring search per word costs less than the pattern's scan
    searched = 0
    for context in CONTEXT.finditer(text):
        line_end = text.find("\n", context.end())
        stop = min(context.end() + WINDOW, len(text) if line_end < 0 else line_end)
        lead = _LEAD.match(text, context.end(), stop)
        right_after = lead.end() if lead else context.end()
        skype = context.group("skype") is not None
        paying = " ".join(context.group().casefold().split()) in _PAYMENTS
        for name in _NAME.finditer(text, max(context.end(), searched), stop):
            start, end = name.start(), name.end()
            while text[end - 1] in "._-":
                end -= 1
            value = text[start:end]
            if not skype and start < right_after:
                continue  # a word of the lead ("ist" in "mein Discord ist …")
            if not skype and start != right_after:
                break  # another platform's name stands right after its word
            shortest = _SKYPE_SHORTEST if skype else 3
            if text[start - 1] in "@$":
                # a payment app's handle is a person's ("venmo @jane", "cash app $jdoe");
                # another's "@handle" is the handle rules' (an organization's or a person's)
                if paying and len(value) >= shortest:
                    yield start, end, 0.85
            elif _is_account(value, start == right_after, english, shortest):
                yield start, end, 0.85
        searched = stop


def _is_account(
    value: str, right_after: bool, english: Callable[[str], bool] | None, shortest: int
) -> bool:
    """Whether a name-shaped word after a platform's word is an account name."""
    if len(value) < shortest or CONTEXT.fullmatch(value):
        return False
    if "#" in value:
        return True  # Discord's name and tag: "janedoe#1234"
    if shortest < _SKYPE_SHORTEST:  # another platform's: a word of any language otherwise
        return _INSIDE.search(value[1:]) is not None or not value[1:].islower()
    if value.startswith("live:"):
        return True
    if "." in value and tldextract.extract(value).suffix:
        return False  # a host name: "skype.com", "web.skype.com"
    if _INSIDE.search(value[1:]):
        return True
    return right_after and english is not None and not english(value.lower())


HANDLE_WORD = re.compile(r"[A-Z]{2,}(?=[A-Z][a-z]|[^A-Za-z]|$)|[A-Z]?[a-z]+|[A-Z]+")
"""The words of an account name run together: "BBCBreaking" -> "BBC", "Breaking"."""
_DIGIT = re.compile(r"\d")


def organization_handle(
    handle: str, english: Callable[[str], bool], named: Callable[[str], bool]
) -> bool:
    """Whether an account name is an organization's, not a person's.

    Its words (split at capitals, "_" and "-") include one of ``ORGANIZATION_WORDS`` and are
    all such words, or English words (``english``), acronyms or known places that are no
    name (``named``: a first or last name at any rank), with no digit: "SkySports",
    "BBCBreaking", "Radio_Dance", "MoscowTimes"; not "OfficialTamera", "JaneNews",
    "LowkeyMusic1".
    """
    words = HANDLE_WORD.findall(handle)
    keys = [w.casefold() for w in words]
    if _DIGIT.search(handle) or not any(_organization_word(k) for k in keys):
        return False
    return all(
        _organization_word(k) or (not named(w) and (w.isupper() or english(w) or known_place(w)))
        for w, k in zip(words, keys, strict=True)
    )


def _organization_word(key: str) -> bool:
    """An organization word, or a football club's initials ("mufc", "thfc", "whufc")."""
    return key in ORGANIZATION_WORDS or len(key) >= 4 and key.endswith("fc")
