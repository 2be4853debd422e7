"""The interface between the handler and whatever shows questions to a person.

A renderer is four coroutines and :meth:`Renderer.withdraw`. The handler calls them one prompt
at a time per renderer (it holds a lock), so a renderer need not guard the screen against
itself.

A question can be given up while the person has it: the host's call timed out or was
cancelled, or the server sent ``notifications/cancelled`` for its request. The renderer's
coroutine is then cancelled, and the handler (the one owner of this, in
:meth:`~mcp_elicit.client.handler.ElicitationHandler.ask_person`) calls :meth:`withdraw` with
the prompt, so the renderer takes it off the screen or marks it withdrawn; the next prompt is
shown at once. A prompt still waiting its turn is dropped without reaching the renderer.
A renderer written before ``withdraw`` existed still works: the handler calls it only when
the renderer has it.

A renderer with a class attribute ``concurrent = True`` is called without that lock: every
pending prompt reaches it at once (several tool calls may each be asking), and it queues them
itself. The web renderer does, so that its page can show what is waiting. The attribute is
optional and not part of the protocol below; without it, prompts come one at a time.

A renderer with ``opens_links = True`` opens a link itself, from the person's own click
(the web page does): the handler's opener is then never called, so a link never opens twice.

A renderer with ``opens_browser_by_default = False`` (the scripted one) gets no opener from
``ElicitationHandler(renderer)``: a link it consents to opens only through an ``opener``
given on purpose.

A renderer with ``consents_to_sign_in = False`` speaks for no person at a server's sign-in
(the scripted one): a sign-in link that consent given ahead does not cover (one with
warnings) is then refused instead of put to it.

A renderer may also have ``async link_not_opened(prompt, why) -> Decision``: the handler's
opener did not open the link the person agreed to (it returned ``False``, or raised). Show
``why`` and the whole link to copy, and return ``Accept`` once the person says they opened it
themselves, ``Cancel`` to give up; nothing was sent to the server yet. Without it the handler
tells the person through ``notify`` and asks through ``wait_for_completion``.
"""

from __future__ import annotations

from typing import Protocol

import anyio

from mcp_elicit.client.prompts import Decision, FormPrompt, Notice, UrlPrompt


class Renderer(Protocol):
    """Shows prompts to a person and returns what they chose."""

    async def ask_form(self, prompt: FormPrompt) -> Decision:
        """Show every field and return the answer. ``Accept.content`` must be what the person
        reviewed; the handler validates it again and never sends an invalid answer."""
        ...

    async def ask_url(self, prompt: UrlPrompt) -> Decision:
        """Show the consent screen (server, message, full URL, registrable domain, every
        warning). ``Accept`` means consent; the handler opens the URL afterwards."""
        ...

    async def wait_for_completion(self, prompt: UrlPrompt, completed: anyio.Event) -> Decision:
        """After consent: wait until ``completed`` is set (the server said so) or the person
        says they are done (``Accept``) or gives up (``Cancel``)."""
        ...

    async def notify(self, notice: Notice) -> None:
        """Tell the person something; must not wait for them."""
        ...

    def withdraw(self, prompt: FormPrompt | UrlPrompt) -> None:
        """``prompt`` is no longer waiting for an answer: the call of this renderer that showed
        it (``ask_form``, ``ask_url``, ``wait_for_completion``, ``link_not_opened``) was
        cancelled because its request was cancelled or timed out. Take it off the screen, or
        mark it withdrawn, so that the person does not answer a question nobody waits for.
        Called while the caller is being cancelled: it must not wait and must not raise."""
        ...
