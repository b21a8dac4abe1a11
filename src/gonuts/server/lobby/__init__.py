"""The lobby: creating and joining tables, the waiting room, play again, the tutorial table."""
