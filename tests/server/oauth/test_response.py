"""Judging a provider's authorization response, without a provider: RFC 9207's issuer rule,
the error codes OAuth defines, and a provider's words made fit for a log line."""

from __future__ import annotations

import pytest

from mcp_elicit.server.oauth import AuthorizationFailed, OAuthProvider
from mcp_elicit.server.oauth.response import (
    REFUSALS,
    WORDS_LIMIT,
    issuer_refusal,
    provider_words,
    registered_error,
)

ISSUER = "https://files.example"
FILES = OAuthProvider("files", "id", issuer=ISSUER, title="Example Files")


@pytest.mark.parametrize(
    ("sent", "expected", "required", "refused"),
    [
        (ISSUER, ISSUER, True, None),
        (ISSUER, ISSUER, False, None),
        (None, ISSUER, False, None),  # a provider that does not promise it
        (None, ISSUER, True, "issuer_missing"),
        ("https://photos.example", ISSUER, False, "issuer_mismatch"),
        (ISSUER + "/", ISSUER, True, "issuer_mismatch"),  # simple string comparison
        ("HTTPS://FILES.EXAMPLE", ISSUER, True, "issuer_mismatch"),
        ("", ISSUER, False, "issuer_mismatch"),
        (ISSUER, None, False, "issuer_unknown"),  # nothing to compare it with
        (None, None, False, None),
    ],
)
def test_the_issuer_rule_of_rfc_9207(
    sent: str | None, expected: str | None, required: bool, refused: str | None
) -> None:
    assert issuer_refusal(sent, expected=expected, required=required) == refused


def test_only_a_code_oauth_defines_is_named() -> None:
    assert registered_error("invalid_client") == "invalid_client"
    assert registered_error("invalid_target") == "invalid_target"
    assert registered_error("login_required") == "login_required"
    for made_up in ("call_support", "invalid_client ", "INVALID_CLIENT", "", None, 3):
        assert registered_error(made_up) is None
    assert str(AuthorizationFailed(FILES, "invalid_grant")) == (
        "Example Files did not authorize this server: invalid_grant"
    )
    failed = AuthorizationFailed(FILES, "Call +1-555-0100 to restore access")
    assert str(failed) == "Example Files did not authorize this server: an error"
    assert failed.error is None and failed.provider == "files"


def test_a_refusal_names_the_rule() -> None:
    for refused, why in REFUSALS.items():
        failed = AuthorizationFailed(FILES, "server_error", refused=refused)
        assert failed.error == refused
        assert str(failed) == f"Example Files did not authorize this server: {why}"


def test_a_providers_words_are_cleaned_for_the_log() -> None:
    text = (
        "\u202eSSAP\u202c\u200b \x1b[1;31mred\x1b[0m \x1b]8;;https://x.example\x07link\x1b]8;;\x07"
        "\r\nnext\u2028line\ttab\x00\x7f\U000f0000"
    )
    assert provider_words(text) == "SSAP red link next line tab"
    assert provider_words(None) == "" and provider_words("") == ""
    long = provider_words("a" * 1000)
    assert len(long) == WORDS_LIMIT and long.endswith("…")
