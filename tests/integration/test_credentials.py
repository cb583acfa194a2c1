"""Passwords, login names, API keys and tokens, through the real detection on the small model.

Every token here is made up for the test, in its provider's published shape.
"""

import pytest

from guardrails.detect.detection import detect


def found(analyzer, text):
    return [(d.type, text[d.start : d.end]) for d in detect(analyzer, text, "console")]


def kinds(analyzer, text, *types):
    return [value for t, value in found(analyzer, text) if t in types]


@pytest.mark.parametrize(
    ("text", "token"),
    [
        (
            "my token ghp_0aZ9bY8cX7dW6eV5fU4gT3hS2iR1jQ0kP9lO",
            "ghp_0aZ9bY8cX7dW6eV5fU4gT3hS2iR1jQ0kP9lO",
        ),
        ("SLACK_BOT_TOKEN is xoxb-2048-4096-Qw3rTy7uIo", "xoxb-2048-4096-Qw3rTy7uIo"),
        ("use AKIAZ7Q3XK5M2PLR8NVW for the bucket", "AKIAZ7Q3XK5M2PLR8NVW"),
        ("key: sk-ant-api03-Hq2Lx9Wm4Rt7Yp1Ks8Df", "sk-ant-api03-Hq2Lx9Wm4Rt7Yp1Ks8Df"),
        (
            "maps key AIzaSyB1x2C3v4B5n6M7a8S9d0F1g2H3j4K5l6Z",
            "AIzaSyB1x2C3v4B5n6M7a8S9d0F1g2H3j4K5l6Z",
        ),
        (
            "the session cookie is eyJhbGciOiJIUzI1NiJ9.eyJ1c2VyIjoiamRvZSJ9.c2lnbmF0dXJlMTIz",
            "eyJhbGciOiJIUzI1NiJ9.eyJ1c2VyIjoiamRvZSJ9.c2lnbmF0dXJlMTIz",
        ),
    ],
)
def test_a_token_in_its_provider_s_shape_is_a_secret(presidio_analyzer, text, token):
    assert kinds(presidio_analyzer, text, "SECRET") == [token]


def test_a_private_key_block_is_one_secret(presidio_analyzer):
    block = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQ2xhdWRlIQ==\n"
    block += "-----END OPENSSH PRIVATE KEY-----"
    text = f"why does ssh refuse this key?\n{block}\nthanks"
    assert kinds(presidio_analyzer, text, "SECRET") == [block]


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("DB_PASSWORD=Jordan1987\nDB_HOST=db.internal", "PASSWORD", "Jordan1987"),
        (
            '{"password": "correct horse battery", "retries": 3}',
            "PASSWORD",
            "correct horse battery",
        ),
        ("wifi password: sunflower", "PASSWORD", "sunflower"),
        ("client_secret = 'a8Fk2mQ9zX4wL7pR'", "SECRET", "a8Fk2mQ9zX4wL7pR"),
        (
            'curl -H "Authorization: Bearer 9f8e7d6c5b4a3210fedc" ...',
            "SECRET",
            "9f8e7d6c5b4a3210fedc",
        ),
        ("X-Api-Key: 7c1e4b9a2f6d8e3c", "SECRET", "7c1e4b9a2f6d8e3c"),
        ("connect to postgres://app:Pa55w0rd@db.internal:5432/app", "PASSWORD", "Pa55w0rd"),
        ("Username: jdoe42\nPassword: hunter2", "USERNAME", "jdoe42"),
        ('if (password == "Zebra-Crossing-7") {', "PASSWORD", "Zebra-Crossing-7"),
        ('if ("Zebra-Crossing-7" === db_password) {', "PASSWORD", "Zebra-Crossing-7"),
        ('password "Zebra-Crossing-7";', "PASSWORD", "Zebra-Crossing-7"),
        ('api_key_prod = "k3yV4lu3-9000"', "SECRET", "k3yV4lu3-9000"),
        ("stripe_secret: 'open sesame now'", "SECRET", "open sesame now"),
        # "to" or "as" before the quote: the value went in clear
        ("set SMTP_PASS to 'Gr33nTea!' in the .env", "PASSWORD", "Gr33nTea!"),
        ('export the api key as "sk-live-9f8e7d6c5b4a"', "SECRET", "sk-live-9f8e7d6c5b4a"),
    ],
)
def test_a_value_after_its_key_is_redacted(presidio_analyzer, text, kind, value):
    assert value in kinds(presidio_analyzer, text, kind)


@pytest.mark.parametrize(
    ("text", "password"),
    [
        ("postgres://admin:S3cr3t!@db.internal:5432/app", "S3cr3t!"),
        ("REDIS_URL=redis://:Xk9pQ2mL@redis.internal:6379", "Xk9pQ2mL"),  # no user: it leaked
    ],
)
def test_a_urls_password_is_hidden_and_its_host_stays(presidio_analyzer, text, password):
    # The host after "!@" went as a person's handle.
    assert found(presidio_analyzer, text) == [("PASSWORD", password)]


