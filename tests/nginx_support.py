"""nginx in front of several server instances, for the tests (a helper module, not tests).

The configuration is the one docs/deploy.md shows: a request whose ``Mcp-Session-Id`` starts
with an instance's tag (``a.``) goes to that instance; any other request (``initialize``,
2026-07-28 requests, the hosted pages) goes round-robin. The access log records which
instance answered each request (``$upstream_addr``), so a test can show where they went.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from tests import markers
from tests.peers import missing

NGINX = "/usr/sbin/nginx"


def config(listen: int, instances: Mapping[str, int]) -> str:
    """nginx.conf for ``127.0.0.1:listen`` in front of ``instances`` (tag -> port)."""
    tags = "\n".join(f"        ~^{tag}\\. instance_{tag};" for tag in instances)
    upstreams = "\n".join(
        f"    upstream instance_{tag} {{ server 127.0.0.1:{port}; }}"
        for tag, port in instances.items()
    )
    everyone = "\n".join(f"        server 127.0.0.1:{port};" for port in instances.values())
    return f"""
worker_processes 1;
pid nginx.pid;
error_log error.log warn;
events {{ worker_connections 4096; }}
http {{
    log_format routed '$request_method $uri $http_mcp_session_id -> $upstream_addr $status';
    access_log access.log routed;
    client_body_temp_path tmp/body;
    proxy_temp_path tmp/proxy;
    fastcgi_temp_path tmp/fastcgi;
    uwsgi_temp_path tmp/uwsgi;
    scgi_temp_path tmp/scgi;

    # 2025-era sessions live in one instance: its tag leads the session id (SessionTag).
    map $http_mcp_session_id $mcp_upstream {{
{tags}
        default everyone;
    }}
{upstreams}
    upstream everyone {{
{everyone}
    }}
    server {{
        listen 127.0.0.1:{listen};
        location / {{
            proxy_pass http://$mcp_upstream;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            # Server-sent events and held requests: no buffering, human-length timeouts.
            proxy_buffering off;
            proxy_read_timeout 3600s;
            proxy_send_timeout 3600s;
        }}
    }}
}}
"""


@dataclass
class Nginx:
    port: int
    folder: Path

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.origin}/mcp"

    def routed(self) -> list[str]:
        """The access log, one line per request: ``METHOD URI SESSION -> UPSTREAM STATUS``."""
        log = self.folder / "access.log"
        return log.read_text().splitlines() if log.exists() else []


@contextlib.contextmanager
def nginx(folder: Path, listen: int, instances: Mapping[str, int]) -> Iterator[Nginx]:
    markers.require("slow")
    if not Path(NGINX).is_file() and shutil.which("nginx") is None:
        missing("nginx (Debian's nginx package; make nginx installs it)")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tmp").mkdir(exist_ok=True)
    (folder / "nginx.conf").write_text(config(listen, instances))
    command = [NGINX, "-p", str(folder), "-c", "nginx.conf", "-g", "daemon off;"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 10
    try:
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", listen)) == 0:
                    break
            if process.poll() is not None or time.monotonic() > deadline:
                error = process.stderr.read().decode() if process.stderr else ""
                raise RuntimeError(f"nginx did not start: {error}")
            time.sleep(0.05)
        yield Nginx(listen, folder)
    finally:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()
