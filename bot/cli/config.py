"""``veilbot config check [FILE]``: validate a config file and print the effective settings.

Each setting is printed as a TOML line with where its value came from (the environment, the
file or the default), so the output pasted into a file is a valid config file; secrets print
as ``"<hidden>"``, which veilbot refuses as a value, so a copy of the output never passes for
a working file with its secrets.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel, SecretStr

from bot.config.file import environment_fields, read_config_file
from bot.config.settings import Settings, load_settings

HIDDEN = "<hidden>"
_URL_PASSWORD = re.compile(r"(://[^/@:\s]*):[^/@\s]*@")
"""The password of a ``scheme://user:password@host`` URL (Redis, PostgreSQL, a proxy)."""


def check_config(file: str | None) -> int:
    """Validate ``file`` (else ``VEILBOT_CONFIG``) and print the effective settings."""
    path = Path(file) if file else None
    settings = load_settings(config_file=path)
    env = environment_fields(Settings)
    in_file = read_config_file(settings.config).values if settings.config else {}
    where = f"{settings.config}" if settings.config else "no config file"
    print(f"# {where}: valid; the effective settings (the environment wins over the file)")
    for name in Settings.model_fields:
        origin = "env" if name in env else "file" if name in in_file else "default"
        value = getattr(settings, name)
        line = f"# {name}: unset" if value is None else f"{name} = {toml_value(value)}"
        if name == "config" and value is not None:  # the file cannot name itself: a comment
            origin = (
                "the file checked, from VEILBOT_CONFIG" if origin == "env" else "the file checked"
            )
            line = f"# {line}"
        print(f"{line}  # {origin}")
    sys.stdout.flush()
    return 0


def toml_value(value: Any) -> str:
    """``value`` as a TOML value, secrets and the passwords in URLs hidden."""
    if isinstance(value, SecretStr):
        return json.dumps(HIDDEN)
    if isinstance(value, BaseModel):
        return toml_value(value.model_dump(mode="python"))
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple | set | frozenset):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):  # TOML has no null: an unset key is left out
        pairs = ", ".join(
            f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items() if v is not None
        )
        return "{ " + pairs + " }" if pairs else "{}"
    # A store URL may hold its password: the user name and host stay, the password does not.
    return json.dumps(_URL_PASSWORD.sub(rf"\1:{HIDDEN}@", str(value)), ensure_ascii=False)
