"""Model clients: Claude through the Anthropic SDK, the offline echo model, and pricing.

Owns ``claude`` (``AnthropicModelClient``: SDK errors mapped onto the error tree, prompt
caching), ``echo`` (the offline model used when no API key is set), ``prompt`` (the system
prompt) and ``pricing`` (the cost of a call in US dollars).

Imports ``bot.core`` and the anthropic SDK only. Only ``claude`` imports anthropic, so the
echo model, the prompt and the prices load without it.
"""
