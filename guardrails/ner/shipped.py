"""Where veilbot's entity model ships: the one part of ``guardrails.ner`` read at run time."""

from pathlib import Path

MODEL_NAME = "veilbot_ner"
MODEL_DIR = Path(__file__).with_name("model")
"""The shipped spaCy pipeline (the small English model with veilbot's NER in it)."""
