"""Name rules that need no gazetteer: context phrases and scripts the small model misses.

"my name is maria", "ask tom", "cc jane doe", "@Jane", "I'm Dave" find a name by the phrase in
front of it, in any case; capitalized sequences with diacritics (José Álvarez), Cyrillic or
Greek, two or three words of Arabic or Hebrew script, and short Han or Hangul runs are names
in English chat. Field labels ("Owner: ...") and role words ("Patient ...", "contact is ...")
name whoever follows. A word that is common in chat
("ask about", "ping me", "I'm sure") is never taken for a name: that is the precision guard.
"""

from __future__ import annotations

import re

from guardrails.rules.stopwords import STOP_WORDS

_CHAT_WORDS = """
about again all also anyone anybody api asap available away back bad best better boss both
busy bye call cause channel cheers chat check client clients confused curious customer
customers daily done dev devops doc docs else email everybody everyone everything excited
fine finance first folks free friday friends getting glad going good great guys happy having
hello help here hey hi hr infra it its just late later legal list looking lol meeting monday
new next nobody not now ok okay oncall ooo ops out people please pls prod qa ready really
role sales saturday security so somebody someone soon sorry staging stack still stuck sunday
support sure team thanks thank thursday today tomorrow tonight trying tuesday thx us wednesday
welcome well wondering working yes yesterday you yall all here there everyone channel
ask cc ping tell call dm message meet met invite talk reach loop ty
manager admin admins engineering marketing product design data ticket tickets issue issues
oh ah aha wow yeah yep nope hmm ugh yay lol omg btw fyi imo tbh um umm uh uhh erm mhm
rt ff idk imma tryna gonna wanna lmao lmfao smh ikr tho
tue tues wed weds thu thur thurs fri
"""
CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uf900-\ufaff"
"""Kana, Han and Hangul, for a character class: scripts that do not space their words."""
COMMON_WORDS = frozenset(STOP_WORDS) | frozenset(_CHAT_WORDS.split())
"""Words that are never a name on their own (lower case)."""
CONTRACTIONS = frozenset("im ive youre theyre dont didnt doesnt cant wont isnt wasnt".split())
"""Contractions typed without their apostrophe ("hi im new"): English words in lower case,
though "Ive" and "Im" are surnames ("Jony Ive")."""

