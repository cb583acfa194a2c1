"""Claude on Google Vertex AI, through the SDK's ``AsyncAnthropicVertex`` (``veilbot[vertex]``).

Credentials, first found wins: a static OAuth access token (short-lived: for trials and
tests); a service-account key (or authorized-user) file; else Application Default
Credentials (``GOOGLE_APPLICATION_CREDENTIALS`` with any kind google-auth reads, the metadata
server on GKE and Cloud Run, ``gcloud auth application-default login`` on a laptop). Tokens are
refreshed by google-auth in a worker thread, never on the event loop.

Requests go to ``…/projects/{project}/locations/{region}/publishers/anthropic/models/
{model}:rawPredict`` (``:streamRawPredict`` when streaming); the region ``global`` routes to
any region with capacity and costs less than a regional endpoint (``bot.model.pricing``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic

from bot.core.errors import ModelError
from bot.model.claude import NO_SDK_SPANS, ClaudeClient
from bot.model.errors import CredentialsRefused, connection_error
from bot.model.pricing import Pricing

CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"


def load_credentials(path: Path) -> Any:
    """google-auth credentials from a service-account key or authorized-user file.

    Other kinds (workload identity federation) go through Application Default Credentials:
    ``GOOGLE_APPLICATION_CREDENTIALS`` names them, and google-auth reads every kind.

    Raises:
        CredentialsRefused: the file is missing, unreadable or of another kind (the message
            names the problem, never the file's content).
    """
    from google.oauth2 import credentials as user_credentials
    from google.oauth2 import service_account

    loaders: dict[str, Callable[..., Any]] = {
        "service_account": service_account.Credentials.from_service_account_info,
        "authorized_user": user_credentials.Credentials.from_authorized_user_info,
    }
    try:
        info = json.loads(Path(path).read_text())
        loader = loaders[info.get("type")]
        return loader(info, scopes=[CLOUD_PLATFORM])
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise CredentialsRefused(
            "the credentials file is not a readable service-account or authorized-user key "
            f"({type(exc).__name__}); for other kinds use GOOGLE_APPLICATION_CREDENTIALS"
        ) from None


class VertexModelClient(ClaudeClient):
    """Claude on Vertex AI.

    Args:
        project_id: the Google Cloud project.
        region: ``global`` or a region such as ``us-east5`` / ``europe-west1``.
        model: Vertex's model id, e.g. ``claude-sonnet-4-6`` or ``claude-sonnet-4-5@20250929``.
        access_token: a static OAuth access token; wins over everything else.
        credentials_file: a google-auth credentials file (service-account key, ...).
        base_url: the endpoint (``https://{region}-aiplatform.googleapis.com/v1`` by default).
        max_tokens: answer length limit.
        temperature: sampling temperature; ``None`` leaves it to the API.
        timeout: seconds per HTTP request.
        max_retries: SDK retries of retryable failures (429, 5xx, connection errors).
        pricing: how calls are priced (the list prices, regional premium included).
        strict_response_validation: reject responses that do not match the SDK's schema.

    Raises:
        CredentialsRefused: ``credentials_file`` cannot be read.
    """

    def __init__(
        self,
        *,
        project_id: str,
        region: str,
        model: str,
        access_token: str | None = None,
        credentials_file: Path | None = None,
        base_url: str | None = None,
        max_tokens: int,
        temperature: float | None,
        timeout: float,
        max_retries: int,
        pricing: Pricing | None = None,
        strict_response_validation: bool = False,
    ) -> None:
        from google.auth import exceptions as google_errors

        credentials = None
        if access_token is None and credentials_file is not None:
            credentials = load_credentials(credentials_file)
        sdk = anthropic.AsyncAnthropicVertex(
            project_id=project_id,
            region=region,
            access_token=access_token,
            credentials=credentials,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            _strict_response_validation=strict_response_validation,
            open_telemetry=NO_SDK_SPANS,
        )
        super().__init__(
            sdk,
            provider="vertex",
            model=model,
            max_tokens=max_tokens,
            temperature=temperature,
            pricing=pricing or Pricing("vertex", region=region),
        )
        self._google_errors = google_errors
        self._caught = (*ClaudeClient._caught, google_errors.GoogleAuthError)

    def convert_error(self, exc: Exception) -> ModelError:
        """Token refresh failures too: a refused grant, or a token endpoint out of reach."""
        if isinstance(exc, self._google_errors.TransportError):
            return connection_error(self.provider, exc)
        if isinstance(exc, self._google_errors.GoogleAuthError):
            return CredentialsRefused(
                f"model call failed (vertex): no access token ({type(exc).__name__})"
            )
        return super().convert_error(exc)

    async def verify(self) -> None:
        """Get a token and count the tokens of a one-word message (free).

        This checks the credentials, the project, the region and the model.

        Raises:
            ModelError: as for a turn; ``ModelMisconfigured`` means the settings are wrong.
        """
        client = self._client.with_options(max_retries=0)
        try:
            await client.messages.count_tokens(
                model=self.model, messages=[{"role": "user", "content": "ping"}]
            )
        except self._caught as exc:
            raise self.convert_error(exc) from exc
