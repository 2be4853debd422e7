"""Server side, on top of the official SDK: ask helpers, URL mode, hosted pages.

Not built yet: see the open issues.
"""
