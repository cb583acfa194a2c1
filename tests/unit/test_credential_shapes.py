"""Each provider's token shape finds its token, and the gate that skips texts without its
prefixes never skips one that holds it (pure; every token made up for the test)."""

import pytest

from guardrails.rules import credentials

TOKENS = [
    "AKIAZ7Q3XK5M2PLR8NVW",
    "ghp_0aZ9bY8cX7dW6eV5fU4gT3hS2iR1jQ0kP9lO",
    "github_pat_11ABCDEFG0123456789abcdefghij",
    "glpat-Ab3dEf6hIj9kLm2nOp5q",
    "GR1348941Ab3dEf6hIj9kLm2nOp5q",
    "xoxb-2048-4096-Qw3rTy7uIo",
    "xapp-1-A0123456789-abcdef",
    "sk-ant-api03-Hq2Lx9Wm4Rt7Yp1Ks8Df",
    "sk-proj-Xi8tdMjHV6pmbBbwilTeT4BlbkFJ3UDnpdEw",
    "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "rk_test_4eC39HqLyjWDarjtT1zdp7dc",
    "AIzaSyB1x2C3v4B5n6M7a8S9d0F1g2H3j4K5l6Z",
    "GOCSPX-Ab3dEf6hIj9kLm2nOp5qRs8t",
    "hf_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
    "npm_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3d",
    "pypi-AgEIcHlwaS5vcmcCJDAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMAACKl",
    "SG.Ab3dEf6hIj9kLm2nOp5q.Rs8tUv1wXy4zAb3dEf6hIj",
    "sq0csp-Ab3dEf6hIj9kLm2nOp5qRs8t",
    "AKCp8Ab3dEf6hIj9kLm2",
    "AP6xAb3dEf6hIj",
    "0123456789abcdef0123456789abcdef-us12",
    "110201543:AAHdqTcvCH1vGWJxfSe1ofSAs0K5PALDsaw",
    "eyJhbGciOiJIUzI1NiJ9.eyJ1c2VyIjoiamRvZSJ9.c2lnbmF0dXJlMTIz",
    "MZ1yGvKTjE0rY0cV8i47CjAa.uRHQPq.Xb1Mk2nEhe-4iUcrGOuegj57zMC",
]


@pytest.mark.parametrize("token", TOKENS)
def test_a_token_is_found_whole_in_a_sentence(token):
    text = f"here is the key: {token} -- please keep it"
    spans = list(credentials.find(credentials.SECRET, text))
    assert [text[a:b] for a, b, _ in spans] == [token]


@pytest.mark.parametrize("token", TOKENS)
def test_a_token_glued_to_a_longer_word_is_no_token(token):
    text = f"abcdefghij{token}abcdefghij"
    assert list(credentials.find(credentials.SECRET, f"id {text} ok")) == []


def test_every_shape_has_a_token_here_that_passes_its_gate():
    for marks, pattern in credentials.SHAPES:
        hits = [t for t in TOKENS if pattern.fullmatch(t)]
        assert hits, pattern.pattern
        assert all(any(mark in t for mark in marks) for t in hits), pattern.pattern
