"""One tool call's 2026-07-28 rounds as the client sees them: what carries over between retries.

Sans-IO: no SDK, no clock, no I/O. :class:`~mcp_elicit.client.ElicitingClient` starts one
:class:`CallRound` for each tool call; the handler tells it which links the person agreed to
open (:meth:`CallRound.link_accepted`); the client's send hook tells it each retry as it
leaves (:meth:`CallRound.retrying`) and learns which links that retry carries, and whether the
server has gone in circles (:attr:`CallRound.given_up`). This module is the only one that keeps
that state.

Why it is needed. On 2026-07-28 a server sends no request of its own. A tool call ends with an
``InputRequiredResult``; the SDK has the handler answer each of its input requests, then calls
again with ``inputResponses`` (a retry). Two things span those rounds, and belong to the call,
not to any one request:

- a server that asks again at once after the person said no would loop as fast as it answers,
  until the call's time limit;
- a retry that carries the person's accept of a link may be held by the server until the page
  is finished: the client shows the person that wait, so it must know, as the retry leaves,
  which of its responses accepted a link.

The rules, retry by retry:

1. **A retry with no responses is not counted.** A state-only round (the server answered
   with ``requestState`` only) asked nobody anything.
2. **Only refusals count.** A retry whose responses are all ``decline`` or ``cancel`` counts
   one more refused retry in a row; any other response (an accept, or something that is not
   a response at all) starts the count again from 0.
3. **Past :data:`MAX_REFUSED_ROUNDS` refused retries in a row the call is given up**
   (:attr:`CallRound.given_up`): the server keeps asking for what the person declined.
4. **A link accepted in a round rides on that round's retry only.** A link the person agreed
   to open while answering input request ``key`` waits for the next retry, which carries it
   (as a *held* prompt, for the waiting screen) if its response under ``key`` is ``accept``.
   Whatever that retry does not carry is dropped, and the next round collects afresh: a link
   is never waited on by the retry of a later round.
5. **Sending a retry again is a retry.** When the person gives up waiting on a held retry, it
   is sent again with ``cancel`` for its links: counted by rule 2, carrying no link (none was
   accepted since).

Which input request is being answered is not kept here: the SDK answers a round's input
requests at the same time, each in a task of its own, so the key belongs to one request
(:attr:`~mcp_elicit.client.steps.Asking.input_key`), not to the call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from mcp_elicit.client.prompts import UrlPrompt

MAX_REFUSED_ROUNDS = 3
"""2026-07-28 retries in a row that carry nothing but declines and cancels before the call is
given up: a server that asks again at once would otherwise loop as fast as it answers, until
``input_time_limit``."""

_REFUSALS = ("decline", "cancel")


class CallRound:
    """Where one tool call's 2026-07-28 exchange stands, between one retry and the next."""

    def __init__(self) -> None:
        self.refused_in_a_row = 0
        self._accepted: dict[str, UrlPrompt] = {}

    @property
    def given_up(self) -> bool:
        """Rule 3: the server kept asking after the person said no, too many times in a row."""
        return self.refused_in_a_row > MAX_REFUSED_ROUNDS

    def link_accepted(self, key: str, prompt: UrlPrompt) -> None:
        """Rule 4: the person agreed to open ``prompt``'s link, answering input request
        ``key`` of the round now being answered."""
        self._accepted[key] = replace(prompt, held=True)

    def retrying(self, responses: Any) -> dict[str, UrlPrompt]:
        """A retry carrying ``responses`` (its ``inputResponses``) leaves: count it (rules 1
        to 3, 5) and return the links it carries, by input key (rule 4)."""
        if isinstance(responses, Mapping) and responses:
            refused = all(
                isinstance(response, Mapping) and response.get("action") in _REFUSALS
                for response in responses.values()
            )
            self.refused_in_a_row = self.refused_in_a_row + 1 if refused else 0
        collected, self._accepted = self._accepted, {}
        if not isinstance(responses, Mapping):
            return {}
        return {
            key: prompt
            for key, prompt in collected.items()
            if isinstance(responses.get(key), Mapping) and responses[key].get("action") == "accept"
        }
