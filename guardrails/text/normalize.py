"""Platform markup normalized for analysis, with a map back to the original offsets.

Presidio reads ``Normalized.text``: readable text without Slack/Discord markup, HTML escapes
or invisible characters. Every character of it remembers the span of the original text it came
from, so a detection maps back onto the user's own text (``Normalized.original``) and the
redaction keeps the user's formatting byte for byte.

What each construct becomes for the analyzer, and what detection does with it:

- user mentions (Slack ``<@U…>``/``<@W…|name>``, Discord ``<@id>``/``<@!id>``): "someone";
  each is one ``USER`` entity, so the model never sees a platform id;
- links (Slack ``<mailto:a|b>``, ``<tel:a|b>``, ``<url|label>``, Discord ``[label](url)``,
  bare ``http(s)://`` URLs): "label (target)", the target's percent escapes and query ``+``
  decoded and its parameters recorded by key (``guardrails.text.linkdecode``); personal data
  anywhere in a mail or phone link makes the whole link one entity;
- channel, role, group and special mentions, timestamps, custom emoji: a neutral stand-in
  ("#general", "@role", "@here"); protected, i.e. kept as written and never redacted
  (channel and role ids are not personal; keeping the markup keeps them working);
- a line break inside an e-mail address ("jane.doe@exam" / "ple.com", as mail clients and
  narrow windows wrap it): dropped, so the address is read whole;
- Unicode spaces (no-break, narrow no-break, figure, ideographic): a plain space, and line
  and paragraph separators a line break, so "06\u00a012\u00a034\u00a056\u00a078" reads as a
  phone number;
- fullwidth ASCII ("＠", "１９２．１６８", as CJK input methods type them): the ASCII character;
- HTML escapes (Slack): the character; emphasis markers (``*``, ``_``, ``~``, ``||``) and code
  backticks: dropped, so ``*Jane Doe*`` reads as a name (not an underscore right after "@":
  ``@_mike.tyson_`` is a handle); code content is kept, and inline code (an identifier, not
  prose) is remembered so that NER names are not taken from it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bot.core.types import Platform
from guardrails.text.linkdecode import decode_target

# Characters that show nothing, dropped from the analysis text: zero-width and other format
# characters (U+200B-U+200F, U+2060-U+206F, bidi controls, BOM, soft hyphen), fillers that
# render blank (Hangul fillers, Khmer inherent vowels, the Mongolian vowel separator, the
# blank Braille pattern), variation selectors, the combining grapheme joiner, the language
# and cancel tags, musical format characters, C0/C1 controls except tab and newline. Put
# between the letters of a value ("jane\u180e.doe@…") they would hide it from every pattern.
_HIDDEN = (
    "\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\U0001d173-\U0001d17a"
    "\U000e0001\U000e007f\U000e0100-\U000e01ef"
)
INVISIBLE_RE = re.compile(f"[{_HIDDEN}\x00-\x08\x0b-\x1f\x7f-\x9f]")
HIDDEN_RE = re.compile(f"[{_HIDDEN}\U000e0020-\U000e007e]")
"""Every character that shows nothing: the invisible ones and the tag characters."""
GAP = "\u200b"
"""A zero-width space, which analysis reads as nothing: ``rules.ocr`` puts it for what OCR
added to a value ("example. com"), so the reading keeps the OCR'd text's offsets."""
# Unicode spaces (no-break, narrow no-break, figure, ideographic, ...) read as a plain space,
# line and paragraph separators as a line break: "06\u00a012\u00a034\u00a056\u00a078" is a
# phone number and "FR76\u202f3000 ..." an IBAN however the keyboard or the typography spaced
# them. One character for one, so the offset map is unchanged.
SPACES = str.maketrans(
    dict.fromkeys("\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
                  "\u2009\u200a\u202f\u205f\u3000", " ")
    | dict.fromkeys("\u2028\u2029", "\n")
)  # fmt: skip
# Fullwidth letters, digits and the characters of addresses, as CJK input methods type them
# ("jane.doe＠example.com", "１９２．１６８．０．１"), read as their ASCII forms (what NFKC
# makes of them), one character for one. Fullwidth prose punctuation ("，", "：", "！")
# stays: the NER model reads CJK sentences by it.
FULLWIDTH = str.maketrans(
    {
        chr(ord(c) + 0xFEE0): c
        for c in "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz@.+-_%/#"
    }
)
_ASCII_FORMS = {**SPACES, **FULLWIDTH}
"""The two tables as one: each maps distinct characters."""
# Hyphens and dashes a keyboard, a word processor or a phone's autocorrect puts between digits
# ("4111\u20111111\u2011…" with non-breaking hyphens, "536\u201022\u20101234", a minus sign)
# read as the ASCII hyphen-minus, one character for one. Only between digits: in prose the
# entity model reads the dash it was trained on ("Kraków – miasto").
_DIGIT_DASH = re.compile("(?<=[0-9])[\u2010\u2011\u2012\u2013\u2212\ufe63](?=[0-9])")
_CODE = r"(?P<block>```.*?```)|(?P<inline>`[^`\n]+`)"
_URL = r"https?://[^\s<>|]*[^\s<>|.,;:!?)\]'\"]"
_MD_TARGET = r"(?:" + _URL + r"|mailto:[^\s<>()|]+|tel:[+\d][\d\-.]*)"
_SLACK = re.compile(
    _CODE + r"|<(?P<user>@[UW][A-Z0-9]{2,})(?:\|[^>]*)?>"
    r"|<(?P<channel>#C[A-Z0-9]{2,})(?:\|(?P<cname>[^>]*))?>"
    r"|<(?P<special>![^>\s]{1,200})>"
    r"|<(?P<link>(?:mailto:|tel:|https?://|ftp://)[^|>\s]*)(?:\|(?P<label>[^>]*))?>"
    r"|(?P<escape>&(?:amp|lt|gt);)"
    r"|(?P<bare>" + _URL + ")",
    re.DOTALL,
)
_DISCORD = re.compile(
    _CODE + r"|<(?P<user>@!?\d{15,21})>"
    r"|<(?P<role>@&\d{15,21})>|<(?P<channel>#\d{15,21})>"
    r"|<(?P<time>t:-?\d{1,13}(?::[tTdDfFR])?)>|<(?P<emoji>a?:\w{1,32}:\d{15,21})>"
    r"|<(?P<command>/[\w -]{1,64}:\d{15,21})>"
    r"|\[(?P<mdlabel>[^\]\n]{1,200})\]\(<?(?P<mdlink>" + _MD_TARGET + r")>?\)"
    r"|(?P<bare>" + _URL + ")",
    re.DOTALL,
)
_CONSOLE = re.compile(
    _CODE + r"|\[(?P<mdlabel>[^\]\n]{1,200})\]\(<?(?P<mdlink>" + _MD_TARGET + r")>?\)"
    r"|(?P<bare>" + _URL + ")",
    re.DOTALL,
)
_GRAMMARS = {"slack": _SLACK, "discord": _DISCORD, "console": _CONSOLE}
_EMPHASIS = re.compile(
    r"(?<![\w\\*~|@])(\*\*|\*|__|_|~~|~|\|\|)(?=\S)([^\n]+?)(?<=\S)\1(?![\w*~|])"
)
_QUOTE = re.compile(r"^[ \t]*>[ \t]?", re.MULTILINE)
_ESCAPES = {"&amp;": "&", "&lt;": "<", "&gt;": ">"}
_STAND_INS = {"role": "@role", "time": "then", "emoji": " ", "command": "/command"}


@dataclass
class Normalized:
    """Analysis text plus, per character, the original span it stands for.

    Attributes:
        text: what the analyzer reads.
        starts: for each character of ``text``, where its original span starts.
        ends: for each character of ``text``, where its original span ends.
        users: original spans of user mentions.
        links: original spans of links, with their kind (``mailto``, ``tel``, ``url``).
        protected: original spans that are never redacted (channels, roles, emoji, ...).
        code: analysis spans of inline code (names found by NER there are identifiers).
        fields: the parameters of link targets, ``(key, start, end)``: the key folded to
            lower-case letters and digits ("first_name" -> "firstname"), the analysis span of
            its decoded value.
    """

    text: str = ""
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)
    users: list[tuple[int, int]] = field(default_factory=list)
    links: list[tuple[int, int, str]] = field(default_factory=list)
    protected: list[tuple[int, int]] = field(default_factory=list)
    code: list[tuple[int, int]] = field(default_factory=list)
    fields: list[tuple[str, int, int]] = field(default_factory=list)

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The original span of the analysis span ``[start, end)`` (``end > start``)."""
        return self.starts[start], self.ends[end - 1]


