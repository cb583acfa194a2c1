"""Credentials: passwords, the account name at a login, and the keys and tokens of programs.

People paste them while asking for help: a config file ("DB_PASSWORD=S3cr3t!"), a request
("Authorization: Bearer eyJ…"), a login ("user: jdoe / pw: hunter2"). Whoever reads one holds
the account, so it is redacted as surely as a card number: ``PASSWORD`` (what a person types
to log in), ``USERNAME`` (the account name beside it) and ``SECRET`` (keys and tokens).

Each value is read on its own evidence:

- **its shape**, where a provider's prefix makes a token unmistakable (``ghp_…``,
  ``xoxb-…``, ``AKIA…``, ``sk-ant-…``, ``AIza…``, a JSON web token, a PEM private key);
- **its key** (``password: …``, ``"api_key": "…"``, ``client_secret=…``, ``Authorization:
  Bearer …``, ``https://user:pass@host``): a quoted value, or the one word up to the end of
  its line or the next separator; a word that more words follow ("Password: please reset
  it") only when it is no English word;
- **a passphrase or a wallet's recovery words** after their name, three to twenty-four words
  to the end of the line or sentence ("passphrase: correct horse battery staple", "seed
  phrase: abandon ability …"), unless a word of them is one a sentence about them holds;
- **a login said in words**: an account name and a password in one breath ("login snoop pw
  biggreenhat", "u: snoop" then "p: biggreenhat"), or "my password is hunter2" (no English
  word after "is", "wrong" and "required" are none), or "my login is jsmith88" (a value
  shaped as an account name: "my login is broken" is none); a code that opens something
  ("the door code is 4471"), a card's security code ("cvv 123"), a security question's
  answer ("first pet's name = Biscuit"), a key after its word without a colon ("secret
  wJalr…", sixteen characters or more with a letter and a digit);
- **an account where a machine prints it**: a home folder in a path ("/home/jdoe/",
  a Windows profile's folder), ``ssh user@host``, ``curl -u user:password``, a URL's login,
  a log line's ``user=… ip=…``; shared and system homes ("root", "runner") are no one's.

A key's value must look like one: a secret's bare token holds a letter and a digit, or is
long and no word ("token: 42", "secret: true" are none); a quoted one may be anything but a
stand-in. What stands in for a value gives
nothing away and is left for the model to read: "<your-api-key>", "${DB_PASS}", "$TOKEN",
"{{ secret }}", "****", "null", "os.environ['KEY']".

Every pattern is bounded: a key is found by one scan, and a value is at most
``_MAX_VALUE`` characters after it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator

PASSWORD = "PASSWORD"  # noqa: S105 (a type's name)
USERNAME = "USERNAME"
SECRET = "SECRET"  # noqa: S105 (a type's name)
SCORE = 0.9
"""Above the NER model's 0.85: a password that reads as a name ("Jordan1987") is a password."""

_MAX_VALUE = 200

