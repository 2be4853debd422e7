"""A 2026-07-28 server that holds the retry after a link, as ``mcp_elicit.server`` does
(``url_resume_wait``), written small and in process so that the tests can say when the page
is "finished", and a person who answers the client's screens from a list."""

from __future__ import annotations

from dataclasses import dataclass, field

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ElicitRequest, ElicitRequestURLParams, ElicitResult, InputRequiredResult

from mcp_elicit.client import Accept, Cancel, Decision, FormPrompt, Notice, UrlPrompt

# The flow id in the link is the secret part: whoever has the link can finish the page.
FLOW = "F-7c1d4e0b9a2f4c3d8e6f5a4b3c2d1e0f"
LINK = f"https://accounts.example.com/elicit/flows/{FLOW}?step=1"
KEY = "link"


@dataclass
class HeldServer:
    """``connect`` asks for :data:`LINK`; a retry carrying ``accept`` is held until
    :attr:`page_done` is set (``"connected"``) or ``hold`` seconds pass (the link is asked
    for again). Any other answer returns ``"link <action>"``."""

    hold: float = 5.0
    server: MCPServer = field(init=False)
    page_done: anyio.Event = field(default_factory=anyio.Event)
    retries: list[str] = field(default_factory=list)  # the action each retry carried
    holding: int = 0  # retries being held right now
    outcomes: list[str] = field(default_factory=list)  # "connected", "asked again", "given up"

    def __post_init__(self) -> None:
        self.server = MCPServer("held")

        @self.server.tool()
        async def connect(ctx: Context) -> str | InputRequiredResult:
            answer = (ctx.input_responses or {}).get(KEY)
            if answer is None:
                return _ask()
            action = answer.action if isinstance(answer, ElicitResult) else "?"
            self.retries.append(action)
            if action != "accept":
                return f"link {action}"
            self.holding += 1
            try:
                with anyio.move_on_after(self.hold):
                    await self.page_done.wait()
            except anyio.get_cancelled_exc_class():
                self.outcomes.append("given up")
                raise
            finally:
                self.holding -= 1
            if self.page_done.is_set():
                self.outcomes.append("connected")
                return "connected"
            self.outcomes.append("asked again")
            return _ask()

    async def when_holding(self, retries: int = 1, timeout: float = 10.0) -> None:
        """Wait until the ``retries``-th retry has come in and is being held."""
        with anyio.fail_after(timeout):
            while not (len(self.retries) >= retries and self.holding):
                await anyio.sleep(0.01)


def _ask() -> InputRequiredResult:
    params = ElicitRequestURLParams(message="Sign in to connect your account.", url=LINK)
    return InputRequiredResult(input_requests={KEY: ElicitRequest(params=params)})


@dataclass
class Person:
    """Answers the consent screens with ``consent`` in turn (then ``Accept``), and each
    waiting screen as ``waits`` says in turn: ``"done"`` at once, ``"cancel"`` at once, or
    ``"await"`` (until the client ends it; the default)."""

    consent: list[Decision] = field(default_factory=list)
    waits: list[str] = field(default_factory=list)
    not_opened: list[Decision] = field(default_factory=list)
    asked: list[UrlPrompt] = field(default_factory=list)
    waited: list[tuple[UrlPrompt, bool]] = field(default_factory=list)  # and completed at start
    told: list[tuple[UrlPrompt, str]] = field(default_factory=list)  # link_not_opened
    notices: list[Notice] = field(default_factory=list)
    ended: list[str] = field(default_factory=list)  # how each waiting screen ended

    async def ask_form(self, prompt: FormPrompt) -> Decision:
        raise AssertionError("no form expected")

    async def ask_url(self, prompt: UrlPrompt) -> Decision:
        self.asked.append(prompt)
        return self.consent.pop(0) if self.consent else Accept()

    async def wait_for_completion(self, prompt: UrlPrompt, completed: anyio.Event) -> Decision:
        self.waited.append((prompt, completed.is_set()))
        how = self.waits.pop(0) if self.waits else "await"
        if how == "done":
            self.ended.append("done")
            return Accept()
        if how == "cancel":
            self.ended.append("cancel")
            return Cancel(reason="the person pressed Esc")
        try:
            await completed.wait()
        except anyio.get_cancelled_exc_class():
            self.ended.append("taken down")
            raise
        self.ended.append("completed")
        return Accept()

    async def link_not_opened(self, prompt: UrlPrompt, why: str) -> Decision:
        self.told.append((prompt, why))
        return self.not_opened.pop(0) if self.not_opened else Accept()

    async def notify(self, notice: Notice) -> None:
        self.notices.append(notice)
