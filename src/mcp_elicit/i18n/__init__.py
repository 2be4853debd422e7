"""The words mcp-elicit shows a person, in that person's language.

Every string a person reads (the terminal and web renderers, the hosted pages, URL-check
warnings, validation messages, the command line's human output) is English in the source and
goes through :func:`_` (or :func:`ngettext`) where it is shown. A string defined ahead of use
(a module constant) is marked with :func:`N_`, which only marks it for the catalog, and
translated with :func:`_` where it is shown.

- **Catalogs** are gettext PO files, one per language: ``mcp_elicit/i18n/locales/<tag>.po``
  (``zh_Hans.po``), or in a directory named by ``MCP_ELICIT_CATALOGS``. Adding a language is
  adding one file (docs/languages.md). English is the source and needs no catalog.
- **The language in effect** is a context variable, so two requests or two tasks can each have
  their own: :func:`language` sets it for a block, :func:`set_language` for the rest of the
  context, :func:`set_default_language` for the process. Where it comes from (the environment,
  ``--lang``, ``Accept-Language``, a host's or server's setting) is decided by the callers, with
  :func:`from_environment` and :func:`negotiate`.
- Codes (``Problem.code``, JSON output) never go through here: programs branch on them.

Messages use ``str.format`` fields (``{field}``); a translation must keep the same fields, which
the catalog test checks. This package is a leaf: everything that shows words may import it.
"""

from __future__ import annotations

from mcp_elicit.i18n.catalogs import available_languages, catalog_for, register_catalog
from mcp_elicit.i18n.choosing import (
    current_language,
    from_environment,
    language,
    negotiate,
    set_default_language,
    set_language,
)
from mcp_elicit.i18n.formatting import (
    aligned,
    format_date,
    format_datetime,
    format_number,
    text_width,
)
from mcp_elicit.i18n.words import N_, _, ngettext

__all__ = [
    "N_",
    "_",
    "aligned",
    "available_languages",
    "catalog_for",
    "current_language",
    "format_date",
    "format_datetime",
    "format_number",
    "from_environment",
    "language",
    "negotiate",
    "ngettext",
    "register_catalog",
    "set_default_language",
    "set_language",
    "text_width",
]
