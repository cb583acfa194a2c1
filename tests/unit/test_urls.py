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
