"""Platform adapters: events in, replies out. They know only the core types and ports."""