_TOKEN = r"[A-Za-z0-9_\-]"  # noqa: S105 (a pattern)
SHAPES: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = tuple(
    (marks, re.compile(pattern))
    for marks, pattern in (
        (("AKIA", "ASIA", "ABIA", "ACCA"), r"A(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}"),  # AWS key id
        (
            ("gh", "github_pat_"),
            rf"g(?:h[pousr]_[A-Za-z0-9]{{30,255}}|ithub_pat_{_TOKEN}{{22,255}})",
        ),
        (
            ("gl", "GR1348941"),
            rf"(?:gl(?:pat|dt|cbt|rt|ptt|ft|imt|oas|soat|agent)-|GR1348941){_TOKEN}{{20,}}",
        ),
        (("xox", "xapp-"), r"x(?:ox[abposre]|app-\d)-[A-Za-z0-9\-]{10,}"),  # Slack
        (("sk-",), rf"sk-(?:ant-{_TOKEN}{{20,}}|(?:proj-|svcacct-|admin-)?{_TOKEN}{{32,}})"),
        (("k_live_", "k_test_"), r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"),  # Stripe
        (("AIza",), rf"AIza{_TOKEN}{{35}}"),  # Google API key
        (("GOCSPX-",), rf"GOCSPX-{_TOKEN}{{20,}}"),  # Google OAuth client secret
        (("hf_",), r"hf_[A-Za-z0-9]{30,}"),  # Hugging Face
        (("npm_",), r"npm_[A-Za-z0-9]{36}"),  # npm
        (("pypi-AgE",), rf"pypi-AgE{_TOKEN}{{50,}}"),  # PyPI
        (("SG.",), rf"SG\.{_TOKEN}{{16,}}\.{_TOKEN}{{16,}}"),  # SendGrid
        (("sq0",), rf"sq0(?:csp|atp)-{_TOKEN}{{22,}}"),  # Square
        # Artifactory ("APACHEKAFKA", all capitals, is no key)
        (("AKC", "AP"), r"A(?:KC|P[0-9A-F])(?=[A-Z]*[a-z0-9])[A-Za-z0-9]{8,}"),
        (("-us",), r"[0-9a-f]{32}-us\d{1,2}"),  # Mailchimp
        ((":AA",), rf"\d{{8,10}}:AA{_TOKEN}{{33}}"),  # Telegram bot
        (("eyJ",), rf"eyJ{_TOKEN}{{8,}}\.eyJ{_TOKEN}{{8,}}(?:\.{_TOKEN}*)?"),  # JSON web token
    )
)
"""Tokens whose provider's prefix says what they are, each with the strings one of which it
holds: a text without them is not searched for it (most texts hold none)."""
_WHOLE = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----"
    r"[A-Za-z0-9+/=:,\-\s]{0,16000}?-----END (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----"
    r"|(?<=hooks\.slack\.com/services/)[A-Za-z0-9_/]{20,}"  # a webhook's URL is its key
    r"|(?<=/api/webhooks/)\d{5,}/[A-Za-z0-9_\-]{20,}"  # Discord webhook
)
_WHOLE_MARKS = ("-----BEGIN", "hooks.slack.com/", "/api/webhooks/")
_DISCORD = re.compile(
    rf"\.(?<={_TOKEN}{{23}}\.){_TOKEN}{{6,7}}\.{_TOKEN}{{27,40}}(?![\w\-])"  # noqa: S105
)
"""A Discord bot token from its first dot (a literal leads the search; text has few runs of 23
token characters before a dot), its first part of 23 to 28 characters read back from there."""
_TOKEN_CHAR = re.compile(r"[\w\-]")

