"""Check the links a server wants a person to open, as an MCP client does in URL mode.

Run: python examples/url_check.py
Nothing here touches the network: resolution is off unless asked for.
"""

from __future__ import annotations

import json

from mcp_elicit.urls import UrlPolicy, Verdict, check_url

LINKS = [
    "https://accounts.google.com/o/oauth2/v2/auth?client_id=42",  # allow
    "https://accounts.google.com.evil.co.uk/login",  # allow, but look at who runs it
    "https://xn--pple-43d.com/",  # warn: Cyrillic a, reads as apple.com
    "https://example.com:8443/pay",  # warn: unusual port
    "https://google.com@evil.example/",  # block: '@' trick
    "https://0x7f.1/admin",  # block: 127.0.0.1 in disguise
    "https://[::ffff:169.254.169.254]/latest/meta-data/",  # block: cloud metadata
    "javascript:alert(document.cookie)",  # block: not https
]


def main() -> None:
    for link in LINKS:
        result = check_url(link)
        host = result.display_host
        print(f"{result.verdict.value.upper():5}  {link}")
        if host is not None:
            both = host.unicode if host.unicode == host.ascii else f"{host.unicode} ({host.ascii})"
            print(f"       host {both}, registrable domain {result.registrable_domain}")
        for reason in result.reasons:
            print(f"       - {reason.code}: {reason.message}")

    # The verdicts the comments above promise.
    verdicts = [check_url(link).verdict for link in LINKS]
    assert verdicts == [Verdict.ALLOW] * 2 + [Verdict.WARN] * 2 + [Verdict.BLOCK] * 4, verdicts

    # Local development: http to the loopback interface, explicitly allowed.
    dev = UrlPolicy(allow_http_loopback=True)
    local = check_url("http://127.0.0.1:8123/callback", dev)
    assert local.verdict is Verdict.WARN and "local_development" in local.codes
    assert check_url("http://example.com/", dev).verdict is Verdict.BLOCK

    # The JSON a client can log or forward (what `mcp-elicit url check --json` prints).
    print(json.dumps(check_url("https://b\u00fccher.de/").to_json(), indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
