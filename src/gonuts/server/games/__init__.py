"""Finished games: listings, records and replays (reviews: the `review` feature)."""
