"""Notifications: telling a player, away from the table, that a turn-based game waits for them
or has ended — by Web Push and by e-mail (issue 27)."""
