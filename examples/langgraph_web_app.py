"""A web app where a LangGraph agent runs on the server and the person answers its MCP server's
questions in their browser: interrupt, review, answer, resume (docs/frameworks.md).

    python examples/langgraph_web_app.py                  # http://127.0.0.1:8000
    python examples/langgraph_web_app.py --port 8001 --database runs.sqlite

The agent (LangChain's ``create_agent``) reaches the README quick start's server
(examples/server_quickstart.py, started over stdio, on 2026-07-28) through ``langchain.mcp``.
When a tool asks a question, LangChain pauses the run with a LangGraph interrupt; the run's
state is saved by the SQLite checkpointer, so the pause survives a restart of this app. The
page shows the questions as :func:`~mcp_elicit.integrations.langchain.review_interrupt` judged
them (each form's fields and the problems found, each link's verdict and where it really
goes); what the person sends is checked by
:func:`~mcp_elicit.integrations.langchain.resume_from` before the run resumes with it.

No LLM here: :class:`ToolPicker` stands in for one, calling the tool the request names. Give
``build_app(model=...)`` your chat model (``init_chat_model("openai:gpt-5")``) instead.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import html
import secrets
import sys
import warnings
import weakref
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import uvicorn
from fastmcp.client.transports import StdioTransport
from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.types import Command
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from mcp_elicit.client import AuditLog, Policy
from mcp_elicit.forms import FieldKind, Form, Problem
from mcp_elicit.integrations.langchain import InterruptAnswerError, resume_from, review_interrupt

with warnings.catch_warnings():  # `langchain.mcp` says it is in beta each time it is imported
    warnings.simplefilter("ignore")
    from langchain.mcp import MCPAdapter

QUICK_START = Path(__file__).with_name("server_quickstart.py")


class ToolPicker(BaseChatModel):
    """Stands in for an LLM: calls the first tool whose name the request contains, then
    answers with what the tool returned."""

    tool_names: list[str] = []  # noqa: RUF012 (a pydantic field: each model gets a copy)

    @property
    def _llm_type(self) -> str:
        return "tool-picker"

    def bind_tools(self, tools: Sequence[Any], **_: Any) -> ToolPicker:
        return ToolPicker(tool_names=[getattr(t, "name", str(t)) for t in tools])

    def _generate(self, messages: list[BaseMessage], *_: Any, **__: Any) -> ChatResult:
        last = messages[-1]
        if isinstance(last, ToolMessage):
            reply = AIMessage(content=f"{last.name}: {_text(last)}")
        else:
            wanted = [n for n in self.tool_names if n in _text(last)]
            reply = (
                AIMessage(content="", tool_calls=[{"name": wanted[0], "args": {}, "id": "call-1"}])
                if wanted
                else AIMessage(content=f"I can: {', '.join(self.tool_names)}.")
            )
        return ChatResult(generations=[ChatGeneration(message=reply)])


def build_app(
    server: StdioTransport,
    *,
    database: Path,
    model: BaseChatModel | None = None,
    policy: Policy | None = None,
    audit: AuditLog | None = None,
    local: bool = True,
    allowed_hosts: Sequence[str] = ("127.0.0.1", "localhost"),
) -> Starlette:
    """The app: ``server`` is the MCP server the agent uses (started once, kept for the app's
    life), ``database`` the SQLite file the paused runs are kept in. ``local``: the server
    runs on this machine as this app's user (this app started it over stdio), so its hosted
    pages on ``http://127.0.0.1`` are offered; say ``False`` for a server on the network.
    ``policy`` is the host's (which servers, which links), ``audit`` the record of answers."""
    # How every interrupt is judged, when shown and when answered: the same both times.
    judged: dict[str, Any] = {"policy": policy, "local": local}
    state: dict[str, Any] = {}
    # A run's lock lives while someone answers it (weak: finished runs leave nothing).
    answering: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with (
            MCPAdapter(server) as adapter,
            AsyncSqliteSaver.from_conn_string(str(database)) as saver,
        ):
            tools = await adapter.list_tools()
            # The name the policy's lists match and the person is shown.
            judged["server"] = adapter.client.server_info.name
            state["agent"] = create_agent(model or ToolPicker(), tools, checkpointer=saver)
            yield

    def agent() -> Any:
        return state["agent"]

    async def home(request: Request) -> Response:
        return _page("Ask the agent", _START)

    async def start(request: Request) -> Response:
        form = await request.form()
        run = secrets.token_urlsafe(16)  # unguessable: the run's address is its key
        await agent().ainvoke(
            {"messages": [HumanMessage(str(form.get("request", "")))]}, _config(run)
        )
        return RedirectResponse(f"/runs/{run}", status_code=303)

    async def show(request: Request) -> Response:
        run = request.path_params["run"]
        snapshot = await agent().aget_state(_config(run))
        if not snapshot.values:
            return _page("No such run", "<p>This run does not exist.</p>", status=404)
        pending = _pending(snapshot)
        if pending is None:
            return _page("Done", _transcript(snapshot.values["messages"]))
        interrupt_id, payload = pending
        review = review_interrupt(payload, **judged)
        return _page("The agent needs your answer", _questions(run, interrupt_id, review.to_json()))

    async def answer(request: Request) -> Response:
        run = request.path_params["run"]
        form = await request.form()
        # One answer at a time per run: two sent at once (a double click) resume it once.
        async with answering.setdefault(run, asyncio.Lock()):
            return await answer_once(run, form)

    async def answer_once(run: str, form: Any) -> Response:
        snapshot = await agent().aget_state(_config(run))
        pending = _pending(snapshot) if snapshot.values else None
        if pending is None or form.get("interrupt") != pending[0]:
            # Answered already (a second click, a replayed form), or no such run: nothing sent.
            return _page("Already answered", "<p>These questions were answered.</p>", status=409)
        interrupt_id, payload = pending
        try:
            resume = resume_from(payload, _answers_from(form, payload), audit=audit, **judged)
        except InterruptAnswerError as refused:
            # Nothing was sent: the same questions again, what the person typed kept.
            review = review_interrupt(payload, **judged).to_json()
            body = _refusal(refused) + _questions(run, interrupt_id, review, form)
            return _page("Please check your answers", body, status=400)
        await agent().ainvoke(Command(resume=resume), _config(run))
        return RedirectResponse(f"/runs/{run}", status_code=303)

    return Starlette(
        routes=[
            Route("/", home),
            Route("/runs", start, methods=["POST"]),
            Route("/runs/{run}", show),
            Route("/runs/{run}/answers", answer, methods=["POST"]),
        ],
        middleware=[
            Middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts)),
            Middleware(_SameOrigin),
        ],
        lifespan=lifespan,
    )


