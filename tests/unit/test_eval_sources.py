"""The pure parts of the outside-source evaluation: alignment, test-file reading, the split."""

import textwrap
from collections import Counter

import pytest

from tests.perf import eval_failures
from tests.perf.eval_detectors import Found
from tests.perf.eval_score import Score, score_case
from tests.perf.sources.align import LLM_GUARD, PRESIDIO, SCRUBADUB, align
from tests.perf.sources.cases import Case, Label, Origin, keep, merge_labels, split_of, veilbot_type
from tests.perf.sources.evaluator import unescape
from tests.perf.sources.presidio_tests import expected_spans
from tests.perf.sources.pyast import UNREADABLE, fixture_list, parametrize, returned_format
from tests.perf.sources.scrubadub import before_after


def spans_of(original, redacted, placeholder):
    found = align(original, redacted, placeholder)
    assert found is not None
    return [(kind, original[a:b]) for kind, a, b in found]


def test_alignment_finds_the_value_behind_each_placeholder():
    original = "Name is Ada Lovelace. Mail ada@example.org or call 555-0100."
    redacted = "Name is <PERSON>. Mail <EMAIL_ADDRESS> or call <PHONE_NUMBER>."
    assert spans_of(original, redacted, PRESIDIO) == [
        ("PERSON", "Ada Lovelace"),
        ("EMAIL_ADDRESS", "ada@example.org"),
        ("PHONE_NUMBER", "555-0100"),
    ]


def test_alignment_at_the_edges_and_with_numbered_placeholders():
    assert spans_of("Bob Stone wrote", "[REDACTED_PERSON_1] wrote", LLM_GUARD) == [
        ("PERSON", "Bob Stone")
    ]
    assert spans_of("mail bob@x.io", "mail {{EMAIL}}", SCRUBADUB) == [("EMAIL", "bob@x.io")]
    assert spans_of("card 4111-1111", "card [REDACTED_CREDIT_CARD_RE_2]", LLM_GUARD) == [
        ("CREDIT_CARD_RE", "4111-1111")
    ]


def test_adjacent_placeholders_are_one_value_typed_by_the_first():
    original = "Full Name: Ann Marie Lee."
    redacted = "Full Name: [REDACTED_PERSON_1][REDACTED_PERSON_2]."
    assert spans_of(original, redacted, LLM_GUARD) == [("PERSON", "Ann Marie Lee")]


def test_alignment_looks_past_a_value_that_contains_what_follows_it():
    # The first ". " after the placeholder is inside the value: the walk must try the next one.
    original = "Signed: Richard M. Nixon. Thanks."
    assert spans_of(original, "Signed: <PERSON>. Thanks.", PRESIDIO) == [
        ("PERSON", "Richard M. Nixon")
    ]


def test_texts_that_do_not_belong_together_do_not_align():
    assert align("Hello Ann", "Goodbye <PERSON>", PRESIDIO) is None
    assert align("Hello Ann", "Hello <PERSON>, bye", PRESIDIO) is None
    assert align("no values here", "no values here", PRESIDIO) == []


RECOGNIZER_TEST = textwrap.dedent(
    """
    import pytest

    @pytest.fixture(scope="module")
    def entities():
        return ["ZIP_THING"]

    PREFIX = "code "

    @pytest.mark.parametrize(
        "text, expected_len, expected_positions, expected_score_ranges",
        [
            ("code 12345 and 67890", 2, ((5, 10), (15, 20)), ((0.5, "max"), (0.0, 0.1))),
            ("nothing here", 0, (), ()),
            (f"plain f-string 12345", 1, ((15, 20),), ((0.5, 0.6),)),
            (build("12345"), 1, ((0, 5),), ((0.5, 0.6),)),
            pytest.param("zip 99999", 1, ((4, 9),), ((0.5, 0.6),)),
        ],
    )
    def test_zip(text, expected_len, expected_positions, expected_score_ranges):
        pass

    @pytest.mark.parametrize("settings,prompt", [({"preamble": PREFIX, "conf": CONF}, "hi")])
    def test_other(settings, prompt):
        pass
    """
)


