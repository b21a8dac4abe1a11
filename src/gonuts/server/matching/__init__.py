"""Matchmaking ("Play now"): a queue shared by every server process, one matcher at a time."""