class _SameOrigin:
    """A POST from another site's page (a forged form) is refused: browsers send ``Origin``
    with every POST, and it must be this app's own."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            request = Request(scope)
            origin = request.headers.get("origin")
            own = f"{request.url.scheme}://{request.headers.get('host', '')}"
            if origin != own:
                response = _page("Refused", "<p>A form from another site.</p>", status=403)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def _config(run: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": run}}


def _pending(snapshot: Any) -> tuple[str, Any] | None:
    """The run's pending MCP elicitation interrupt: its id and payload."""
    for interrupt in snapshot.interrupts:
        value = interrupt.value
        if isinstance(value, dict) and value.get("type") == "mcp_elicitation":
            return interrupt.id, value
    return None


def _text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))


# -- pages ----------------------------------------------------------------------------------

_START = """
<form method="post" action="/runs">
  <label for="request">What should the agent do?</label>
  <input id="request" name="request" value="book" size="40">
  <button>Run</button>
</form>
<p>Try <code>book</code> (a form) or <code>connect_weather</code> (a key typed on the
server's own page).</p>
"""


_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem}"
    "fieldset{margin:1rem 0;padding:.5rem 1rem}legend{font-weight:600}"
    ".blocked,.problems,.refused{color:#a00}.host{font-size:1.1em}"
)