def test_parametrize_entries_are_read_as_named_literals():
    params = list(parametrize(RECOGNIZER_TEST))
    assert [(p.function, p.index) for p in params][:5] == [("test_zip", i) for i in range(5)]
    first = params[0].values
    assert first["text"] == "code 12345 and 67890"
    assert first["expected_positions"] == ((5, 10), (15, 20))
    assert params[2].values["text"] == "plain f-string 12345"
    assert params[3].values["text"] is UNREADABLE  # built by a call at test time
    assert params[4].values["expected_len"] == 1
    settings = params[5].values["settings"]
    assert settings["preamble"] == "code "  # a module-level constant is resolved
    assert settings["conf"] is UNREADABLE
    assert fixture_list(RECOGNIZER_TEST, "entities") == ["ZIP_THING"]


def test_expected_spans_carry_type_and_weakness():
    params = list(parametrize(RECOGNIZER_TEST))
    fixture = fixture_list(RECOGNIZER_TEST, "entities")
    text, spans = expected_spans(params[0].values, fixture, "UNUSED")
    assert text == "code 12345 and 67890"
    assert spans == [("ZIP_THING", 5, 10, False), ("ZIP_THING", 15, 20, True)]
    assert expected_spans(params[1].values, fixture, "UNUSED") == ("nothing here", [])
    assert expected_spans(params[3].values, fixture, "UNUSED") is None
    per_entry = {"text": "call 555", "expected_len": 1, "entities": ["PHONE"], "score": 0.4}
    assert expected_spans(per_entry, None, "X") == ("call 555", [])  # no positions, two words
    bare = {"text": "555-0100", "expected_len": 1, "expected_score": 0.05}
    assert expected_spans(bare, None, "PHONE") == ("555-0100", [("PHONE", 0, 8, True)])


def test_docstring_pairs_and_format_templates():
    source = textwrap.dedent(
        '''
        def create_docstring(self, number):
            return """
            BEFORE: call %s
            AFTER:  call {{PHONE}}
            """ % number

        def test_mail(self):
            """
            BEFORE: mail me at a@b.co
            AFTER:  mail me at {{EMAIL}}
            """
        '''
    )
    template = returned_format(source, "create_docstring")
    assert before_after(template.replace("%s", "555 0100")) == ("call 555 0100", "call {{PHONE}}")


def test_split_is_fixed_by_the_id_and_about_half_each():
    assert split_of("source:case-1") == split_of("source:case-1")
    counts = Counter(split_of(f"source:case-{i}") for i in range(2000))
    assert set(counts) == {"dev", "test"}
    assert 900 < counts["dev"] < 1100


def test_source_types_map_to_veilbot_types():
    assert veilbot_type("STREET_ADDRESS") == "LOCATION"
    assert veilbot_type("US_DRIVER_LICENSE") == "DRIVER_LICENSE"
    assert veilbot_type("credit_card_re") == "CREDIT_CARD"
    assert veilbot_type("SKYPE") == "USERNAME"  # the policy's account names
    assert veilbot_type("TWITTER") == "TWITTER"  # a name veilbot has no type for is kept


def test_labels_merge_duplicates_and_values_inside_a_longer_one():
    labels = [
        Label("PERSON", 0, 8, "Ann Lee"),
        Label("PERSON", 0, 8, "Ann Lee", weak=True),
        Label("PERSON", 0, 3, "Ann"),
        Label("LOCATION", 0, 3, "Ann"),
    ]
    assert merge_labels(labels) == (
        Label("LOCATION", 0, 3, "Ann"),
        Label("PERSON", 0, 8, "Ann Lee"),
    )


def test_literal_line_breaks_become_real_and_spans_follow():
    text, spans = unescape("Ann Lee\\n\\nParis\\nFrance", [("PERSON", 0, 7), ("GPE", 11, 16)])
    assert text == "Ann Lee\n\nParis\nFrance"
    assert [text[a:b] for _, a, b in spans] == ["Ann Lee", "Paris"]


def make_case(case_id, text, labels, keeps=(), complete=None):
    return Case("unit", case_id, Origin("r", "c", "f", "t"), text, labels, keeps, complete=complete)


def dev_id():
    return next(f"unit:{i}" for i in range(100) if split_of(f"unit:{i}") == "dev")


