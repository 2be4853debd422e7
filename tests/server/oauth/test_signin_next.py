"""Where a browser goes after signing in or out (``next``): a path under the pages, normalised
as a browser would read it, or the pages' start (issue 30, finding 7:
``next=/elicit/../../evil`` landed on ``/evil``, same origin but outside the pages).

``safe_next`` is the rule; the sign-in, its callback and sign-out all go through it
(``tests/server/oauth/test_signin.py::test_next_never_leaves_the_pages`` shows it end to end
against a real provider)."""

from __future__ import annotations

import pytest

from mcp_elicit.server.oauth.signin import safe_next

BASE = "/elicit"
START = "/elicit/"


@pytest.mark.parametrize(
    "wanted",
    [
        "/elicit/../../evil",
        "/elicit/../evil",
        "/elicit/flows/../../evil",
        "/elicit/%2e%2e/evil",
        "/elicit/%2E%2E/%2e%2e/evil",
        "/elicit/.%2e/evil",
        "/elicit/%252e%252e/evil",  # encoded twice
        "/elicit/%25252e%25252e/evil",  # three times
        "/elicit/..%2fevil",
        "/elicit/..%2Fevil",
        "/elicit%2f..%2fevil",
        "/elicit/..\\evil",
        "/elicit/%5c..%5cevil",
        "/elicit\\..\\evil",
        "/\\evil.example",
        "/%5cevil.example",
        "//evil.example/elicit/",
        "/%2fevil.example/elicit/",
        "/%2F%2Fevil.example",
        "/elicit/\t/evil",
        "/elicit/%09/../../evil",
        "/elicit/\n",
        "/elicit%00/x",
        "/elicitx/flows",
        "/elicit-evil/",
        "/evil",
        "/",
        "https://evil.example/elicit/",
        "http:/elicit/",
        "javascript:alert(1)",
        "elicit/flows/x",
        "",
        "/elicit/" + "x" * 3000,
        "/elicit/%25252525252e%25252525252e/evil",  # still changing after every round
        None,
        42,
    ],
)
def test_a_next_that_leaves_the_pages_goes_to_their_start(wanted: object) -> None:
    assert safe_next(BASE, wanted) == START


@pytest.mark.parametrize(
    ("wanted", "goes_to"),
    [
        ("/elicit/flows/abc", "/elicit/flows/abc"),
        ("/elicit/flows/abc/status", "/elicit/flows/abc/status"),
        ("/elicit/flows/abc?x=1&y=%2F", "/elicit/flows/abc?x=1&y=%2F"),
        ("/elicit/flows/../flows/abc", "/elicit/flows/abc"),
        ("/elicit/./flows//abc", "/elicit/flows/abc"),
        ("/elicit/%66lows/abc", "/elicit/flows/abc"),
        ("/elicit/flows/a%3Fb", "/elicit/flows/a%3Fb"),
        ("/elicit", "/elicit"),
        ("/elicit/", "/elicit/"),
    ],
)
def test_a_next_under_the_pages_is_followed_normalised(wanted: str, goes_to: str) -> None:
    assert safe_next(BASE, wanted) == goes_to


def test_pages_mounted_at_the_root_still_refuse_other_hosts() -> None:
    assert safe_next("", "/flows/abc") == "/flows/abc"
    assert safe_next("", "/a/../../b") == "/b"
    assert safe_next("", "//evil.example") == "/"
    assert safe_next("", "/\\evil.example") == "/"
    # Decoded or resolved into "//host", it is a path on this server, never a host.
    assert safe_next("", "/%2f/evil.example") == "/evil.example"
    assert safe_next("", "/..//evil.example") == "/evil.example"