_SEP = r"[_.\- ]?"
_PASSWORD_KEY = r"pass(?:word|wd|wort|phrase|code)?|pwd|pw|pin"  # noqa: S105 (a pattern)
_USER_KEY = rf"user{_SEP}name|user{_SEP}id|login|uid"
_SECRET_KEY = (
    rf"(?:api|app|client|consumer|access|account|secret|private|signing|encryption|master|license"
    rf"|webhook|session|auth|bearer|refresh|id){_SEP}(?:secret|key|token|id)"
    rf"|secret|token|apikey|credentials?|auth|authorization|cookie"
)
_KEYED = re.compile(
    rf"(?<![A-Za-z])(?:(?P<password>{_PASSWORD_KEY})|(?P<user>{_USER_KEY}|user)"
    rf"|(?P<secret>{_SECRET_KEY}))(?![A-Za-z])(?P<suffix>[_.\-][A-Za-z]\w{{0,30}})?"
    r"[\"'\]]{0,2}(?:[ \t]{0,3}(?::=|=>|===?|!==?|[:=])[ \t]{0,3}@?|[ \t]+@?(?=[\"'`])"
    r"|[ \t]+(?:to|as)[ \t]+(?=[\"'`]))",
    re.IGNORECASE,
)
"""A key, maybe a suffix of its name (``api_key_prod``), and what gives it its value: a colon,
an equals sign, a comparison (``if (password == "…")``), a blank before a quote (``password
"…"``), or "to" or "as" before one ("set SMTP_PASS to 'Gr33nTea!'"); ``_value`` reads what
follows."""
_LITERAL = rf"(?P<q>[\"'`])(?P<v>[^\"'`\n]{{1,{_MAX_VALUE}}})(?P=q)"
"""A quoted value on one line: ``v`` inside the quote ``q``."""
_COMPARED = re.compile(
    rf"{_LITERAL}[ \t]*(?:===?|!==?)[ \t]*"
    rf"(?:\w+[_.])?(?:(?P<password>{_PASSWORD_KEY})|(?P<secret>{_SECRET_KEY}))(?![A-Za-z])",
    re.IGNORECASE,
)
"""A literal compared with a key's variable, the literal first (``if ("…" == password)``)."""
_KEY_WORDS = re.compile(
    rf"(?:\w+_)?(?:{_PASSWORD_KEY}|{_USER_KEY}|user|{_SECRET_KEY}|key)(?:_\w+)?", re.IGNORECASE
)
"""A value that is itself a key's name is a variable: ``password=password``, ``pw=db_pass``."""
_QUOTED = re.compile(_LITERAL)
_BARE = re.compile(rf"[^\s\"'`,;&]{{1,{_MAX_VALUE}}}")
_CODE = re.compile(r"[(\[]|^[a-z_]\w*(?:\.[A-Za-z_]\w*)+$|://")
"""A bare value that is code (a call, an index, an attribute: ``self.token``) or a link."""
_RANDOM = re.compile(r"[\w\-+/=.~:]+")
_AUTH_SCHEME = re.compile(r"(?:Bearer|Basic|Token|Digest)[ \t]+", re.IGNORECASE)
_URL_LOGIN = re.compile(
    r"\b[a-z][a-z0-9+.\-]{1,20}://(?P<u>[^\s:/@\"'<>]{0,64}):(?P<v>[^\s:/@\"'<>;]{1,128})@[\w\-]+",
    re.IGNORECASE,
)
_URL_USER = re.compile(r"\b[a-z][a-z0-9+.\-]{1,20}://[^\s:/@\"'<>]{0,64}:$", re.IGNORECASE)
_URL_USER_CHARS = 90
_SAID = re.compile(
    r"\b(?:(?:my|the|your|our|his|her|their|a)[ \t]+)?(?:password|passcode|passphrase|pin|pw"
    r"|pwd|(?:door|gate|alarm|access|entry|garage|keypad|lock|safe|locker|building|wifi|wi-fi)"
    r"[ \t]+code|wi-?fi[ \t]+(?:key|pass)|(?P<wifi>wi-?fi)(?![ \t]+(?:pass|code|pin|pw|key)))"
    r"(?![\w\-])"
    r"(?:[ \t]+(?:at|for|in|of|on|to)(?:[ \t]+[\w'’]+){1,3}?(?=[ \t]*:|[ \t]+(?:is|was)\b))?"
    r"(?P<said>[ \t]*:|[ \t]+(?:is|was|will[ \t]+be)(?:[ \t]*:)?)?[ \t]+(?P<v>[^\s\"'`,;]{4,128})",
    re.IGNORECASE,
)
"""A password or a code that opens something, said in a sentence: "my password is hunter2",
"the door code is 4471", "the alarm code for the office is 90210"; the wifi's alone only with
"is" or a colon ("the wifi at Priya's is hunter2sunshine", "wifi: BlueDog_8812")."""
_SAID_AGAIN = re.compile(
    r"(?i:\b(?:(?:and[ \t]+|now[ \t]+|so[ \t]+)?it['’]s|it[ \t]+is|(?:the[ \t]+)?new[ \t]+one"
    r"(?:[ \t]+is|['’]s)|now[ \t]+it[ \t]+is)(?:[ \t]*:)?)[ \t]+(?P<v>[^\s\"'`,;]{4,128})"
)
"""A password given after it was named, in words that point back to it: "can you reset my
password? it's Winter2024!", "my old password was … and the new one is Autumn#99"."""
_POINTED_BACK = 80
"""How far before "it's" the password's word may stand."""
_SPEED = re.compile(r"\d+(?:[.,]\d+)?[ \t]*(?:[kmgt]b(?:ps|/s)?|[kmg]hz)", re.IGNORECASE)
"""A speed or a band ("100Mbps", "5GHz"): what the wifi is, not its password."""
_CARD_CODE = re.compile(
    r"(?i:\b(?:cvv2?|cvc2?|csc|cvn|(?:card[ \t]+)?(?:security|verification)[ \t]+(?:code"
    r"|number|value))(?:[ \t]+(?:is|was|number|code|no\.?))*[ \t]*[:=#]?[ \t]*)"
    r"(?P<v>\d{3,4})(?![\d\-/.,]\d|\w)"
)
"""A card's security code after its name ("cvv 123", "CVC: 0421", "security code 737"): what
proves the card is held, which no one may keep (PCI DSS), as a ``PASSWORD``."""
_HOME = re.compile(
    r"(?:(?<![\w.~])/(?:home|Users)/|\b[A-Za-z]:\\{1,2}(?i:Users|Documents and Settings)\\{1,2})"
    r"(?P<v>[^/\\\s:*?\"'`<>|$%{}\[\]]{2,64})(?=[/\\]|[ \t]|$)",
    re.MULTILINE,
)
"""A home folder in a path ("/home/jdoe/…", "/Users/tom.becker/…", "C:\\Users\\maria.gonzalez\\…"):
its name is the account's, often the person's own."""
_SHARED_HOMES = frozenset(
    "root user users admin administrator ubuntu debian centos ec2-user runner vagrant pi "
    "public default shared all guest username name me you someone app apps node docker git "
    "deploy www www-data nobody runneradmin jenkins circleci travis gitlab-runner".split()
)
"""Home folders of no one in particular: a system's, a CI runner's or a placeholder."""
_COMMAND_LOGIN = re.compile(
    r"(?:\b(?:curl|wget)\b[^\n]{0,200}?[ \t](?:-u|--user)[ \t=]*[\"']?"
    r"(?P<user>[^\s:\"'@]{1,64}):(?P<v>[^\s\"']{1,128})"
    r"|\b(?:ssh|scp|sftp|mosh|rsync)\b[^\n]{0,120}?[ \t](?P<ssh>[A-Za-z_][\w.\-]{0,63})@[\w\-\[])"
)
"""A login on a command line: ``curl -u user:password`` and an ``ssh user@host``'s account."""
_ANSWER = re.compile(
    r"(?i:\b(?:security[ \t]+answer|secret[ \t]+answer|(?:first[ \t]+)?pet['’]?s[ \t]+name)"
    r"(?:[ \t]+(?:is|was))?[ \t]*[:=]?[ \t]*)(?P<v>[^\W\d_][\w'’\-]{1,39})"
)
"""The answer to a security question ("security answer: …", "first pet's name = Biscuit"):
whoever knows it resets the account, so it is a ``PASSWORD``."""
_SAID_SECRET = re.compile(
    r"\b(?:(?:secret|private|access|api|app|client)(?:[ \t]+(?:access[ \t]+)?key)?|token"
    r"|api[ \t]?key)(?:[ \t]+(?:is|was))?[ \t]+(?P<v>[\w\-+/=.~]{16,200})(?![\w\-+/=~])",
    re.IGNORECASE,
)
"""A key or token after its word without a colon ("aws secret wJalrXUtnFEMI/K7MDENG…", "my
token is 8f9a…"): sixteen characters or more with a letter and a digit and no English word."""
_PAIR = re.compile(
    r"(?<![A-Za-z])(?:(?:login|log[ \t]+in|user(?:[ \t_\-]?name)?)[ \t]*[:=]?|u[ \t]*[:=])"
    r"[ \t]*(?P<user>[\w.@+\-]{1,64})[ \t]*(?:[,;/|][ \t]*)?(?:\n[ \t]*)?"
    r"(?:(?:password|passwd|pass|pwd|pw)(?![A-Za-z])[ \t]*(?P<keyed>[:=])?|p[ \t]*(?P<p>[:=]))"
    r"[ \t]*(?P<password>[^\s\"'`,;]{1,128})",
    re.IGNORECASE,
)
"""An account name and a password in one breath, on one line or on two."""
_PHRASE = re.compile(
    r"(?i:\b(?:pass[ \t\-]?phrase|(?P<seed>(?:seed|recovery|backup|mnemonic|secret[ \t]+recovery)"
    r"[ \t]+(?:phrase|words)|mnemonic))"
    r"(?:[ \t]+(?:is|was))?[ \t]*[:=]?[ \t]*[\"'`]?)"
    r"(?P<v>[A-Za-z][\w\-]*(?:[ \t]+[A-Za-z][\w\-]*){2,23})(?=[\"'`]?[ \t]*(?:[.,;!?)]|$))",
    re.MULTILINE,
)
"""A passphrase or a wallet's recovery words said in several words ("passphrase: correct
horse battery staple", "my seed phrase is abandon ability able …"): three to twenty-four
words up to the end of the line or the sentence. A wallet's words are its key (``SECRET``)."""
_PHRASE_STOPS = frozenset(
    "the for to of a an is are was not and or with in on my your it this that be please i you "
    "we me will can should must has have required wrong missing invalid expired incorrect "
    "reset forgot forgotten".split()
)
"""Words a sentence about a passphrase holds and a passphrase or a wallet's words do not."""
_SAID_USER = re.compile(
    r"\b(?:my|your|his|her|their|our)[ \t]+(?:user[ \t]?name|login|user[ \t]?id|handle"
    r"|account[ \t]+name|screen[ \t]?name|gamertag)(?:[ \t]+(?:on|at|for|in)[ \t]+[\w.\-]{1,30})?"
    r"(?:[ \t]+(?:is|was)|'s|[ \t]*:)[ \t]+@?(?P<v>[\w.\-]{3,64})",
    re.IGNORECASE,
)
"""An account name said in words: "my login is jsmith88", "my handle on discord is
darkknight_77"; the value must look like one (``_HANDLE_LIKE``): "my login is broken" is
none."""
_HANDLE_LIKE = re.compile(
    r"(?!(?:[A-Za-z]\.)+[A-Za-z]?$)(?=[\w.\-]*(?:\d|_|[A-Za-z]\.[A-Za-z]))[\w.\-]*[A-Za-z][\w.\-]*"
)
"""A letter and a digit, an underscore or an inner dot: "jsmith88", "dark_knight", "j.smith";
not an abbreviation ("e.g")."""

