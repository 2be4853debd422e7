"""A client on the official TypeScript SDK v2 (``tests/peers_ts/elicit_client.ts`` on
``@modelcontextprotocol/client``) against our servers, each run as a subprocess:
``examples/conformance_server.py`` (Streamable HTTP), ``examples/server_quickstart.py`` and
the demo's ``mcp_elicit.demo.hotel_server`` (stdio, and Streamable HTTP through
``Elicitation.run("streamable-http")``), on every revision both sides speak.

The TypeScript client answers from a script (``--answers``) and prints a JSON report: the
negotiated revision, each elicitation it answered, and the tool's result or the error. For a
secret, the test acts as the person's browser: when the client reports the link, it opens the
hosted page and enters the value there (the value never passes through either client).
docs/compatibility.md sums up what these tests found.
"""

from __future__ import annotations

import json
import re
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.served import Served
from tests.typescript_support import enter_on_page, ts_client

pytestmark = [pytest.mark.node, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
REVISIONS = ["2025-06-18", "2025-11-25", "2026-07-28"]
URL_REVISIONS = ["2025-11-25", "2026-07-28"]

CONFORMANCE_SERVER = ROOT / "examples" / "conformance_server.py"
QUICKSTART = [sys.executable, str(ROOT / "examples" / "server_quickstart.py")]
QUICKSTART_HTTP = (
    "import runpy, sys; example = runpy.run_path(sys.argv[1]); "
    "example['elicitation'].run(example['server'], 'streamable-http', port=int(sys.argv[2]))"
)
HOTEL_HTTP = (
    "import sys; from mcp_elicit.demo.hotel_server import build; "
    "build(store=sys.argv[1]).run('streamable-http', port=int(sys.argv[2]))"
)
STAY = {"guest": "Ada", "arrival": "2026-12-01"}


# -- the TypeScript client -------------------------------------------------------------------


def answers(*entries: dict[str, Any]) -> str:
    return json.dumps(list(entries))


def protocol_options(protocol: str) -> list[str]:
    return ["--protocol", protocol]


# -- servers -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A deployment key and a state directory (the quickstart's default SQLite store) shared
    by every server process of this module."""
    state = tmp_path_factory.mktemp("state")
    return {"MCP_ELICIT_KEY": secrets.token_urlsafe(32), "XDG_STATE_HOME": str(state)}


@pytest.fixture(scope="module")
def conformance(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    served = Served(
        lambda port: [sys.executable, str(CONFORMANCE_SERVER), "--port", str(port)],
        log=tmp_path_factory.mktemp("conformance") / "server.log",
    )
    yield served
    served.stop()


@pytest.fixture(scope="module")
def quickstart_http(
    tmp_path_factory: pytest.TempPathFactory, deployment: dict[str, str]
) -> Iterator[Served]:
    script = str(ROOT / "examples" / "server_quickstart.py")
    served = Served(
        lambda port: [sys.executable, "-c", QUICKSTART_HTTP, script, str(port)],
        log=tmp_path_factory.mktemp("quickstart") / "server.log",
        env=deployment,
    )
    yield served
    served.stop()


@pytest.fixture(scope="module")
def hotel_http(
    tmp_path_factory: pytest.TempPathFactory, deployment: dict[str, str]
) -> Iterator[Served]:
    store = f"sqlite:///{tmp_path_factory.mktemp('hotel-http') / 'hotel.db'}"
    served = Served(
        lambda port: [sys.executable, "-c", HOTEL_HTTP, store, str(port)],
        log=tmp_path_factory.mktemp("hotel") / "server.log",
        env=deployment,
    )
    yield served
    served.stop()


@pytest.fixture
def hotel_stdio(tmp_path: Path) -> list[str]:
    """The demo server over stdio, on a SQLite store of this test's own."""
    store = f"sqlite:///{tmp_path / 'hotel.db'}"
    return [sys.executable, "-m", "mcp_elicit.demo.hotel_server", "--store", store]


# -- examples/conformance_server.py (Streamable HTTP) ------------------------------------------


@pytest.mark.parametrize("protocol", [*REVISIONS, "auto"])
def test_conformance_form(conformance: Served, protocol: str) -> None:
    content = {"username": "ada", "email": "ada@example.com"}
    report = ts_client(
        "test_elicitation",
        conformance.url(),
        *protocol_options(protocol),
        "--args",
        json.dumps({"message": "Who are you?"}),
        "--answers",
        answers({"action": "accept", "content": content}),
        env={},
    )
    revision = "2026-07-28" if protocol == "auto" else protocol
    assert (report.data["protocolVersion"], report.data["era"]) == (
        revision,
        "modern" if revision == "2026-07-28" else "legacy",
    )
    assert report.text == (
        "User response: Accepted(value=UserInfo(username='ada', email='ada@example.com'))"
    )
    [asked] = report.data["elicitations"]
    assert asked["requestedSchema"]["required"] == ["username", "email"]


@pytest.mark.parametrize("protocol", REVISIONS)
def test_conformance_defaults_filled_in_by_the_ts_client(
    conformance: Served, protocol: str
) -> None:
    # `{}` accepted with applyDefaults: the TS SDK fills the schema's defaults in before the
    # answer is sent (2025-06-18 has defaults on booleans only; the server fills the rest).
    report = ts_client(
        "test_elicitation_sep1034_defaults",
        conformance.url(),
        *protocol_options(protocol),
        "--apply-defaults",
        "--answers",
        answers({"action": "accept"}),
        env={},
    )
    assert report.text == (
        "Elicitation completed: Accepted(value=Defaults(name='John Doe', age=30, "
        "score=95.5, status=<Status.ACTIVE: 'active'>, verified=True))"
    )
    schema = report.data["elicitations"][0]["requestedSchema"]["properties"]
    defaulted = {name for name, field in schema.items() if "default" in field}
    if protocol == "2025-06-18":
        assert defaulted == {"verified"}
    else:
        assert defaulted == {"name", "age", "score", "status", "verified"}


ENUM_ANSWER = {
    "untitledSingle": "option2",
    "titledSingle": "value1",
    "legacyEnum": "opt3",
    "untitledMulti": ["option1", "option3"],
    "titledMulti": [],
}


@pytest.mark.parametrize("protocol", REVISIONS)
def test_conformance_every_enum_shape(conformance: Served, protocol: str) -> None:
    report = ts_client(
        "test_elicitation_sep1330_enums",
        conformance.url(),
        *protocol_options(protocol),
        "--answers",
        answers({"action": "accept", "content": ENUM_ANSWER}),
        env={},
    )
    if protocol == "2025-06-18":
        # Ours, by design (docs/server.md): multi-select has no 2025-06-18 form, so the
        # question is not sent and the tool says why.
        assert report.result["isError"] is True
        assert "multi-select has no form in this revision" in report.text
        assert report.data["elicitations"] == []
        return
    assert report.text == f"Elicitation completed: Accepted(value={ENUM_ANSWER!r})"


@pytest.mark.parametrize("protocol", REVISIONS)
def test_conformance_two_questions_in_sequence(conformance: Served, protocol: str) -> None:
    report = ts_client(
        "test_input_required_result_multi_round",
        conformance.url(),
        *protocol_options(protocol),
        "--answers",
        answers(
            {"action": "accept", "content": {"name": "Ada"}},
            {"action": "accept", "content": {"color": "blue"}},
        ),
        env={},
    )
    assert report.text == "Ada likes blue."
    assert [e["message"] for e in report.data["elicitations"]] == [
        "Step 1: What is your name?",
        "Step 2: What is your favorite color?",
    ]


@pytest.mark.parametrize("protocol", REVISIONS)
def test_conformance_decline(conformance: Served, protocol: str) -> None:
    report = ts_client(
        "test_confirm",
        conformance.url(),
        *protocol_options(protocol),
        "--answers",
        answers({"action": "decline"}),
        env={},
    )
    assert report.text == "not confirmed"


# -- examples/server_quickstart.py ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("transport", "protocol"), [("stdio", "2025-06-18"), *(("http", p) for p in REVISIONS)]
)
def test_quickstart_book(
    quickstart_http: Served, deployment: dict[str, str], transport: str, protocol: str
) -> None:
    target = QUICKSTART if transport == "stdio" else quickstart_http.url()
    report = ts_client(
        "book",
        target,
        *protocol_options(protocol),
        "--answers",
        answers({"action": "accept", "content": {**STAY, "nights": 2}}),
        env=deployment,
    )
    assert report.data["protocolVersion"] == protocol
    assert report.text == "Booked 2 night(s) from 2026-12-01 for Ada."


