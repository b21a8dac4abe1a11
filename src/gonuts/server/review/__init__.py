"""Game reviews in the browser: a finished game's decisions judged in the background, cached."""