_NO_VALUE = frozenset(
    "null none nil true false yes no undefined required optional empty blank hidden "
    "redacted removed n/a na tbd todo unknown same below above ok failed failure success "
    "successful error denied invalid expired locked disabled enabled".split()
)
_NO_USER = frozenset(
    "a an and as at by for from in is it of on or the to with your my our their this that "
    "name id".split()
)
_TEMPLATE = re.compile(
    r"^(?:<[^>]*>?|\$\{?\w+\}?|\{\{.*|\{[^}]*\}|%\(?\w+\)?s?|\[[^\]]*\]?)$"
    r"|^(.)\1*$"  # "****", "xxxxxx", "......"
    r"|^(?:your|my|the|some|enter|insert|put)[_\-. ]|^!"  # "!vault": a YAML tag
    r"|os\.environ|getenv|process\.env|\benv\(|secrets\.|vault:|ENC\[",
    re.IGNORECASE,
)
_TRAILING = ".,:;)]}"
_MIN_PASSWORD = 4
_LETTER = re.compile(r"[^\W\d_]")
_DIGIT = re.compile(r"\d")

English = Callable[[str], bool]


def find(kind: str, text: str, english: English | None = None) -> Iterator[tuple[int, int, float]]:
    """``(start, end, score)`` of each credential of ``kind`` (a type above) in ``text``.

    ``english``: whether a word is English; without it, a word that more words follow is
    never a value, and "my password is …" is not read.
    """
    for found, start, end, score in read_all(text, english):
        if found == kind:
            yield start, end, score