@pytest.mark.parametrize(
    ("transport", "protocol"), [("stdio", "2025-11-25"), ("http", "2026-07-28")]
)
def test_quickstart_confirmation_declined(
    quickstart_http: Served, deployment: dict[str, str], transport: str, protocol: str
) -> None:
    target = QUICKSTART if transport == "stdio" else quickstart_http.url()
    report = ts_client(
        "cancel",
        target,
        *protocol_options(protocol),
        "--answers",
        answers({"action": "decline"}),
        env=deployment,
    )
    assert report.text == "Kept."


@pytest.mark.parametrize("protocol", URL_REVISIONS)
def test_quickstart_secret_entered_on_the_hosted_page(
    deployment: dict[str, str], tmp_path: Path, protocol: str
) -> None:
    # The link arrives, the TS client consents, the "browser" enters the key on the page;
    # 2025-11-25: the tool was waiting for the flow; 2026-07-28: the retry after the consent
    # is held while the flow is open (url_resume_wait), then the tool runs with the key.
    env = {**deployment, "XDG_STATE_HOME": str(tmp_path)}  # a store of this test's own
    report = ts_client(
        "connect_weather",
        QUICKSTART,
        *protocol_options(protocol),
        "--answers",
        answers({"action": "accept"}),
        env=env,
        on_link=enter_on_page("weather-key-0123456789"),
    )
    assert report.text == "Connected (22 characters)."
    [link] = report.data["elicitations"]
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/elicit/flows/[\w-]+", link["url"]), link
    assert "weather-key-0123456789" not in json.dumps(report.data)


