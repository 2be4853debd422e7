"""``ask_url`` and ``UrlRequired`` hold a tool author's link to the rules of our own hosted
pages (mcp_elicit.server.link_rules), before anything is sent:

- CHECKLIST #87 (2025-11-25 and 2026-07-28, SHOULD): HTTPS URLs outside development. Plain
  ``http://`` on a host that is not loopback is refused unless ``allow_insecure_http=True``
  (or ``MCP_ELICIT_ALLOW_INSECURE_HTTP=1``, as for ``public_url``); loopback stays allowed.
- CHECKLIST #84 (2025-11-25 and 2026-07-28, MUST NOT): no sensitive end-user information
  (credentials, PII) in the URL. A credential-named parameter, an email address, a token, a
  user name or password before the host are refused unless ``allow_sensitive_data=True``.

The refusal is :class:`UnsafeLink` (a ``ToolError``): it names the rule and the offending part
and never the value there.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError

from mcp_elicit._sdk import ElicitingSdkClient
from mcp_elicit.server import DeploymentKey, Elicitation, UnsafeLink, UrlRequired, ask_url
from mcp_elicit.server.link_rules import (
    INSECURE_HTTP_VARIABLE,
    refuse_unsafe_link,
    sensitive_parts,
)
from mcp_elicit.testing import connect

pytestmark = pytest.mark.anyio

PLAIN_HTTP = "http://pages.example.com/connect"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbm5AZXhhbXBsZS5jb20ifQ.c2lnbmF0dXJlLXNpZ25hdHVyZQ"
# (link, what the error must name, the values it must never repeat)
SENSITIVE = {
    "email": (
        "https://pages.example.com/connect?to=ann%40example.com",
        "query parameter 'to' (an email address)",
        ["ann@example.com", "ann%40example.com"],
    ),
    "password": (
        "https://pages.example.com/connect?password=hunter2",
        "query parameter 'password' (named like a credential: 'password')",
        ["hunter2"],
    ),
    "api-key": (
        "https://pages.example.com/connect?apiKey=k-12345",
        "query parameter 'apiKey' (named like a credential: 'api key')",
        ["k-12345"],
    ),
    "token-value": (
        f"https://pages.example.com/connect?session={JWT}",
        "query parameter 'session' (a value that looks like a token)",
        [JWT, JWT[:20]],
    ),
    "github-token": (
        "https://pages.example.com/connect?k=ghp_abcdefghijklmnopqrstuvwxyz0123",
        "query parameter 'k' (a value that looks like a token)",
        ["ghp_abcdefghij"],
    ),
    "fragment-token": (
        "https://pages.example.com/callback#access_token=abc123xyz",
        "fragment parameter 'access_token' (named like a credential: 'token')",
        ["abc123xyz"],
    ),
    "user-info": (
        "https://ann:hunter2@pages.example.com/connect",
        "a user name or password before the host",
        ["hunter2", "ann:"],
    ),
    "email-in-path": (
        "https://pages.example.com/users/ann@example.com/settings",
        "a path segment (an email address)",
        ["ann@example.com"],
    ),
}
ALLOWED = [
    "https://pages.example.com/connect",
    # The 2025-11-25 specification's own example: an id of the server's in the query.
    "https://mcp.example.com/connect?elicitationId=550e8400-e29b-41d4-a716-446655440000",
    "https://pages.example.com/connect?state=Zm9vYmFyYmF6cXV4cXV1eA&lang=en&next=%2Fdone",
    # Loopback over plain http: a stdio server's own pages, local development.
    "http://127.0.0.1:8765/elicit/flows/abc",
    "http://localhost:3000/connect",
    "http://[::1]:9/connect",
    "http://app.localhost/connect",
]


@pytest.fixture(autouse=True)
def no_insecure_http_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(INSECURE_HTTP_VARIABLE, raising=False)


# -- the rules, as the tool author meets them ---------------------------------------------------


def test_plain_http_off_loopback_is_refused_naming_the_rule_and_the_opt_out() -> None:
    with pytest.raises(UnsafeLink) as raised:
        refuse_unsafe_link(f"{PLAIN_HTTP}?next=%2Fhome", where="ask_url()")
    said = str(raised.value)
    assert said.startswith("ask_url(): the link 'http://pages.example.com/connect?•••' ")
    assert "plain http on a host that is not loopback (HTTPS outside development)" in said
    assert "allow_insecure_http=True" in said and INSECURE_HTTP_VARIABLE in said
    assert isinstance(raised.value, ValueError)  # a bad argument, like LinkInText


def test_plain_http_off_loopback_is_allowed_by_name_or_by_the_pages_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    refuse_unsafe_link(PLAIN_HTTP, where="ask_url()", allow_insecure_http=True)
    monkeypatch.setenv(INSECURE_HTTP_VARIABLE, "1")
    refuse_unsafe_link(PLAIN_HTTP, where="ask_url()")


@pytest.mark.parametrize("case", SENSITIVE)
def test_sensitive_information_in_the_link_is_refused_without_repeating_it(case: str) -> None:
    url, named, secret_values = SENSITIVE[case]
    with pytest.raises(UnsafeLink) as raised:
        refuse_unsafe_link(url, where="UrlRequired")
    said = str(raised.value)
    assert said.startswith("UrlRequired: the link '")
    assert named in said
    assert "MUST NOT carry credentials or personal data" in said
    assert "allow_sensitive_data=True" in said
    for value in secret_values:
        assert value not in said


@pytest.mark.parametrize("case", SENSITIVE)
def test_sensitive_information_is_allowed_by_name(case: str) -> None:
    url, _, _ = SENSITIVE[case]
    refuse_unsafe_link(url, where="ask_url()", allow_sensitive_data=True)


def test_one_opt_out_does_not_lift_the_other_rule() -> None:
    with pytest.raises(UnsafeLink, match="allow_insecure_http"):
        refuse_unsafe_link(f"{PLAIN_HTTP}?ok=1", where="ask_url()", allow_sensitive_data=True)
    with pytest.raises(UnsafeLink, match="allow_sensitive_data"):
        refuse_unsafe_link(f"{PLAIN_HTTP}?pwd=x", where="ask_url()", allow_insecure_http=True)


@pytest.mark.parametrize("url", ALLOWED)
def test_links_that_break_no_rule_pass(url: str) -> None:
    assert sensitive_parts(url) == []
    refuse_unsafe_link(url, where="ask_url()")


# -- through a real session: refused before anything is sent ------------------------------------


def link_server() -> tuple[MCPServer, Elicitation]:
    elicitation = Elicitation(key=DeploymentKey.generate(), store="memory://")
    elicitation.public_url = "http://127.0.0.1:9"  # no page is visited in these tests
    server = MCPServer("links", **elicitation.server_options())

    @server.tool()
    async def open_link(ctx: Context, url: str, insecure: bool, sensitive: bool) -> str:
        answer = await ask_url(
            ctx,
            url,
            "Connect your account",
            allow_insecure_http=insecure,
            allow_sensitive_data=sensitive,
        )
        return repr(answer)

    @server.tool()
    async def link_first(ctx: Context, url: str, insecure: bool, sensitive: bool) -> str:
        raise UrlRequired(
            url,
            "Connect your account",
            allow_insecure_http=insecure,
            allow_sensitive_data=sensitive,
        )

    return server, elicitation


def arguments(url: str, *, insecure: bool = False, sensitive: bool = False) -> dict[str, Any]:
    return {"url": url, "insecure": insecure, "sensitive": sensitive}


REFUSED = [
    (PLAIN_HTTP, "plain http on a host that is not loopback"),
    (SENSITIVE["email"][0], "query parameter 'to' (an email address)"),
    (SENSITIVE["password"][0], "query parameter 'password'"),
]


@pytest.mark.parametrize(("url", "said"), REFUSED)
async def test_ask_url_refuses_the_link_and_sends_nothing(url: str, said: str) -> None:
    # Before: the link was sent to the client as it was, without a word.
    server, elicitation = link_server()
    with anyio.fail_after(20):
        async with connect(
            server, protocol="2025-11-25", elicitation=elicitation, answers=[{"action": "accept"}]
        ) as mcp:
            result = await mcp.call("open_link", arguments(url))
    assert result.is_error and "ask_url(): the link" in result.text and said in result.text
    assert mcp.asked == [] and mcp.opened == []


@pytest.mark.parametrize(
    ("url", "opt_out"),
    [
        (PLAIN_HTTP, {"insecure": True}),
        (SENSITIVE["email"][0], {"sensitive": True}),
        ("http://127.0.0.1:8765/connect", {}),
    ],
)
async def test_ask_url_sends_the_link_when_allowed(url: str, opt_out: dict[str, bool]) -> None:
    server, elicitation = link_server()
    with anyio.fail_after(20):
        async with connect(
            server, protocol="2025-11-25", elicitation=elicitation, answers=[{"action": "accept"}]
        ) as mcp:
            await mcp.call("open_link", arguments(url, **opt_out))
    assert [question.url for question in mcp.asked] == [url]


async def raw_call(mcp: Any, tool: str, args: dict[str, Any]) -> Any:
    """The call as sent and answered, with no -32042 handled by our client."""
    sdk = mcp.client.sdk
    assert isinstance(sdk, ElicitingSdkClient)
    return await sdk.dispatcher.send_raw_request(
        "tools/call", {"name": tool, "arguments": args}, {}
    )


@pytest.mark.parametrize(("url", "said"), REFUSED)
async def test_url_required_refuses_the_link_and_sends_no_32042(url: str, said: str) -> None:
    server, elicitation = link_server()
    with anyio.fail_after(20):
        async with connect(server, protocol="2025-11-25", elicitation=elicitation) as mcp:
            result = await raw_call(mcp, "link_first", arguments(url))
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert "UrlRequired: the link" in text and said in text
    for value in ("hunter2", "ann%40example.com", "ann@example.com"):
        assert value not in text  # the query is shown as '?•••'


@pytest.mark.parametrize(
    ("url", "opt_out"),
    [
        (PLAIN_HTTP, {"insecure": True}),
        (SENSITIVE["password"][0], {"sensitive": True}),
        ("http://localhost:3000/connect", {}),
    ],
)
async def test_url_required_sends_the_link_when_allowed(url: str, opt_out: dict[str, bool]) -> None:
    server, elicitation = link_server()
    with anyio.fail_after(20):
        async with connect(server, protocol="2025-11-25", elicitation=elicitation) as mcp:
            with pytest.raises(MCPError) as raised:
                await raw_call(mcp, "link_first", arguments(url, **opt_out))
    assert raised.value.error.code == -32042
    data = raised.value.error.data
    assert isinstance(data, dict)
    assert [item["url"] for item in data["elicitations"]] == [url]
