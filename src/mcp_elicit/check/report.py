"""What a check run found: one outcome per check and revision, printed the official suite's
way (a line per check, then ``Passed: X/Y, N failed``) or as JSON for CI.

The human report is in the language in effect (:mod:`mcp_elicit.i18n`), but for what was seen
(``Outcome.seen``): that is the evidence, the same words as in the JSON report. The JSON report
is never translated: programs read it.

What was seen quotes the peer under test (an error's message, a link, a client's last words),
so an outcome cleans it as it is made, the way our renderers clean a server's words
(:func:`~mcp_elicit.client.prompt_text.clean`): a control, bidi or invisible character is
written out as ``\\u{…}``, and a line break too, so that a peer can neither drive the
terminal (a window title, a cleared screen, a hyperlink) nor forge a line of the report.
Every way out (the lines, the JSON, the compatibility matrix) reads the cleaned text.

Exit status: 0 when nothing failed (skipped and not-applicable checks are not failures),
1 when a check failed. (2, bad usage, is the command line's.)
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from mcp_elicit.check.catalog import CHECKS
from mcp_elicit.client.prompt_text import clean
from mcp_elicit.i18n import N_, _


class Status(enum.StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    """The check could not run here: the server lacks a tool it needs, say."""
    NOT_APPLICABLE = "not applicable"
    """The rule does not exist in this setting (one session over stdio, for instance)."""


OUTPUT_CHARS = 16 * 1024
"""At most this much of a peer's output is kept once cleaned (cleaning writes a control
character out as ``\\u{…}``: what the runner kept can grow)."""
OUTPUT_LINES = 20
OUTPUT_WIDTH = 300
"""The human report shows the last ``OUTPUT_LINES`` lines of an output, each cut at
``OUTPUT_WIDTH`` characters; the JSON report has it whole."""


# A status as a person reads it (the JSON report has ``Status.value``).
STATUS_WORDS = {
    Status.PASSED: N_("passed"),
    Status.FAILED: N_("failed"),
    Status.SKIPPED: N_("skipped"),
    Status.NOT_APPLICABLE: N_("not applicable"),
}

MARKS = {
    Status.PASSED: "✓",
    Status.FAILED: "✗",
    Status.SKIPPED: "-",
    Status.NOT_APPLICABLE: "·",
}


@dataclass(frozen=True)
class Outcome:
    check: str
    revision: str
    status: Status
    seen: str
    """What was seen on the wire, in a sentence: the evidence for a pass, the reason for a
    failure or a skip. Cleaned as the outcome is made (one line, no control characters)."""
    output: str = ""
    """The end of what the peer wrote (a client that crashed or timed out), as evidence:
    cleaned as ``seen`` is, but for its line breaks; the human report shows its last
    :data:`OUTPUT_LINES` lines, indented under the outcome's line."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "seen", clean(self.seen, newlines=False))
        said = self.output.replace("\r\n", "\n").strip("\n")
        object.__setattr__(self, "output", clean(said)[-OUTPUT_CHARS:])

    def line(self) -> str:
        status = _(STATUS_WORDS[self.status])
        return f"{MARKS[self.status]} {self.check} [{self.revision}] {status}: {self.seen}"

    def lines(self) -> list[str]:
        """The line, and for a failure the spec text the check rests on."""
        found = [self.line()]
        if self.status is Status.FAILED:
            found.extend(
                "    " + _("spec: {ref}").format(ref=ref) for ref in CHECKS[self.check].spec
            )
        if self.output:
            found.append("    " + _("the client's last output:"))
            found.extend(
                f"    | {line[:OUTPUT_WIDTH]}" for line in self.output.split("\n")[-OUTPUT_LINES:]
            )
        return found

    def as_json(self) -> dict[str, Any]:
        check = CHECKS[self.check]
        return {
            "id": self.check,
            "revision": self.revision,
            "status": self.status.value,
            "seen": self.seen,
            "title": check.title,
            "spec": [str(ref) for ref in check.spec],
            **({"output": self.output} if self.output else {}),
        }


NO_TOOL = "no tool "
"""How a check skipped because the server lists none of its tools begins its ``seen``."""


@dataclass
class Report:
    target: str
    outcomes: list[Outcome] = field(default_factory=list)

    def add(self, outcomes: Iterable[Outcome]) -> None:
        self.outcomes.extend(outcomes)

    def count(self, status: Status) -> int:
        return sum(1 for outcome in self.outcomes if outcome.status is status)

    @property
    def ran(self) -> int:
        """Checks that ran: passed or failed."""
        return self.count(Status.PASSED) + self.count(Status.FAILED)

    @property
    def exit_status(self) -> int:
        """1 a check failed; 3 none ran (every one skipped or not applicable: in CI that is
        no pass, though nothing failed); 0 otherwise."""
        if self.count(Status.FAILED):
            return 1
        return 3 if self.ran == 0 else 0

    def summary(self) -> str:
        text = _("Passed: {passed}/{ran}, {failed} failed").format(
            passed=self.count(Status.PASSED), ran=self.ran, failed=self.count(Status.FAILED)
        )
        if skipped := self.count(Status.SKIPPED):
            text = _("{list}, {item}").format(list=text, item=_("{n} skipped").format(n=skipped))
        if not_applicable := self.count(Status.NOT_APPLICABLE):
            text = _("{list}, {item}").format(
                list=text, item=_("{n} not applicable").format(n=not_applicable)
            )
        return text

    def advice(self) -> list[str]:
        """What to do about the skips, under the summary."""
        if any(o.status is Status.SKIPPED and o.seen.startswith(NO_TOOL) for o in self.outcomes):
            return [
                _(
                    "Checks were skipped for want of their tools: add them to your server "
                    "while you check it with mcp_elicit.check.tools.add_check_tools "
                    '(docs/check.md, "Checking your own server").'
                )
            ]
        return []

    def text(self) -> str:
        lines = [_("Checking {target}").format(target=self.target)]
        for outcome in self.outcomes:
            lines.extend(outcome.lines())
        lines.append("")
        lines.append(self.summary())
        lines.extend(self.advice())
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "passed": self.count(Status.PASSED),
            "failed": self.count(Status.FAILED),
            "skipped": self.count(Status.SKIPPED),
            "notApplicable": self.count(Status.NOT_APPLICABLE),
            "checks": [outcome.as_json() for outcome in self.outcomes],
        }

    def json_text(self) -> str:
        return json.dumps(self.as_json(), indent=2, ensure_ascii=False)
