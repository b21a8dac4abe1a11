"""Table chat: players' lines and quick reactions, read by everyone at the table, kept with it."""
