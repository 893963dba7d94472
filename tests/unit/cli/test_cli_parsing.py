"""The CLI's pure parts: the parser (no library, no model), option ranges, the shared options after a command,
a query starting with a dash, and the generated CLI reference (docs/cli-reference.md)."""

from __future__ import annotations

import argparse

import pytest

from searchapp.base.errors import ConfigError
from searchapp.cli import reference
from searchapp.cli.parser import build_parser
from searchapp.cli.options import check_options


@pytest.fixture(scope="module")
def parser():
    return build_parser()


def test_search_options_parse_to_their_attributes(parser):
    a = parser.parse_args(["search", "tax return", "--k", "5", "--mode", "lexical", "--no-rerank", "--group",
                           "passage", "--literal", "--json", "--in", "/r/a", "--in", "/r/b", "--type", "pdf,docx",
                           "--after", "2024-01-01"])
    assert (a.command, a.query, a.k, a.mode, a.no_rerank, a.group, a.literal, a.json) == \
           ("search", "tax return", 5, "lexical", True, "passage", True, True)
    assert a.within == ["/r/a", "/r/b"] and a.types == ["pdf,docx"] and a.after == "2024-01-01" and a.before is None
    plain = parser.parse_args(["search", "q"])
    assert (plain.k, plain.mode, plain.no_rerank, plain.group, plain.within) == (None, None, False, None, [])
    with pytest.raises(SystemExit):
        parser.parse_args(["search", "q", "--mode", "fuzzy"])


def test_a_dash_word_is_the_query_not_an_unknown_option(parser):
    assert parser.parse_args(["search", "-draft"]).query == "-draft"
    assert parser.parse_args(["search", "-holiday", "--k", "3"]).query == "-holiday"  # not -h "oliday"
    assert parser.parse_args(["search", "--", "--k"]).query == "--k"
    assert parser.parse_args(["search", "-", "--json"]).query == "-"  # stdin, one query a line
    with pytest.raises(SystemExit):
        parser.parse_args(["search", "q", "--no-such-option"])


def test_data_dir_and_config_before_or_after_the_command(parser):
    before = parser.parse_args(["--data-dir", "/d1", "status"])
    after = parser.parse_args(["--data-dir", "/d1", "status", "--data-dir", "/d2", "--config", "/c.toml"])
    assert before.data_dir == "/d1" and before.config is None
    assert after.data_dir == "/d2" and after.config == "/c.toml"  # the later one wins
    assert parser.parse_args(["search", "q", "--data-dir", "/d3"]).data_dir == "/d3"


@pytest.mark.parametrize("argv, message", [
    (["search", "q", "--k", "0"], "--k must be a whole number from 1"),
    (["search", "q", "--k", "-3"], "--k must be a whole number from 1"),
    (["search", "q", "--candidates", "0"], "--candidates must be a whole number"),
])
def test_out_of_range_options_are_one_line_naming_the_option(parser, argv, message):
    with pytest.raises(ConfigError, match=message):
        check_options(parser.parse_args(argv))


def test_float_options_are_checked_without_a_parser():
    check_options(argparse.Namespace(k=10, lr=2e-5, warmup=0.1, debounce=2.0))
    for bad, message in ((dict(lr=0.0), r"--lr must be a number in \(0.0, 1.0\]"),
                         (dict(lr=float("nan")), "--lr"),
                         (dict(warmup=1.5), "--warmup must be a number from 0.0 to 1.0"),
                         (dict(debounce=-1.0), "--debounce must be a number of seconds"),
                         (dict(debounce=float("inf")), "--debounce"),
                         (dict(epochs=0), "--epochs must be a whole number from 1 to 10000")):
        with pytest.raises(ConfigError, match=message):
            check_options(argparse.Namespace(**bad))
    check_options(argparse.Namespace())  # a command without any of them


def test_reference_lists_every_command_and_rewrites_only_its_block(parser):
    text = reference.reference()
    names = [line[len("#### `"):-1] for line in text.splitlines() if line.startswith("#### `")]
    assert names[0] == "searchapp" and "searchapp search" in names and "searchapp saved add" in names
    assert len(names) == len(set(names))
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert {f"searchapp {n}" for n in subs.choices} <= set(names)
    assert "--no-rerank" in text.split("#### `searchapp search`", 1)[1].split("#### ", 1)[0]
    readme = f"# Title\n\nbefore\n{reference.BEGIN}\nstale\n{reference.END}\nafter\n"
    new = reference.rewrite(readme)
    assert new.startswith("# Title\n\nbefore\n" + reference.BEGIN) and new.endswith(reference.END + "\nafter\n")
    assert "stale" not in new and "#### `searchapp search`" in new
    assert reference.rewrite(new) == new  # stable: the check in tests/e2e/test_docs.py can compare
    with pytest.raises(ValueError, match="no cli-reference markers"):
        reference.rewrite("# no markers\n")