def test_scoring_counts_caught_leaked_over_redacted_and_false_detections():
    text = "Ann Leeson at Acme, card 4111 1111 1111 1111, born Friday"

    def at(value):
        return text.index(value), text.index(value) + len(value)

    labels = (
        Label("PERSON", *at("Ann Leeson"), "Ann Leeson"),
        Label("CREDIT_CARD", *at("4111 1111 1111 1111"), "4111 1111 1111 1111"),
        Label("DATE_TIME", *at("Friday"), "Friday"),
    )
    case = make_case(dev_id(), text, labels, (keep("organization", text, *at("Acme")),))
    found = (Found("PERSON", 0, 3), Found("LOCATION", *at("Acme")), Found("URL", *at("Friday")))
    score = Score()
    score_case(case, "<P> Leeson at <L>, card 4111 1111 1111 1111, born <U>", found, score)
    assert (score.recall.hits["all"], score.recall.total["all"]) == (1, 2)  # DATE_TIME not scored
    assert score.partial.hits["type:PERSON"] == 1  # "Leeson" survived
    assert score.over.hits["all"] == 1
    assert (score.precision.hits["all"], score.precision.total["all"]) == (1, 2)  # URL not counted
    assert Counter(f.kind for f in score.failures) == {
        "partial": 1,
        "leak": 1,
        "over": 1,
        "false": 1,
    }


def test_failures_are_shown_for_dev_cases_and_never_for_test_cases():
    test_id = next(f"unit:{i}" for i in range(100) if split_of(f"unit:{i}") == "test")
    case = make_case(test_id, "Ann", (Label("PERSON", 0, 3, "Ann"),))
    score = Score()
    score_case(case, "Ann", (), score)
    assert score.recall.total["all"] == 1
    assert score.failures == []  # figures only
    dev = make_case(dev_id(), "hi Ann", (Label("PERSON", 3, 6, "Ann"),))
    score_case(dev, "hi Ann", (), score)
    assert "hi ⟦Ann⟧" in "\n".join(eval_failures.render("veilbot", score.failures, 5))
    leaked = score.failures[0]
    with pytest.raises(ValueError, match="never shown"):
        eval_failures.render("veilbot", [leaked.__class__(case, "leak", "PERSON", 0, 3, "")], 5)


PIIGHOST_PATTERNS = """
TRUE_POSITIVES: list[tuple[str, str]] = [("EMAIL", "a@b.io"), ("IPV4", "10.0.0.1")]
TRUE_NEGATIVES: list[tuple[str, str]] = [("US_ZIP", "1234")]
RESILIENCE_WRAPPERS: list[str] = ["{v}.", "Reach me at {v}."]
RESILIENCE_VALUES: list[tuple[str, str]] = [("FR_PHONE", "+33612345678")]
"""
PIIGHOST_REGEX = """
class TestSpaces:
    async def test_digits(self) -> None:
        detector = RegexDetector({"DIGITS": r"\\d+"})
        assert await detector.detect("id 4242") != []

    async def test_iban(self) -> None:
        detector = RegexDetector({"IBAN": IBAN})
        iban = "FR76 3000"
        (detection,) = await detector.detect(f"IBAN {iban}.")
        assert detection.text == iban
"""


def _committed(root, files):
    import subprocess

    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)  # noqa: S603
    subprocess.run([*git, "add", "-A"], check=True)  # noqa: S603
    subprocess.run([*git, "commit", "-qm", "x"], check=True)  # noqa: S603


def test_piighost_pattern_and_regex_tests_become_cases(tmp_path):
    from tests.perf.sources import piighost
    from tests.perf.sources.peers import Checkout

    folder = "tests/components/detector"
    _committed(
        tmp_path,
        {
            f"{folder}/test_patterns.py": PIIGHOST_PATTERNS,
            f"{folder}/test_regex.py": PIIGHOST_REGEX,
        },
    )
    cases = {c.text: c for c in piighost.load(Checkout("piighost", tmp_path))}
    labelled = {t: [(lb.type, lb.value) for lb in c.labels] for t, c in cases.items()}
    assert labelled == {
        "a@b.io": [("EMAIL_ADDRESS", "a@b.io")],
        "10.0.0.1": [("IP_ADDRESS", "10.0.0.1")],
        "1234": [],
        "+33612345678.": [("PHONE_NUMBER", "+33612345678")],
        "Reach me at +33612345678.": [("PHONE_NUMBER", "+33612345678")],
        "IBAN FR76 3000.": [("IBAN_CODE", "FR76 3000")],  # DIGITS is configuration, not data
    }
    assert [k.kind for k in cases["1234"].keeps] == ["negative:LOCATION"]
    assert cases["a@b.io"].origin.file == "tests/components/detector/test_patterns.py"


