"""Synthetic value pools for the guardrail corpus: every value here is made up or reserved.

Cards are the networks' published test numbers (valid Luhn), IBANs the registries' published
examples (valid check digits), e-mails use reserved example domains, US phones the 555-01xx
fiction range, UK phones Ofcom's drama range, IPs the documentation ranges, crypto addresses
the protocols' own documentation examples.
"""

from __future__ import annotations

from typing import Any

FIRST = [
    "Maria", "John", "Priya", "David", "Aisha", "Tom", "Elena", "Marcus", "Sofia", "Kevin",
    "Naomi", "Luis", "Hannah", "Omar", "Chloe", "Daniel", "Fatima", "Ethan", "Ingrid", "Raj",
]  # fmt: skip
LAST = [
    "Gonzalez", "Smith", "Natarajan", "Okafor", "Kowalski", "Nguyen", "Fischer", "Haddad",
    "Johansson", "Brennan", "Delgado", "Whitfield", "Abernathy", "Castellano", "Lindqvist",
]  # fmt: skip
WORD_NAMES = [
    ("Will", "Turner"), ("Grace", "Palmer"), ("Hope", "Lindgren"), ("Mark", "Chen"),
    ("Frank", "Ortiz"), ("Joy", "Adeyemi"), ("Rose", "Mendes"), ("Bill", "Foster"),
    ("Dawn", "Reyes"), ("June", "Park"), ("Summer", "Hayes"), ("Drew", "Carter"),
]  # fmt: skip
NON_LATIN = [
    "王伟", "李娜", "Иван Петров", "Ольга Смирнова", "محمد العلي", "佐藤健", "김민준",
    "Γιώργος Παπαδόπουλος", "José Álvarez", "Zoë Müller", "Łukasz Wójcik", "Søren Østergaard",
]  # fmt: skip
CITIES = [
    "Denver", "Berlin", "Austin", "Lisbon", "Toronto", "Nairobi", "Melbourne", "Chicago",
    "Madrid", "Seattle", "Osaka", "Dublin",
]  # fmt: skip
STREETS = ["742 Evergreen Terrace", "1600 Elm Street", "221 Baker Street", "88 Harbour Road"]
DOMAINS = ["example.com", "example.org", "example.net", "mail.example.com", "corp.example"]
CARDS = [
    "4111111111111111", "5500000000000004", "4012888888881881", "5555555555554444",
    "4242424242424242", "6011000000000004", "378282246310005", "371449635398431",
]  # fmt: skip
IBANS = [
    "DE89370400440532013000", "GB82WEST12345698765432", "FR1420041010050500013M02606",
    "NL91ABNA0417164300", "ES9121000418450200051332", "CH9300762011623852957",
    "BE68539007547034", "IT60X0542811101000000123456", "AT611904300234573201",
]  # fmt: skip
SSNS = ["536-22-8714", "412-67-3391", "301-48-2265", "287-19-6640", "645-30-1187", "158-72-9043"]
US_PHONES = [
    "212-555-0187", "415-555-0123", "312-555-0148", "206-555-0199", "512-555-0176",
    "617-555-0134",
]  # fmt: skip
UK_PHONES = ["+44 20 7946 0958", "+44 20 7946 0321", "020 7946 0744"]
IPS = [
    "192.0.2.44", "198.51.100.7", "203.0.113.25", "10.20.30.41", "192.168.10.24",
    "2001:db8::8a2e:370:7334",
]  # fmt: skip
BTC = [
    "1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa", "3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy",
    "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq", "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2",
]  # fmt: skip
ETH = [
    "0x742d35Cc6634C0532925a3b844Bc454e4438f44e", "0xde0B295669a9FD93d5F28D9Ec85E40f4cb697BAe",
    "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
]  # fmt: skip
LICENSES = ["D4829137", "F2210485", "S530-4607-8281", "W426-545-30-761", "K11929073"]
MONTHS = ["January", "March", "April", "June", "August", "October", "November", "December"]

PRODUCTS = [
    "Jira", "Kubernetes", "Postgres", "Figma", "Notion", "GitHub Actions", "Terraform",
    "iPhone 15", "Windows 11", "Grafana", "Datadog", "Salesforce", "Zendesk", "Redis",
]  # fmt: skip
COMPANIES = ["Acme Corp", "Globex", "Initech", "Stripe", "Atlassian", "Umbrella Labs", "Hooli"]
CODE = [
    "user_id", "getUserById", "max_retries", "config.yaml", "PAYMENT_TIMEOUT", "parse_iban()",
    "customer_email", "billing.charge()", "test_phone_format", "SmithParser",
]  # fmt: skip
VERSIONS = ["v4.2", "2.3.1", "Python 3.11", "Node 20", "v1.0.0-rc2", "build 5412", "API v3"]
DATES = [
    "Friday", "next week", "tomorrow at 10:30", "Q3", "2024-06-30", "March 3rd", "Monday morning",
    "end of the sprint", "9am", "last Tuesday",
]  # fmt: skip
TICKETS = ["OPS-1234", "PR #4821", "INC-2231", "HTTP 503", "error 500", "JIRA-77"]
WORD_USES = [
    "a grace period", "I hope so", "mark it as done", "frank feedback", "we will ship",
    "bill the client", "joy of refactoring", "sales rose", "summer release", "drew a diagram",
]  # fmt: skip

