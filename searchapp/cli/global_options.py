"""`--data-dir` and `--config` are accepted after the command name too (`searchapp status --data-dir X`).

Each subcommand parser gets copies whose default is SUPPRESS: given there, they override the value given
before the command; not given, they leave it alone.
"""

from __future__ import annotations

import argparse

__all__ = ["accept_after_command", "add_no_color"]

_SHARED = (
    ("--data-dir", "library location (may also be given before the command)"),
    ("--config", "config file (may also be given before the command)"),
    ("--library", "a shared library's postgresql:// address, or `local` for this desktop's own (may also be given "
                  "before the command)"),
)


def add_no_color(parser: argparse.ArgumentParser, marks: bool = True) -> None:
    """`--no-color` on every command that prints results (search, saved run, similar, duplicates): a script passing
    it to each was refused by `similar` ("unrecognized arguments", a newcomer). `marks`: whether the command marks
    anything in colour; where not, the option is accepted and changes nothing."""
    parser.add_argument("--no-color", action="store_true",
                        help="never mark query words in bold (also: NO_COLOR set)" if marks else
                        "accepted as `search` accepts it; this command marks nothing in colour")


def accept_after_command(parser: argparse.ArgumentParser) -> None:
    for action in parser._actions:  # argparse has no public walk over subparsers
        if isinstance(action, argparse._SubParsersAction):
            for sub in set(action.choices.values()):
                known = {opt for a in sub._actions for opt in a.option_strings}
                for flag, help_text in _SHARED:
                    if flag not in known:
                        sub.add_argument(flag, default=argparse.SUPPRESS, help=help_text)
                accept_after_command(sub)
