"""Script a whole run of the README's server with ``mcp-elicit call``, no person needed: a form,
a confirmation, and a secret typed on the server's own page by this script, standing in for
the person's browser. docs/scripting.md explains each step.

    WEATHER_API_KEY=... python examples/script_a_run.py [--protocol 2026-07-28]

The secret comes from the environment, never from a command line (which every user of the
machine can read). ``--server FILE`` runs another server file with the same tools; ``--late
SECONDS`` finishes the page that much later, as a slow person would.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import httpx2  # the HTTP client the `mcp` SDK installs; plain `httpx` is not installed

HERE = Path(__file__).resolve().parent
CONSENTED = "mcp-elicit: consented to open "  # what `call` says when a script agrees to a link


def call(
    tool: str,
    answers: list[dict[str, Any]],
    *,
    server: Path,
    protocol: str,
    on_link: Any = None,
) -> dict[str, Any]:
    """Run ``mcp-elicit call TOOL`` with these answers; the tool result as JSON.

    ``on_link(url)`` runs (in a thread) for each link the answers agreed to open, once per
    link: on 2026-07-28 the same link comes again if its page was not finished in time."""
    with tempfile.TemporaryDirectory() as folder:
        file = Path(folder, "answers.json")
        file.write_text(json.dumps(answers))
        command = [sys.executable, "-m", "mcp_elicit", "call", tool, "--answers", str(file)]
        command += ["--json", "--protocol", protocol, "--", sys.executable, str(server)]
        seen: set[str] = set()
        with subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        ) as running:
            assert running.stdout is not None and running.stderr is not None
            for line in running.stderr:
                print(line, end="", file=sys.stderr)
                url = line.removeprefix(CONSENTED).strip()
                if line.startswith(CONSENTED) and url not in seen and on_link is not None:
                    seen.add(url)
                    threading.Thread(target=on_link, args=(url,), daemon=True).start()
            output = running.stdout.read()
        if running.returncode not in (0, 1) or not output:
            raise SystemExit(f"mcp-elicit call {tool} failed (exit {running.returncode})")
        result: dict[str, Any] = json.loads(output)
        return result


class _CsrfField(HTMLParser):
    """The hosted page's hidden ``csrf`` field."""

    token: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        fields = dict(attrs)
        if tag == "input" and fields.get("name") == "csrf":
            self.token = fields.get("value")


def enter_secret(url: str, value: str) -> None:
    """What the person's browser does on the hosted page: GET the form (which sets the CSRF
    cookie), then POST ``csrf``, ``value`` and ``action=submit`` with that cookie."""
    with httpx2.Client(timeout=30.0) as browser:  # one client: it keeps the cookie
        page = browser.get(url)
        page.raise_for_status()
        reader = _CsrfField()
        reader.feed(page.text)
        if reader.token is None:
            raise SystemExit(f"no form on {url}: the flow is finished or expired")
        fields = {"csrf": reader.token, "value": value, "action": "submit"}
        saved = browser.post(url, data=fields)
        if saved.status_code != 303:  # See Other: on to the page that says "Saved"
            raise SystemExit(f"the page refused the secret ({saved.status_code})")


def text_of(result: dict[str, Any]) -> str:
    return " ".join(item.get("text", "") for item in result.get("content", []))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--protocol", default="2026-07-28", help="the revision to speak (default 2026-07-28)"
    )
    parser.add_argument(
        "--server",
        type=Path,
        default=HERE / "server_quickstart.py",
        help="a server file with the README's tools (default: examples/server_quickstart.py)",
    )
    parser.add_argument(
        "--late",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="finish the secret's page this much later, as a slow person would",
    )
    args = parser.parse_args()
    run = {"server": args.server, "protocol": args.protocol}

    # ask(ctx, Stay, ...): the fields are the dataclass's (guest, arrival, nights).
    stay = {"guest": "Ada", "arrival": "2026-12-01", "nights": 2}
    print(text_of(call("book", [{"action": "accept", "content": stay}], **run)))

    # confirm(ctx, ...): one boolean field named "confirm"; only true goes ahead.
    print(text_of(call("cancel", [{"action": "accept", "content": {"confirm": True}}], **run)))

    # secret(ctx, ...): URL mode. "accept" agrees to open the link (and, for a script, means
    # "done"); the page itself is filled in by enter_secret. On 2026-07-28 a page not finished
    # within the server's url_resume_wait (20 s by default) brings the same link again, which
    # takes a second "accept"; earlier revisions wait for the page and use only the first.
    key = os.environ.get("WEATHER_API_KEY", "demo-key-not-a-real-one")

    def person(url: str) -> None:
        time.sleep(args.late)
        enter_secret(url, key)

    links = [{"action": "accept"}, {"action": "accept"}]
    print(text_of(call("connect_weather", links, on_link=person, **run)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
