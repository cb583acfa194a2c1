"""Text as the analyzer reads it, with a map back to what the user wrote.

``normalize`` takes platform markup out, ``linkdecode`` decodes link targets, ``folding``
folds hidden, spaced and spelled-out characters, all through one offset map; ``spans`` holds
the finding type and overlap rules; ``fields`` reads key/value structure; ``values`` is the
form lookups compare. Imports nothing else of ``guardrails``.
"""