def test_secret_scanner_tests_become_secret_labels_and_negative_keeps(tmp_path):
    from tests.perf.sources import detect_secrets, llm_guard
    from tests.perf.sources.peers import Checkout

    secrets_test = textwrap.dedent(
        """
        import pytest
        @pytest.mark.parametrize(
            "prompt,expected_prompt,expected_valid,expected_score",
            [("plain words", "plain words", True, -1.0),
             ("token: abc123XYZ and more", "token: ****** and more", False, 1.0)],
        )
        def test_scan(prompt, expected_prompt, expected_valid, expected_score): ...
        """
    )
    plugin_test = textwrap.dedent(
        """
        import pytest
        @pytest.mark.parametrize(
            "payload, should_flag",
            [('api_key = "k3yV4lu3"', True), ("Ab12Cd34Ef56Gh78", True), ("nothing here", False)],
        )
        def test_analyze(payload, should_flag): ...
        """
    )
    keyword_test = textwrap.dedent(
        """
        SECRET = "s3cr3tValue"
        CONFIG_TEST_CASES = [
            ('password = "{}"'.format(SECRET), SECRET),
            (f"api_key: {SECRET}", SECRET),
            ("password = variable", None),
            (make_line(), None),
        ]
        """
    )
    _committed(
        tmp_path,
        {
            llm_guard.SECRETS_FILE: secrets_test,
            "tests/plugins/demo_test.py": plugin_test,
            "tests/plugins/ip_public_test.py": plugin_test.replace("demo", "ip"),
            detect_secrets.KEYWORD_FILE: keyword_test,
        },
    )
    peer = Checkout("x", tmp_path)
    guard = {c.text: c for c in llm_guard.load_secrets(peer)}
    assert [(lb.type, lb.value) for lb in guard["token: abc123XYZ and more"].labels] == [
        ("SECRET", "abc123XYZ")
    ]
    assert [k.kind for k in guard["plain words"].keeps] == ["negative"]
    plugins = {c.text: c for c in detect_secrets.load(peer)}
    keyword_lines = {'password = "s3cr3tValue"', "api_key: s3cr3tValue", "password = variable"}
    assert set(plugins) == {'api_key = "k3yV4lu3"', "Ab12Cd34Ef56Gh78", "nothing here"} | (
        keyword_lines  # the line built at test time is left out
    )
    assert [lb.value for lb in plugins['password = "s3cr3tValue"'].labels] == ["s3cr3tValue"]
    assert [lb.value for lb in plugins["api_key: s3cr3tValue"].labels] == ["s3cr3tValue"]
    assert [k.kind for k in plugins["password = variable"].keeps] == ["negative"]
    assert [lb.value for lb in plugins['api_key = "k3yV4lu3"'].labels] == ["k3yV4lu3"]
    assert [lb.value for lb in plugins["Ab12Cd34Ef56Gh78"].labels] == ["Ab12Cd34Ef56Gh78"]
    assert [k.kind for k in plugins["nothing here"].keeps] == ["negative"]


def test_a_value_spelled_like_its_placeholder_s_type_does_not_leak_through_it():
    from tests.perf.eval_metrics import leaks

    assert not leaks("password", "https://user:<PASSWORD_1>@example.com")
    assert not leaks("Person", "ask <PERSON> today")
    assert leaks("password", "https://user:password@example.com")


def test_generated_values_are_the_same_on_every_run_and_leave_out_the_unspecified_ip():
    from tests.perf.sources import generators

    first = [c.text for c in generators.load_hypothesis(count=20)]
    assert first == [c.text for c in generators.load_hypothesis(count=20)]
    faker = [c.text for c in generators.load_faker(per_locale=1)]
    assert faker == [c.text for c in generators.load_faker(per_locale=1)]
    assert len(faker) == len(generators.LOCALES) * len(generators.FAKER_METHODS)
    values = [c.labels[0].value for c in generators.load_hypothesis(count=20)]
    assert "::" not in values  # hypothesis draws it among its first IPv6 values
    assert all(v in t for v, t in zip(values, first, strict=True))