# Held-out pools: fresh values of every kind, for the held-out corpus (``make_corpus
# --holdout``). Detection is tuned on the pools above; its figures on these are the honest ones.
HOLDOUT: dict[str, list[Any]] = {
    "FIRST": [
        "Amara", "Benjamin", "Carmen", "Dmitri", "Esther", "Felix", "Gabriela", "Hiroshi",
        "Isabel", "Jamal", "Katarina", "Leon", "Mei", "Nikolai", "Olivia", "Pedro", "Rosa",
        "Samuel", "Tariq", "Valentina",
    ],
    "LAST": [
        "Achebe", "Bergstrom", "Carvalho", "Dubois", "Eriksen", "Ferreira", "Gallagher",
        "Hoffmann", "Ivanova", "Jablonski", "Kimura", "Lombardi", "Mbeki", "Novak", "Ostrowski",
    ],
    "WORD_NAMES": [
        ("Faith", "Morgan"), ("Pat", "Riley"), ("Sunny", "Kapoor"), ("Rich", "Dalton"),
        ("Lily", "Brooks"), ("Amber", "Quinn"), ("Sky", "Walsh"), ("Chase", "Bennett"),
    ],
    "NON_LATIN": [
        "张丽", "陈明", "Дмитрий Соколов", "Анна Кузнецова", "فاطمة الزهراء", "田中花子", "이서연",
        "Νίκος Αλεξίου", "Inés Muñoz", "Björn Åkesson", "Zdeněk Dvořák", "François Lefèvre",
    ],
    "CITIES": [
        "Boston", "Hamburg", "Porto", "Vancouver", "Lagos", "Auckland", "Houston", "Vienna",
        "Kyoto", "Edinburgh", "Portland", "Marseille",
    ],
    "STREETS": [
        "221B Baker Street", "1600 Pennsylvania Ave NW", "Hauptstraße 5, 10115 Berlin",
        "350 Fifth Avenue", "10 Downing Street", "4 Privet Drive", "31 Spooner Street",
    ],
    "DOMAINS": ["example.com", "example.net", "test.example", "staff.example.org", "acme.test"],
    "CARDS": [
        "4000056655665556", "5200828282828210", "2223003122003222", "4000002500003155",
        "6011111111111117", "3530111333300000", "4917610000000000", "5105105105105100",
    ],
    "IBANS": [
        "NO9386011117947", "DK5000400440116243", "PL61109010140000071219812874",
        "SE4550000000058398257466", "FI2112345600000785", "IE29AIBK93115212345678",
        "PT50000201231234567890154", "LU280019400644750000",
    ],
    "SSNS": ["529-14-6620", "457-55-5462", "323-45-6781", "512-73-4109", "671-18-2234"],
    "US_PHONES": [
        "303-555-0142", "718-555-0165", "404-555-0118", "702-555-0190", "213-555-0173",
        "919-555-0107",
    ],
    "UK_PHONES": ["+44 161 496 0123", "+44 113 496 0789", "0161 496 0456"],
    "IPS": [
        "192.0.2.200", "198.51.100.99", "203.0.113.180", "172.16.5.9", "10.1.2.3",
        "2001:db8:85a3::8a2e:370:7334",
    ],
    "BTC": [
        "1HLoD9E4SDFFPDiYfNYnkBLQ85Y51J3Zb1", "3Ai1JZ8pdJb2ksieUV8FsxSNVJCpoPi8W6",
        "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4",
    ],
    "ETH": [
        "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed", "0xde709f2102306220921060314715629080e2fb77",
        "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
    ],
    "LICENSES": ["B7204518", "T5521-88310", "M120-443-77-901", "Q99318204"],
    "PRODUCTS": [
        "Jenkins", "Ansible", "MongoDB", "Miro", "Loom", "CircleCI", "Elasticsearch",
        "Pixel 8", "macOS Sonoma", "Prometheus", "New Relic", "HubSpot", "Intercom", "Nginx",
    ],
    "COMPANIES": ["Wayne Enterprises", "Soylent", "Vandelay Industries", "Cyberdyne", "Monzo"],
}  # fmt: skip
