"""The command line's parser: each command's words in any order, each command's own usage."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from mcp_elicit.i18n import N_, _, available_languages, text_width
from mcp_elicit.i18n.choosing import match

if TYPE_CHECKING:
    from _typeshed import SupportsWrite


class CommandParser(argparse.ArgumentParser):
    """``argparse`` with two changes for the commands (the parsers without subcommands):

    - their words are parsed intermixed, so a positional (``TOOL``, ``TARGET``, ``FILE``) may
      come before, between or after the options: ``call TOOL --answers F URL`` and
      ``call --answers F TOOL URL`` mean the same. (Plain ``argparse`` gives an optional
      ``TARGET`` the empty match at the first chance, and a URL after the options is then
      "unrecognized".)
    - words left over are an error of the command itself, shown with its own usage line
      (``usage: mcp-elicit call ...``), not the top-level one.

    The command that parsed the line is kept as ``command_parser`` on the result, so an error
    found later (a missing file, a bad target) can be shown with its usage too.

    And for all: their words in the language in effect (``--lang``, else the environment's:
    ``mcp_elicit.cli.main`` chooses it before the parsers are built), argparse's own included
    (``usage:``, the headings, its error messages); and a failed write of its help, version or
    usage is not dropped silently, so that a closed standard output (``mcp-elicit --help |
    head -1``) ends the run as it ends any command's (``main``: no traceback, status 141),
    buffered output or not.
    """

    _intermixing = False

    def __init__(self, *args: Any, add_help: bool = True, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        kwargs["add_help"] = False  # added below, its help in the language in effect
        super().__init__(*args, **kwargs)
        # argparse's own words, in the language in effect (argparse has its words from the
        # stdlib's gettext, which knows nothing of ours).
        self._positionals.title = _("positional arguments")
        self._optionals.title = _("options")
        if add_help:
            self.add_argument(
                "-h",
                "--help",
                action="help",
                default=argparse.SUPPRESS,
                help=_("show this help message and exit"),
            )
        # Every command takes --lang, wherever it is on the line (before `--`). It is read
        # before the parsers are built (``language_asked``), so that their help is in that
        # language too; here it is checked, so that a wrong one is the command's usage error.
        self.add_argument(
            "--lang",
            metavar="TAG",
            type=_language_tag,
            default=argparse.SUPPRESS,
            help=_(
                "the language of what is shown ({languages}); "
                "default: from LC_ALL, LC_MESSAGES or LANG"
            ).format(languages=", ".join(available_languages())),
        )

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        # Python 3.11's intermixed parsing calls parse_known_args itself: the flag sends
        # those calls to argparse's own.
        if self._subparsers is not None or self._intermixing:
            return super().parse_known_args(args, namespace)
        self._intermixing = True
        usage = self.usage
        try:
            # argparse's intermixed parsing keeps the usage for its errors as format_usage()
            # less its first 7 characters, len("usage: "): the same, with our prefix.
            if usage is None:
                self.usage = self.format_usage()[len(_("usage: ")) :]
            parsed, extras = self.parse_known_intermixed_args(args, namespace)
        finally:
            self._intermixing = False
            self.usage = usage
        if extras:
            self.error(_("unrecognized arguments: {words}").format(words=" ".join(extras)))
        parsed.command_parser = self
        return parsed, extras

    def error(self, message: str) -> NoReturn:
        """As argparse's, in the language in effect: its usage line, then ``PROG: error:``
        and the message (argparse's own messages translated; ours are already)."""
        self.print_usage(sys.stderr)
        shown = _("{prog}: error: {message}").format(prog=self.prog, message=_argparse(message))
        self.exit(2, shown + "\n")

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        # argparse's own catches OSError (BrokenPipeError included) and carries on.
        if message:
            out = file or sys.stderr
            if out is not None:  # None: that stream is closed (``2>&-``)
                out.write(message)


class _Formatter(argparse.HelpFormatter):
    """argparse's help, with its ``usage:`` and headings in the language in effect."""

    def _format_usage(self, usage: Any, actions: Any, groups: Any, prefix: str | None) -> str:
        # Laid out behind spaces as wide on screen as the prefix (a Chinese one is twice as
        # wide as it is long), so that the lines it wraps to line up under the first.
        shown = _("usage: ") if prefix is None else prefix
        width = text_width(shown)
        text: str = super()._format_usage(usage, actions, groups, " " * width)
        return shown + text[width:]

    def _split_lines(self, text: str, width: int) -> list[str]:
        if not _has_wide(text):
            return list(super()._split_lines(text, width))
        return _wrap(" ".join(text.split()), width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if not _has_wide(text):
            return str(super()._fill_text(text, width, indent))
        return "\n".join(indent + line for line in _wrap(" ".join(text.split()), width))

    _headings: tuple[str, ...] = ()

    def start_section(self, heading: str | None) -> None:
        if heading:
            self._headings = (*self._headings, heading)
        super().start_section(heading)

    def format_help(self) -> str:
        # argparse writes a heading and a colon; the colon is the language's own.
        text = super().format_help()
        for heading in self._headings:
            ours = _("{heading}:").format(heading=heading)
            text = text.replace(f"\n{heading}:\n", f"\n{ours}\n")
        return text


# Chinese punctuation that does not begin a line, and that does not end one.
_NO_LINE_START = frozenset("，。、；：？！）》」』”’…")  # noqa: RUF001
_NO_LINE_END = frozenset("（《「『“‘")  # noqa: RUF001


def _has_wide(text: str) -> bool:
    return text_width(text) != len(text)


def _wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` columns on screen (argparse's ``textwrap``
    counts characters, and breaks only at spaces, which Chinese has few of): a line may break
    at a space or beside a wide character, but not before closing punctuation nor after
    opening punctuation."""
    pieces: list[str] = []  # spaces, words of narrow characters, single wide characters
    for char in text:
        if char == " ":
            pieces.append(char)
        elif pieces and (
            char in _NO_LINE_START
            or pieces[-1][-1] in _NO_LINE_END
            or (text_width(char) == 1 and pieces[-1] != " " and text_width(pieces[-1][-1]) == 1)
        ):
            pieces[-1] += char
        else:
            pieces.append(char)
    lines: list[str] = []
    line = ""
    for piece in pieces:
        if piece == " ":
            line += " " if line else ""
        elif line and text_width(line + piece) > width:
            lines.append(line.rstrip())
            line = piece
        else:
            line += piece
    if line.strip():
        lines.append(line.rstrip())
    return lines


# argparse's own error messages (Python's wording, ``%`` fields as named groups here), with
# ours to show them in the language in effect. Python words them the same from 3.11 to 3.13;
# a message that matches none of them is shown as argparse wrote it.
_ARGPARSE_ERRORS: tuple[tuple[str, str], ...] = (
    (
        r"argument (?P<name>\S+): (?P<message>.*)",
        N_("argument {name}: {message}"),
    ),
    (
        r"the following arguments are required: (?P<names>.*)",
        N_("the following arguments are required: {names}"),
    ),
    (
        r"one of the arguments (?P<names>.*) is required",
        N_("one of the arguments {names} is required"),
    ),
    (r"unrecognized arguments: (?P<words>.*)", N_("unrecognized arguments: {words}")),
    (
        r"invalid choice: (?P<value>.*) \(choose from (?P<choices>.*)\)",
        N_("invalid choice: {value} (choose from {choices})"),
    ),
    (r"invalid (?P<type>\w+) value: (?P<value>.*)", N_("invalid {type} value: {value}")),
    (r"expected one argument", N_("expected one argument")),
    (r"expected at most one argument", N_("expected at most one argument")),
    (r"expected at least one argument", N_("expected at least one argument")),
    (
        r"ambiguous option: (?P<option>\S+) could match (?P<matches>.*)",
        N_("ambiguous option: {option} could match {matches}"),
    ),
    (r"not allowed with argument (?P<name>.*)", N_("not allowed with argument {name}")),
    (r"ignored explicit argument (?P<value>.*)", N_("ignored explicit argument {value}")),
)


def _argparse(message: str) -> str:
    """``message``, if it is one of argparse's own, in the language in effect (its fields as
    they were: option names, the values given, the choices)."""
    import re  # argparse has imported it already

    for pattern, ours in _ARGPARSE_ERRORS:
        found = re.fullmatch(pattern, message, flags=re.DOTALL)
        if found is not None:
            fields = found.groupdict()
            if "message" in fields:  # "argument X: ..." holds one of the others, or ours
                fields["message"] = _argparse(fields["message"])
            return _(ours).format(**fields)
    return message


def _language_tag(text: str) -> str:
    found = match(text)
    if found is None:
        raise argparse.ArgumentTypeError(
            _("no catalog for language {tag}; the languages are {languages}").format(
                tag=repr(text), languages=", ".join(available_languages())
            )
        )
    return found


def language_asked(argv: Sequence[str]) -> str | None:
    """The ``--lang`` value on the command line (before ``--``), if any: ``--lang zh-Hans`` or
    ``--lang=zh-Hans``; the last one wins, as argparse has it."""
    found: str | None = None
    words = list(argv)
    for index, word in enumerate(words):
        if word == "--":
            break
        if word == "--lang" and index + 1 < len(words):
            found = words[index + 1]
        elif word.startswith("--lang="):
            found = word.removeprefix("--lang=")
    return found
