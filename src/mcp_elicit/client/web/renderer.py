"""``WebRenderer``: elicitation prompts on a local web page, in the person's own browser."""

from __future__ import annotations

import logging
import secrets
import socket
import sys
import time
from collections.abc import Callable
from types import TracebackType

import anyio
import anyio.abc
import uvicorn

from mcp_elicit.client.opening import open_privately
from mcp_elicit.client.page_server import SignalFreeServer
from mcp_elicit.client.prompt_text import clean, notice_line
from mcp_elicit.client.prompts import Accept, Cancel, Decision, FormPrompt, Notice, UrlPrompt
from mcp_elicit.client.web.app import page_app
from mcp_elicit.client.web.presence import Presence
from mcp_elicit.client.web.queue import Kind, Queue
from mcp_elicit.client.web.words import chosen_language
from mcp_elicit.i18n import _

logger = logging.getLogger(__name__)

PAGE_CLOSED = "the page was closed"
STOPPED = "the web renderer stopped"

# After opening the browser, give it this long to load the page before opening it again.
OPEN_PATIENCE = 30.0


def open_page(url: str) -> bool:
    """The default opener: a new tab of the system browser, given ``file://`` a redirect file
    only this user can read, never the page's address itself, whose token other users could
    read on the browser's command line (:mod:`mcp_elicit.client.opening`)."""
    return open_privately(url)


def _to_stderr(line: str) -> None:
    print(f"mcp-elicit: {line}", file=sys.stderr, flush=True)


