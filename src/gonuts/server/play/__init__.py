"""Play: live tables, moves, presence, bots, the turn clock and hints (docs/architecture.md)."""
