"""How `searchapp search` prints a result (cli/search_output.py), from Hits built here: no library, no model."""

from __future__ import annotations

import io
import json
import os

from searchapp.base.member_paths import MEMBER_SEP
from searchapp.base.terminal import BOLD, printable
from searchapp.cli.typed_text import typed_lines, typed_text
from searchapp.base.types import Hit, StageRanks, StageScores
from searchapp.cli.search_output import empty_json, hit_line, print_hits, result_json
from searchapp.library.search.result import ABSENT, OUTSIDE, Notice, SearchResult


def _hit(path="/r/a.txt", text="the harbour lantern was lit at dusk", **kw) -> Hit:
    scores = kw.pop("scores", StageScores(dense=0.8123, lexical=3.5, fused=0.9))
    ranks = kw.pop("ranks", StageRanks(dense=2, lexical=1, fused=1, final=1))
    return Hit(chunk_id=1, path=path, page=kw.pop("page", None), start=0, end=len(text), text=text, scores=scores,
               ranks=ranks, **kw)


def test_printable_escapes_what_could_steer_a_terminal():
    assert printable("a\nb\tc\x1b[2Jd\x07") == "a\\nb\\tc\\e[2Jd\\x07"
    assert printable("left\u202eright\x9b") == "left\\u202eright\\x9b"
    assert printable("plain ünïcode › ok") == "plain ünïcode › ok"
    assert printable("a\x00", toml=True) == "a\\u0000"


def test_typed_text_reads_bytes_that_are_not_utf8_as_cp1252():
    typed = os.fsdecode(b"r\xe9sum\xe9 \x93quoted\x94 caf\xc3\xa9")  # a Latin-1 terminal's bytes, then UTF-8 ones
    assert typed_text(typed) == "r\u00e9sum\u00e9 \u201cquoted\u201d caf\u00e9"
    assert printable(typed) == typed_text(typed)  # printed: never a surrogate a UTF-8 terminal refuses
    stdin = io.TextIOWrapper(io.BytesIO(b"r\xe9sum\xe9\nplain\n"), encoding="utf-8")  # strict: it raised mid-run
    assert list(typed_lines(stdin)) == ["r\u00e9sum\u00e9\n", "plain\n"]


def test_hit_blocks_show_place_scores_and_snippet(capsys):
    hits = [_hit(page=3, order_label="match", more=[_hit(page=5), _hit(page=2)]),
            _hit(path="/r/b\x1b]0;pwned\x07.txt", scores=StageScores(lexical=1.25),
                 ranks=StageRanks(lexical=4, final=2), ocr=True, available=False)]
    print_hits(SearchResult("lantern", "hybrid", hits, reranked=False), color=False)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == " 1. /r/a.txt  (page 3)"
    assert out[1] == "    match 0.900 | similarity 0.812 #2 | bm25 3.50 #1"
    assert out[2].startswith("    ") and "harbour lantern" in out[2] and "\x1b" not in "".join(out)
    assert out[3] == "    + 2 more passages in this file (pages 2, 5)"
    assert out[4] == " 2. /r/b\\e]0;pwned\\x07.txt  (OCR)  [unavailable: file or folder missing]"
    assert out[5] == "    bm25 1.25 #4"
    print_hits(SearchResult("lantern", "hybrid", [_hit(more=[_hit(page=7)])], reranked=False), color=False)
    assert capsys.readouterr().out.splitlines()[3] == "    + 1 more passage in this file (page 7)"


def test_reranked_scores_say_how_far_a_hit_moved(capsys):
    up = _hit(scores=StageScores(dense=0.5, rerank_logit=2.0, rerank=0.88),
              ranks=StageRanks(dense=1, fused=4, rerank=1, final=1))
    print_hits(SearchResult("q", "dense", [up], reranked=True), color=False)
    assert capsys.readouterr().out.splitlines()[1] == \
           "    relevance 0.880 (reranker logit 2.00) ▲3 | similarity 0.500 #1"


def test_query_words_are_bold_only_with_color(capsys):
    res = SearchResult("lantern", "lexical", [_hit()], reranked=False)
    print_hits(res, color=True)
    assert BOLD + "lantern" in capsys.readouterr().out
    print_hits(res, color=False)
    assert BOLD not in capsys.readouterr().out
    print_hits(SearchResult("q", "hybrid", [], reranked=False), color=False)
    assert capsys.readouterr().out == "no results\n"


class _Writes(io.StringIO):
    """A stream that keeps each write apart (an unbuffered stdout: each write reaches the terminal at once)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def write(self, s: str) -> int:
        self.calls.append(s)
        return super().write(s)


def test_no_results_is_one_write_with_its_newline_and_says_why_the_filters_left_nothing():
    """print() wrote "no results" and its newline apart: with stdout unbuffered, a note written to stderr between
    the two began on the result's line ("no resultssearchapp: note: …")."""
    out = _Writes()
    print_hits(SearchResult("q", "hybrid", [], reranked=False), color=False, out=out)
    assert out.calls == ["no results\n"]
    why = SearchResult("q type:banana", "hybrid", [], reranked=False,
                       notices=[Notice(ABSENT, 'no indexed file is of type "banana" (types here: pdf 3)')])
    out = _Writes()
    print_hits(why, color=False, out=out)
    assert out.calls == ['no results: no indexed file is of type "banana" (types here: pdf 3)\n']
    out = _Writes()
    print_hits(SearchResult("q", "hybrid", [], reranked=False, notices=[Notice(OUTSIDE, "/a\x1b[2J is not in an "
                                                                            "indexed folder (indexed: /r)")]),
               color=False, out=out)
    assert out.calls == ["no results: /a\\e[2J is not in an indexed folder (indexed: /r)\n"]  # escaped, as paths are


def test_hit_line_is_one_tab_separated_line_per_query():
    member = "/r/a.zip" + MEMBER_SEP + "m.pdf"
    res = SearchResult("q", "hybrid", [_hit(page=2), _hit(path=member)], reranked=False)
    line = hit_line("tax\nreturn", res)
    assert line == "tax\\nreturn\t/r/a.txt  (page 2)\t/r/a.zip › m.pdf" and "\n" not in line
    assert hit_line("nothing", None) == "nothing"


def test_json_is_exact_and_unescaped():
    text = "bell\x07 and\nnewline"
    res = SearchResult("q", "hybrid", [_hit(text=text, order_label="match")], reranked=False,
                       warnings=["unbalanced quote"])
    data = json.loads(result_json(res))
    assert data["hits"][0]["text"] == text and data["hits"][0]["score"] == 0.9
    assert data["hits"][0]["score_label"] == "match" and data["query_warnings"] == ["unbalanced quote"]
    assert "notice" not in data
    assert json.loads(result_json(res, notice="common words only"))["notice"] == "common words only"
    empty = json.loads(empty_json("the", "dense", "common words only", ["w"]))
    assert empty == {"query": "the", "mode": "dense", "reranked": False, "hits": [], "notice": "common words only",
                     "query_warnings": ["w"]}


def test_a_member_is_shown_by_its_display_name_and_keyed_by_its_key():
    key = os.sep + "r" + os.sep + "a.zip" + MEMBER_SEP + "m.pdf"
    data = json.loads(result_json(SearchResult("q", "hybrid", [_hit(path=key)], reranked=False)))
    assert data["hits"][0]["key"] == key and "›" in data["hits"][0]["path"]
