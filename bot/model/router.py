"""Per-scope providers: one ``ModelClient`` that sends each request to its scope's provider.

The service's own provider answers a request that names none; a scope that names another
(``provider = "echo"`` in ``[scopes."…"]``) gets a client built once, with the credentials the
service's settings give that provider. A reload that names a new provider builds its client
then; the clients are closed with the router.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from bot.core.ports import ModelClient, ModelStream
from bot.core.types import ModelRequest, ModelResult


class ModelRouter:
    """A ``ModelClient`` over the service's provider and the ones scopes name."""

    def __init__(
        self, default: ModelClient, provider: str, build: Callable[[str], ModelClient]
    ) -> None:
        self._default, self._provider, self._build = default, provider, build
        self._clients: dict[str, ModelClient] = {provider: default}

    @property
    def model(self) -> str:
        """The service's own model (for audit and pricing of requests that name none)."""
        return self._default.model

    @property
    def providers(self) -> frozenset[str]:
        """The providers a client is built for."""
        return frozenset(self._clients)

    def ensure(self, providers: Iterable[str]) -> None:
        """Build the clients ``providers`` still lack (``ConfigError`` when one cannot be)."""
        built = {p: self._build(p) for p in set(providers) - self._clients.keys()}
        self._clients.update(built)

    def _client(self, request: ModelRequest) -> ModelClient:
        if request.provider is None:
            return self._default
        return self._clients.get(request.provider, self._default)

    async def complete(self, request: ModelRequest) -> ModelResult:
        """The answer of the request's provider."""
        return await self._client(request).complete(request)

    def stream(self, request: ModelRequest) -> ModelStream:
        """The streamed answer of the request's provider."""
        return self._client(request).stream(request)

    def takes_tools(self, request: ModelRequest) -> bool:
        """Whether the request's provider offers the model tools."""
        return self._client(request).takes_tools(request)

    def max_cost(self, request: ModelRequest) -> float | None:
        """The most the request's provider can charge for it."""
        return self._client(request).max_cost(request)

    async def aclose(self) -> None:
        """Close every client."""
        await self.aclose_others()
        await self._default.aclose()

    async def aclose_others(self) -> None:
        """Close the clients built for scopes (the service's own is closed by its owner)."""
        for provider, client in list(self._clients.items()):
            if client is not self._default:
                del self._clients[provider]
                await client.aclose()
