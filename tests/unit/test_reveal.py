"""The reveal policy: what readers see in DMs and shared channels (pure, no services)."""

import pytest

from bot.config.settings import load_settings
from bot.core.errors import ConfigError
from guardrails.restore.placeholders import PlaceholderRestorer
from guardrails.restore.reveal import RevealPolicy

VAULT = {
    "<CREDIT_CARD_1>": ("CREDIT_CARD", "4111 1111 1111 1111"),
    "<IBAN_CODE_1>": ("IBAN_CODE", "DE89 3704 0044 0532 0130 00"),
    "<US_SSN_1>": ("US_SSN", "536-22-8714"),
    "<CRYPTO_1>": ("CRYPTO", "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq"),
    "<PERSON_1>": ("PERSON", "Maria Gonzalez"),
    "<EMAIL_ADDRESS_1>": ("EMAIL_ADDRESS", "maria@example.com"),
    "<USER_1>": ("USER", "<@U024BE7LH>"),
    "<PASSWORD_1>": ("PASSWORD", "Tr0ub4dor&3"),
    "<SECRET_1>": ("SECRET", "ghp_0aZ9bY8cX7dW6eV5fU4gT3hS2iR1jQ0kP9lO"),
}
ANSWER = (
    "<PERSON_1> (<EMAIL_ADDRESS_1>, <USER_1>) pays with <CREDIT_CARD_1>, IBAN <IBAN_CODE_1>, "
    "SSN <US_SSN_1>, wallet <CRYPTO_1>. Log in with <PASSWORD_1> and the token <SECRET_1>."
)


def shown(policy: RevealPolicy, *, private: bool) -> str:
    values = {ph: policy.render(ph, t, v, private=private) for ph, (t, v) in VAULT.items()}
    return PlaceholderRestorer(values).restore(ANSWER).text


def test_by_default_a_shared_channel_sees_financial_values_and_credentials_masked():
    assert shown(RevealPolicy(), private=False) == (
        "Maria Gonzalez (maria@example.com, <@U024BE7LH>) pays with •••• 1111, "
        "IBAN DE•• •••• 3000, SSN •••-••-8714, wallet bc1qar…5mdq. "
        "Log in with •••••••• and the token ghp_••••."
    )


def test_by_default_a_direct_message_sees_every_value():
    assert shown(RevealPolicy(), private=True) == (
        "Maria Gonzalez (maria@example.com, <@U024BE7LH>) pays with 4111 1111 1111 1111, "
        "IBAN DE89 3704 0044 0532 0130 00, SSN 536-22-8714, "
        "wallet bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq. "
        "Log in with Tr0ub4dor&3 and the token ghp_0aZ9bY8cX7dW6eV5fU4gT3hS2iR1jQ0kP9lO."
    )


def test_overrides_per_type_and_place_but_mentions_always_come_back():
    policy = RevealPolicy(
        {
            "EMAIL_ADDRESS": "mask",
            "credit_card": {"shared": "placeholder"},
            "US_SSN": {"private": "mask"},
            "USER": "placeholder",
            "SECRET": {"shared": "placeholder"},
        }
    )
    assert shown(policy, private=False) == (
        "Maria Gonzalez (m•••@example.com, <@U024BE7LH>) pays with <CREDIT_CARD_1>, "
        "IBAN DE•• •••• 3000, SSN •••-••-8714, wallet bc1qar…5mdq. "
        "Log in with •••••••• and the token <SECRET_1>."
    )
    assert policy.action("US_SSN", private=True) == "mask"
    assert policy.action("CREDIT_CARD", private=True) == "restore"


@pytest.mark.parametrize("spec", ["show", {"channel": "mask"}, {"shared": "nope"}, 3])
def test_a_bad_policy_is_a_config_error_naming_the_setting(spec):
    with pytest.raises(ConfigError, match="VEILBOT_REVEAL_POLICY"):
        RevealPolicy({"PERSON": spec})


def test_the_policy_is_read_from_the_environment_as_json(monkeypatch):
    monkeypatch.setenv("VEILBOT_REVEAL_POLICY", '{"PHONE_NUMBER": {"shared": "mask"}}')
    settings = load_settings()
    policy = RevealPolicy(settings.reveal_policy)
    assert policy.render("<PHONE_NUMBER_1>", "PHONE_NUMBER", "+1 415 555 0123", private=False) == (
        "••• 0123"
    )
