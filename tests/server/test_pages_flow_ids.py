"""A flow id in a page's URL is whatever the browser sent: one not of a flow id's shape is "not
found" before any store is asked (issue 30, finding 14: on PostgreSQL ``/elicit/flows/a%00b``
answered 500 and logged an error, a NUL being text PostgreSQL refuses).

The pages are served by uvicorn, as a server serves them, on every engine (Redis and
PostgreSQL real, ``services``), so that an error would show as the 500 and the ERROR line a
deployment would see.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx2
import pytest
from starlette.applications import Starlette
from starlette.routing import Mount

from mcp_elicit.flows import Flows
from mcp_elicit.server.keys import DeploymentKey
from mcp_elicit.server.pages import PAGES_PREFIX, SECRET_PURPOSE, hosted_pages, page_hosts
from mcp_elicit.server.vault import Vault
from mcp_elicit.stores import Store, open_store
from tests.identities import TEST_USER_HEADER, HeaderIdentity
from tests.server.instances_support import shared_store
from tests.server_support import serve_on_loopback

pytestmark = pytest.mark.anyio

ALICE = {TEST_USER_HEADER: "alice"}
HOSTILE_IDS = (
    "a%00b",  # a NUL: PostgreSQL refuses it in text
    "%00",
    "x%3Aflow%3Ay",  # Redis' key separator
    "a%20b",
    "%C3%A9",
    "%ED%A0%80",  # the UTF-8 of a lone surrogate
    "a" * 129,  # longer than any id ever minted
)


@asynccontextmanager
async def opened(engine: str, tmp_path: Path) -> AsyncIterator[Store]:
    if engine in ("redis", "postgresql"):
        async with shared_store(engine) as url:
            store = open_store(url)
            try:
                yield store
            finally:
                await store.aclose()
        return
    store = open_store("memory://" if engine == "memory" else f"sqlite:///{tmp_path}/p.db")
    try:
        yield store
    finally:
        await store.aclose()


@pytest.mark.parametrize(
    "engine",
    [
        "memory",
        "sqlite",
        pytest.param("redis", marks=pytest.mark.services),
        pytest.param("postgresql", marks=pytest.mark.services),
    ],
)
async def test_an_id_not_of_flow_shape_is_not_found_and_logs_no_error(
    engine: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with opened(engine, tmp_path) as store:
        key = DeploymentKey.generate()
        flows = Flows(store, server="hotel")
        real = await flows.start(user="alice", purpose=SECRET_PURPOSE, details={"name": "api_key"})
        pages = hosted_pages(
            flows=flows,
            vault=Vault(store, key.derive("vault"), server="hotel"),
            identity=HeaderIdentity(),
            csrf_key=key.derive("csrf"),
            server_name="Hotel",
            allowed_hosts=lambda: page_hosts(public_url=None, loopback_port=served[0]),
        )
        app = Starlette(routes=[Mount(PAGES_PREFIX, app=pages)])
        served: list[int] = []
        caplog.set_level(logging.INFO)
        async with serve_on_loopback(app) as port:
            served.append(port)
            base = f"http://127.0.0.1:{port}{PAGES_PREFIX}/flows"
            async with httpx2.AsyncClient(timeout=10) as client:
                for flow_id in HOSTILE_IDS:
                    for path in (f"{base}/{flow_id}", f"{base}/{flow_id}/status"):
                        page = await client.get(path, headers=ALICE)
                        assert page.status_code == 404, (path, page.status_code)
                        assert "Nothing here" in page.text
                # The store still answers for a real flow: nothing above broke it.
                assert (await client.get(f"{base}/{real.id}", headers=ALICE)).status_code == 200
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert not errors, [r.getMessage() for r in errors]