@pytest.mark.parametrize(
    ("text", "user", "password"),
    [
        ("login snoop pw biggreenhat", "snoop", "biggreenhat"),
        ("u: mkowalski\np: Lato2024!", "mkowalski", "Lato2024!"),
        ("user admin / password letmein99", "admin", "letmein99"),
    ],
)
def test_a_login_said_in_one_breath_is_an_account_and_its_password(
    presidio_analyzer, text, user, password
):
    hits = found(presidio_analyzer, text)
    assert ("USERNAME", user) in hits
    assert ("PASSWORD", password) in hits


@pytest.mark.parametrize(
    ("text", "password"),
    [
        ("my password is hunter2, can you check why login fails?", "hunter2"),
        ("the door pin is 4821", "4821"),
        ("the door code is 4471, come up", "4471"),
        ("gate code 2580#", "2580#"),
        ("my card is 4111 1111 1111 1111 exp 04/27 cvv 123", "123"),  # PCI: never kept
        ("card 5500-0000-0000-0004, security code 737", "737"),
        ("CVC: 0421", "0421"),
        ("security question: first pet's name = Biscuit", "Biscuit"),  # resets the account
        ("security answer: Springfield", "Springfield"),
        ("pw biggreenhat for the guest account", "biggreenhat"),
        # A code or the wifi's password with where it opens between: they reached the model.
        ("the alarm code for the office is 90210", "90210"),
        ("the gate code at Mum's is 1979", "1979"),
        ("the wifi at Priya's is hunter2sunshine", "hunter2sunshine"),
        ("wifi: BlueDog_8812", "BlueDog_8812"),
        ("the wifi password at home is Sunfl0wer22", "Sunfl0wer22"),
        ("the wifi key is 8812abcd", "8812abcd"),
        ("door code: 4471", "4471"),
        # given after it was named: half of the first went as a person, the rest in clear
        ("can you reset my password? it's Winter2024!", "Winter2024!"),
        ("I changed my password, now it's Blue-Falcon77", "Blue-Falcon77"),
        ("pin reset, it's 4471", "4471"),
    ],
)
def test_a_password_said_in_a_sentence_is_redacted(presidio_analyzer, text, password):
    assert kinds(presidio_analyzer, text, "PASSWORD") == [password]


def test_the_new_password_after_the_old_one_is_redacted_too(presidio_analyzer):
    text = "my old password was Summer2023 and the new one is Autumn#99"
    assert kinds(presidio_analyzer, text, "PASSWORD") == ["Summer2023", "Autumn#99"]


@pytest.mark.parametrize(
    ("text", "kind", "phrase"),
    [
        (
            "my ssh key passphrase: correct horse battery staple",
            "PASSWORD",
            "correct horse battery staple",
        ),
        (
            "my seed phrase is abandon ability able about above absent absorb abstract absurd "
            "abuse access accident, is that safe?",
            "SECRET",
            "abandon ability able about above absent absorb abstract absurd abuse access accident",
        ),
        (
            'recovery phrase: "legal winner thank year wave sausage worth useful"',
            "SECRET",
            "legal winner thank year wave sausage worth useful",
        ),
    ],
)
def test_a_passphrase_or_a_wallets_words_are_redacted_whole(presidio_analyzer, text, kind, phrase):
    # Words with no digit: they reached the model one by one in clear, and a wallet's words
    # are its key.
    assert kinds(presidio_analyzer, text, kind) == [phrase]


@pytest.mark.parametrize(
    "text",
    [
        "the passphrase is required for the key",
        "I forgot my recovery words, help",
        "the passphrase was wrong again",
    ],
)
def test_talk_about_passphrases_stays(presidio_analyzer, text):
    assert kinds(presidio_analyzer, text, "PASSWORD", "SECRET") == []


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "aws AKIAZ7Q3XK5M2PLR8NVW secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
        ),
        ("my api key is 8f9a7c6b5d4e3f2a1b0c9d8e", "8f9a7c6b5d4e3f2a1b0c9d8e"),
        ("token 3kLq9XzP0vB7mN2cR5tY8wQe for the bot", "3kLq9XzP0vB7mN2cR5tY8wQe"),
    ],
)
def test_a_key_after_its_word_without_a_colon_is_a_secret(presidio_analyzer, text, secret):
    # The AWS secret reached the model in clear beside its hidden key id.
    assert secret in kinds(presidio_analyzer, text, "SECRET")


@pytest.mark.parametrize(
    "text",
    [
        "the door code is broken again",
        "what is a cvv and where do I find it?",
        "security code 12345 is too long",
        "the security answer is wrong",
        "the secret ingredient is cinnamon",
        "the api key rotation happened yesterday",
        "token budget is 4096 per request",
        "the access code is on the fridge",
        "the wifi at the office is down again",
        "the wifi is 100Mbps here, 5GHz band",
        "wifi 6E router is better",
        "the wifi key is on the router",
        "my password expired and it's annoying",
        "password reset done, it's working now",
        "what's the wifi password? it's on the router",
    ],
)
def test_talk_about_codes_and_keys_stays(presidio_analyzer, text):
    assert kinds(presidio_analyzer, text, "PASSWORD", "SECRET") == []


