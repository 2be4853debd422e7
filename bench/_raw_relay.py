"""The floor of one extra hop (benchmark 21): a relay that copies messages and understands none.

    .venv/bin/python bench/_raw_relay.py -- COMMAND [ARGS...]   # stdio: starts COMMAND
    .venv/bin/python bench/_raw_relay.py --to PORT --http PORT  # TCP: 127.0.0.1, one to the other

- **stdio**: starts ``COMMAND`` as a child process and copies its own stdin to the child's
  stdin and the child's stdout to its own stdout, line by line (a stdio MCP message is one
  line), on asyncio; the child's stderr is inherited. Stdin's end closes the child's stdin;
  the relay exits when the child's stdout ends.
- **TCP**: listens on ``127.0.0.1:--http`` and, per connection accepted, opens one to
  ``127.0.0.1:--to`` and copies bytes both ways (asyncio streams), half-closing each way as its
  source ends. It never reads HTTP: this is the cost of a hop, not of a proxy.

Nothing of ``mcp`` or ``mcp_elicit`` is imported: what this costs is a process, an event loop
and the copies.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys

LINE_LIMIT = 64 * 1024 * 1024  # one message is one line; the default 64 KiB is too little
CHUNK = 64 * 1024


async def _copy_lines(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    while line := await source.readline():
        sink.write(line)
        await sink.drain()


async def _stdio(command: list[str]) -> int:
    loop = asyncio.get_running_loop()
    child = await asyncio.create_subprocess_exec(
        *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=LINE_LIMIT
    )
    assert child.stdin is not None and child.stdout is not None
    stdin = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, sys.stdout
    )
    stdout = asyncio.StreamWriter(transport, protocol, None, loop)

    async def upstream() -> None:
        assert child.stdin is not None
        with contextlib.suppress(ConnectionError):
            await _copy_lines(stdin, child.stdin)
            child.stdin.close()

    feeding = asyncio.create_task(upstream())
    with contextlib.suppress(ConnectionError):
        await _copy_lines(child.stdout, stdout)
    feeding.cancel()
    return await child.wait()


async def _pipe(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
    try:
        while chunk := await source.read(CHUNK):
            sink.write(chunk)
            await sink.drain()
        if sink.can_write_eof():
            sink.write_eof()
    except ConnectionError:
        sink.close()


async def _tcp(listen: int, to: int) -> None:
    async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", to)
        except OSError:
            writer.close()
            return
        await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))
        upstream_writer.close()
        writer.close()

    server = await asyncio.start_server(accepted, "127.0.0.1", listen)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--to", type=int, metavar="PORT", help="TCP: relay to 127.0.0.1:PORT")
    parser.add_argument("--http", type=int, metavar="PORT", help="TCP: listen on 127.0.0.1:PORT")
    parser.add_argument("command", nargs="*", help="stdio: the server's command line")
    args = parser.parse_args()
    if (args.to is None) != (args.http is None) or (args.to is None) == (not args.command):
        parser.error("either --to PORT --http PORT, or -- COMMAND [ARGS...]")
    if args.to is not None:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(_tcp(args.http, args.to))
    else:
        sys.exit(asyncio.run(_stdio(args.command)))


if __name__ == "__main__":
    main()