def test_written_forms_are_the_same_on_every_run_and_label_every_copy_of_the_value():
    from tests.perf.sources import generators

    cases = list(generators.load_forms(per_form=2))
    assert [c.text for c in cases] == [c.text for c in generators.load_forms(per_form=2)]
    assert len({c.id for c in cases}) == len(cases) == 2 * 20  # 8 e-mail and 12 IP forms
    for case in cases:
        assert case.labels
        assert all(case.text[lb.start : lb.end] == lb.value for lb in case.labels)
    slack = next(c for c in cases if ".slack-mailto[" in c.id)
    assert slack.platform == "slack"
    assert len(slack.labels) == 2
    at_word = next(c for c in cases if ".at-word[" in c.id).labels[0].value
    assert " at " in at_word
    assert "@" not in at_word


def conll_case(tokens, path="h.conll", split="dev"):
    from guardrails.ner.readers import Tagged
    from tests.perf.sources.conll import as_case

    item = Tagged([token for token, _ in tokens], [tag for _, tag in tokens], None, None)
    origin = Origin("GateNLP/broad_twitter_corpus", "c0ffee", path, "sentence 0")
    return as_case("btc", origin, 0, item, split)


def test_a_conll_tweet_becomes_text_with_its_people_places_and_organizations():
    from tests.perf.sources.conll import cases

    conll = textwrap.dedent(
        """\
        RT	O
        @	O
        jane_doe	O
        :	O
        Mark	B-person
        O'Brien	I-person
        is	O
        in	O
        New	B-geo-loc
        York	I-geo-loc
        with	O
        Apple	B-company
        (	O
        yay	O
        )	O
        !	O

        second	O
        """
    )
    path = "data/annotated/wnut16/data/dev"
    tweets = list(cases("wnut16", "aritter/twitter_nlp", "c0ffee", path, conll, lambda _: "dev"))
    assert len(tweets) == 2
    case = tweets[0]
    assert case.text == "RT @jane_doe: Mark O'Brien is in New York with Apple (yay)!"
    assert [(lb.type, lb.value) for lb in case.labels] == [
        ("HANDLE", "@jane_doe"),
        ("PERSON", "Mark O'Brien"),
        ("LOCATION", "New York"),
    ]
    assert [(k.kind, k.value) for k in case.keeps] == [("organization", "Apple")]
    assert case.complete == frozenset({"PERSON", "LOCATION"})
    assert (case.id, case.split, case.origin.test) == (f"wnut16:{path}:0", "dev", "sentence 0")


def test_a_handle_the_source_labels_keeps_its_label():
    tokens = [("thanks", "O"), ("@", "O"), ("BBCNews", "B-ORG"), ("@", "O"), ("ann", "B-PER")]
    case = conll_case(tokens, "f.conll", "test")
    assert case.text == "thanks @BBCNews @ann"
    assert [(lb.type, lb.value) for lb in case.labels] == [("PERSON", "ann")]
    assert [(k.kind, k.value) for k in case.keeps] == [("handle:organization", "BBCNews")]


def test_a_nationality_labelled_as_a_place_is_not_a_place():
    tokens = [("Australian", "B-LOC"), ("police", "O"), ("in", "O"), ("Pakistan", "B-LOC")]
    case = conll_case(tokens)
    assert [(lb.type, lb.value) for lb in case.labels] == [
        ("NRP", "Australian"),
        ("LOCATION", "Pakistan"),
    ]


def test_a_sign_tagged_apart_from_its_handle_is_one_label():
    case = conll_case([("@", "B-PER"), ("bencubby", "B-PER"), ("hi", "O")])
    assert [(lb.type, lb.value) for lb in case.labels] == [("PERSON", "@bencubby")]


def test_an_organization_handle_tagged_with_its_sign_is_a_handle_keep():
    case = conll_case([("via", "O"), ("@PolarisPrize", "B-ORG")])
    assert [(k.kind, k.value) for k in case.keeps] == [("handle:organization", "@PolarisPrize")]


def test_a_format_string_is_built_only_from_bare_fields():
    import ast

    from tests.perf.sources.pyast import NotLiteral, literal

    names = {"SECRET": "s3cr3t"}
    assert literal(ast.parse("'pw = {}'.format(SECRET)").body[0].value, names) == "pw = s3cr3t"
    for source in (
        "'{:>999999}'.format(SECRET)",
        "'{0.upper}'.format(SECRET)",
        "'{!r}'.format(SECRET)",
    ):
        with pytest.raises(NotLiteral):
            literal(ast.parse(source).body[0].value, names)
