"""Finished games: listings, records and replays (reviews land here)."""
