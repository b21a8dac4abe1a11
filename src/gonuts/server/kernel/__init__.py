"""The kernel: what every feature of the server may use, and which imports no feature nor the
transport (database and migrations, error codes, texts, relay, metrics, caches, limits, work pools).
"""
