"""The ``elicitation`` client capability: reading what a peer declared, writing what we support.

2025-06-18 has one shape, ``elicitation: {}`` (form). From the URL-mode draft on, the object
names modes: ``{form: {}}``, ``{url: {}}`` or both, and ``{}`` still means form only. A client
that supports neither mode does not declare ``elicitation`` at all. In 2026-07-28 the same
object travels in every request's ``_meta`` instead of ``initialize``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mcp_elicit.protocol.codes import (
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_PROTOCOL_VERSION,
)
from mcp_elicit.revisions import Revision


@dataclass(frozen=True, slots=True)
class ElicitationModes:
    """Which elicitation modes a client supports."""

    form: bool = False
    url: bool = False

    @property
    def any(self) -> bool:
        return self.form or self.url

    def allows(self, mode: str) -> bool:
        return (mode == "form" and self.form) or (mode == "url" and self.url)


NO_MODES = ElicitationModes()
FORM_ONLY = ElicitationModes(form=True)
FORM_AND_URL = ElicitationModes(form=True, url=True)


def modes_from_capabilities(
    capabilities: Mapping[str, Any] | None, revision: Revision | str
) -> ElicitationModes:
    """The modes a client declared in its ``ClientCapabilities`` object.

    Liberal: a non-object ``elicitation`` value counts as ``{}`` (form only); mode keys a
    revision does not have (``url`` in 2025-06-18) are ignored.
    """
    version = Revision.parse(revision)
    if not isinstance(capabilities, Mapping):
        return NO_MODES
    declared = capabilities.get("elicitation")
    if declared is None:
        return NO_MODES
    if not isinstance(declared, Mapping) or version is Revision.V2025_06_18:
        return FORM_ONLY
    form, url = "form" in declared, "url" in declared
    if not form and not url:
        return FORM_ONLY  # ``{}``: "equivalent to declaring support for form mode only"
    return ElicitationModes(form=form, url=url)


def capabilities_for(modes: ElicitationModes, revision: Revision | str) -> dict[str, Any]:
    """Exactly the ``ClientCapabilities`` entries a client with these modes declares.

    ``{}`` when there is nothing to declare (no mode, or URL only on 2025-06-18).
    """
    version = Revision.parse(revision)
    if version is Revision.V2025_06_18:
        return {"elicitation": {}} if modes.form else {}
    declared: dict[str, Any] = {}
    if modes.form:
        declared["form"] = {}
    if modes.url:
        declared["url"] = {}
    return {"elicitation": declared} if declared else {}


def request_meta(
    capabilities: Mapping[str, Any],
    *,
    client_info: Mapping[str, Any] | None = None,
    protocol_version: str = Revision.V2026_07_28.value,
) -> dict[str, Any]:
    """The ``_meta`` a 2026-07-28 request carries: protocol version and capabilities."""
    meta: dict[str, Any] = {
        META_PROTOCOL_VERSION: protocol_version,
        META_CLIENT_CAPABILITIES: dict(capabilities),
    }
    if client_info is not None:
        meta[META_CLIENT_INFO] = dict(client_info)
    return meta


def capabilities_from_request(params: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The client capabilities a 2026-07-28 request declared, or ``None`` if it has none.

    Read per request: a server MUST NOT infer capabilities from earlier requests.
    """
    if not isinstance(params, Mapping):
        return None
    meta = params.get("_meta")
    if not isinstance(meta, Mapping):
        return None
    found = meta.get(META_CLIENT_CAPABILITIES)
    return dict(found) if isinstance(found, Mapping) else None
