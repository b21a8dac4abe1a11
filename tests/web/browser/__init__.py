"""Browser tests: real Chromium (Debian's package) driven by Playwright against the live server."""
