"""Hand-written regression messages appended to the dev corpus, one or more per detection rule.

The seeded templates cannot hold every rule's case without reshuffling the whole corpus, so a
rule added later brings its cases here: each message labels the values it must hide and the
look-alikes it must leave alone, and ``make_corpus`` appends them to ``corpus.jsonl`` (ids
``r0000``...) where the evaluation's regression set and the rule-gate test read them.
"""

from __future__ import annotations

from tests.data.fillers import Keep, Part, Pii

REGRESSIONS: tuple[tuple[str, tuple[Part, ...]], ...] = (
    (
        "slack",
        ("ping me on skype (", Pii("USERNAME", "lena.novak88", ("skype",)), ") after the ",
         Keep("product", "Skype for Business"), " call"),
    ),
    (
        "discord",
        ("Skype: ", Pii("USERNAME", "ohaddad_work", ("skype",)), "\nthe installer is on ",
         Keep("product", "skype.com")),
    ),
    (
        "slack",
        ("my NI number is ", Pii("UK_NINO", "JG 10 37 59 A", ("uk_nino",)), ", order ",
         Keep("ticket", "AB123456"), " is separate; the PAYE temp one was ",
         Pii("UK_NINO", "31M 40926", ("uk_nino",))),
    ),
    (
        "discord",
        ("DVLA says ", Pii("DRIVER_LICENSE", "MORGA 753116 SM9IJ 01", ("uk_licence",)),
         " for ", Pii("PERSON", "Mark Morgan"), ", build ", Keep("ticket", "MORGA 771316 SM9IJ")),
    ),
    (
        "slack",
        ("the new office is in ", Pii("LOCATION", "Mesa, AZ", ("town_state",)), ", ask ",
         Pii("PERSON", "Dana Whitfield"), ", OK?"),
    ),
    (
        "discord",
        ("back home in ", Pii("LOCATION", "California", ("region_name",)), ", says ",
         Pii("PERSON", "Georgia Ruiz"), " on the ", Keep("company", "Kmart Australia"), " ticket"),
    ),
    (
        "slack",
        ("new number is ", Pii("PHONE_NUMBER", "9876543210", ("phone_bare",)), ", order ",
         Keep("ticket", "8765432109"), " shipped, created ", Keep("ticket", "1716224000")),
    ),
    (
        "discord",
        ("sku,phone,qty\nA7,", Pii("PHONE_NUMBER", "415-555-0143", ("phone_format",)), ",",
         Keep("number", "42"), "\nB2,", Pii("PHONE_NUMBER", "07700 900456", ("phone_format",)),
         ",", Keep("number", "12")),
    ),
    (
        "slack",
        ("call ", Pii("PHONE_NUMBER", "020 7946 0811", ("phone_split",)), "\n",
         Keep("number", "42"), " boxes left, ticket ", Keep("ticket", "2125550187")),
    ),
    (
        "discord",
        ("mi móvil es ", Pii("PHONE_NUMBER", "612 34 56", ("phone_context",)), ", build ",
         Keep("ticket", "6789 1234")),
    ),
    (
        "slack",
        ("my visa ", Pii("CREDIT_CARD", "4111 1111 1111 1112", ("card_mistyped",)),
         " was declined in ", Keep("date", "2024")),
    ),
    (
        "slack",
        ("Ring ", Pii("PERSON", "Maria Gonzalez"), " at the office, then ",
         Keep("word_name", "ring"), " me. ", Keep("word_name", "Ring"), " the desk if ",
         Pii("PERSON", "Maria"), " is out"),
    ),
    (
        "discord",
        ("ask ", Pii("PERSON", "Grace Park"), " for the ", Keep("word_name", "park"),
         " permit. ", Keep("word_name", "Park"), " the van by the gate"),
    ),
    (
        "discord",
        ("send it to ", Pii("EMAIL_ADDRESS", "}ds@hr.example.museum"), " or ",
         Pii("EMAIL_ADDRESS", "p=@acme.example"), ", not ", Keep("code", "user@{domain}")),
    ),
)  # fmt: skip
"""``(platform, parts)`` per message: text, ``Pii`` values and ``Keep`` look-alikes."""