def test_reference_does_not_depend_on_the_terminal_width(monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    narrow = reference.reference()
    monkeypatch.delenv("COLUMNS")
    assert narrow == reference.reference()
    import os

    assert "COLUMNS" not in os.environ  # put back as it was


SEARCHES = (["search", "tax return"], ["--data-dir", "/d", "search", "q", "--k", "3", "--wait"],
            ["search", "-draft", "--json", "--config", "/c.toml"], ["--config", "/c.toml", "search", "--", "--k"],
            ["search", "q", "--in", "/r", "--type", "pdf", "--mode", "lexical", "--direct"])


def test_a_search_parses_the_same_with_its_own_parser_alone(parser):
    from searchapp.cli.entry import command_word

    alone = build_parser(("search",))
    for argv in SEARCHES:
        assert command_word(argv) == "search"
        full, own = vars(parser.parse_args(argv)), vars(alone.parse_args(argv))
        assert full == own, argv
    assert command_word(["--data-dir", "search", "status"]) == "status"  # a data dir named "search"
    assert command_word(["--version"]) is None
    assert alone.parse_args(["search", "q", "--wait"]).wait and not parser.parse_args(["search", "q"]).wait


def test_a_search_imports_no_other_command(tmp_path):
    import subprocess
    import sys

    code = ("import sys; from searchapp.cli.main import main; rc = main(['--data-dir', sys.argv[1], 'search', 'q']); "
            "print(sorted(m for m in sys.modules if m.startswith('searchapp.cli.commands.')))")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path / "none")], capture_output=True, text=True,
                          timeout=300)
    assert "no library at" in proc.stderr  # the search ran (and found no library there)
    assert proc.stdout.strip() == "['searchapp.cli.commands.search']", proc.stdout


def test_each_command_word_names_the_group_that_registers_it(parser):
    """A command parses with its own group's parser alone (parse_command_line): GROUP_OF must name, for every
    command of the full parser, the group whose module adds it, or that command would always fall back to the
    full parser (every module imported) and a new command would be missing from the map."""
    from searchapp.cli.commands import GROUP_OF

    full = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(GROUP_OF) == set(full.choices)
    for word, group in GROUP_OF.items():
        own = build_parser((group,))
        assert word in next(a for a in own._actions if isinstance(a, argparse._SubParsersAction)).choices


def test_a_command_parses_alike_by_its_group_and_falls_back_where_its_group_declines(capsys):
    """The group's parser and the full one read a command alike; help, errors and a global option's value that
    is a command's name go to the full parser, which prints and exits as it always did."""
    from searchapp.cli.parser import parse_command_line

    argv = ["--data-dir", "/d", "index", "/a", "--words-only", "--json"]
    assert vars(parse_command_line(argv)) == vars(build_parser().parse_args(argv))
    misread = ["--library", "index", "status", "--json"]  # command_word reads "index"; argparse: status
    assert parse_command_line(misread).command == "status"
    with pytest.raises(SystemExit):
        parse_command_line(["saved", "list", "--help"])
    assert capsys.readouterr().out == _help_of(["saved", "list"])


def _help_of(words):
    p = build_parser()
    for w in words:
        p = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction)).choices[w]
    return p.format_help()


@pytest.mark.parametrize("argv", [["search", "q"], ["saved", "run", "Energy"], ["similar", "/f.pdf"], ["duplicates"]])
def test_every_command_that_prints_results_takes_no_color(argv):
    """A script passing --no-color to every command was refused by `similar` ("unrecognized arguments")."""
    from searchapp.cli.parser import parse_command_line

    assert parse_command_line([*argv, "--no-color"]).no_color is True


@pytest.mark.parametrize("argv, usage", [
    (["similar", "/f.pdf", "--no-colour"], "usage: searchapp similar "),
    (["saved", "run", "Energy", "--bogus"], "usage: searchapp saved run "),
    (["status", "--bogus"], "usage: searchapp status "),
])
def test_an_unknown_option_prints_its_commands_usage(capsys, argv, usage):
    """An option a command does not take printed the top-level usage (every global option, "COMMAND ..."), where
    the command's own says what it takes."""
    from searchapp.cli.parser import parse_command_line

    with pytest.raises(SystemExit) as stop:
        parse_command_line(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.startswith(usage), err
    assert f"error: unrecognized arguments: {argv[-1]}" in err, err


def test_every_positional_of_every_command_says_what_it_is(parser):
    """`searchapp remove --help` listed PATH with no word on it: every positional (and every command an ACTION or
    KIND chooses) of every command's parser has a help text."""
    def silent(p, words):
        for a in p._actions:
            if isinstance(a, argparse._SubParsersAction):
                helps = {c.dest: c.help for c in a._choices_actions}
                for name, child in a.choices.items():
                    yield from ([] if helps.get(name) else [" ".join([*words, name])])
                    yield from silent(child, [*words, name])
            elif not a.option_strings and not a.help:
                yield " ".join([*words, a.metavar or a.dest])

    assert list(silent(parser, ["searchapp"])) == []


@pytest.mark.parametrize("argv, hint", [
    (["serch", "heat"], "invalid choice: 'serch', did you mean 'search'?"),
    (["saved", "lst"], "invalid choice: 'lst', did you mean 'list'?"),
    (["search", "heat", "--mode", "lexicl"], "invalid choice: 'lexicl', did you mean 'lexical'?"),
    (["xyzzy"], "invalid choice: 'xyzzy' (choose from 'index', 'search'"),  # nothing near: the list alone
])
def test_a_mistyped_choice_names_the_nearest(capsys, argv, hint):
    from searchapp.cli.parser import parse_command_line

    with pytest.raises(SystemExit) as stop:
        parse_command_line(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and hint in err.strip().splitlines()[-1], err  # the error's one line