_NOT_COMMON = r"(?!(?i:" + "|".join(sorted(map(re.escape, COMMON_WORDS), key=len, reverse=True))
_NOT_COMMON += r")(?![\w'’\-]))"
_NOT_CONTRACTED = r"(?!(?-i:[a-z]+['’](?:s|re|m|ll|ve|d)|I['’](?:m|ll|ve|d))(?![\w'’\-]))"
"""No lower-case word with a contraction ("it's", "we're"), nor "I'm" ("Will's" may be a
name)."""
_WORD = r"[^\W\d_](?:[^\W\d_]|['’\-](?=[^\W\d_]))*"
_NAME = rf"{_NOT_COMMON}{_NOT_CONTRACTED}{_WORD}"
# A title is no name of its own: "call me Mr. Mayers" is the honorific rule's.
_NOT_TITLE = r"(?!(?i:mrs|mr|ms|mx|miss|prof|dr)\b)"
_TWO = rf"[(\[*_\"']?{_NOT_TITLE}(?P<v>{_NAME}(?:[ \t]+{_NAME})?)"
_NAME_KIND = (
    r"(?:(?:sur|nick|(?:last|first|given|family|middle|maiden|full|legal|real|birth|married"
    r"|christian)[ \t]?)?name)"
)
"""A name's word, of whichever part of it ("surname", "last name", "maiden name")."""
_STRONG = (
    rf"(?:(?i:\b(?:my|his|her|their|your|our|the[ \t]+\w+['’]s)\s+{_NAME_KIND}\s+(?:is|was)"
    rf"|\bmy\s+name's|\bname\s*:|\bcall\s+me|\bi(?:'m|\s+am)\s+called|\bi\s+go\s+by"
    rf"|\b(?:he|she|they)\s+goes?\s+by|\bgo(?:es)?\s+by\s+the\s+name(?:\s+of)?)"
    rf"|\b(?i:(?:sur|maiden[ \t]|family[ \t]|last[ \t]|first[ \t]|given[ \t])name)"
    rf"(?=\s+[A-ZÀ-ÖØ-Þ]))"
)
"""What introduces a person's name: "my name is", "her maiden name was", "the guest's last
name is", "call me", "I go by"; a name part's word right before a capital ("surname Hoffmann")."""
_GREETING = r"(?i:\b(?:thanks|thank\s+you|thx|ty|hi|hey|hello|dear|cheers))"
_ASKING = (
    r"(?i:\b(?:ask|cc|ping|tell|email|e-mail|message|dm|meet|met|invite|loop\s+in|talk\s+to"
    r"|reach\s+out\s+to))"
)
RELATIVES = (
    "son daughter wife husband mother father mom mum dad brother sister uncle aunt niece nephew"
    " cousin grandson granddaughter grandmother grandfather grandma grandpa stepson"
    " stepdaughter fiance fiancé fiancee fiancée girlfriend boyfriend"
).split()
"""Family words: a name after one is a relative's ("SON JAMES"), a number near one their
line ("DAUGHTER SUSAN 555-3421")."""
MONTHS = frozenset(
    "january february march april may june july august september october november december"
    " jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
"""Month names and their abbreviations (lower case)."""
_MONTH = r"(?i:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
# "It's December 19", "this is Jan 4": a date, not someone introducing themselves; after
# "it's" a month alone is one too ("It's February!").
_SELF = (
    rf"(?i:\bi['’]m|\bi\s+am|\bthis\s+is|\bit['’]s(?![ \t]+{_MONTH}(?!\w))|\bsigned,?)"
    rf"(?![ \t]+{_MONTH}[ \t]+\d)"
)
# A field label ("Owner: ...") names whoever follows in any case; a role word only a
# capitalized name ("Patient Elena Okafor", "contact is Daniel").
_LABEL = r"(?i:\b(?:owner|assignee|reporter|attendee|recipient|sender|contact|holder)\s*:)"
_ROLE = (
    r"(?i:\b(?:patient|customer|client|passenger|traveller|traveler|tenant|applicant"
    r"|contact\s+is|account\s+holder|owner\s+is|assigned\s+to|on\s+behalf\s+of|name|named))"
)
_UPPER_FIRST = r"(?=[^\W\d_a-zà-öø-ÿа-яё])"
_CAP_TWO = rf"(?P<v>{_UPPER_FIRST}{_NAME}(?:[ \t]+{_UPPER_FIRST}{_NAME})?)"
# Where a capitalized name is a person by the words around it: "refund it for June Park,",
# "meeting with Priya from ...", "(Raj Fischer)'s", "Marcus asked", "Isabel Ferreira just sent".
_PHRASE_END = r"[,;:!?)]|\.(?!\w)|$"
"""What ends a phrase; a full stop before a letter is inside a domain ("Goldstar.com")."""
_FOR_END = rf"(?=[ \t]*(?:{_PHRASE_END})|[ \t]+(?:after|before|who|since|until|today|tomorrow)\b)"
COMPANY_WORDS = frozenset(
    """corp corporation inc incorporated ltd limited llc llp plc gmbh ag sa lab labs group
    systems technologies tech solutions software bank industries holdings partners co company
    media health studio studios games networks capital ventures analytics logistics
    airlines insurance consulting services foundation university college team project
    investments associates enterprises international agency orchestra band brothers bros
    pharmaceuticals motors electric energy financial partnership""".split()
)
"""Words after a capitalized name that make it a company, not a person ("Morgan Stanley Bank")."""
LEGAL_FORMS = frozenset(
    "corp corporation inc incorporated ltd limited llc llp plc gmbh ag sa nv bv co holdings"
    " kg ohg sarl sas spa srl pty pllc".split()
)
"""Words that end a company's registered name ("JP Morgan Asian Investment Trust Plc",
"Müller & Söhne GmbH"); not "AS", "AB" or "Oy", which are words ("Tom Jones As I said")."""
CLUB_WORDS = frozenset("united city fc afc rovers athletic wanderers albion".split())
"""Words after a town that make it a sports club ("Manchester United", "Birmingham City")."""
ORGANIZATION_WORDS = COMPANY_WORDS | frozenset(
    """news radio fm tv sports sport records music magazine mag daily times post charity
    fashion programme program diary official online breaking weekly club fc gov police council
    party trust society association union league festival theatre theater museum gallery store
    shop hotel cafe restaurant pub press tickets events channel network games insider journal
    herald gazette tribune telegraph examiner mail express mirror uni academy school hospital
    nhs hq app apps blog zine comics books publishing film films movies cinema arts bbc itv cnn
    mtv sky fox abc cbs nbc espn""".split()
)
"""Words an organization's account name is made of ("@SkySports", "@Radio_Dance")."""
INSTITUTION_WORDS = COMPANY_WORDS | frozenset(
    """herald gazette tribune telegraph examiner chronicle journal times monthly weekly daily
    magazine review press symphony philharmonic orchestra choir opera ballet court council
    committee commission department ministry authority board bureau institute institution
    museum gallery library society association federation league union party police army
    navy railway railways airways""".split()
)
"""Words that end an institution named after a place ("Chicago Symphony Orchestra",
"Sydney Morning Herald", "Newfoundland and Labrador Court of Appeal"). Schools and hospitals
are not among them: the place in their name says where a child or a patient is."""
ROLE_WORDS = frozenset(
    """engineer manager lead head director designer developer ceo cto cfo coo cio ciso vp
    svp evp president founder cofounder co-founder intern analyst consultant architect
    administrator recruiter scientist researcher editor accountant assistant coordinator
    specialist officer chair chairman chairwoman secretary treasurer contractor nurse doctor
    physician teacher professor student counsel attorney lawyer advisor mentor pm sre
    programmer owner""".split()
)
"""Job titles: a capitalized name before a dash and one of these is a person; alone, with
the ranks and joining words of ``role``, they are no person ("Senior Vice President of")."""
_RANKS = frozenset("senior junior vice chief deputy executive associate principal staff".split())
_ROLE_JOINS = frozenset("of the and for".split())


def role(span: str) -> bool:
    """Whether a span is a job title alone ("Senior Vice President of", "Associate").

    Its words are job titles, ranks ("senior", "vice", "deputy") and the words that join
    them, one title or rank at least: no person, though "Vice" is also a surname.
    """
    words = [w.casefold() for w in re.findall(r"[^\W\d_]+", span)]
    titled = [w for w in words if w in ROLE_WORDS or w in _RANKS]
    return bool(titled) and len(titled) + sum(w in _ROLE_JOINS for w in words) == len(words)


TEAM_WORDS = frozenset(
    "support billing sales notifications notification noreply no-reply info help helpdesk"
    " admin news newsletter alerts alert bot team via updates service desk".split()
)
"""Words that name a team or a service ("Acme Support", "Billing Team"), no person or place."""
_COMPANY = r"(?!(?i:" + "|".join(sorted(COMPANY_WORDS, key=len, reverse=True)) + r")\b)"
# After a capitalized role word only a full name: "Patient Elena Okafor", where "Customer
# Success" and "Client Care" are the names of teams.
_CAP_FULL = rf"(?P<v>{_UPPER_FIRST}{_NAME}[ \t]+{_COMPANY}{_UPPER_FIRST}{_NAME})"
_SAYS = (
    r"(?:asked|said|says|told|tells|mentioned|wrote|replied|agreed|suggested|promised"
    r"|just[ \t]+(?:sent|said|asked|told|wrote|pinged|messaged|texted|called|replied))\b"
)
_LATIN_CAP = r"[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+"
_OFFICES = (
    "Mrs Mr Ms Mx Miss Prof Dr Professor President Senator Sen Governor Gov Mayor Judge "
    "Justice Chancellor Minister Secretary Rep Representative Congressman Congresswoman "
    "General Gen Colonel Col Captain Capt Lieutenant Lt Sergeant Sgt Admiral Commander "
    "Detective Det Inspector Officer Coach Pastor Reverend Rev Father Rabbi Imam Sheikh "
    "King Queen Prince Princess Emperor Empress Duke Duchess Lord Lady Sir Dame Madam "
    "Madame Pope Brother Sister Uncle Aunt"
).split()
OFFICE_TITLE = rf"\b(?:{'|'.join(_OFFICES)})\.?[ \t]+"
"""A courtesy title, an office or a rank before a name ("President Trump", "Capt. Kirk")."""
OFFICE_WORDS = frozenset(w.casefold() for w in _OFFICES) | {"brigadier", "major", "marshal", "vice"}
"""The words of ``OFFICE_TITLE``, and of ranks that come before one ("Major General")."""
AFTER_OFFICE = re.compile(
    rf"(?<![\w.]){OFFICE_TITLE}(?P<v>{_LATIN_CAP}(?:[ \t]+{_LATIN_CAP}){{0,2}})"
    r"(?![\w'’\-]|[ \t]+[A-Z])"
)
"""One to three capitalized words after a title, the capitalized run ending with them."""
# "@Jane Doe" (a name typed after "@") or a whole handle ("@jane_doe42", "@JaneDoe"): the
# word after a handle that is not a plain capitalized name is the sentence going on.
_HANDLE = (
    rf"(?P<v>{_NOT_COMMON}(?:{_LATIN_CAP}[ \t]+{_NOT_COMMON}{_LATIN_CAP}(?![\w'’\-])"
    rf"|_*[^\W\d_]\w*))"
)
_LATIN = r"[A-Za-zÀ-ÖØ-öø-ÿ]"
_ACCENTED = rf"(?={_LATIN}*[À-ÖØ-öø-ÿ]|{_LATIN}+[ \t]+{_LATIN}*[À-ÖØ-öø-ÿ])"

# Around a single name (``people.PeopleFinder`` decides whether the word is one).
_CAP_NAME = rf"{_LATIN_CAP}(?:-{_LATIN_CAP})?"
_ACTS = (
    r"(?:said|says|told|tells|asked|asks|wrote|writes|replied|replies|mentioned|suggested"
    r"|agreed|promised|testified|explained|added|noted|claimed|confirmed|announced|insisted"
    r"|tweeted|texted|emailed|messaged|called|pinged|thinks|thought|wants|wanted|needs|loves"
    r"|hates|moves|moved|joined|left|arrived|sent|sends|and[ \t]+I|(?:will|can|should|could)"
    r"[ \t]+(?:send|review|present|join|take|handle|check|call|email|help|cover|lead)"
    r"|(?:is|was)[ \t]+(?:out|off|away|sick|late|back|on[ \t]+(?:leave|holiday|vacation|call)))"
)
"""What a person does: a single word before one of these is a name ("Okonkwo will present")."""
BEFORE_ACT = re.compile(rf"(?<![\w@#/.\-'’])(?P<v>{_CAP_NAME}|[a-zß-öø-ÿ]{{2,}})[ \t]+{_ACTS}\b")
AFTER_WORD = re.compile(
    rf"(?i:\b(?:(?P<said>thank|thanks|ask|tell|cc|ping|call|email|text|message|told|contact|remind"
    rf"|notify|inform|asked|invite|talked[ \t]+to|spoke[ \t]+(?:to|with))|with|and|to|from|for|met"
    rf"|meet|me[ \t]+and|hang(?:ing)?[ \t]+out[ \t]+with))[ \t]+"
    rf"(?P<v>{_CAP_NAME}|[a-zß-öø-ÿ]{{2,}})"
    rf"(?=[ \t]*(?:{_PHRASE_END})|[ \t]+(?:yesterday|today|tomorrow|tonight|about|on|at|and|or"
    rf"|who|when|if|for|later|again)\b)",
    re.MULTILINE,
)
"""A word a person is met, thanked or asked by, then the end of the phrase ("to Hope today");
group ``said`` holds the verbs one says to a person, not to a place ("contact", not "to")."""


_SPACE = re.compile(r"\s")
_BLANK = re.compile(r"[ \t]")


# "Mr. Mayers", "Mrs Okafor", "Dr. Jane Lee": a courtesy title names whoever follows, and the
# title goes with the name (the model often takes the title alone for the person). "Dr" after
# a capitalized word is a street ("Oak Dr. Springfield"), so it counts only after a lower-case
# word, punctuation or at the start of a line.
_HONORIFIC = r"(?:\b(?:Mrs|Mr|Ms|Mx|Miss|Prof)|(?:^|(?<=[a-z,;:(] )|(?<=[\n\t\"'])|(?<=[.!?] ))Dr)"
_HONORED = (
    rf"(?P<v>{_HONORIFIC}\.?[ \t]+{_NOT_COMMON}{_LATIN_CAP}(?:[ \t]+{_NOT_COMMON}{_LATIN_CAP})?)"
)

STRONG_CONTEXT = re.compile(rf"{_STRONG}\s+{_TWO}")
"""A name after "my name is", "call me": in any case, but a lower-case value must be a
plausible name ("call me crazy", "call me maybe" are none)."""
FOR_NAME = re.compile(rf"\bfor[ \t]+(?P<v>{_LATIN_CAP}[ \t]+{_COMPANY}{_LATIN_CAP}){_FOR_END}")
"""Two capitalized words after "for" at a phrase's end ("refund it for June Park,"): a
plausible name only ("editor for Global Voices" is not)."""
WEAK_CONTEXT = re.compile(rf"{_GREETING}[ \t]+{_TWO}")
"""A name after a greeting ("thanks Priya", "hi tom"): in lower case only a name of the lexicon
that is no English word ("hello dear", "thanks man", "cheers mate" are none)."""
SELF_CONTEXT = re.compile(
    rf"(?:{_SELF}|(?i:\bim))[ \t]+(?P<v>[a-zß-öø-ÿ]{{2,}})"
    rf"(?=[ \t]*(?:{_PHRASE_END})|[ \t]+(?:and|from|here|again|btw|with)\b)"
)
"""One word in lower case after a self-introduction, then the phrase's end ("hey it's priya,",
"i'm anika and ...", "im priya btw"): only a first name common enough to be one in lower case
that is no English word ("i'm wrong!", "it's fun." are none); a capitalized one is
``NAME_PATTERNS``'s ``_SELF`` rule's."""
ASKING_CONTEXT = re.compile(rf"{_ASKING}[ \t]+{_TWO}")
"""A name after a word of asking or meeting ("email tom", "met bob from accounting"): in lower
case a name of the lexicon, or a first name common enough to be one in lower case though
English has the word ("ask mark", "cc sue"; "e-mail address" is none)."""

PARTICLES = "van von der den de del della di da do dos das du la le bin al el ter ten".split()
"""Lower-case words inside a name ("Ana de la Cruz", "Ludwig van Beethoven", "Omar al Bashir")."""

ACCENTED_NAME = re.compile(rf"\b{_ACCENTED}{_LATIN_CAP}(?:[ \t]+{_LATIN_CAP}){{1,2}}\b")
"""Two or three capitalised words, one with an accented letter: a foreign name in English
("José García"), but ordinary words in a language that writes accents ("Première Guerre",
"Moyen Âge"), where it does not run."""

NAME_PATTERNS: tuple[tuple[re.Pattern[str], float, re.Pattern[str]], ...] = (
    (re.compile(rf"{_HONORED}(?![\w'’\-])", re.MULTILINE), 0.7, _BLANK),
    (STRONG_CONTEXT, 0.9, _SPACE),
    (WEAK_CONTEXT, 0.6, _BLANK),
    (ASKING_CONTEXT, 0.6, _BLANK),
    (SELF_CONTEXT, 0.6, _BLANK),
    (re.compile(rf"(?<![\w.@])@{_HANDLE}"), 0.6, re.compile("@")),
    (re.compile(rf"{_SELF}[ \t]+{_CAP_TWO}"), 0.6, _BLANK),
    (re.compile(rf"{_LABEL}[ \t]*{_TWO}"), 0.6, re.compile(":")),
    (re.compile(rf"(?<![\w-])(?=[a-z]){_ROLE}[ \t]+{_CAP_TWO}"), 0.6, _BLANK),
    (re.compile(rf"(?<![\w-])(?=[A-Z]){_ROLE}[ \t]+{_CAP_FULL}"), 0.6, _BLANK),
    (FOR_NAME, 0.6, _BLANK),
    (re.compile(rf"\bwith[ \t]+{_CAP_TWO}[ \t]+from\b"), 0.6, _BLANK),
    (
        re.compile(rf"\((?P<v>{_LATIN_CAP}(?:[ \t]+{_LATIN_CAP})?)\),?['’]s\b"),
        0.6,
        re.compile(r"\("),
    ),
    (
        re.compile(
            # the capital first: the common words' check then runs at capitals only
            rf"(?<![\w.])(?=[A-ZÀ-ÖØ-Þ])(?P<v>{_NOT_COMMON}{_LATIN_CAP}(?:[ \t]+{_LATIN_CAP})?)"
            rf"[ \t]+{_SAYS}"
        ),
        0.6,
        _BLANK,
    ),
    (ACCENTED_NAME, 0.6, re.compile("[À-ÖØ-öø-ÿ]")),
    (
        re.compile(r"\b[А-ЯЁΑ-Ω][а-яёα-ω]+(?:[ \t]+[А-ЯЁΑ-Ω][а-яёα-ω]+){1,2}\b"),
        0.6,
        re.compile("[А-ЯЁΑ-Ω]"),
    ),
    # Arabic and Hebrew script have no capitals: two or three words of it in English chat.
    (
        re.compile(
            r"(?<![\w\u0590-\u06ff])[\u0600-\u06ff]{2,}(?:[ \t]+[\u0600-\u06ff]{2,}){1,2}"
            r"(?![\w\u0590-\u06ff])"
        ),
        0.6,
        re.compile(r"[\u0600-\u06ff]"),
    ),
    (
        re.compile(
            r"(?<![\w\u0590-\u05ff])[\u05d0-\u05ea]{2,}(?:[ \t]+[\u05d0-\u05ea]{2,}){1,2}"
            r"(?![\w\u0590-\u05ff])"
        ),
        0.6,
        re.compile(r"[\u05d0-\u05ea]"),
    ),
    (
        re.compile(r"(?<![\u4e00-\u9fff])[\u4e00-\u9fff]{2,4}(?![\u4e00-\u9fff])"),
        0.55,
        re.compile(r"[\u4e00-\u9fff]"),
    ),
    (
        re.compile(r"(?<![\uac00-\ud7a3])[\uac00-\ud7a3]{2,4}(?![\uac00-\ud7a3])"),
        0.55,
        re.compile(r"[\uac00-\ud7a3]"),
    ),
)
"""PERSON patterns: regex, score, and what every match contains (``recognizers.Rule.needs``);
the name is group ``v`` where the pattern has context."""
