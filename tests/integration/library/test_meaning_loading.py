"""The vector index opening in the background: a hybrid search meanwhile answers by its words with a LOADING notice
(and `"meaning": "loading"` in JSON), the same search once it is open is hybrid again, and a one-shot command's
load that could not be ready by its deadline is never begun. The load is held with BackgroundLoad.hold (an event
the test sets), never by timing."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from conftest import build_tiny_library
from searchapp.cli.warm_run import run_command
from searchapp.cli.main import main
from searchapp.library.resources.background_load import BackgroundLoad
from searchapp.library.search.result import LOADING, LOADING_NOTICE

TEXTS = {
    "volcano.md": "The volcano erupted and molten rock flowed down to the sea.",
    "bread.txt": "A recipe for sourdough bread with a long cold proof.",
    "tax.txt": "The tax return for 2024 is due in April; keep the receipts.",
    "garden.md": "Tomatoes need sun, water and a stake; prune the side shoots.",
    "rocks.txt": "Basalt is a volcanic rock; granite cooled slowly underground.",
}
QUERY = "volcanic rock"


@pytest.fixture(scope="module")
def lib_dir(tmp_path_factory, tiny_bi_encoder_dir, tiny_encoder) -> Path:
    return build_tiny_library(tmp_path_factory.mktemp("loading"), TEXTS, tiny_bi_encoder_dir, tiny_encoder,
                              'reranker = ""\n')


@pytest.fixture
def held(monkeypatch):
    """Background loads wait at their start until the test sets the event (set again at the end, whatever happens)."""
    gate = threading.Event()
    monkeypatch.setattr(BackgroundLoad, "hold", gate.wait)
    yield gate
    gate.set()


def open_lib(data: Path, encoder):
    from searchapp.base.config import load_config
    from searchapp.library import Library

    return Library(load_config(data, env={}), encoder=encoder)


def summary(res) -> list:
    return [(h.path, h.scores.dense is not None) for h in res.hits]


def test_search_while_loading_answers_by_words_then_hybrid_once_loaded(lib_dir, tiny_encoder, held):
    with open_lib(lib_dir, tiny_encoder) as cold:
        expected = cold.search(QUERY)  # today's answer: the index opened by the search itself
    assert expected.hits and all(h.scores.dense is not None for h in expected.hits)
    assert expected.said(LOADING) is None

    ended = threading.Event()
    with open_lib(lib_dir, tiny_encoder) as lib:
        assert lib.load_in_background(ended.set)
        assert lib.meaning_loading()
        early = lib.search(QUERY, meaning_wait=0)
        assert early.said(LOADING) == LOADING_NOTICE
        assert early.mode == "hybrid" and early.hits
        assert all(h.scores.dense is None and h.scores.lexical for h in early.hits)  # by words alone
        assert early.to_json()["meaning"] == "loading"
        assert lib.search(QUERY, mode="lexical").said(LOADING) is None  # lexical never needed the index

        held.set()
        assert ended.wait(30)
        assert not lib.meaning_loading()
        late = lib.search(QUERY, meaning_wait=0)
        assert late.said(LOADING) is None and "meaning" not in late.to_json()
        assert summary(late) == summary(expected)
        assert [h.scores.fused for h in late.hits] == pytest.approx([h.scores.fused for h in expected.hits])


def test_a_search_without_meaning_wait_is_hybrid_during_a_load(lib_dir, tiny_encoder, held):
    with open_lib(lib_dir, tiny_encoder) as lib:
        assert lib.load_in_background()
        res = lib.search(QUERY)  # None: the index, whoever opens it (here the search, the load being held)
        assert res.said(LOADING) is None and all(h.scores.dense is not None for h in res.hits)
        assert lib.search(QUERY, mode="dense", meaning_wait=0).said(LOADING) is None  # dense: meaning or nothing


def test_a_load_that_cannot_meet_its_deadline_is_not_begun(lib_dir, tiny_encoder):
    with open_lib(lib_dir, tiny_encoder) as lib:
        assert lib.load_in_background(give_up_after=0.0)  # every parse ends past a deadline already gone
        first = lib.search(QUERY, meaning_wait=30)  # answered as soon as the load gives up, not after 30 s
        assert first.said(LOADING) == LOADING_NOTICE
        assert lib.vectors._index is None  # never parsed
        again = lib.search(QUERY, meaning_wait=30)  # given up for good: never past the command's deadline
        assert again.said(LOADING) == LOADING_NOTICE and lib.vectors._index is None
        full = lib.search(QUERY)  # `--wait`: opened by the search itself
        assert full.said(LOADING) is None and all(h.scores.dense is not None for h in full.hits)
        assert lib.search(QUERY, meaning_wait=0).said(LOADING) is None  # open now: hybrid


def test_closing_while_held_stops_the_load(lib_dir, tiny_encoder, held):
    ended = threading.Event()
    lib = open_lib(lib_dir, tiny_encoder)
    assert lib.load_in_background(ended.set)
    lib.close()
    held.set()
    assert ended.wait(30)
    assert lib.vectors._index is None


def cli_json(capsys, data: Path, *argv: str) -> tuple[dict, str]:
    code = main(["--data-dir", str(data), "search", QUERY, "--json", "--direct", *argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out), err


def test_cli_answers_by_words_while_loading_and_waits_with_wait(lib_dir, capsys, monkeypatch, held):
    import searchapp.cli.commands.search as search_command

    monkeypatch.setattr(search_command, "MEANING_WAIT", 0.0)  # the held load is not waited for
    words, err = cli_json(capsys, lib_dir)
    assert words["meaning"] == "loading"
    assert f"note: {LOADING_NOTICE} (--wait waits for meaning)" in err
    assert words["hits"] and all(h["scores"]["dense"] is None for h in words["hits"])

    full, err = cli_json(capsys, lib_dir, "--wait")  # no background load: opened and waited for
    assert "meaning" not in full and LOADING_NOTICE not in err
    assert all(h["scores"]["dense"] is not None for h in full["hits"])


def test_cli_small_library_is_hybrid_as_before(lib_dir, capsys, monkeypatch):
    import searchapp.cli.commands.search as search_command

    monkeypatch.setattr(search_command, "MEANING_WAIT", 60.0)  # whatever the machine's load, a tiny index opens in it
    plain, _ = cli_json(capsys, lib_dir)  # loaded in the background, waited for
    waited, _ = cli_json(capsys, lib_dir, "--wait")
    assert "meaning" not in plain
    strip = lambda d: {k: v for k, v in d.items() if k != "timings"}  # noqa: E731
    assert strip(plain) == strip(waited)


def test_a_served_search_while_loading_answers_by_words_and_waits_with_wait(lib_dir, capsys, monkeypatch, held):
    import searchapp.cli.commands.search as search_command
    from searchapp.base.config import load_config
    from searchapp.library import Library

    monkeypatch.setattr(search_command, "MEANING_WAIT", 0.0)
    with Library(load_config(lib_dir, env={})) as lib:  # the model from the settings, as a window's
        assert lib.serve(commands=run_command) is None and lib.load_in_background()
        code = main(["--data-dir", str(lib_dir), "search", QUERY, "--json"])
        out, err = capsys.readouterr()
        words = json.loads(out)
        assert code == 0 and words["served_by"] == "warm" and words["meaning"] == "loading", err
        code = main(["--data-dir", str(lib_dir), "search", QUERY, "--json", "--wait"])
        full = json.loads(capsys.readouterr()[0])
        assert full["served_by"] == "warm" and "meaning" not in full
        assert all(h["scores"]["dense"] is not None for h in full["hits"])