_WRAP = re.compile(r"[ \t]*\n[ \t]*")
_EMAIL_CHARS = re.compile(r"[\w.+\-%@]+")
_FULL_EMAIL = re.compile(r"[\w.+\-%]*\w@[\w\-]+(?:\.[\w\-]+)*\.[^\W\d_]{2,24}")


def soft_wraps(text: str) -> set[int]:
    """Positions of the line breaks (and blanks around them) that split an e-mail address.

    A break is dropped when the words on both sides form one address and the first is not
    an address on its own; a first part of letters only ("write to") is a word, not part of
    an address, unless it holds the ``@``.
    """
    skip: set[int] = set()
    for wrap in _WRAP.finditer(text):
        before = _EMAIL_CHARS.search(text, max(0, wrap.start() - 80), wrap.start())
        after = _EMAIL_CHARS.match(text, wrap.end())
        while before is not None and before.end() < wrap.start():
            before = _EMAIL_CHARS.search(text, before.end(), wrap.start())
        if before is None or after is None:
            continue
        head, tail = before.group(), after.group()
        if not _FULL_EMAIL.fullmatch(head + tail):
            continue
        if _FULL_EMAIL.fullmatch(head) or ("@" not in head and head.isalpha()):
            continue
        skip.update(range(wrap.start(), wrap.end()))
    return skip