class WebRenderer:
    """A :class:`~mcp_elicit.client.renderer.Renderer` that shows prompts on a local page.

    ::

        async with WebRenderer() as renderer:
            handler = ElicitationHandler(renderer, opener=None)  # the page opens links itself
            async with ElicitingClient(server, handler) as client:
                ...

    While running it serves one page on ``127.0.0.1``, on a port the system picks, under an
    unguessable path (:attr:`url`): nothing on other machines can reach it, and nothing on this
    one without the link. When a prompt comes and no page is open, ``opener`` opens
    :attr:`url` (the system browser by default, through a file only this user can read, so
    that the token is on no command line; ``None``: never) and ``announce`` says so (stderr
    by default; ``None``: silent).

    The page shows every pending prompt: the first to answer, the others listed as waiting.
    Form answers are checked as the person types by the form model, here in Python (the
    terminal's messages); a review step comes before Submit. A free-text question (the early
    draft's message-only ask) also takes image and audio files, checked by
    :func:`~mcp_elicit.client.prompts.attachment` and answered in ``Accept.attachments``. A
    link (URL mode) opens only from the page's *Open link* button, so give the handler
    ``opener=None``.

    A question whose request is given up (the host's call timed out or was cancelled, the server
    cancelled it) leaves the page at once, the next one shows, and a notice on the page says
    which question was withdrawn.

    Closing the page cancels what it showed: with no page for ``closed_after`` seconds, every
    prompt that a page had shown is cancelled (:data:`PAGE_CLOSED`). A prompt no page has
    shown yet waits, and opens the page again.
    """

    # Every prompt at once, not one at a time: the page queues them and shows what waits
    # (see mcp_elicit.client.renderer).
    concurrent = True
    # The link opens from the person's click on the consent screen, in their browser.
    opens_links = True

    def __init__(
        self,
        *,
        opener: Callable[[str], object] | None = open_page,
        announce: Callable[[str], None] | None = _to_stderr,
        closed_after: float = 5.0,
        hold: float = 20.0,
        clock: Callable[[], float] = time.monotonic,
        language: str | None = None,
    ) -> None:
        # Checked now: a language with no catalog is the host's mistake, said at once.
        self.language = chosen_language(language)
        self.opener = opener
        self.announce = announce
        self.hold = hold
        self._clock = clock
        self._presence = Presence(grace=closed_after, clock=clock)
        self._queue: Queue | None = None
        self._url: str | None = None
        self._server: SignalFreeServer | None = None
        self._tasks: anyio.abc.TaskGroup | None = None
        self._served = anyio.Event()
        self._opened_at: float | None = None

    @property
    def url(self) -> str:
        """The page's address (with its token); only while running."""
        if self._url is None:
            raise RuntimeError("the WebRenderer is not running: use 'async with WebRenderer()'")
        return self._url

    # -- running ----------------------------------------------------------------------------

    async def __aenter__(self) -> WebRenderer:
        if self._queue is not None:
            raise RuntimeError("a WebRenderer runs once")
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind(("127.0.0.1", 0))  # loopback only; the system picks a free port
        except OSError:
            sock.close()
            raise
        port = sock.getsockname()[1]
        # 256 random bits in every path: nobody without the link can reach the page.
        token = secrets.token_urlsafe(32)
        self._queue = Queue()
        app = page_app(
            self._queue,
            self._presence,
            token=token,
            port=port,
            hold=self.hold,
            language=self.language,
        )
        config = uvicorn.Config(
            app,
            log_config=None,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=2,
        )
        self._server = SignalFreeServer(config)
        self._tasks = anyio.create_task_group()
        await self._tasks.__aenter__()
        try:
            self._tasks.start_soon(self._serve, sock)
            self._tasks.start_soon(self._watch_presence, self._queue)
            while not self._server.started:
                if self._served.is_set():
                    raise RuntimeError("the web renderer's page server did not start")
                await anyio.sleep(0.01)
        except BaseException as failed:
            self._tasks.cancel_scope.cancel()
            # Leaving the task group reports a failure of its tasks (what stopped us).
            await self._tasks.__aexit__(type(failed), failed, failed.__traceback__)
            raise
        self._url = f"http://127.0.0.1:{port}/{token}/"
        self._say(_("questions from MCP servers are answered on {url}").format(url=self._url))
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        assert self._queue is not None and self._server is not None and self._tasks is not None
        # Pending prompts end as cancelled, and every open page hears the session ended.
        self._queue.close(STOPPED)
        self._server.should_exit = True
        with anyio.move_on_after(5):
            await self._served.wait()
        self._tasks.cancel_scope.cancel()
        self._url = None
        # Our own tasks only: an exception from the block goes on as it was, not wrapped in
        # an exception group; one from the page server (it crashed) is raised from here.
        await self._tasks.__aexit__(None, None, None)

    async def _serve(self, sock: socket.socket) -> None:
        assert self._server is not None
        try:
            with sock:
                await self._server.serve(sockets=[sock])
        finally:
            self._served.set()

    async def _watch_presence(self, queue: Queue) -> None:
        while True:
            await anyio.sleep(0.25)
            if self._presence.here():
                continue
            for pending in queue.ordered():
                if pending.seen:
                    queue.resolve(pending, Cancel(reason=PAGE_CLOSED))

    # -- the Renderer protocol ----------------------------------------------------------------

    async def ask_form(self, prompt: FormPrompt) -> Decision:
        return await self._ask("form", prompt)

    async def ask_url(self, prompt: UrlPrompt) -> Decision:
        return await self._ask("url", prompt)

    async def wait_for_completion(self, prompt: UrlPrompt, completed: anyio.Event) -> Decision:
        queue = self._running()
        pending = queue.add("wait", prompt)
        async with anyio.create_task_group() as tasks:

            async def watch() -> None:
                await completed.wait()
                queue.resolve(pending, Accept())  # the server's word is enough

            tasks.start_soon(watch)
            try:
                answer = await pending.wait()
            finally:
                tasks.cancel_scope.cancel()
                queue.remove(pending)
        return answer

    async def notify(self, notice: Notice) -> None:
        self._running().post(notice)
        self._say(notice_line(notice))

    def withdraw(self, prompt: FormPrompt | UrlPrompt) -> None:
        """The prompt has already left the page (its call was cancelled); the notices say
        why, so that a question that vanished from the list is not a mystery."""
        if self._queue is None or self._queue.closed:
            return
        message = next(iter(prompt.message.strip().splitlines()), "")  # notice_line cleans it
        self._queue.post(
            Notice(
                prompt.server,
                _(
                    "withdrew a question before it was answered (its request was cancelled "
                    "or timed out): {message}"
                ).format(message=message),
                "info",
            )
        )

    # -- helpers ----------------------------------------------------------------------------

    async def _ask(self, kind: Kind, prompt: FormPrompt | UrlPrompt) -> Decision:
        queue = self._running()
        pending = queue.add(kind, prompt)
        self._open_page_for(prompt.server)
        try:
            return await pending.wait()
        finally:
            # Also when the question is given up from outside (the server cancelled the
            # request, the call's time limit): it leaves the page.
            queue.remove(pending)

    def _open_page_for(self, server: str) -> None:
        if self._presence.here():
            return
        now = self._clock()
        if (
            self._opened_at is not None
            and now - self._opened_at < OPEN_PATIENCE
            and not self._presence.came_since(self._opened_at)
        ):
            return  # opened a moment ago; the browser is still starting
        self._opened_at = now
        self._say(
            _("{server} asks something: answer on {url}").format(
                server=clean(server, newlines=False), url=self.url
            )
        )
        if self.opener is None:
            return
        try:
            opened = self.opener(self.url)
        except Exception as error:  # the question still waits: the person can open it
            logger.debug("the page could not be opened: %s", error, exc_info=True)
            self._say(
                _("the browser could not be started ({error}): open {url} yourself").format(
                    error=error, url=self.url
                )
            )
            return
        if opened is False:
            self._say(
                _("no browser could be started from here: open {url} yourself").format(url=self.url)
            )

    def _running(self) -> Queue:
        if self._queue is None or self._url is None:
            raise RuntimeError("the WebRenderer is not running: use 'async with WebRenderer()'")
        return self._queue

    def _say(self, line: str) -> None:
        if self.announce is not None:
            self.announce(line)
