"""The web renderer: elicitation prompts on a local page in the person's own browser.

- :class:`WebRenderer` — the renderer; ``async with WebRenderer() as renderer`` serves the page
  on 127.0.0.1 while the block runs.

Inside, one concept a module: ``queue`` (the pending prompts, in the page's order),
``presence`` (whether a page is still open), ``answers`` (the page's values read with the form
model), ``views`` (prompts as the page's JSON), ``guard`` (token, Host, headers), ``app`` (the
routes), ``static/`` (the page, its script and its stylesheet). ``docs/browser.md`` says how
it looks and what it guarantees.
"""

from mcp_elicit.client.web.renderer import PAGE_CLOSED, STOPPED, WebRenderer, open_page

__all__ = ["PAGE_CLOSED", "STOPPED", "WebRenderer", "open_page"]
