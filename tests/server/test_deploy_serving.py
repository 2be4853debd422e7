"""Serving the hosted pages: off loopback only over https (unless a developer opts in), and
the uvicorn settings an operator needs under load reach uvicorn."""

from __future__ import annotations

import re
from typing import Any

import pytest
import uvicorn
from mcp.server.mcpserver import MCPServer

from mcp_elicit.server import DeploymentKey, Elicitation
from mcp_elicit.server.pages.hosts import INSECURE_HTTP_VARIABLE, is_loopback_host
from mcp_elicit.server.serving import DEFAULT_UVICORN_OPTIONS
from tests.identities import HeaderIdentity

pytestmark = pytest.mark.anyio


@pytest.fixture(autouse=True)
def no_opt_in(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(INSECURE_HTTP_VARIABLE, raising=False)


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[uvicorn.Config]:
    """uvicorn as run() starts it, without a socket: each config it was given."""
    configs: list[uvicorn.Config] = []

    async def serve(self: uvicorn.Server, sockets: Any = None) -> None:
        configs.append(self.config)

    monkeypatch.setattr(uvicorn.Server, "serve", serve)
    return configs


def elicitation(public_url: str | None = None) -> Elicitation:
    # An identity that tells users apart: LocalIdentity is refused off loopback anyway.
    return Elicitation(
        MCPServer("pay-desk"),
        key=DeploymentKey.generate(),
        store="memory://",
        identity=HeaderIdentity(),
        public_url=public_url,
    )


# -- off loopback, https only ------------------------------------------------------------------


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10", "pay.example"])
async def test_a_public_host_without_a_public_url_is_refused(
    host: str, served: list[uvicorn.Config]
) -> None:
    # The attack: secrets typed into pages served over plain http on a public interface.
    with pytest.raises(ValueError, match="needs public_url") as caught:
        await elicitation().run_async("streamable-http", host=host, port=8000)
    message = str(caught.value)
    assert f"serving on host {host!r}" in message
    assert "public_url='https://...'" in message
    assert "allow_insecure_http=True" in message and INSECURE_HTTP_VARIABLE in message
    assert served == [], "nothing was started"


@pytest.mark.parametrize("host", ["0.0.0.0", "127.0.0.1"])
@pytest.mark.parametrize(
    "public_url", ["http://pay.example", "http://192.0.2.10:8000", "http://[2001:db8::1]"]
)
async def test_an_http_public_url_off_loopback_is_refused(
    host: str, public_url: str, served: list[uvicorn.Config]
) -> None:
    # Behind a proxy that forwards plain http from the outside: the same attack.
    with pytest.raises(ValueError, match="over plain http") as caught:
        await elicitation(public_url).run_async("streamable-http", host=host, port=8000)
    message = str(caught.value)
    assert f"public_url {public_url!r}" in message
    assert "https://" in message and "allow_insecure_http=True" in message
    assert served == []


async def test_a_stdio_server_with_an_http_public_url_off_loopback_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    started: list[bool] = []

    async def run_stdio(self: Any) -> None:
        started.append(True)

    monkeypatch.setattr(MCPServer, "run_stdio_async", run_stdio)
    with pytest.raises(ValueError, match=re.escape("public_url 'http://tunnel.example'")):
        await elicitation("http://tunnel.example").run_async("stdio")
    assert started == []


def test_the_pages_app_and_mount_refuse_an_http_public_url_off_loopback() -> None:
    from starlette.applications import Starlette

    made = elicitation("http://pay.example")
    pay = re.escape("public_url 'http://pay.example'")
    with pytest.raises(ValueError, match=pay):
        made.pages_app()
    with pytest.raises(ValueError, match=pay):
        made.mount(Starlette())
    made.pages_app(allow_insecure_http=True)
    made.mount(Starlette(), allow_insecure_http=True)
    elicitation("https://pay.example").pages_app()


def test_a_public_url_set_after_the_pages_are_built_is_held_to_https() -> None:
    # The pages read public_url on each request: setting it later must not slip past the
    # check the pages were built with.
    made = elicitation()
    made.pages_app()
    with pytest.raises(ValueError, match=re.escape("public_url 'http://pay.example'")):
        made.public_url = "http://pay.example"
    assert made.public_url is None  # nothing was set
    made.public_url = "https://pay.example"
    made.public_url = "http://127.0.0.1:8000"  # loopback may stay plain http
    # Built with the development allowance, a later http public_url is allowed too.
    dev = elicitation()
    dev.pages_app(allow_insecure_http=True)
    dev.public_url = "http://pay.example"


async def test_running_refuses_an_http_public_url_off_loopback() -> None:
    # running() is what a host that mounts the pages itself (or a test) starts; it sends
    # links to public_url, so it holds it to https as well.
    made = elicitation("http://pay.example")
    with pytest.raises(ValueError, match=re.escape("public_url 'http://pay.example'")):
        async with made.running():
            pass
    made.pages_app(allow_insecure_http=True)
    async with made.running():
        pass


@pytest.mark.parametrize(
    ("host", "public_url", "expected"),
    [
        ("0.0.0.0", "https://pay.example", "https://pay.example"),
        ("::", "https://pay.example:8443/", "https://pay.example:8443"),
        ("127.0.0.1", None, "http://127.0.0.1:8000"),
        ("::1", None, "http://[::1]:8000"),
        ("localhost", None, "http://localhost:8000"),
        ("127.0.0.1", "http://localhost:8000", "http://localhost:8000"),
        ("127.0.0.1", "http://pages.localhost:8000", "http://pages.localhost:8000"),
        ("127.0.0.1", "http://127.0.0.2:8000", "http://127.0.0.2:8000"),
        ("127.0.0.1", "https://pay.example", "https://pay.example"),
    ],
)
async def test_https_and_loopback_http_are_served(
    host: str, public_url: str | None, expected: str, served: list[uvicorn.Config]
) -> None:
    made = elicitation(public_url)
    await made.run_async("streamable-http", host=host, port=8000)
    (config,) = served
    assert config.host == host and config.port == 8000
    assert made.public_url == expected


@pytest.mark.parametrize("value", ["1", "true", "YES"])
async def test_the_environment_opts_in_to_plain_http_for_development(
    monkeypatch: pytest.MonkeyPatch, served: list[uvicorn.Config], value: str
) -> None:
    monkeypatch.setenv(INSECURE_HTTP_VARIABLE, value)
    await elicitation("http://laptop.lan:8000").run_async("streamable-http", host="0.0.0.0")
    await elicitation().run_async("streamable-http", host="0.0.0.0")
    assert len(served) == 2


async def test_the_parameter_opts_in_to_plain_http_for_development(
    served: list[uvicorn.Config],
) -> None:
    made = elicitation()
    await made.run_async("streamable-http", host="0.0.0.0", port=8000, allow_insecure_http=True)
    assert made.public_url == "http://0.0.0.0:8000"
    assert len(served) == 1


@pytest.mark.parametrize("value", ["0", "", "no", "false"])
async def test_other_values_of_the_variable_opt_in_to_nothing(
    monkeypatch: pytest.MonkeyPatch, served: list[uvicorn.Config], value: str
) -> None:
    monkeypatch.setenv(INSECURE_HTTP_VARIABLE, value)
    with pytest.raises(ValueError, match="public_url"):
        await elicitation().run_async("streamable-http", host="0.0.0.0")
    assert served == []


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("LOCALHOST.", True),
        ("pages.localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("localhost.example", False),
        ("mylocalhost", False),
        ("", False),
    ],
)
def test_loopback_hosts(host: str, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback


# -- uvicorn settings ----------------------------------------------------------------------------


async def test_the_default_keep_alive_outlasts_client_pools(served: list[uvicorn.Config]) -> None:
    await elicitation().run_async("streamable-http", port=8000)
    (config,) = served
    # httpx (and so the SDK's client) keeps an idle connection 5 s: the server must keep it
    # longer, or a reused connection meets the server's close (docs/deployment.md).
    assert config.timeout_keep_alive == DEFAULT_UVICORN_OPTIONS["timeout_keep_alive"] == 75
    # pytest has configured logging: its levels decide (tests/server/test_logs.py).
    assert config.log_level is None and config.log_config is None
    assert config.backlog == 2048 and config.limit_concurrency is None


async def test_uvicorn_options_reach_uvicorn(served: list[uvicorn.Config]) -> None:
    options = {
        "timeout_keep_alive": 120,
        "limit_concurrency": 5000,
        "backlog": 4096,
        "h11_max_incomplete_event_size": 65536,
        "log_level": "info",
        "timeout_graceful_shutdown": 10,
    }
    await elicitation().run_async("streamable-http", port=8000, uvicorn_options=options)
    (config,) = served
    for name, value in options.items():
        assert getattr(config, name) == value, name


def test_run_passes_uvicorn_options_on(served: list[uvicorn.Config]) -> None:
    elicitation().run("streamable-http", port=8000, uvicorn_options={"timeout_keep_alive": 90})
    (config,) = served
    assert config.timeout_keep_alive == 90


async def test_with_uvicorn_serving_tls_the_pages_are_https(
    served: list[uvicorn.Config],
) -> None:
    made = elicitation()
    options = {"ssl_certfile": "/etc/pay/cert.pem", "ssl_keyfile": "/etc/pay/key.pem"}
    await made.run_async("streamable-http", port=8443, uvicorn_options=options)
    assert made.public_url == "https://127.0.0.1:8443"
    assert served[0].ssl_certfile == "/etc/pay/cert.pem"


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ({"keep_alive": 75}, "uvicorn.Config has no option 'keep_alive'"),
        ({"host": "0.0.0.0"}, "'host' is not an option here"),
        ({"port": 1}, "'port' is not an option here"),
        ({"workers": 4}, "'workers' is not an option here"),
        ({"lifespan": "off"}, "'lifespan' is not an option here"),
        ({"app": None}, "'app' is not an option here"),
    ],
)
async def test_unusable_uvicorn_options_are_refused_by_name(
    options: dict[str, Any], said: str, served: list[uvicorn.Config]
) -> None:
    with pytest.raises(ValueError, match=said):
        await elicitation().run_async("streamable-http", uvicorn_options=options)
    assert served == []


async def test_uvicorn_options_are_refused_on_stdio() -> None:
    with pytest.raises(ValueError, match="uvicorn_options are for run"):
        await elicitation().run_async("stdio", uvicorn_options={"timeout_keep_alive": 75})
