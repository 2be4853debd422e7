"""fastmcp's proxy, as benchmark 21 runs it: ``fastmcp.server.create_proxy`` in front of a
server, with fastmcp's defaults (the backend's era mirrors the front's; a fresh backend
client per request, fastmcp's own design).

    .venv/bin/python bench/_fastmcp_proxy.py -- COMMAND [ARGS...]  # stdio, in front of COMMAND
    .venv/bin/python bench/_fastmcp_proxy.py URL --http PORT       # HTTP, in front of URL
"""

from __future__ import annotations

import argparse
import logging
from typing import Any

from fastmcp.client.transports import StdioTransport
from fastmcp.server import create_proxy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP")
    parser.add_argument("target", nargs="+", help="the server's URL, or its command line")
    args = parser.parse_args()
    target: Any
    if args.http is None:
        target = StdioTransport(command=args.target[0], args=args.target[1:])
    else:
        target = args.target[0]
    proxy = create_proxy(target, name="fastmcp-proxy")
    # A tool call that fails (its stdio front cannot send elicitation/create on 2025-11-25) is
    # reported to the client, which is where the benchmark reads it; fastmcp would also print
    # each one's traceback on stderr, which is the benchmark's terminal.
    logging.getLogger("fastmcp").setLevel(logging.CRITICAL)
    if args.http is None:
        proxy.run("stdio", show_banner=False)
    else:
        proxy.run("http", host="127.0.0.1", port=args.http, show_banner=False, log_level="warning")


if __name__ == "__main__":
    main()