@pytest.mark.parametrize("protocol", URL_REVISIONS)
def test_quickstart_secret_declined(
    quickstart_http: Served, deployment: dict[str, str], protocol: str
) -> None:
    # No test stores a key on this shared server, so the tool asks.
    report = ts_client(
        "connect_weather",
        quickstart_http.url(),
        *protocol_options(protocol),
        "--answers",
        answers({"action": "decline"}),
        env=deployment,
    )
    assert report.text == "Not connected (Declined())."


@pytest.mark.parametrize("protocol", REVISIONS)
def test_quickstart_form_only_client_and_the_secret(
    quickstart_http: Served, deployment: dict[str, str], protocol: str
) -> None:
    report = ts_client(
        "connect_weather",
        quickstart_http.url(),
        *protocol_options(protocol),
        "--form-only",
        env=deployment,
    )
    assert report.data["elicitations"] == []
    if protocol == "2026-07-28":
        assert report.error["code"] == -32021
        assert report.error["data"] == {"requiredCapabilities": {"elicitation": {"url": {}}}}
    else:
        assert report.result["isError"] is True
        assert "web page" in report.text


# -- the demo: mcp_elicit.demo.hotel_server -------------------------------------------------------
#
# The shared HTTP hotel keeps one vault (one local user): a test that needs "no key yet"
# forgets it first.

BOOKED = re.compile(
    r"Booked B-\d+: Ada, standard room, 2026-12-01 to 2026-12-02 \(1 night\), no breakfast, "
    r"(?P<extras>[a-z ,]+)\. Total €(?P<total>\d+)(?P<skipped>.*)\."
)


def no_key(hotel: Served, env: dict[str, str]) -> str:
    """The shared hotel's URL, its weather key forgotten."""
    url = hotel.url()
    ts_client("forget_weather_key", url, env=env)
    return url


@pytest.mark.parametrize(
    ("transport", "protocol"), [("stdio", "2025-11-25"), *(("http", p) for p in REVISIONS)]
)
def test_hotel_book_room_with_defaults_filled_in(
    hotel_http: Served,
    hotel_stdio: list[str],
    deployment: dict[str, str],
    transport: str,
    protocol: str,
) -> None:
    # The stay form: only the required fields are given, applyDefaults fills in the rest
    # (1 night, standard room, no breakfast: a falsy default). Then the extras (multi-select).
    target = hotel_stdio if transport == "stdio" else hotel_http.url()
    report = ts_client(
        "book_room",
        target,
        *protocol_options(protocol),
        "--apply-defaults",
        "--answers",
        answers(
            {"action": "accept", "content": STAY},
            {"action": "accept", "content": {"choice": ["parking"]}},
        ),
        env=deployment,
    )
    booked = BOOKED.fullmatch(report.text)
    assert booked is not None, report.text
    if protocol == "2025-06-18":
        # Ours, by design: no multi-select in 2025-06-18, so the extras are not asked.
        assert len(report.data["elicitations"]) == 1
        assert booked["extras"] == "no extras" and booked["total"] == "90"
        assert "extras skipped" in booked["skipped"]
    else:
        assert len(report.data["elicitations"]) == 2
        assert booked["extras"] == "parking" and booked["total"] == "105"


@pytest.mark.parametrize("protocol", URL_REVISIONS)
def test_hotel_book_then_cancel(
    hotel_http: Served, deployment: dict[str, str], protocol: str
) -> None:
    booked = ts_client(
        "book_room",
        hotel_http.url(),
        *protocol_options(protocol),
        "--answers",
        answers({"action": "accept", "content": STAY}, {"action": "decline"}),
        env=deployment,
    )
    booking = re.match(r"Booked (B-\d+)", booked.text)
    assert booking is not None, booked.text
    cancelled = ts_client(
        "cancel_booking",
        hotel_http.url(),
        *protocol_options(protocol),
        "--args",
        json.dumps({"booking_id": booking[1]}),
        "--answers",
        answers({"action": "accept", "content": {"confirm": True}}),
        env=deployment,
    )
    assert cancelled.text == f"Cancelled {booking[1]}."


