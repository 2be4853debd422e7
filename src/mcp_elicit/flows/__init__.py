"""Out-of-band URL-mode flows: create, bind to a user, open, complete, expire, wait.

Not built yet: see the open issues.
"""