def _page(title: str, body: str, *, status: int = 200) -> HTMLResponse:
    page = (
        "<!doctype html><html lang=en><meta charset=utf-8>"
        '<meta name="viewport" content="width=device-width">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style>"
        f"<h1>{html.escape(title)}</h1>{body}</html>"
    )
    return HTMLResponse(
        page,
        status_code=status,
        headers={
            # Nothing runs on these pages, and they post only here.
            "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
            "form-action 'self'; frame-ancestors 'none'",
            # Links out say nothing of this page; its own forms keep their Origin (under
            # no-referrer, browsers send "Origin: null", which _SameOrigin refuses).
            "Referrer-Policy": "same-origin",
            "Cache-Control": "no-store",
        },
    )


def _transcript(messages: list[BaseMessage]) -> str:
    items = "".join(
        f"<li><b>{html.escape(m.type)}</b>: {html.escape(_text(m))}</li>" for m in messages
    )
    return f'<ol id="transcript">{items}</ol><p><a href="/">Another request</a></p>'


def _questions(
    run: str,
    interrupt_id: str,
    review: dict[str, Any],
    typed: Any = None,
) -> str:
    """The review as a page: each question with what was found, one form to answer them all.
    Everything shown comes from the review, which cleaned what the server wrote; it is
    escaped again here, as anything put in a page is."""
    parts = [
        f"<p>The tool <code>{html.escape(review['tool_name'])}</code> of "
        f"<b>{html.escape(review['server'])}</b> asks:</p>",
        f'<form method="post" action="/runs/{html.escape(run)}/answers">',
        f'<input type="hidden" name="interrupt" value="{html.escape(interrupt_id)}">',
    ]
    if review["turned_away"]:
        parts.append(f"<p>Refused by this app's policy ({html.escape(review['turned_away'])}).</p>")
    for request in review["requests"]:
        parts.append(_request(request, typed, may_accept=not review["turned_away"]))
    parts.append("<button>Send</button></form>")
    return "".join(parts)


def _request(request: dict[str, Any], typed: Any, *, may_accept: bool) -> str:
    key = html.escape(request["key"])
    parts = [f'<fieldset id="q-{key}"><legend>{html.escape(request["message"])}</legend>']
    problems = "".join(f"<li>{html.escape(p['message'])}</li>" for p in request["problems"])
    if request["refused"]:
        parts.append(f'<p class="refused">This question cannot be answered:</p><ul>{problems}</ul>')
        may_accept = False
    elif request["mode"] == "url":
        parts.append(_link(request))
        may_accept = may_accept and request["open_url"] is not None
    else:
        parts += [f"<p class=finding>{html.escape(line)}</p>" for line in request["findings"]]
        parts += [_field(request["key"], field, typed) for field in request["fields"]]
    done = "I have finished there" if request["mode"] == "url" else "Send these answers"
    choices = ([("accept", done)] if may_accept else []) + [
        ("decline", "Decline"),
        ("cancel", "Cancel"),
    ]
    chosen = (typed.get(f"{request['key']}:action") if typed else None) or choices[0][0]
    for value, label in choices:
        checked = " checked" if value == chosen else ""
        parts.append(
            f'<label><input type="radio" name="{key}:action" value="{value}"{checked}> '
            f"{html.escape(label)}</label>"
        )
    parts.append("</fieldset>")
    return "".join(parts)


