"""``pattern``: tolerated, applied safely.

``pattern`` is in the prose examples of some revisions but in no revision's ``schema.ts``, so
clients may ignore it. When we apply it we use RE2, whose matching time is linear in the
input: a hostile pattern such as ``(a+)+$`` cannot make validation backtrack for minutes, as
it would with Python's ``re``. Features RE2 cannot run in linear time (backreferences,
lookaround) make the pattern *unsupported*: it is reported by the linter and not applied.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

MAX_PATTERN_LENGTH = 1000


@lru_cache(maxsize=1)
def _re2() -> tuple[Any, Any]:
    """The ``re2`` module and our options for it. Imported on the first pattern, not with
    the forms: most servers' forms have none (tests/server/test_lazy_imports.py holds this)."""
    import re2

    options: Any = re2.Options()
    options.max_mem = 8 << 20  # a pathological pattern fails to compile instead of eating RAM
    options.log_errors = False  # a rejected pattern is our finding to report, not stderr noise
    return re2, options


@dataclass(frozen=True, slots=True)
class CompiledPattern:
    """The outcome of compiling a schema's ``pattern``.

    ``search`` is None when the pattern is not applied; ``invalid`` says the pattern is not a
    regular expression at all (a schema problem), ``unsupported`` that it is one RE2 cannot
    run in linear time (a lint note).
    """

    source: str
    search: Callable[[str], Any] | None
    invalid: str | None = None
    unsupported: str | None = None


@lru_cache(maxsize=1024)
def compile_pattern(source: str) -> CompiledPattern:
    if len(source) > MAX_PATTERN_LENGTH:
        return CompiledPattern(
            source, None, unsupported=f"longer than {MAX_PATTERN_LENGTH} characters"
        )
    re2, options = _re2()
    try:
        return CompiledPattern(source, re2.compile(source, options=options).search)
    except Exception as re2_error:  # re2 raises its own error type, or ValueError/TypeError
        detail = re2_error.args[0] if re2_error.args else type(re2_error).__name__
        reason = detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
    # Python's ``re`` only tells "not a regex at all" from "a regex RE2 will not run":
    # compiling is cheap and safe, only matching can backtrack.
    try:
        re.compile(source)
    except (re.error, RecursionError, OverflowError, ValueError) as exc:
        return CompiledPattern(source, None, invalid=str(exc))
    return CompiledPattern(source, None, unsupported=reason)