@pytest.mark.parametrize(
    ("text", "user"),
    [
        ("my login is jsmith88, it keeps failing", ["jsmith88"]),
        ("my handle on discord is darkknight_77", ["darkknight_77"]),
        ("his gamertag: xXSniperXx99", ["xXSniperXx99"]),
        ("my login is broken again", []),
        ("my username is the same as before", []),
        ("my login is e.g. my email", []),
    ],
)
def test_an_account_name_said_in_a_sentence_is_redacted(presidio_analyzer, text, user):
    assert kinds(presidio_analyzer, text, "USERNAME") == user


@pytest.mark.parametrize(
    ("text", "user"),
    [
        ("user jsmith (John Smith) reset his MFA", ["jsmith"]),
        ("Maria Garcia's account mgarcia.2 is locked, and garciam too", ["mgarcia.2", "garciam"]),
        ("ask Priya Raman, her github is priya_raman93", ["priya_raman93"]),
        ("the jsmith branch is broken", []),  # no John Smith in the message
    ],
)
def test_an_account_name_made_of_a_persons_name_is_redacted(presidio_analyzer, text, user):
    """ "user jsmith (John Smith)": the name went as a placeholder and the login made of it
    in clear, which names the person as well."""
    assert kinds(presidio_analyzer, text, "USERNAME") == user


@pytest.mark.parametrize(
    "text",
    [
        "The password is wrong, please reset it",
        "Enter your user name and password to log in",
        "Password: please reset it before Friday",
        "password reset links expire after an hour",
        "token: 42 used of 1000",
        "max_tokens: 4096",
        "password: required",
        "API_KEY=${API_KEY}",
        'api_key = "<your-api-key>"',
        "secret: ********",
        "token = tokenizer.encode(text)",
        'password = input("Password: ")',
        "login(user=username, password=password)",
        "https://user:${DB_PASS}@db.internal/app",
        "User: thanks, that worked",
        "pin this message please",
        "PASS: 12 FAIL: 0",
        "Login: failed",
        "password: !vault |",
        "we moved from APACHEKAFKA to PULSAR",
        "password_policy: strict",
        "user_agent: Mozilla",
        "password_reset_url: https://example.com/reset",
        "api_key = real_key",
    ],
)
def test_talk_about_passwords_and_stand_ins_for_them_stay(presidio_analyzer, text):
    assert kinds(presidio_analyzer, text, "PASSWORD", "SECRET", "USERNAME") == []


@pytest.mark.parametrize(
    ("heading", "cell", "kind"),
    [
        ("Password", "hunter2", "PASSWORD"),
        ("API key", "9f8e7d6c5b4a3210", "SECRET"),
        ("Username", "jdoe42", "USERNAME"),
    ],
)
def test_a_table_cell_under_a_credential_heading_is_that_credential(
    presidio_analyzer, heading, cell, kind
):
    """A spreadsheet's or CSV's column header is the key of each of its cells."""
    found = detect(presidio_analyzer, cell, "console", context=heading)
    assert [(d.type, cell[d.start : d.end]) for d in found] == [(kind, cell)]


@pytest.mark.parametrize(
    ("text", "user"),
    [
        ("error at /home/jdoe/projects/app/main.py line 4", ["jdoe"]),
        (r"FileNotFoundError: C:\Users\maria.gonzalez\Documents\report.xlsx", ["maria.gonzalez"]),
        ("the file is at /Users/tom.becker/Desktop/salaries.csv", ["tom.becker"]),
        ("ssh pbrennan@10.0.4.12 -i key.pem", ["pbrennan"]),
        ("2024-05-01 12:00:01 INFO login ok user=pbrennan ip=203.0.113.7", ["pbrennan"]),
        ("git clone https://jdoe:s3cr3tpw@github.com/acme/app", ["jdoe"]),
        ("/home/runner/work/app/app/tests failed", []),  # a CI runner's
        (r"C:\Users\Public\Desktop", []),
        ("ssh root@10.0.4.12", []),
    ],
)
def test_an_account_in_a_path_a_command_or_a_log_line_is_a_user_name(presidio_analyzer, text, user):
    # A pasted stack trace or command gave the model the account, often the person's name.
    assert kinds(presidio_analyzer, text, "USERNAME") == user


def test_curls_login_is_an_account_and_its_password(presidio_analyzer):
    hits = found(presidio_analyzer, "curl -u jdoe:S3cretPass! https://api.acme.io/v1")
    assert ("USERNAME", "jdoe") in hits
    assert ("PASSWORD", "S3cretPass!") in hits