class _Builder:
    """Appends analysis text piece by piece, recording where each piece came from."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.out = Normalized()
        self.pieces: list[str] = []
        self.skip = soft_wraps(source) if "\n" in source and "@" in source else set()

    @property
    def length(self) -> int:
        return len(self.out.starts)

    def copy(self, start: int, end: int) -> None:
        """Copy ``source[start:end]`` as is, minus invisible characters."""
        segment = self.source[start:end]
        skipped = self.skip and any(i in self.skip for i in range(start, end))
        if not skipped and not INVISIBLE_RE.search(segment):
            self.pieces.append(segment)
            self.out.starts.extend(range(start, end))
            self.out.ends.extend(range(start + 1, end + 1))
            return
        for i in range(start, end):
            if i not in self.skip and not INVISIBLE_RE.match(self.source, i):
                self.pieces.append(self.source[i])
                self.out.starts.append(i)
                self.out.ends.append(i + 1)

    def prose(self, start: int, end: int) -> None:
        """Copy running text, dropping quote markers and emphasis markers around words."""
        position = start
        for match in _QUOTE.finditer(self.source, start, end):
            self.emphasis(position, match.start())
            # "> Elena Okafor asked": the small NER model misses a name after a bare ">".
            self.stand_in(" ", *match.span())
            position = match.end()
        self.emphasis(position, end)

    def emphasis(self, start: int, end: int) -> None:
        """Copy running text, dropping emphasis markers around words."""
        position = start
        for match in _EMPHASIS.finditer(self.source, start, end):
            marker = len(match.group(1))
            self.copy(position, match.start())
            # A space for each marker keeps "Tom *Jane*" two names, not one.
            self.stand_in(" ", match.start(), match.start() + marker)
            self.emphasis(match.start() + marker, match.end() - marker)
            self.stand_in(" ", match.end() - marker, match.end())
            position = match.end()
        self.copy(position, end)

    def stand_in(self, text: str, start: int, end: int) -> None:
        """Write ``text`` for the original ``[start, end)``: each character maps to all of it."""
        self.pieces.append(text)
        self.out.starts.extend([start] * len(text))
        self.out.ends.extend([end] * len(text))

    def add_field(self, key: str, start: int, end: int) -> None:
        """Record a link parameter's decoded value (``guardrails.text.linkdecode``)."""
        self.out.fields.append((key, start, end))

    def build(self) -> Normalized:
        self.out.text = _DIGIT_DASH.sub("-", "".join(self.pieces).translate(_ASCII_FORMS))
        return self.out