@functools.lru_cache(maxsize=4)
def read_all(text: str, english: English | None) -> tuple[tuple[str, int, int, float], ...]:
    """Every credential of ``text`` with its type and score.

    Cached: the three types' rules read the same text one after the other, and share one read.
    """
    found: list[tuple[str, int, int]] = [(SECRET, *span) for span in _shaped(text)]
    keyed = any(mark in text for mark in ("=", ":", '"', "'", "`"))
    for m in _KEYED.finditer(text) if keyed else ():
        kind = PASSWORD if m["password"] else USERNAME if m["user"] else SECRET
        if m["suffix"] and kind == USERNAME:
            continue  # "user_agent: …", "login_url = …"
        value = _value(text, m.end(), kind, m["user"], english, named=not m["suffix"])
        if value is not None:
            found.append((kind, *value))
    for m in _COMPARED.finditer(text) if keyed else ():
        literal = m["v"]
        if not _stand_in(literal) and len(literal) >= _MIN_PASSWORD:
            found.append((PASSWORD if m["password"] else SECRET, *m.span("v")))
    for m in _URL_LOGIN.finditer(text) if "://" in text and "@" in text else ():
        if _TEMPLATE.search(m["v"]) is None and not m["v"].isdigit():  # "${PASS}", a port
            found.append((PASSWORD, *m.span("v")))
            if m["u"] and m["u"].casefold() not in _SHARED_HOMES and not _stand_in(m["u"]):
                found.append((USERNAME, *m.span("u")))  # "https://jdoe:…@github.com"
    folded = text.casefold()
    said = any(word in folded for word in ("pass", "pw", "pin"))
    for m in _PAIR.finditer(text) if said or keyed else ():
        password = _trimmed(text, *m.span("password"))
        if password is None or m["user"].casefold() in _NO_USER or _stand_in(m["user"]):
            continue
        typed = text[password[0] : password[1]]
        if len(typed) < _MIN_PASSWORD:
            continue
        if m["keyed"] or m["p"]:
            right = not _stand_in(typed)
        else:  # "login snoop pw biggreenhat"
            right = english is not None and _unguessable(typed, english)
        if right:
            found += [(USERNAME, *m.span("user")), (PASSWORD, *password)]
    if "name" in folded or "login" in folded or "handle" in folded or "tag" in folded:
        for m in _SAID_USER.finditer(text):
            span = _trimmed(text, *m.span("v"))
            account = text[span[0] : span[1]] if span else ""
            if span and _HANDLE_LIKE.fullmatch(account) and not _stand_in(account):
                found.append((USERNAME, *span))
    if "phrase" in folded or "mnemonic" in folded or "recovery" in folded:
        for m in _PHRASE.finditer(text):
            words = m["v"].casefold().split()
            if not _PHRASE_STOPS.intersection(words) and not _stand_in(m["v"]):
                found.append((SECRET if m["seed"] else PASSWORD, *m.span("v")))
    if english is not None and (said or "code" in folded or "wi" in folded):
        for m in _SAID.finditer(text):
            if m["wifi"] and (not m["said"] or _SPEED.match(m["v"])):
                continue  # "the wifi is 100Mbps", "wifi speeds"
            span = _trimmed(text, *m.span("v"))
            if span is not None and _unguessable(text[span[0] : span[1]], english):
                found.append((PASSWORD, *span))
    if english is not None and said:
        for m in _SAID_AGAIN.finditer(text):
            named = _PASSWORD_NAMED.search(text, max(0, m.start() - _POINTED_BACK), m.start())
            span = _trimmed(text, *m.span("v"))
            if named and span and _strong(text[span[0] : span[1]], english):
                found.append((PASSWORD, *span))
    if "/home/" in text or "/Users/" in text or "\\" in text:
        for m in _HOME.finditer(text):
            home = m["v"]
            if home.casefold() not in _SHARED_HOMES and not _stand_in(home):
                found.append((USERNAME, *m.span("v")))
    if any(word in folded for word in ("curl", "wget", "ssh", "scp", "sftp", "mosh", "rsync")):
        for m in _COMMAND_LOGIN.finditer(text):
            if m["ssh"] is not None:
                if m["ssh"].casefold() not in _SHARED_HOMES:
                    found.append((USERNAME, *m.span("ssh")))
            elif not _stand_in(m["v"]) and not _stand_in(m["user"]):
                found += [(USERNAME, *m.span("user")), (PASSWORD, *m.span("v"))]
    if "answer" in folded or "pet" in folded:
        for m in _ANSWER.finditer(text):
            if m["v"].casefold() not in _PHRASE_STOPS and not _stand_in(m["v"]):
                found.append((PASSWORD, *m.span("v")))
    if any(word in folded for word in ("cv", "csc", "security", "verification")):
        found += [(PASSWORD, *m.span("v")) for m in _CARD_CODE.finditer(text)]
    if "key" in folded or "secret" in folded or "token" in folded:
        for m in _SAID_SECRET.finditer(text):
            span = _trimmed(text, *m.span("v"))
            key = text[span[0] : span[1]] if span else ""
            if span and _DIGIT.search(key) and _secret_like(key) and not _stand_in(key):
                found.append((SECRET, *span))
    return tuple((kind, start, end, SCORE) for kind, start, end in found)


