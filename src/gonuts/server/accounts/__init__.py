"""Accounts: sign-up and sign-in, sessions, ratings, the leaderboard and profiles."""
