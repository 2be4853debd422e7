"""One store contract (flows, secrets) with several engines; the same contract tests run
against each.

Not built yet: see the open issues.
"""