def _shaped(text: str) -> Iterator[tuple[int, int]]:
    """The spans of the tokens ``SHAPES`` and ``_WHOLE`` find, each a whole token."""
    for marks, pattern in SHAPES:
        if any(mark in text for mark in marks):
            for m in pattern.finditer(text):
                start, end = m.span()
                whole = not (
                    start > 0 and _TOKEN_CHAR.match(text, start - 1) or _TOKEN_CHAR.match(text, end)
                )
                if whole:
                    yield start, end
    if any(mark in text for mark in _WHOLE_MARKS):
        yield from (m.span() for m in _WHOLE.finditer(text))
    for token in _DISCORD.finditer(text):
        start = token.start() - 23
        while start > 0 and token.start() - start < 28 and _TOKEN_CHAR.match(text, start - 1):
            start -= 1
        if start == 0 or not _TOKEN_CHAR.match(text, start - 1):
            yield start, token.end()


_URL_LOGIN_BEFORE = re.compile(
    r"\b[a-z][a-z0-9+.\-]{1,20}://[^\s:/@\"'<>]{0,64}:[^\s:/@\"'<>;]{1,128}\Z", re.IGNORECASE
)


def url_host(text: str, at: int) -> bool:
    """Whether the "@" at ``at`` ends a URL's login, so a host follows (``://user:pw@<host>``).

    The handle rule reads ``@host`` there as an account.
    """
    if at < 0 or not text.startswith("@", at):
        return False
    reach = _URL_USER_CHARS + _MAX_VALUE
    return _URL_LOGIN_BEFORE.search(text, max(0, at - reach), at) is not None