def normalize(text: str, platform: Platform) -> Normalized:
    """The analysis form of a message written on ``platform``."""
    builder = _Builder(text)
    _scan(builder, _GRAMMARS[platform], 0, len(text))
    return builder.build()


def _scan(b: _Builder, grammar: re.Pattern[str], start: int, end: int) -> None:
    """Write ``source[start:end]``: markup constructs by their analysis form, prose between."""
    position = start
    for match in grammar.finditer(b.source, start, end):
        b.prose(position, match.start())
        _construct(b, match, grammar)
        position = match.end()
    b.prose(position, end)


def _construct(b: _Builder, m: re.Match[str], grammar: re.Pattern[str]) -> None:
    """Write the analysis form of one markup construct and record what it is."""
    kind = m.lastgroup if m.lastgroup not in ("cname", "label", "mdlabel") else None
    kind = kind or next(k for k in ("channel", "link", "mdlink") if m.group(k))
    start, end = m.span()
    if kind in ("block", "inline"):
        fence = 3 if kind == "block" else 1
        code_start = b.length
        if kind == "block":  # often a pasted message or log: its mentions, links, names count
            _scan(b, grammar, start + fence, end - fence)
        else:
            b.copy(start + fence, end - fence)
            b.out.code.append((code_start, b.length))
    elif kind == "user":
        b.stand_in("someone", start, end)
        b.out.users.append((start, end))
    elif kind == "escape":
        quote = m.group(kind) == "&gt;" and _at_line_start(b.source, start)
        b.stand_in(" " if quote else _ESCAPES[m.group(kind)], start, end)
    elif kind in ("link", "mdlink", "bare"):
        _link(b, m, kind)
    else:
        b.stand_in(_protected_stand_in(m, kind), start, end)
        b.out.protected.append((start, end))


def _at_line_start(text: str, position: int) -> bool:
    """Whether only blanks lie between the start of the line and ``position``."""
    return not text[text.rfind("\n", 0, position) + 1 : position].strip()


def _protected_stand_in(m: re.Match[str], kind: str) -> str:
    if kind == "channel":
        name = m.groupdict().get("cname")
        return f"#{name}" if name else "#channel"
    if kind == "special":
        return "@team" if m.group(kind).startswith("!subteam") else "@here"
    return _STAND_INS[kind]


def _link(b: _Builder, m: re.Match[str], kind: str) -> None:
    """A link reads "label (target)"; it is recorded as one unit of its kind."""
    target_start, target_end = m.span(kind)
    target = m.group(kind)
    scheme = (
        "mailto" if target.startswith("mailto:") else "tel" if target.startswith("tel:") else ""
    )
    if scheme:
        target_start += len(scheme) + 1
    label_group = "mdlabel" if kind == "mdlink" else "label"
    label = m.groupdict().get(label_group)
    if label and label != b.source[target_start:target_end]:
        b.prose(*m.span(label_group))
        b.stand_in(" (", m.start(), m.end())
        decode_target(b, target_start, target_end)
        b.stand_in(")", m.start(), m.end())
    else:
        decode_target(b, target_start, target_end)
    b.out.links.append((m.start(), m.end(), scheme or "url"))
