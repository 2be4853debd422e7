"""Does a field's text ask for a secret? The terms, and the negated mentions that do not.

A field is read as its words: split at case changes and punctuation, lower-cased and
single-spaced, so ``apiKey``, ``API_KEY`` and ``api key`` all read ``api key``. A secret term
among them (``password``, ``pin``, ``api key``, ...) makes the field look like a secret.

Except where the text says not to give it: ``"Your favorite integer (do not give us your
phone number, pin, or other sensitive info)"`` (the reference server's form,
``@modelcontextprotocol/server-everything``) warns the person away from a PIN, and flagging it
told everyone who answered that form that it asked for one. A mention is *negated* when, in
the same clause (clauses end at ``. ; : ! ?``, brackets and line breaks), a negation
(``not``, ``never``, ``don't``, ``no need to``) stands right before a verb of giving or asking
(``give``, ``enter``, ``share``, ``ask for``, ``need``, ...; "will never *ever* ask" too), and
the words from that verb to the term are few (eight at most) and plain: no second
instruction (another such verb, unless ``to`` makes it part of the first: "never ask you *to
enter* your password"), and no word that turns the sentence round ("anything *but*", "the
*wrong* PIN", "do not share it, *just* enter your PIN").

This errs towards flagging. The lint is a warning to the person and the server's refusal to
build a secret-looking form, so a false alarm costs a line of text; a missed secret costs the
secret. The terms are English, as the words are (``[A-Za-z0-9]``).
"""

from __future__ import annotations

import re

SECRET = re.compile(
    r"\b(?:pass ?word|passwd|pwd|pass ?phrase|pass ?code|secret|secrets|token|access key"
    r"|api ?key|private key|secret key|client secret|credentials?|auth code|otp|one time code"
    r"|card number|card no|credit card|debit card|cc number|ccn|cvv|cvc|cvv2|security code"
    r"|pin|pin code|ssn|social security(?: number)?|iban|routing number|account number"
    r"|seed phrase|recovery phrase|mnemonic)\b"
)
_SPLIT = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[^A-Za-z0-9]+")
_CLAUSE_END = re.compile(r"[.;:!?()\[\]{}\n]")

# ``don't`` reads ``don t`` once split (and ``won't``, ``can't`` alike); ``not`` covers do,
# does, will, must and should not.
_NEGATIONS = frozenset({"not", "never", "t", "cannot", "dont", "nor"})
# What may stand between the negation and its verb: "will never *ever* ask", "we *will* not".
_FILLERS = frozenset({"ever", "will", "would", "be", "once", "at", "all"})
_VERBS = frozenset(
    {
        "give", "share", "enter", "type", "send", "provide", "tell", "include", "disclose",
        "reveal", "ask", "request", "need", "want", "write", "paste", "submit", "input",
        "put", "post", "email", "say", "use",
    }
)  # fmt: skip
# Words that end the negation's reach before the term: the sentence turns round, or the
# term is named as the thing to give after all.
_TURNS = frozenset(
    {
        "but", "except", "only", "unless", "instead", "than", "besides", "apart", "just",
        "so", "then", "now", "here", "below", "please", "yet", "still", "rather",
        "wrong", "incorrect", "invalid", "old", "previous", "expired", "fake", "same",
    }
)  # fmt: skip
_VERB_REACH = 8  # words allowed between the verb and the term ("us your phone number, pin")


def words(text: str) -> str:
    """``text`` as the lint reads it: lower-cased words, single-spaced."""
    return " ".join(part.lower() for part in _SPLIT.split(text) if part)


def secret_term(*texts: str | None) -> str | None:
    """The secret-like term in a field's name, title or description, or None; a term whose
    mention is negated ("do not give us your PIN") does not count."""
    for text in texts:
        if not text:
            continue
        for clause in _CLAUSE_END.split(text):
            read = words(clause)
            for match in SECRET.finditer(read):
                before = read[: match.start()].split()
                if not _negated(before):
                    return match.group(0)
    return None


def _negated(before: list[str]) -> bool:
    """Whether ``before``, the clause's words up to a term, ends in a negated verb of giving
    or asking whose object the term is."""
    # The nearest verb of giving before the term, with nothing that turns the sentence round
    # between it and the term; a verb after "to" belongs to the one before it.
    for at in range(len(before) - 1, max(-1, len(before) - 2 - _VERB_REACH), -1):
        word = before[at]
        if word in _TURNS:
            return False
        if word not in _VERBS:
            continue
        if at > 0 and before[at - 1] == "to":
            continue  # "ask you to enter": the verb to negate is further back
        return _negation_before(before, at)
    return False


def _negation_before(before: list[str], verb: int) -> bool:
    """Whether a negation stands right before the verb at ``before[verb]`` (fillers apart)."""
    if before[verb] == "need" and before[verb - 1 : verb] == ["no"]:
        return True  # "no need to enter your PIN"
    for word in reversed(before[:verb]):
        if word in _NEGATIONS:
            return True
        if word not in _FILLERS:
            return False
    return False
