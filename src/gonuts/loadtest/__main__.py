"""``python -m gonuts.loadtest PORT DB_URL``: the load test's server process."""

from gonuts.loadtest.launcher import serve_main

if __name__ == "__main__":  # (not when a spawned worker process imports it)
    serve_main()
