"""Revisions, oldest first: v0001 (the schema of the first web release), v0002, …"""
