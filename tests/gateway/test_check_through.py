"""``mcp-elicit check server`` through the gateway: every check that passes against our
conformance server directly passes through ``mcp-elicit gateway`` in front of it, whichever
era the gateway speaks upstream; the few that cannot are named here with the reason (and in
docs/gateway.md)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_elicit.check import CHECKS
from tests.gateway.support import CLI, ROOT, gateway, python_server
from tests.served import Served

pytestmark = pytest.mark.slow


# The task checks (the extension's on 2026-07-28, the core tasks' on 2025-11-25): the gateway
# carries no tasks yet (design docs/tasks-design.md §6, issue 29 step 6) and declares none to the
# host, so none passes through it (the 2025-11-25 ones are "not applicable" there), but for the
# -32021 of an undeclared call to a task-only tool, which a 2026-07-28 upstream says itself and
# the gateway passes on.
TASK_CHECKS = {
    (check, revision)
    for check in CHECKS
    if check.startswith("server-task-")
    for revision in CHECKS[check].revisions
}
UNDECLARED = ("server-task-undeclared", "2026-07-28")

# What a gateway cannot carry, by the era it speaks upstream, with the reason.
CANNOT = {
    # 2026-07-28 has no -32042: the server's link comes as a URL-mode request, pushed to the
    # 2025-11-25 (or URL-mode draft) client as one (the call completes once the link is
    # finished); server-track tracks the link of a -32604.
    "2026-07-28": {
        ("server-url-required-error", "2025-11-25"),
        ("server-url-required-retry", "2025-11-25"),
        ("server-url-required-error", "url-draft"),
        ("server-track", "url-draft"),
        *(TASK_CHECKS - {UNDECLARED}),
    },
    # A 2025 server refuses a client without a mode in its own words (a tool error); only a
    # 2026-07-28 server can say -32021.
    "2025-11-25": {
        ("server-gate-url-mode", "2026-07-28"),
        ("server-gate-capability", "2026-07-28"),
        *TASK_CHECKS,
    },
}


@pytest.fixture(scope="module")
def upstream(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = python_server(
        "examples/conformance_server.py", "--port", log=tmp_path_factory.mktemp("upstream") / "log"
    )
    yield served
    served.stop()


def checks(url: str) -> dict[tuple[str, str], str]:
    done = subprocess.run(
        [*CLI, "check", "server", url, "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    return {(r["id"], r["revision"]): r["status"] for r in report["checks"]}


@pytest.mark.parametrize("upstream_era", ["2026-07-28", "2025-11-25"])
def test_checks_that_pass_directly_pass_through_the_gateway(
    upstream: Served, upstream_era: str, tmp_path: Path
) -> None:
    direct = checks(upstream.url())
    through_gateway = gateway(
        lambda: [upstream.url()], upstream_era, "--url-draft", log=tmp_path / "gateway.log"
    )
    try:
        through = checks(through_gateway.url())
    finally:
        through_gateway.stop()
    passed = {key for key, status in direct.items() if status == "passed"}
    assert passed, direct
    lost = {key for key in passed if through.get(key) != "passed"}
    assert lost == CANNOT[upstream_era], {key: through.get(key) for key in lost}