def _link(request: dict[str, Any]) -> str:
    verdict = request["verdict"]
    reasons = "".join(f"<li>{html.escape(r['message'])}</li>" for r in request["reasons"])
    where = (
        f'<p>It goes to <b class="host">{html.escape(request["host"])}</b> '
        f'(<span class="verdict">{html.escape(verdict)}</span>)</p>'
    )
    if request["open_url"] is None:
        return f'{where}<p class="blocked">This link is blocked:</p><ul>{reasons}</ul>'
    # Opened only by the person's click, in a new tab that cannot reach back to this page.
    return (
        f"{where}<ul>{reasons}</ul>"
        f'<p><a href="{html.escape(request["open_url"])}" target="_blank" '
        f'rel="noopener noreferrer">Open {html.escape(request["shown_url"])}</a></p>'
    )


def _field(key: str, field: dict[str, Any], typed: Any) -> str:
    name = html.escape(f"{key}.{field['name']}")
    label = html.escape(field["label"] + ("" if field["required"] else " (optional)"))
    hint = f" <small>{html.escape(field['hint'])}</small>" if field["hint"] else ""
    kept = typed.getlist(f"{key}.{field['name']}") if typed else None
    widget = field["widget"]
    if widget == "checkbox":
        on = bool(kept) if typed else field["initial"] is True
        box = f'<input type="checkbox" id="{name}" name="{name}"{" checked" if on else ""}>'
        return f'<p>{box} <label for="{name}">{label}</label>{hint}</p>'
    if widget in ("radio", "checkboxes", "select"):
        kind = "checkbox" if widget == "checkboxes" else "radio"
        chosen = kept if typed else _as_list(field["initial"])
        options = "".join(
            f'<label><input type="{kind}" name="{name}" value="{html.escape(c["value"])}"'
            f"{' checked' if c['value'] in chosen else ''}> {html.escape(c['label'])}</label> "
            for c in field["choices"]
        )
        return f"<fieldset><legend>{label}</legend>{options}{hint}</fieldset>"
    value = kept[0] if kept else ("" if typed else str(field["initial"]))
    placeholder = field["placeholder"] or ""
    return (
        f'<p><label for="{name}">{label}</label>{hint}<br>'
        f'<input id="{name}" name="{name}" value="{html.escape(value)}" '
        f'placeholder="{html.escape(placeholder)}"></p>'
    )


def _as_list(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    return [] if value in ("", None) else [str(value)]


def _answers_from(typed: Any, payload: dict[str, Any]) -> dict[str, Any]:
    """The person's answers as ``resume_from`` takes them: each box's text read into its
    field's type by the form's own reading (``Form.coerce``). Text it cannot read is passed
    as it was typed, for ``resume_from`` to refuse with the field's rule (and record)."""
    answers: dict[str, Any] = {}
    for request in payload["requests"]:
        key = request["key"]
        action = typed.get(f"{key}:action") or "cancel"
        answers[key] = {"action": action}
        if action != "accept" or request["mode"] != "form":
            continue
        try:
            form = Form.from_schema(request["requested_schema"])
        except ValueError:
            continue  # a schema the review refused: resume_from says so
        content: dict[str, Any] = {}
        for field in form:
            name = f"{key}.{field.name}"
            if field.kind is FieldKind.BOOLEAN:
                content[field.name] = name in typed
            elif field.kind is FieldKind.MULTI_CHOICE:
                content[field.name] = typed.getlist(name)
            elif (text := str(typed.get(name, ""))).strip():
                value = form.coerce(field.name, text)
                content[field.name] = text if isinstance(value, Problem) else value
        answers[key]["content"] = content
    return answers


def _refusal(refused: InterruptAnswerError) -> str:
    items = "".join(f"<li>{html.escape(str(p['message']))}</li>" for p in refused.problems)
    return f'<ul class="problems" role="alert">{items}</ul>'


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--database", type=Path, default=Path("runs.sqlite"))
    args = parser.parse_args(argv)
    server = StdioTransport(sys.executable, [str(QUICK_START)], keep_alive=True)
    app = build_app(server, database=args.database)
    uvicorn.run(app, host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
