"""The hosted pages show other people's words (the server's name, the author's message, the
secret's label, the client's name): a bidirectional override or an invisible character in
them reaches no page as itself. Each is written out as ``\\u{…}``, as the client shows it."""

from __future__ import annotations

import unicodedata
from collections.abc import AsyncIterator

import httpx2
import pytest
from mcp.server.mcpserver import MCPServer
from starlette.applications import Starlette
from starlette.routing import Mount

from mcp_elicit.server import Elicitation
from mcp_elicit.server.keys import DeploymentKey
from mcp_elicit.server.pages import PAGES_PREFIX, SECRET_PURPOSE, flow_path, html
from mcp_elicit.stores import FlowStatus
from tests.identities import TEST_USER_HEADER, HeaderIdentity

pytestmark = pytest.mark.anyio

PORT = 8123
ORIGIN = f"http://127.0.0.1:{PORT}"
ALICE = {TEST_USER_HEADER: "alice"}
BOB = {TEST_USER_HEADER: "bob"}

# "Trojan Source": each reorders how the text after it is displayed. Plus the invisible ones.
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
INVISIBLE = "\u200b\u200d\u2060\ufeff\u2028\u2029\x1b"

# What a person would read as "Acme Bank": the override flips the rest of the name.
SERVER = "Acme \u202eknaB"
MESSAGE = "Your key, to pay \u202e01$\u202c only.\nSecond line\u2066 here\u2069."
LABEL = "API\u200b key\u2067"
CLIENT = "Good\u202d App\u202c"


def hidden_in(page: str) -> list[str]:
    """Every character on ``page`` that would reorder or hide text."""
    return [
        f"U+{ord(c):04X}"
        for c in page
        if c in BIDI or c in INVISIBLE or unicodedata.category(c) in ("Cf", "Cc", "Zl", "Zp")
        if c not in "\n\t"
    ]


@pytest.fixture
async def browser() -> AsyncIterator[tuple[Elicitation, httpx2.AsyncClient]]:
    elicitation = Elicitation(
        MCPServer(SERVER),
        key=DeploymentKey.generate(),
        store="memory://",
        identity=HeaderIdentity(login="https://login.example/\u202esignin"),
    )
    app = Starlette(routes=[Mount(PAGES_PREFIX, app=elicitation.pages_app(loopback_port=PORT))])
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url=ORIGIN) as client:
        yield elicitation, client
    await elicitation.store.aclose()


async def start(elicitation: Elicitation) -> str:
    details = {"name": "PAY_KEY", "label": LABEL, "message": MESSAGE, "client": CLIENT}
    flow = await elicitation.flows.start(user="alice", purpose=SECRET_PURPOSE, details=details)
    return flow.id


async def test_every_page_shows_the_texts_without_their_controls(
    browser: tuple[Elicitation, httpx2.AsyncClient],
) -> None:
    elicitation, client = browser
    flow_id = await start(elicitation)
    path = flow_path(flow_id)
    pages = {
        "entry": await client.get(path, headers=ALICE),
        "waiting": await client.get(f"{path}/status", headers=ALICE),
        "refused": await client.get(path, headers=BOB),
        "missing": await client.get(flow_path("no-such-flow"), headers=ALICE),
        "forged": await client.post(path, headers=ALICE, data={"action": "submit"}),
        "problem": await client.request("PUT", path, headers=ALICE),
    }
    for status in (FlowStatus.COMPLETED, FlowStatus.DECLINED):
        declined = await start(elicitation)
        if status is FlowStatus.COMPLETED:
            await elicitation.flows.complete(declined, user="alice")
        else:
            await elicitation.flows.decline(declined, user="alice")
        pages[status.value] = await client.get(f"{flow_path(declined)}/status", headers=ALICE)
    for name, response in pages.items():
        page = response.text
        assert "text/html" in response.headers["content-type"], name
        assert hidden_in(page) == [], name
        # The name is still there, with the override made visible.
        assert "Acme \\u{202e}knaB" in page, name
    entry = pages["entry"].text
    assert "Your key, to pay \\u{202e}01$\\u{202c} only.\nSecond line\\u{2066} here\\u{2069}." in (
        entry
    )
    assert "API\\u{200b} key\\u{2067}" in entry
    assert "Good\\u{202d} App\\u{202c}" in entry
    assert "Good\\u{202d} App\\u{202c}" in pages["completed"].text
    assert "https://login.example/\\u{202e}signin" in pages["refused"].text


@pytest.mark.parametrize("char", list(BIDI + INVISIBLE))
def test_each_control_is_written_out_on_every_page_function(char: str) -> None:
    text = f"a{char}b"
    base = "/elicit"
    made = [
        html.entry_page(
            base=base,
            server_name=text,
            flow_id="f",
            label=text,
            message=text,
            token="t",
            client=text,
            error=text,
        ),
        *(
            html.status_page(
                base=base, server_name=text, flow_id="f", status=s, label=text, client=text
            )
            for s in FlowStatus
        ),
        html.refused_page(base=base, server_name=text, login_url=text),
        html.not_found_page(base=base, server_name=text),
        html.forged_page(base=base, server_name=text, flow_id="f"),
        html.problem_page(base=base, server_name=text, title=text, message=text),
    ]
    for page in made:
        assert char not in page
        assert f"a\\u{{{ord(char):04x}}}b" in page


def test_ordinary_text_of_every_script_is_left_alone() -> None:
    for text in ("Café Zürich", "東京の天気", "مرحبا بالعالم", "Ελληνικά", "a\u00a0b", "😀"):
        page = html.not_found_page(base="/elicit", server_name=text)
        assert f'<p class="server">{text}</p>' in page
