"""``python -m gonuts.loadtest PORT DB_URL``: the load test's server process."""

from gonuts.loadtest.launcher import serve_main

serve_main()
