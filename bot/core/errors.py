"""The one error tree of veilbot.

```
VeilbotError
├── ConfigError          a setting is missing, malformed or a placeholder secret
├── GuardrailError       the guardrail could not run: fail closed, nothing reaches the model
├── StoreError           history, vault, lock, dedupe or audit storage failed
│   ├── StoreUnavailable the store cannot be reached (connection refused, timeout)
│   └── AlreadyStored    the store holds a record of this id already (the first one is kept)
├── ModelError           the model call failed
│   ├── ModelUnavailable retryable: the model cannot answer now
│   │   ├── ModelUnreachable   connection refused or lost, DNS
│   │   ├── ModelRateLimited   429: this account's quota or rate limit
│   │   ├── ModelOverloaded    529/503: the provider is overloaded
│   │   └── ModelTimeout       no answer in time (client timeout, 408, 504)
│   ├── ModelRejected    400-class: the request or its content was refused
│   └── ModelMisconfigured  401/403/404: bad key, no permission, unknown model
├── AdapterError         a platform adapter cannot start or talk to its platform
└── InputRejected        the user's message is not processed (empty, too long, invalid id)
```

Messages carry ids, entity types and sizes, never user text. Third-party errors are
converted at the boundary with ``raise X(...) from exc``.
"""

from __future__ import annotations

from collections.abc import Sequence


class VeilbotError(Exception):
    """Base class of every error veilbot raises on purpose."""


class ConfigError(VeilbotError):
    """A setting is missing, malformed, or still a placeholder value.

    Attributes:
        problems: each problem on its own, when there are several (the message joins them).
    """

    def __init__(self, message: str, *, problems: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


class GuardrailError(VeilbotError):
    """The guardrail could not run; nothing may be sent to the model."""


class StoreError(VeilbotError):
    """A store (history, vault, lock, dedupe, audit) failed."""


class StoreUnavailable(StoreError):
    """A store cannot be reached."""


class AlreadyStored(StoreError):
    """The store already holds a record with this id; the first one is kept."""


class ModelError(VeilbotError):
    """The model call failed."""


class ModelUnavailable(ModelError):
    """The model is overloaded, rate limited, timed out or unreachable; try again later."""


class ModelUnreachable(ModelUnavailable):
    """The model's endpoint cannot be reached (connection refused or lost, DNS)."""


class ModelRateLimited(ModelUnavailable):
    """The provider rate limited this account (HTTP 429)."""


class ModelOverloaded(ModelUnavailable):
    """The provider is overloaded (HTTP 529 or 503)."""


class ModelTimeout(ModelUnavailable):
    """The model did not answer in time."""


class ModelRejected(ModelError):
    """The model refused the request or its content (HTTP 400-class)."""


class ModelMisconfigured(ModelError):
    """The model call is set up wrongly: bad credentials, no permission, unknown model."""


class AdapterError(VeilbotError):
    """A platform adapter cannot start or talk to its platform."""


class InputRejected(VeilbotError):
    """The user's message is not processed.

    Attributes:
        reason: a short machine-readable reason (``empty``, ``too_long``, ``invalid``,
            ``hidden``: mostly characters nobody sees).
    """

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.reason = reason


class FileRejected(InputRejected):
    """A file the message carried is not read; the message is written for the user.

    It names the file by its position in the message and gives sizes and limits, never the
    file's name or content, so it is safe to log and to show.
    """
