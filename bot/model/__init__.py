"""Model clients behind the ``ModelClient`` port, the system prompt, and prices.

Claude on Anthropic's API, Amazon Bedrock and Google Vertex AI; OpenAI-compatible servers;
the offline echo model.

Owns ``claude`` (``ClaudeClient`` over any of the anthropic SDK's Messages clients, prompt
caching; ``AnthropicModelClient``), ``bedrock`` and ``vertex`` (the same client on
``AsyncAnthropicBedrock`` / ``AsyncAnthropicVertex`` with their credentials),
``openai_compat`` (``/v1/chat/completions`` through the openai SDK), ``echo`` (the offline
model), ``errors`` (every provider's failures onto the one error tree), ``prompt`` (the
system prompt) and ``pricing`` (the cost of a call in US dollars, per provider).

``build`` is the composition root's part here: the client ``Settings`` choose, with its
credentials checked at start (``build_model``, ``check_model``).

Imports ``bot.core`` and the SDKs only (``build`` adds ``bot.config.settings``). Each SDK is
imported by its own module alone, so the echo model, the prompt and the prices load without
any, and an uninstalled extra only matters to the provider that needs it.
"""
