"""The search modes are named once (base/search_modes.py): the setting, the command line's --mode and the saved
searches' check all offer exactly those, in that order, and refuse anything else in one line."""

from __future__ import annotations

import pytest

from searchapp.base.config.schema import field_meta
from searchapp.base.errors import ConfigError
from searchapp.base.search_modes import SEARCH_MODES, SIDES_THEN_FUSED, check_mode
from searchapp.cli.parser import build_parser


def _choices(argv_before: list[str]) -> tuple:
    """The --mode choices of the command `argv_before` names, as argparse holds them."""
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices[argv_before[0]]
    for word in argv_before[1:]:
        sub = next(a for a in sub._actions if a.dest and a.dest.endswith("_command")).choices[word]
    return tuple(next(a for a in sub._actions if a.dest == "mode").choices)


def test_every_list_of_modes_is_the_one_tuple():
    assert SEARCH_MODES == ("hybrid", "dense", "lexical")
    assert tuple(field_meta()["search.mode"]["choices"]) == SEARCH_MODES
    assert _choices(["search"]) == SEARCH_MODES
    assert _choices(["saved", "add"]) == SEARCH_MODES
    assert sorted(SIDES_THEN_FUSED) == sorted(SEARCH_MODES) and SIDES_THEN_FUSED[-1] == "hybrid"


@pytest.mark.parametrize("mode", SEARCH_MODES)
def test_each_mode_passes_the_check(mode):
    assert check_mode(mode) == mode


@pytest.mark.parametrize("bad", ["all", "Hybrid", "", "words"])
def test_anything_else_is_refused_in_one_line(bad):
    with pytest.raises(ConfigError, match=r"unknown search mode .* \(hybrid, dense or lexical\)$"):
        check_mode(bad)
