"""A proxy that bridges protocol eras and keeps URL mode intact.

Not built yet: see the open issues.
"""
