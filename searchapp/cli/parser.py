"""The command line's parser: every command's, or just some groups' (a command builds its own group's alone: the
other groups' modules and parsers are a tenth of a warm search's time, and importing them a third of a one-file
`index --words-only`: status's numpy, explain's extractors). Used by cli/main.py and, for the commands a warm
process runs for the thin entry point, cli/warm_run.py."""

from __future__ import annotations

import argparse
import difflib
from typing import Any, NoReturn, Optional, Sequence

from .. import __version__
from .warm_argv import command_word
from .commands import GROUP_OF, register_all
from .global_options import accept_after_command

__all__ = ["build_parser", "parse_command_line"]


def parse_command_line(argv: Sequence[str]) -> argparse.Namespace:
    """`argv` parsed by its command's group's parser alone, when that parser takes it without a word of its own
    (help, version, usage errors); else, and whenever the command word was misread (a global option's value that
    is a command's name), by every command's parser, which then says what it always said. A parse the group's
    parser takes is the full parser's too: the same global options, and the command word among its choices."""
    group = GROUP_OF.get(command_word(argv) or "")
    if group is not None:
        try:
            return _parse(build_parser((group,), parser_class=_Declining), argv)
        except _Declined:
            pass
    return _parse(build_parser(), argv)


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.Namespace:
    """parse_args, with an option its command does not take refused by that command's parser: argparse refuses it
    at the top, printing `searchapp`'s usage (`similar FILE --no-colour` showed every global option, not similar's)."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        _command_parser(parser, args).error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _command_parser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the (sub)command `args` were parsed for: `saved run`'s, `similar`'s, else `parser`."""
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]  # no public walk
        name = getattr(args, subs[0].dest, None) if subs and subs[0].dest != argparse.SUPPRESS else None
        if not isinstance(name, str) or name not in subs[0].choices:
            return parser
        parser = subs[0].choices[name]


class _Suggesting(argparse.ArgumentParser):
    """A parser that names the nearest choice of a mistyped one (searchapp serch: "did you mean 'search'?"), a
    command, an action or an option's value: argparse before Python 3.14 lists every choice and no more."""

    def _check_value(self, action: argparse.Action, value: Any) -> None:  # argparse's own hook for choices
        try:
            super()._check_value(action, value)
        except argparse.ArgumentError:
            names = [str(c) for c in action.choices or ()]
            near = difflib.get_close_matches(str(value), names, n=1)
            if not near:
                raise
            raise argparse.ArgumentError(action, f"invalid choice: {value!r}, did you mean {near[0]!r}? (choose from "
                                                 f"{', '.join(map(repr, names))})") from None


class _Declined(Exception):
    pass


class _Declining(_Suggesting):
    """A parser that gives up, printing nothing, where argparse would print or exit (help, version, errors)."""

    def _print_message(self, message: str, file: Any = None) -> None:
        raise _Declined

    def exit(self, status: int = 0, message: Optional[str] = None) -> NoReturn:
        raise _Declined

    def error(self, message: str) -> NoReturn:
        raise _Declined


def build_parser(only: Optional[Sequence[str]] = None,
                 parser_class: type[argparse.ArgumentParser] = _Suggesting) -> argparse.ArgumentParser:
    """Every command's parser; `only`: just those command groups' (cli/commands/__init__.py). `parser_class`:
    the parsers' class (every command's parser is one too; cli/warm_run.py's never prints)."""
    p = parser_class(prog="searchapp", description="Find things in your own files by meaning.")
    p.add_argument("--version", action="version", version=f"searchapp {__version__}")
    p.add_argument("--data-dir", help="library location (default: $SEARCHAPP_DATA_DIR or the per-user data directory)")
    p.add_argument("--config", help="config file (default: <data-dir>/config.toml)")
    p.add_argument("--library", metavar="ADDRESS",
                   help="a library a team shares: postgresql://user@host/db (password from ~/.pgpass or a service "
                        "file, never stored; default: $SEARCHAPP_LIBRARY; `local`: this desktop's own library; see "
                        "docs/shared-library.md)")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    register_all(sub, only)
    accept_after_command(p)
    return p
