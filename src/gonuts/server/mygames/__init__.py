"""My games: the unfinished tables of an account or a browser's saved seats (issue 27)."""