def url_login(text: str, start: int) -> bool:
    """Whether ``start`` begins the password of a URL's login (``scheme://user:<here>@host``).

    The e-mail rules read ``password@host`` there as an address.
    """
    return _URL_USER.search(text, max(0, start - _URL_USER_CHARS), start) is not None


def _value(
    text: str,
    at: int,
    kind: str,
    user_key: str | None,
    english: English | None,
    *,
    named: bool = True,
) -> tuple[int, int] | None:
    """The span of the value a key introduces at ``at``, if it is one.

    ``named``: the key is the whole name; a name with more after the key
    (``password_policy: strict``) takes only a quoted value or one no English word.
    """
    if kind == SECRET:
        scheme = _AUTH_SCHEME.match(text, at)  # "Authorization: Bearer <token>"
        at = scheme.end() if scheme else at
    quoted = _QUOTED.match(text, at)
    if quoted:
        start, end = quoted.span("v")
    else:
        bare = _BARE.match(text, at)
        trimmed = _trimmed(text, *bare.span()) if bare else None
        if bare is None or trimmed is None or _CODE.search(bare[0]):
            return None
        start, end = trimmed
    value = text[start:end]
    if _stand_in(value):
        return None
    alone = quoted is not None or named and _alone(text, end)
    if kind == SECRET:
        if quoted is not None:  # a quoted value under a secret's key is one ("a b c")
            return (start, end) if len(value) >= _MIN_PASSWORD else None
        return (start, end) if _RANDOM.fullmatch(value) and _secret_like(value) else None
    if kind == USERNAME:
        # "User: thanks!" in a pasted transcript is a speaker, "Login: failed" a status,
        # "username: jdoe" an account; an e-mail address is the e-mail rule's
        loose = user_key is not None and user_key.casefold() in ("user", "login")
        if not alone or "@" in value or loose and (english is None or english(value)):
            return None
        return start, end
    if len(value) < _MIN_PASSWORD:
        return None  # "PASS: 12" in a test run's summary
    if alone:
        return start, end
    return (start, end) if english is not None and _unguessable(value, english) else None


