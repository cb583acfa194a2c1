"""Personal parts of URLs (no NLP model)."""

from guardrails.rules.urls import personal_parts


def parts(text, is_name=None):
    return [text[a:b] for a, b in personal_parts(text, is_name)]


def test_account_pages_and_personal_subdomains():
    assert parts("book https://calendly.com/jane-doe/30min") == ["jane-doe"]
    assert parts("https://x.com/janedoe and https://github.com/jdoe/dotfiles") == [
        "janedoe",
        "jdoe",
    ]
    assert parts("read https://jane.substack.com/p/hello") == ["jane"]


def test_site_pages_are_not_accounts():
    assert parts("see https://x.com/explore and https://github.com/about") == []
    assert parts("docs at https://acme.com/docs/getting-started") == []


def test_a_full_name_in_any_path_when_the_lexicon_agrees():
    def is_name(words):
        return words == ["maria", "garcia"]

    assert parts("https://acme.com/team/maria-garcia", is_name) == ["maria-garcia"]
    assert parts("https://acme.com/team/release-notes", is_name) == []


def test_a_profile_link_typed_without_its_scheme_is_read_on_the_account_hosts():
    # "my github is github.com/priyaraman" sent the account in clear.
    assert parts("my github is github.com/priyaraman, blog jane-doe.github.io") == [
        "priyaraman",
        "jane-doe",
    ]
    assert parts("see www.instagram.com/jane.doe.art/ or x.com/janedoe88") == [
        "jane.doe.art",
        "janedoe88",
    ]


def test_dotted_words_and_other_hosts_without_a_scheme_are_no_links():
    def is_name(words):
        return True

    assert parts("check src/app/main.py, e.g. docs.python.org/3/library", is_name) == []
    assert parts("mail jane@github.com or acme.com/team/maria-garcia", is_name) == []
