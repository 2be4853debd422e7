"""``check_url``: put every finding about a URL together into one verdict."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from mcp_elicit.i18n import N_, _, ngettext
from mcp_elicit.urls.addresses import AddressFinding, IPAddress, classify_address
from mcp_elicit.urls.characters import (
    CharacterFinding,
    CharacterKind,
    describe_character,
    scan_characters,
    visible,
)
from mcp_elicit.urls.codes import ReasonCode
from mcp_elicit.urls.embedded import (
    WILDCARD_SERVICES,
    EmbeddedAddress,
    embedded_addresses,
    wildcard_service,
)
from mcp_elicit.urls.hosts import HostKind, ParsedHost, parse_host
from mcp_elicit.urls.idn import confusables_in, is_mixed_script, label_scripts, skeleton
from mcp_elicit.urls.names import classify_name, nobody_registers
from mcp_elicit.urls.parse import (
    DEFAULT_PORTS,
    SPECIAL_SCHEMES,
    browser_clean,
    parse_port,
    split_authority,
    split_scheme,
)
from mcp_elicit.urls.policy import DEFAULT_POLICY, UrlPolicy
from mcp_elicit.urls.registrable import registrable_domain
from mcp_elicit.urls.resolve import in_thread
from mcp_elicit.urls.resolve import resolve as resolve_name
from mcp_elicit.urls.verdict import DisplayHost, Reason, Severity, UrlVerdict, verdict_for
from mcp_elicit.urls.wording import clauses, listed

# Schemes whose URLs we parse for a host even when the policy blocks them, so the verdict can
# still say where the link would have gone (http://169.254.169.254/ is worse than http://x).
_HOST_SCHEMES = frozenset({"http", "https", "ws", "wss", "ftp"})
_INSECURE_SCHEMES = frozenset({"http", "ws", "ftp"})
# Codes a policy with allow_private=True turns from block into warn.
_PRIVATE_CODES = frozenset(
    {
        ReasonCode.PRIVATE_NETWORK,
        ReasonCode.CARRIER_GRADE_NAT,
        ReasonCode.LINK_LOCAL,
        ReasonCode.LOCAL_NAME,
        ReasonCode.NON_PUBLIC_TLD,
    }
)
# At most this many addresses spelled in one name are reported.
_MAX_EMBEDDED = 4
# Messages are made when a URL is checked, in the language in effect then: nothing here holds
# translated words (the descriptions below are English, marked, and translated where used).
_CHARACTER_REASONS = {
    CharacterKind.WHITESPACE: (
        ReasonCode.WHITESPACE,
        N_(
            "whitespace, which browsers drop or stop at, so the link opens something else than "
            "what is shown"
        ),
    ),
    CharacterKind.CONTROL: (ReasonCode.CONTROL_CHARACTER, N_("a control character")),
    CharacterKind.BIDI: (
        ReasonCode.BIDI_CONTROL,
        N_("a bidirectional control, which reorders how the text around it is displayed"),
    ),
    CharacterKind.INVISIBLE: (
        ReasonCode.INVISIBLE_CHARACTER,
        N_("an invisible character, which browsers ignore in host names"),
    ),
    CharacterKind.SURROGATE: (
        ReasonCode.MALFORMED_URL,
        N_("a lone surrogate code point, which no real text contains"),
    ),
}


# The names of the scripts a host name is most often written in, by Unicode's name for them;
# any other script is shown with Unicode's name (as data).
_SCRIPT_NAMES = {
    "LATIN": N_("Latin"),
    "CYRILLIC": N_("Cyrillic"),
    "GREEK": N_("Greek"),
    "ARMENIAN": N_("Armenian"),
    "GEORGIAN": N_("Georgian"),
    "HEBREW": N_("Hebrew"),
    "ARABIC": N_("Arabic"),
    "DEVANAGARI": N_("Devanagari"),
    "THAI": N_("Thai"),
    "HAN": N_("Han"),
    "HIRAGANA": N_("Hiragana"),
    "KATAKANA": N_("Katakana"),
    "HANGUL": N_("Hangul"),
    "BOPOMOFO": N_("Bopomofo"),
    "CHEROKEE": N_("Cherokee"),
    "UNKNOWN": N_("Unknown"),
}


def _script_name(script: str) -> str:
    """A script's name in the language in effect (Unicode's, title-cased, when not listed)."""
    name = _SCRIPT_NAMES.get(script)
    return _(name) if name is not None else script.title()


@dataclass(slots=True)
class _Findings:
    """Reasons gathered so far, without duplicates, in the order they were found."""

    reasons: list[Reason] = field(default_factory=list)

    def add(self, code: ReasonCode, message: str, severity: Severity = Severity.BLOCK) -> None:
        reason = Reason(code, message, severity)
        if reason not in self.reasons:
            self.reasons.append(reason)

    def has(self, code: ReasonCode) -> bool:
        return any(reason.code == code for reason in self.reasons)


def _shown_userinfo(userinfo: str) -> str:
    """A URL's ``user:password`` as the person is told of it: the user name, which is the
    trick to see when it looks like a host (``paypal.com@evil.example``), and never the
    password. The reason is written wherever the verdict goes (a terminal, a notice the
    gateway writes to the stderr a host logs), so a secret in it would go there too. A user
    name that looks like a token (long, no dot: ``https://<token>@github.com``) is cut to
    its first four characters, as token lists show them."""
    user, colon, _password = userinfo.partition(":")
    if len(user) > _LONGEST_PLAIN_USER and "." not in user:
        user = user[:4] + _HIDDEN
    return visible(user, 60) + (":" + _HIDDEN if colon else "")


_HIDDEN = "•••"
_LONGEST_PLAIN_USER = 16


def check_url(url: str, policy: UrlPolicy = DEFAULT_POLICY, *, resolve: bool = False) -> UrlVerdict:
    """Decide whether ``url`` may be offered to a person to open.

    Never raises for a ``str`` (anything else is a ``TypeError``), and never touches the
    network unless ``resolve`` is true, in which case the host name is resolved and every
    address it resolves to is checked like an address written in the URL.
    """
    if not isinstance(url, str):
        raise TypeError(f"check_url() needs a str, not {type(url).__name__}")
    if not isinstance(policy, UrlPolicy):
        raise TypeError(f"policy must be a UrlPolicy, not {type(policy).__name__}")
    try:
        return _check(url, policy, resolve)
    except Exception as exc:  # fail closed: a checker that crashes must not let a link through
        reason = Reason(
            ReasonCode.INTERNAL_ERROR,
            _("the check failed unexpectedly ({error}); the link is blocked").format(
                error=type(exc).__name__
            ),
            Severity.BLOCK,
        )
        return UrlVerdict(verdict_for([reason]), (reason,), None, None, url)


async def check_url_async(
    url: str, policy: UrlPolicy = DEFAULT_POLICY, *, resolve: bool = False
) -> UrlVerdict:
    """:func:`check_url` for event loops: resolution (if asked for) runs in a worker thread."""
    if not resolve:
        return check_url(url, policy)
    if not isinstance(url, str):  # raise here, not inside the worker thread
        raise TypeError(f"check_url() needs a str, not {type(url).__name__}")
    return await in_thread(lambda: check_url(url, policy, resolve=True))


def _check(url: str, policy: UrlPolicy, resolve: bool) -> UrlVerdict:
    found = _Findings()
    # http under allow_http_loopback is allowed only once the host is known to be loopback;
    # every other way out (no host, invalid host, another host) blocks it.
    pending_http = False

    def done(host: ParsedHost | None = None, registrable: str | None = None) -> UrlVerdict:
        if pending_http:
            found.add(
                ReasonCode.SCHEME_NOT_ALLOWED,
                _("the scheme 'http:' is allowed only for loopback hosts (local development)"),
            )
        display = (
            DisplayHost(unicode=host.unicode, ascii=host.ascii)
            if host is not None and host.kind is not None and not host.errors
            else None
        )
        reasons = tuple(found.reasons)
        return UrlVerdict(verdict_for(reasons), reasons, display, registrable, url)

    if len(url) > policy.max_length:
        found.add(
            ReasonCode.TOO_LONG,
            _("the URL is {length} characters long; the limit is {limit}").format(
                length=len(url), limit=policy.max_length
            ),
        )
        return done()

    _report_characters(found, scan_characters(url), in_host=False)

    cleaned = browser_clean(url)
    scheme_and_rest = split_scheme(cleaned)
    if scheme_and_rest is None:
        found.add(
            ReasonCode.MALFORMED_URL,
            _("the URL is empty")
            if not cleaned
            else _("the URL does not start with a scheme such as 'https:'"),
        )
        return done()
    scheme, rest = scheme_and_rest

    scheme_allowed = scheme in policy.allowed_schemes
    pending_http = not scheme_allowed and scheme == "http" and policy.allow_http_loopback
    if not scheme_allowed and not pending_http:
        if policy.allowed_schemes:
            message = _("the scheme '{scheme}:' is not allowed (allowed: {allowed})").format(
                scheme=visible(scheme, 30), allowed=listed(sorted(policy.allowed_schemes))
            )
        else:
            message = _("the scheme '{scheme}:' is not allowed (allowed: none)").format(
                scheme=visible(scheme, 30)
            )
        found.add(ReasonCode.SCHEME_NOT_ALLOWED, message)
        if scheme not in _HOST_SCHEMES:
            return done()
    elif scheme_allowed and scheme in _INSECURE_SCHEMES:
        found.add(
            ReasonCode.INSECURE_SCHEME,
            _(
                "'{scheme}:' is not encrypted: anyone on the network path can read or change it"
            ).format(scheme=scheme),
            Severity.WARN,
        )

    special = scheme in SPECIAL_SCHEMES
    authority = split_authority(rest, special=special)
    if authority is None:
        return done()  # an allowed scheme without a host (mailto:, urn:...): nothing more
    if special and authority.slashes != "//":
        found.add(
            ReasonCode.MALFORMED_URL,
            _(
                "'{scheme}:' is followed by '{slashes}' instead of '//'; browsers guess the host"
            ).format(scheme=scheme, slashes=visible(authority.slashes, 20)),
        )
    if authority.backslash:
        found.add(
            ReasonCode.BACKSLASH,
            _(
                "the URL contains a backslash before the query, which browsers read as '/': "
                "the host is not where it appears to end"
            ),
        )

    for problem in authority.problems:
        found.add(ReasonCode.INVALID_HOST, problem)
    if authority.problems:
        return done()

    port: int | None = None
    if authority.port is not None:
        port = parse_port(authority.port)
        if port is None:
            found.add(
                ReasonCode.INVALID_PORT,
                _("the port '{port}' is not a number from 0 to 65535").format(
                    port=visible(authority.port, 30)
                ),
            )
        elif port >= 0 and port != DEFAULT_PORTS.get(scheme):
            found.add(
                ReasonCode.NON_DEFAULT_PORT,
                _("the link uses port {port}, not the usual one for {scheme}:").format(
                    port=port, scheme=scheme
                ),
                Severity.WARN,
            )

    host = parse_host(authority.host) if authority.host else None
    if authority.userinfo is not None:
        # Named after host parsing, so the message can say which host really gets opened.
        userinfo = _shown_userinfo(authority.userinfo)
        if host is None:
            message = _(
                "the URL has '{userinfo}@' before the host: browsers treat it as a user name "
                "and password and open no host at all"
            ).format(userinfo=userinfo)
        else:
            target = host.unicode if host.kind is not None else authority.host
            message = _(
                "the URL has '{userinfo}@' before the host: browsers treat it as a user name "
                "and password and open {host}"
            ).format(userinfo=userinfo, host=visible(target, 253))
        found.add(ReasonCode.CREDENTIALS, message)
    if host is None:
        if scheme != "file":  # file: URLs may have an empty host; all others must not
            found.add(ReasonCode.EMPTY_HOST, _("the URL has no host"))
        return done()

    _report_characters(found, host.decoded_characters, in_host=True)
    for error in host.errors:
        found.add(
            ReasonCode.INVALID_HOST, _("invalid host: {error}").format(error=visible(error, 300))
        )
    for error in host.idna_errors:
        found.add(
            ReasonCode.INVALID_IDNA,
            _("the host is not a valid internationalised name: {error}").format(
                error=visible(error, 300)
            ),
        )

    if host.kind is None:
        return done()

    if _host_findings(found, host, policy):
        # A loopback host, already reported as local_development when the policy allows it.
        pending_http = False

    registrable: str | None = None
    if host.kind is HostKind.NAME:
        # Nobody registers printer.local, db.internal or api.svc, whatever the Public Suffix
        # List's default rule makes of an unlisted top-level name.
        registrable = None if nobody_registers(host.ascii) else _registrable_unicode(host)
        _idn_findings(found, host)
        if resolve:
            _resolve_findings(found, host, port, scheme, policy)
    return done(host, registrable)


def _report_characters(
    found: _Findings, findings: list[CharacterFinding], *, in_host: bool
) -> None:
    for finding in findings:
        code, what = _CHARACTER_REASONS[finding.kind]
        fields = {
            "what": _(what),
            "character": describe_character(finding.char),
            "position": finding.position,
            "count": finding.count,
        }
        # Translators: {what} is a kind of character with why it matters, such as "a bidirectional
        # control, which reorders how the text around it is displayed"; {character} is its code
        # point and Unicode name, such as "U+202E (RIGHT-TO-LEFT OVERRIDE)".
        if in_host and finding.count > 1:
            message = ngettext(
                "the percent-decoded host contains {what}: {character} at position {position} "
                "({count} of them)",
                "the percent-decoded host contains {what}: {character} at position {position} "
                "({count} of them)",
                finding.count,
            )
        elif in_host:
            message = _(
                "the percent-decoded host contains {what}: {character} at position {position}"
            )
        elif finding.count > 1:
            message = ngettext(
                "the URL contains {what}: {character} at position {position} ({count} of them)",
                "the URL contains {what}: {character} at position {position} ({count} of them)",
                finding.count,
            )
        else:
            message = _("the URL contains {what}: {character} at position {position}")
        found.add(code, message.format(**fields))


def _host_findings(found: _Findings, host: ParsedHost, policy: UrlPolicy) -> bool:
    """Reasons about where the host points. Returns whether it is a loopback host."""
    shown = visible(host.unicode, None)
    if host.address is not None:
        findings = classify_address(host.address)
    else:
        findings = classify_name(host.ascii)
    # A disguised spelling of an address on this machine or network (0x7f.1, 2130706433) is
    # how links get past a person and a filter; local development and intranets write
    # 127.0.0.1 or 10.0.0.5 plainly, so the policy's allowances do not cover it.
    # Addresses spelled in the name (10-0-0-1.sslip.io); not in localhost names, which mean
    # this machine whatever they spell.
    embedded: list[EmbeddedAddress] = []
    if host.kind is HostKind.NAME and not (
        findings and any(f.code is ReasonCode.LOOPBACK for f in findings)
    ):
        embedded = embedded_addresses(host.ascii)
        if len(embedded) > _MAX_EMBEDDED:
            # A crafted name spells dozens of overlapping addresses: report the inside ones
            # first, and a few (the verdict is the same).
            embedded.sort(key=lambda e: not (e.certain and classify_address(e.address)))
            del embedded[_MAX_EMBEDDED:]
    disguised_inside = False
    if host.obfuscations:
        disguised_inside = bool(findings) or any(
            e.certain and classify_address(e.address) for e in embedded
        )
    relaxed = policy if not disguised_inside else DEFAULT_POLICY

    def the_host_is(what: str) -> str:
        # Translators: {what} says what the host is, such as "a private network address
        # (10.0.0.0/8)" or "loopback: this machine itself (127.0.0.0/8)".
        return _("the host {host} is {what}").format(host=shown, what=what)

    _add_address_findings(found, findings, the_host_is, relaxed)
    for spelled in embedded:
        _embedded_findings(found, host, shown, spelled, policy)
    if host.address is not None:
        found.add(
            ReasonCode.IP_ADDRESS_HOST,
            _("the host is the bare IP address {host}: no name says who runs it").format(
                host=shown
            ),
            Severity.WARN,
        )
    if host.obfuscations:
        found.add(
            ReasonCode.OBFUSCATED_HOST,
            # Translators: {ways} lists how the host's spelling hides it, such as "it is
            # percent-encoded (...)".
            _("the host {host} is disguised: {ways}").format(
                host=shown, ways=clauses(host.obfuscations)
            ),
            Severity.BLOCK if disguised_inside else Severity.WARN,
        )
    return _only_loopback(findings) and not disguised_inside


def _embedded_findings(
    found: _Findings, host: ParsedHost, shown: str, embedded: EmbeddedAddress, policy: UrlPolicy
) -> None:
    """A name that spells an address (10-0-0-1.sslip.io) points at it for whoever asks DNS.

    The address gets the checks of an address written in the URL, and allow_private's
    allowance as one would (an intranet may well use 10.0.0.5.nip.io), except when it is
    disguised (hex, percent-encoding), which nobody reads. allow_http_loopback never applies:
    a public name pointing at this machine is how DNS rebinding starts, not how local
    development looks."""
    disguised = embedded.disguised or bool(host.obfuscations)
    address = _address_text(embedded.address)
    service = wildcard_service(host.ascii)
    findings = classify_address(embedded.address)
    if not embedded.certain:
        what = findings[0].what if findings else _("a public address")
        found.add(
            ReasonCode.EMBEDDED_ADDRESS,
            # Translators: {what} says what the address is, such as "a private network address
            # (10.0.0.0/8)".
            _(
                "'{spelling}' in the host {host} is {address} in hexadecimal, which wildcard DNS "
                "services such as nip.io resolve a name to; here it may just be an identifier, "
                "but if the name points there, {address} is {what}"
            ).format(spelling=embedded.spelling, host=shown, address=address, what=what),
            Severity.WARN,
        )
        return
    known = service in WILDCARD_SERVICES
    if embedded.form == "fixed":
        message = _(
            "the host {host} points at {address}, whoever registered it: {service} is a "
            "public domain whose every name points at {address}"
        )
    elif embedded.spelling == address and known:
        message = _(
            "the host {host} points at {address}, whoever registered it: {service}, a public "
            "wildcard DNS service, resolves a name to the address written in it"
        )
    elif embedded.spelling == address:
        message = _(
            "the host {host} points at {address}, whoever registered it: wildcard DNS services "
            "(nip.io, sslip.io, or any domain handed to their name servers) resolve a name to "
            "the address written in it"
        )
    elif known:
        # Translators: {form} says how {spelling} writes the address, such as "written with
        # dashes" or "in hexadecimal".
        message = _(
            "the host {host} points at {address}, whoever registered it: '{spelling}' is "
            "{address} {form}, and {service}, a public wildcard DNS service, resolves a name to "
            "the address written in it"
        )
    else:
        # Translators: {form} says how {spelling} writes the address, such as "written with
        # dashes" or "in hexadecimal".
        message = _(
            "the host {host} points at {address}, whoever registered it: '{spelling}' is "
            "{address} {form}, and wildcard DNS services (nip.io, sslip.io, or any domain handed "
            "to their name servers) resolve a name to the address written in it"
        )
    form = _(embedded.form) if embedded.form != "fixed" else ""
    found.add(
        ReasonCode.EMBEDDED_ADDRESS,
        message.format(
            host=shown, address=address, service=service, spelling=embedded.spelling, form=form
        ),
        Severity.WARN,
    )
    for finding in findings:
        # Translators: {what} says what the address is, such as "a private network address
        # (10.0.0.0/8)".
        text = _("the host {host} points at {address}, which is {what}").format(
            host=shown, address=address, what=finding.what
        )
        if finding.code in _PRIVATE_CODES and policy.allow_private and not disguised:
            found.add(
                finding.code,
                _("{reason}; allowed by the policy").format(reason=text),
                Severity.WARN,
            )
            continue
        if finding.code in _PRIVATE_CODES and policy.allow_private:
            text = _("{reason}; disguised, so the policy's allow_private does not cover it").format(
                reason=text
            )
        elif finding.code is ReasonCode.LOOPBACK and policy.allow_http_loopback:
            text = _(
                "{reason}; a public name pointing at this machine is a DNS-rebinding trick, not "
                "local development, so allow_http_loopback does not cover it"
            ).format(reason=text)
        found.add(finding.code, text)


def _only_loopback(findings: list[AddressFinding]) -> bool:
    return bool(findings) and all(f.code is ReasonCode.LOOPBACK for f in findings)


def _add_address_findings(
    found: _Findings,
    findings: list[AddressFinding],
    sentence: Callable[[str], str],
    policy: UrlPolicy,
) -> None:
    """``sentence`` makes the message from a finding's ``what``."""
    for finding in findings:
        message = sentence(finding.what)
        if finding.code is ReasonCode.LOOPBACK and policy.allow_http_loopback:
            found.add(
                ReasonCode.LOCAL_DEVELOPMENT,
                _("{reason}; allowed for local development by the policy").format(reason=message),
                Severity.WARN,
            )
        elif finding.code in _PRIVATE_CODES and policy.allow_private:
            found.add(
                finding.code,
                _("{reason}; allowed by the policy").format(reason=message),
                Severity.WARN,
            )
        else:
            found.add(finding.code, message)


def _registrable_unicode(host: ParsedHost) -> str | None:
    """The registrable domain in the form a person reads (U-labels), like display_host.unicode."""
    ascii_domain = registrable_domain(host.ascii)
    if ascii_domain is None:
        return None
    count = ascii_domain.count(".") + 1
    return ".".join(host.labels[-count:])


def _idn_findings(found: _Findings, host: ParsedHost) -> None:
    if host.unicode != host.ascii:
        found.add(
            ReasonCode.IDN_HOST,
            _("the host is internationalised: it reads {unicode} but is {ascii}").format(
                unicode=visible(host.unicode, None), ascii=host.ascii
            ),
            Severity.WARN,
        )
    for label in host.labels:
        if is_mixed_script(label):
            scripts = listed(sorted(_script_name(s) for s in label_scripts(label)))
            found.add(
                ReasonCode.MIXED_SCRIPTS,
                _("the label '{label}' mixes scripts ({scripts}), a common spoofing trick").format(
                    label=visible(label, None), scripts=scripts
                ),
                Severity.WARN,
            )
    # Look-alikes both in the name as written (fullwidth letters, which browsers fold to
    # ASCII) and in the name as displayed (Cyrillic and Greek, which they keep).
    written_labels = host.decoded.lower().split(".")
    lookalikes: dict[str, str] = {}
    for label in (*written_labels, *host.labels):
        for confusable in confusables_in(label):
            lookalikes.setdefault(confusable.char, confusable.looks_like)
    if lookalikes:
        pairs = clauses(
            _("{character} looks like '{lookalike}'").format(
                character=describe_character(char), lookalike=looks_like
            )
            for char, looks_like in lookalikes.items()
        )
        found.add(
            ReasonCode.CONFUSABLE_CHARACTERS,
            # Translators: {pairs} lists characters and what they look like, such as
            # "U+0430 (CYRILLIC SMALL LETTER A) looks like 'a'".
            _("the host can be read as {skeleton}: {pairs}").format(
                skeleton=visible(skeleton(host.unicode), None), pairs=pairs
            ),
            Severity.WARN,
        )


def _resolve_findings(
    found: _Findings, host: ParsedHost, port: int | None, scheme: str, policy: UrlPolicy
) -> None:
    connect_port = port if port is not None and port > 0 else DEFAULT_PORTS.get(scheme, 443)
    resolution = resolve_name(host.ascii, connect_port, policy.resolve_timeout)
    if resolution.error is not None:
        found.add(
            ReasonCode.UNRESOLVABLE,
            # Translators: {error} is the resolver's own words, often from the system (English).
            _("{host} does not resolve: {error}").format(
                host=visible(host.unicode, None), error=visible(resolution.error, 120)
            ),
            Severity.WARN,
        )
        return
    name = visible(host.unicode, None)
    for address in resolution.addresses:
        shown = _address_text(address)

        def resolves_to(what: str, shown: str = shown) -> str:
            # Translators: {what} says what the address is, such as "a private network
            # address (10.0.0.0/8)".
            return _("{host} resolves to {address}, which is {what}").format(
                host=name, address=shown, what=what
            )

        _add_address_findings(found, classify_address(address), resolves_to, policy)


def _address_text(address: IPAddress) -> str:
    return str(address) if address.version == 4 else f"[{address.compressed}]"
