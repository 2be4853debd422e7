"""mcp-elicit: Model Context Protocol elicitation, both sides, every revision.

Start here
----------

- A server that asks a person: :mod:`mcp_elicit.server` (``Elicitation``, ``ask``, ``secret``).
- A host that answers: :mod:`mcp_elicit.client` (``ElicitationHandler``, ``ElicitingClient``).
- A host built on an agent framework: :mod:`mcp_elicit.integrations` (fastmcp's ``Client``:
  ``mcp_elicit.integrations.fastmcp``; pydantic-ai: ``mcp_elicit.integrations.pydantic_ai``).
- A proxy between eras: :mod:`mcp_elicit.gateway`; conformance checks: :mod:`mcp_elicit.check`;
  your own tests: :mod:`mcp_elicit.testing`; the command: ``mcp-elicit`` (:mod:`mcp_elicit.cli`).
- The sans-IO cores under them: :mod:`mcp_elicit.forms` (the ``requestedSchema`` subset, form
  model, validation), :mod:`mcp_elicit.protocol` (wire shapes and rules per revision),
  :mod:`mcp_elicit.urls` (URL safety verdicts), :mod:`mcp_elicit.revisions` (the revisions'
  names).

Layers
------

Imports go downward only: a layer imports the layers it names here and, through them, what
those name; never one above (``tests/test_layers.py`` reads this table and checks every
module against it: a new layer gets a row here). ``forms``, ``protocol`` and ``urls`` do no
I/O. Top first:

    cli: client, server, gateway, check, demo, forms, urls, protocol
        the ``mcp-elicit`` command
    demo: client, server, forms, urls, protocol, flows, stores
        the demo's servers and its walk through them
    gateway: client, protocol, tasks
        a proxy that bridges protocol eras with elicitation intact
    integrations: client, _extras
        agent frameworks as hosts, one module per framework (fastmcp's client, pydantic-ai)
    check: client, server, protocol
        conformance checks of servers and clients
    testing: client, server, protocol, _sdk
        helpers for users' own tests
    client: protocol, forms, urls, _sdk
        the host side, on the SDK's client
    server: protocol, forms, flows, tasks, _sdk, _extras
        the server side, on the SDK's server
    flows: stores
        out-of-band URL-mode flows
    tasks: protocol, stores
        tasks on both revisions: one state machine (``tasks.state``, no I/O) for every task,
        committed by ``tasks.lifecycle`` (the records, the compare-and-set, the wake-ups)
    protocol: i18n, revisions
        wire shapes and rules per revision (no I/O)
    forms: i18n, revisions
        the ``requestedSchema`` subset, the form model, validation (no I/O)
    urls: i18n
        URL safety verdicts (no I/O unless resolution is asked for)
    stores: -
        one store contract, several engines
    i18n: -
        the person's language: catalogs and the language in effect
    revisions: -
        the revisions' names, aliases and the negotiated mapping
    _sdk: -
        the SDK's private names we cannot do without, in one place
    _extras: -
        importing what an optional extra installs, saying which extra when it is missing
"""

__version__ = "0.1.0"
