"""Wire shapes for every revision that has elicitation, error codes, and what each
revision allows. Sans-IO.

Not built yet: see the open issues.
"""