@pytest.mark.parametrize(
    ("transport", "protocol"), [("stdio", "2025-11-25"), ("http", "2026-07-28")]
)
def test_hotel_key_on_the_page_then_forecast(
    hotel_http: Served,
    hotel_stdio: list[str],
    deployment: dict[str, str],
    transport: str,
    protocol: str,
) -> None:
    # 2025-11-25: the tool waits for the flow. 2026-07-28: the retry after the consent is
    # held while the person is on the page (url_resume_wait), then the tool runs again.
    target = hotel_stdio if transport == "stdio" else no_key(hotel_http, deployment)
    connected = ts_client(
        "connect_weather",
        target,
        *protocol_options(protocol),
        "--answers",
        answers({"action": "accept"}),
        env=deployment,
        on_link=enter_on_page("hotel-weather-key"),
    )
    assert connected.text.startswith("Connected the weather service with key sha256:")
    assert [e["mode"] for e in connected.data["elicitations"]] == ["url"]
    # Over stdio this is a new process on the same store and deployment key: the key is read
    # back from the vault.
    forecast = ts_client("forecast", target, *protocol_options(protocol), env=deployment)
    assert forecast.text.startswith("Lisbon: 19°C")
    assert forecast.data["elicitations"] == forecast.data["urlRequired"] == []


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_hotel_forecast_url_required_then_completion_then_retry(
    hotel_http: Served, hotel_stdio: list[str], deployment: dict[str, str], transport: str
) -> None:
    # 2025-11-25: no key yet, so forecast answers -32042. The TS client consents; the person
    # enters the key on the page; the server sends notifications/elicitation/complete with
    # the error's elicitationId; the TS client retries and gets the forecast.
    target = hotel_stdio if transport == "stdio" else no_key(hotel_http, deployment)
    report = ts_client(
        "forecast",
        target,
        *protocol_options("2025-11-25"),
        "--completion-wait",
        "30000",
        "--answers",
        answers({"action": "accept"}),
        env=deployment,
        on_link=enter_on_page("key-for-the-retry"),
    )
    assert report.text.startswith("Lisbon: 19°C")
    [required] = report.data["urlRequired"]
    assert required["requiredBy"] == "forecast" and required["completedByServer"] is True
    assert report.data["completions"] == [required["elicitationId"]]


def test_hotel_forecast_link_on_2026_07_28(hotel_http: Served, deployment: dict[str, str]) -> None:
    # 2026-07-28: the link is an input request (no -32042); the retry after the consent is
    # held while the person is on the page, then the forecast comes back.
    report = ts_client(
        "forecast",
        no_key(hotel_http, deployment),
        *protocol_options("2026-07-28"),
        "--answers",
        answers({"action": "accept"}),
        env=deployment,
        on_link=enter_on_page("key-for-2026"),
    )
    assert report.text.startswith("Lisbon: 19°C")
    assert [e["mode"] for e in report.data["elicitations"]] == ["url"]
    assert report.data["urlRequired"] == []


@pytest.mark.parametrize("protocol", URL_REVISIONS)
def test_hotel_forecast_declined(
    hotel_http: Served, deployment: dict[str, str], protocol: str
) -> None:
    """2025-11-25: the -32042 stands, and no completion comes. 2026-07-28 (client/elicitation:
    "Servers ... MUST handle cases where the user declines or cancels the elicitation"): the
    call ends with a result. It used to ask for the same link in every round, until the TS
    client, which fulfils input requests itself, gave up after 10 rounds
    (INPUT_REQUIRED_ROUNDS_EXCEEDED)."""
    report = ts_client(
        "forecast",
        no_key(hotel_http, deployment),
        *protocol_options(protocol),
        "--answers",
        answers({"action": "decline"}),
        env=deployment,
    )
    if protocol == "2025-11-25":
        assert report.returncode == 1
        assert report.error["code"] == -32042
        assert report.data["completions"] == []
    else:
        assert "result" in report.data, report.data["error"]["message"]
        assert report.data["result"]["isError"] is True
        assert len(report.data["elicitations"]) == 1


@pytest.mark.parametrize("protocol", REVISIONS)
def test_hotel_form_only_client_and_a_tool_that_needs_a_link(
    hotel_http: Served, deployment: dict[str, str], protocol: str
) -> None:
    report = ts_client(
        "forecast",
        no_key(hotel_http, deployment),
        *protocol_options(protocol),
        "--form-only",
        env=deployment,
    )
    assert report.data["elicitations"] == report.data["urlRequired"] == []
    if protocol == "2026-07-28":
        # -32021 naming the capability it needs: an error the TS client takes as such.
        assert report.error["code"] == -32021
        assert report.error["data"] == {"requiredCapabilities": {"elicitation": {"url": {}}}}
    else:
        assert report.result["isError"] is True
        assert "web page" in report.text
