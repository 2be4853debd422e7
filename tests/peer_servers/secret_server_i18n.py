"""``secret_server.py`` for the tests of the hosted pages' language
(``tests/server/test_pages_languages.py``): the same server, with the pseudo-locale ``en-XA``
installed (``tests.i18n_support``), and its pages' default language set in code,
``Elicitation(language=...)``, when ``SECRET_SERVER_LANGUAGE`` names one.

    SECRET_SERVER_LANGUAGE=zh-Hans .venv/bin/python tests/peer_servers/secret_server_i18n.py \\
        --store sqlite:////tmp/s.db --http PORT --auth

Started by ``secret_server.start_http`` with ``SCRIPT`` pointed here.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # run as a script: make `tests` importable
    sys.path.insert(0, str(REPO))

from tests import i18n_support  # noqa: E402
from tests.peer_servers import secret_server  # noqa: E402

from mcp_elicit.server import Elicitation  # noqa: E402

LANGUAGE_VARIABLE = "SECRET_SERVER_LANGUAGE"
SCRIPT = Path(__file__).resolve()


def main() -> None:
    i18n_support.install()
    chosen = os.environ.get(LANGUAGE_VARIABLE) or None
    # build() makes the Elicitation; this one's pages default to the chosen language.
    secret_server.Elicitation = functools.partial(Elicitation, language=chosen)  # type: ignore[misc]
    secret_server.main()


if __name__ == "__main__":
    main()
