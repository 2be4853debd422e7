"""A provider's authorization response, judged before anything is sent anywhere.

The response reaches the callback through a browser, so whoever sent the browser there chose
every parameter of it: a malicious provider among the ones a deployment is registered with
can send the person on to an honest provider and have the honest provider's answer come back
(the OAuth mix-up attack, RFC 9207 §1). Three rules make such an answer useless:

- **One callback per provider** (``/elicit/oauth/callback/<name>``, the connect page's
  redirect URI), and the sealed ``state`` names the provider it was made for: a ``state``
  that arrives at another provider's callback is a mix-up, and its code goes nowhere.
- **The issuer (RFC 9207 §2.4)**: an ``iss`` in the response must equal the configured
  issuer exactly; one is required when the provider's metadata says
  ``authorization_response_iss_parameter_supported: true``; one that cannot be compared
  (a provider configured without an issuer) is refused too, not waved through.
- **The provider's words stay out of the tool's words**: an ``error`` is named only when it is
  a code OAuth defines (so the tool error cannot carry a made-up "code"), and the free text of
  ``error_description`` never reaches the tool or a page; the operator's log gets it cleaned.

authlib makes the requests; it does not check ``iss`` on the client side, hence this module.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping

# The codes an authorization or token error may carry: RFC 6749 §4.1.2.1 and §5.2, RFC 6750
# §3.1, OpenID Connect Core §3.1.2.6, and RFC 8707 §2 (``invalid_target``: we send
# ``resource``). Anything else is reported as "an error", never repeated.
REGISTERED_ERRORS = frozenset(
    {
        # RFC 6749
        "invalid_request",
        "unauthorized_client",
        "access_denied",
        "unsupported_response_type",
        "invalid_scope",
        "server_error",
        "temporarily_unavailable",
        "invalid_client",
        "invalid_grant",
        "unsupported_grant_type",
        # RFC 6750
        "invalid_token",
        "insufficient_scope",
        # OpenID Connect Core 1.0
        "interaction_required",
        "login_required",
        "account_selection_required",
        "consent_required",
        "invalid_request_uri",
        "invalid_request_object",
        "request_not_supported",
        "request_uri_not_supported",
        "registration_not_supported",
        # RFC 8707
        "invalid_target",
    }
)

# What this server refused, and why, in the words the tool error uses (our words only).
REFUSALS: Mapping[str, str] = {
    "mix_up": (
        "its answer came back through another provider's callback, which is how an OAuth "
        "mix-up steals a code (RFC 9207): refused, and the code was sent nowhere"
    ),
    "issuer_mismatch": (
        "its answer names another issuer (iss, RFC 9207): refused, and the code was sent nowhere"
    ),
    "issuer_missing": (
        "its answer has no issuer (iss), which its metadata says it always sends (RFC 9207): "
        "refused, and the code was sent nowhere"
    ),
    "issuer_unknown": (
        "its answer names an issuer (iss, RFC 9207), but this server has none configured for it "
        "to compare with (set OAuthProvider(issuer=...)): refused, and the code was sent nowhere"
    ),
    "unreachable": "it could not be reached (its metadata or its token endpoint)",
    "no_access_token": "its token endpoint answered without an access token",
}


def registered_error(code: object) -> str | None:
    """``code`` when OAuth defines it, else ``None`` (a provider's made-up text)."""
    return code if isinstance(code, str) and code in REGISTERED_ERRORS else None


def issuer_refusal(sent: str | None, *, expected: str | None, required: bool) -> str | None:
    """RFC 9207 §2.4 on the response's ``iss`` (``sent``): ``None`` when it may be used, else
    the refusal (a key of :data:`REFUSALS`). Simple string comparison, as the RFC says."""
    if sent is None:
        return "issuer_missing" if required else None
    if expected is None:
        return "issuer_unknown"
    return None if sent == expected else "issuer_mismatch"


# ANSI escape sequences (CSI ``ESC [ ... final``, OSC ``ESC ] ... BEL or ESC \``, and the
# two-character ones): removed whole, so no "[31m" is left behind the removed ESC.
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
# Controls, format characters (every bidi control, the zero-width ones), separators,
# surrogates and private-use characters: nothing a person should see from a peer.
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
WORDS_LIMIT = 200


def provider_words(text: str | None, limit: int = WORDS_LIMIT) -> str:
    """A provider's free text made fit for a log line: escape sequences and hidden or
    reordering characters removed, whitespace runs made one space, at most ``limit``
    characters (an ellipsis says it was cut)."""
    if not text:
        return ""
    text = _ANSI.sub("", text)
    kept = "".join(
        " " if char.isspace() else char
        for char in text
        if char.isspace() or unicodedata.category(char) not in _HIDDEN
    )
    kept = " ".join(kept.split())
    return kept if len(kept) <= limit else kept[: limit - 1] + "…"
