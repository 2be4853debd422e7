"""Conformance scenarios for servers and clients.

Not built yet: see the open issues.
"""
