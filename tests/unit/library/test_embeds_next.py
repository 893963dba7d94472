"""Whether a writer's command line embeds what waits next (search/result.embeds_next): read as argparse reads it,
which takes any unambiguous prefix of an option (`--words` for `--words-only`)."""

from __future__ import annotations

from searchapp.cli.parser import parse_command_line
from searchapp.library.search.result import embeds_next


def test_an_abbreviated_words_only_is_read_as_argparse_reads_it():
    argv = ["index", "--words", "/docs"]
    assert parse_command_line(argv).words_only  # what the running index does: no meaning pass
    assert not embeds_next(" ".join(["searchapp", *argv]))  # so it does not embed them next
    assert not embeds_next("searchapp index --wo /docs")
    assert embeds_next("searchapp index /docs")
