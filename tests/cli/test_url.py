"""``mcp-elicit url check``: through the real entry point, and once in a real subprocess."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mcp_elicit.cli import main
from mcp_elicit.cli.url_command import add_parser

SRC = Path(__file__).resolve().parents[2] / "src"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = main(["url", "check", *argv])
    return status, capsys.readouterr().out


def test_allowed_url_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(capsys, "https://example.com/path?q=1")
    assert status == 0
    assert out.startswith("ALLOW")
    assert "https://example.com/path?q=1" in out
    assert "registrable domain: example.com" in out
    assert "No reasons" in out


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("https://example.com/", "(whoever registered this name controls the link)"),
        ("https://printer.local/", "(a local network name (mDNS .local): any device on your"),
        ("https://10.0.0.1/", "(an IP address: whoever runs the machine at it controls"),
    ],
)
def test_the_report_says_who_controls_the_link(
    url: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = run(capsys, url)
    assert said in out
    if "example.com" not in url:
        assert "registered" not in out  # nobody registers a local name or an address


def test_warned_url_exits_0_and_shows_both_host_forms(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(capsys, "https://xn--pple-43d.com/")
    assert status == 0
    assert out.startswith("WARN")
    assert "host:               \u0430pple.com" in out
    assert "host (ASCII/DNS):   xn--pple-43d.com" in out
    assert "registrable domain: \u0430pple.com" in out
    for code in ("idn_host", "mixed_scripts", "confusable_characters"):
        assert f"[warn] {code}:" in out


def test_blocked_url_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(capsys, "https://accounts.google.com@evil.co.uk/")
    assert status == 1
    assert out.startswith("BLOCK")
    assert "host:               evil.co.uk" in out
    assert "registrable domain: evil.co.uk" in out
    assert "[block] credentials:" in out


def test_javascript_is_blocked_without_a_host(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(capsys, "javascript:alert(1)")
    assert status == 1
    assert "host:               (none usable)" in out
    assert "[block] scheme_not_allowed:" in out


def test_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(capsys, "--json", "https://accounts.google.com.evil.co.uk/")
    assert status == 0
    data = json.loads(out)
    assert data == {
        "verdict": "allow",
        "reasons": [],
        "display_host": {
            "unicode": "accounts.google.com.evil.co.uk",
            "ascii": "accounts.google.com.evil.co.uk",
        },
        "registrable_domain": "evil.co.uk",
    }
    assert out.startswith('{\n  "verdict"')  # indent=2


def test_json_keeps_unicode_unescaped(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(capsys, "https://b\u00fccher.de/", "--json")
    assert status == 0
    assert "b\u00fccher.de" in out  # ensure_ascii=False
    data = json.loads(out)
    assert data["verdict"] == "warn"
    assert [r["code"] for r in data["reasons"]] == ["idn_host"]
    assert all(set(r) == {"code", "message"} for r in data["reasons"])


def test_json_block_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(capsys, "--json", "https://0x7f.1/")
    assert status == 1
    data = json.loads(out)
    assert data["verdict"] == "block"
    assert "loopback" in [r["code"] for r in data["reasons"]]
    assert data["display_host"] == {"unicode": "127.0.0.1", "ascii": "127.0.0.1"}
    assert data["registrable_domain"] is None


def test_allow_http_loopback(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(capsys, "http://127.0.0.1:8123/x")
    assert status == 1
    status, out = run(capsys, "--allow-http-loopback", "http://127.0.0.1:8123/x")
    assert status == 0
    assert "[warn] local_development:" in out
    status, out = run(capsys, "--allow-http-loopback", "http://example.com/")
    assert status == 1


def test_resolve_flag(capsys: pytest.CaptureFixture[str]) -> None:
    # .invalid is no public top-level domain: allowed here as an intranet's would be.
    url = "https://does-not-exist.invalid/"
    status, out = run(capsys, "--resolve", "--json", "--allow-private", url)
    assert status == 0
    assert [r["code"] for r in json.loads(out)["reasons"]] == ["non_public_tld", "unresolvable"]
    status, out = run(capsys, "--resolve", "https://localhost/")
    assert status == 1
    assert "resolves to" in out


def test_hostile_characters_are_escaped_in_the_report(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(capsys, "https://example.com/\x1b[2J\u202egnp.exe")
    assert status == 1
    assert "\x1b" not in out
    assert "\u202e" not in out
    assert "\\u{001b}[2J\\u{202e}gnp.exe" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["url"],
        ["url", "check"],
        ["url", "check", "--bogus", "https://example.com/"],
        ["url", "inspect", "https://example.com/"],
    ],
)
def test_bad_usage_exits_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert "usage:" in capsys.readouterr().err


def test_add_parser_on_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    # The module works with any parent parser, not only the real dispatcher.
    parser = argparse.ArgumentParser(prog="test")
    add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["url", "check", "--json", "https://example.com/"])
    assert args.run(args) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "allow"


@pytest.mark.slow
def test_in_a_real_subprocess() -> None:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    env["PYTHONIOENCODING"] = "utf-8"
    command = [sys.executable, "-m", "mcp_elicit.cli", "url", "check"]
    blocked = subprocess.run(
        [*command, "--json", "https://[::ffff:169.254.169.254]/"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=60,
        check=False,
    )
    assert blocked.returncode == 1, blocked.stderr
    data = json.loads(blocked.stdout)
    assert data["verdict"] == "block"
    assert "cloud_metadata" in [r["code"] for r in data["reasons"]]

    allowed = subprocess.run(
        [*command, "https://example.com/"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=60,
        check=False,
    )
    assert allowed.returncode == 0, allowed.stderr
    assert allowed.stdout.startswith("ALLOW")

    usage = subprocess.run(
        [*command], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert usage.returncode == 2
    assert "usage:" in usage.stderr


def test_allow_private_turns_a_local_name_into_a_warning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(capsys, "https://printer.local/")[0] == 1
    status, out = run(capsys, "--allow-private", "https://printer.local/")
    assert status == 0 and out.startswith("WARN") and "local_name" in out
