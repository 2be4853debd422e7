"""Client side, on top of the official SDK: the elicitation handler, renderers, URL consent.

Not built yet: see the open issues.
"""
