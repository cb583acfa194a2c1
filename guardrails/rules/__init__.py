"""Recognizers and their rules: what counts as personal data, and when a finding stays.

``recognizers`` builds the pattern recognizers registered beside Presidio's; the rest are
finders and checks by kind (phones, cards, IBANs, IPs, URLs, addresses, licences, birth
dates, people and places, structure as context) with their data in ``guardrails/data/``.
``precision`` and ``casing`` decide which of the NER's findings stay. Imports
``guardrails.text``, ``engine`` and ``policy``; never the vault or detection.
"""