def _trimmed(text: str, start: int, end: int) -> tuple[int, int] | None:
    """A bare value without the sentence's punctuation after it ("hunter2." → "hunter2")."""
    while end > start and text[end - 1] in _TRAILING:
        end -= 1
    return (start, end) if end > start else None


_NEXT_KEY = re.compile(r"[ \t]+[A-Za-z_][\w.\-]{0,40}=(?!=)")


def _alone(text: str, end: int) -> bool:
    """Whether a value ends its line or a list.

    After it, only blanks or closing punctuation, then a line end or a separator; or the
    next ``key=`` of a log line.
    """
    if _NEXT_KEY.match(text, end):
        return True  # a log line's "user=pbrennan ip=…"
    i = end
    while i < len(text) and text[i] in " \t" + _TRAILING:
        if text[i] in ",;":
            return True
        i += 1
    return i == len(text) or text[i] in "\r\n&|"


def _stand_in(value: str) -> bool:
    """Whether a value stands in for one.

    "<api-key>", "${PASS}", "****", "your_token", "null", ``password=password``.
    """
    return (
        _TEMPLATE.search(value) is not None
        or value.casefold() in _NO_VALUE
        or _KEY_WORDS.fullmatch(value) is not None
    )


_PASSWORD_NAMED = re.compile(r"(?i:\b(?:password|passcode|passphrase|pin|pw|pwd)\b)")
_SYMBOL = re.compile(r"[^\w\s]")


def _strong(value: str, english: English) -> bool:
    """Whether a value pointed back to as a password has a password's shape.

    Letters with a digit or a symbol ("Winter2024!", "Autumn#99"), or digits alone for a pin:
    "it's fine", "it's 5 minutes", "it's Tuesday" are none.
    """
    if not _unguessable(value, english):
        return False
    letters, digits = _LETTER.search(value), _DIGIT.search(value)
    return bool(letters and (digits or _SYMBOL.search(value.rstrip(".!?"))) or value.isdigit())


def _unguessable(value: str, english: English) -> bool:
    """Whether a word read in a sentence is a password: no English word, code or stand-in."""
    if _stand_in(value) or _CODE.search(value):
        return False
    return not (_LETTER.search(value) and not _DIGIT.search(value) and english(value))


def _secret_like(value: str) -> bool:
    """Whether a keyed value can be a key or token.

    A letter and a digit in 8 characters or more, or 16 or more with no blank (a random
    string); never a number alone ("token: 42").
    """
    if not _LETTER.search(value):
        return False
    return bool(_DIGIT.search(value)) and len(value) >= 8 or len(value) >= 16 and " " not in value
