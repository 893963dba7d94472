"""Words first, meaning in the background: phase 1 commits every file's passages and lexical rows
with no model forward; phase 2 embeds the waiting passages newest-modified files first, resumably."""

from __future__ import annotations

import json
import os

import pytest

from searchapp.base.errors import Cancelled
from searchapp.base.progress import CancelToken, Progress
from searchapp.cli.main import main
from searchapp.library import Library
from searchapp.library.sync import words_pass as sync_module
from searchapp.library.sync.meaning_pass import meaning_message

WORDS = "amber basil cedar dune ember fjord garnet heron iris jasper kelp lotus".split()


class CountingEncoder:
    """The real tiny encoder, with every text it embeds recorded (per call)."""

    def __init__(self, inner, cancel_after: int | None = None, token: CancelToken | None = None,
                 mid_batch: bool = False) -> None:
        self._inner, self.calls = inner, []
        self._cancel_after, self._token, self._mid_batch = cancel_after, token, mid_batch

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def encode(self, texts, **kw):
        self.calls.append(list(texts))
        cancelling = self._cancel_after is not None and len(self.calls) >= self._cancel_after
        if cancelling and self._mid_batch:  # Ctrl+C after the batch's first forward (one text each), mid-batch
            kw = {**kw, "batch_size": 1, "progress": lambda p: self._token.cancel()}
        out = self._inner.encode(texts, **kw)
        if cancelling:
            self._token.cancel()  # honoured between batches: this batch is still written
        return out

    @property
    def texts(self) -> list[str]:
        return [t for c in self.calls for t in c]


def make_folder(tmp_path, n: int = 12):
    """n files, each with its own word, modified one minute apart (file 0 oldest)."""
    d = tmp_path / "docs"
    d.mkdir()
    for i in range(n):
        p = d / f"f{i:02d}.txt"
        p.write_text(f"Notes on {WORDS[i % len(WORDS)]}{i} and the weather of day {i}.", encoding="utf-8")
        os.utime(p, ns=(1_700_000_000_000_000_000 + i * 60 * 10**9,) * 2)
    return d


def config(make_config):
    # No title in front: a passage's model input is its text, so the test can map inputs back to files. No
    # passage embedded by a search (test_meaning_first.py): every one goes through the meaning pass here.
    return make_config(models={"reranker": ""}, chunking={"title_context": False}, search={"embed_on_search": 0})


def test_words_first_then_meaning_newest_first(make_config, tiny_encoder, tmp_path, monkeypatch):
    monkeypatch.setattr(sync_module, "BATCH_CHUNKS", 3)  # several phase-2 batches: their order is checked
    folder = make_folder(tmp_path)
    enc = CountingEncoder(tiny_encoder)
    with Library(config(make_config), encoder=enc) as lib:
        rep = lib.add_folder(folder, embed=False)
        assert enc.calls == [] and rep.chunks_embedded == 0  # no model forward in phase 1
        assert rep.added == 12 and rep.chunks_pending == rep.chunks_added == 12
        for i in range(12):  # every file findable by its words
            res = lib.search(f"{WORDS[i % len(WORDS)]}{i}", mode="lexical")
            assert [os.path.basename(h.path) for h in res.hits] == [f"f{i:02d}.txt"]
            # words find every passage: no "the rest are found by their words only until embedded" (a newcomer)
            assert res.meaning_notice is None and "meaning_percent" not in res.to_json()
        st = lib.status()
        assert (st.embedded, st.chunks, st.vectors) == (0, 12, 0) and st.consistent
        assert st.to_json()["meaning"] == {"embedded": 0, "total": 12, "percent": 0,  # no sync measured a rate yet
                                           "passages_per_s": None, "left_s": None}
        assert any(n.startswith("meaning: 0% of passages") for n in st.notes)
        res = lib.search("weather", mode="hybrid")
        assert res.hits and res.to_json()["meaning_percent"] == 0  # lexical side finds them meanwhile
        searched = [int(h.text.split("day ")[1].rstrip(".")) for h in res.hits]  # embedded first (issue 41)

        events: list[Progress] = []
        rep2 = lib.sync(progress=events.append)
        assert rep2.chunks_embedded == 12 and rep2.chunks_pending == 0
        order = [int(t.split("day ")[1].rstrip(".")) for t in enc.texts]
        # the files the search returned, then the rest newest-modified first
        assert order == searched + [d for d in sorted(range(12), reverse=True) if d not in searched]
        assert len(enc.calls) == 4  # in batches of BATCH_CHUNKS
        st = lib.status()
        assert st.embedded == st.vectors == st.chunks == 12 and st.consistent
        assert st.to_json()["meaning"]["percent"] == 100 and not any("meaning:" in n for n in st.notes)
        assert "meaning_percent" not in lib.search("weather").to_json()
        emb = [p for p in events if p.stage == "embedding"]
        assert emb[-1].done == emb[-1].total == 12 and emb[-1].message.endswith("meaning: 100% of passages")
        assert lib.sync().chunks_embedded == 0


def test_a_sample_limit_embeds_at_most_that_many(make_config, tiny_encoder, tmp_path):
    from searchapp.library.sync.meaning_pass import embed_pending

    folder = make_folder(tmp_path)
    with Library(config(make_config), encoder=tiny_encoder) as lib:
        lib.add_folder(folder, embed=False)
        store = lib.store
        assert store.pending_batch(-1) == []  # never SQLite's LIMIT -1, which means "all"
        with lib._writing("indexing", check_model=False):
            assert embed_pending(store, tiny_encoder, lib.vectors, batch=4, limit=5) == 5
        assert store.pending_count() == 7


def test_one_sync_runs_both_phases_and_reports_as_before(make_config, tiny_encoder, tmp_path):
    folder = make_folder(tmp_path, 5)
    events: list[Progress] = []
    with Library(config(make_config), encoder=tiny_encoder) as lib:
        rep = lib.add_folder(folder, progress=events.append)
        assert (rep.added, rep.chunks_added, rep.chunks_embedded, rep.chunks_pending) == (5, 5, 5, 0)
        stages = [p.stage for p in events]
        assert stages.index("searchable") < stages.index("embedding")  # words announced before meaning
        assert lib.status().vectors == 5


@pytest.mark.parametrize("mid_batch", [False, True], ids=["between-batches", "mid-batch"])
def test_cancel_in_phase_2_keeps_done_batches_and_resumes(make_config, tiny_encoder, tmp_path, monkeypatch, mid_batch):
    """A cancel between batches keeps the batches done; one in the middle of a batch's encoding finishes that batch
    and keeps it too, as "stopping after the current batch" says (it was thrown away, though the bar counted it)."""
    monkeypatch.setattr(sync_module, "BATCH_CHUNKS", 4)
    folder = make_folder(tmp_path)
    token = CancelToken()
    enc = CountingEncoder(tiny_encoder, cancel_after=1, token=token, mid_batch=mid_batch)
    with Library(config(make_config), encoder=enc) as lib:
        with pytest.raises(Cancelled):
            lib.add_folder(folder, cancel=token)
        first = set(enc.texts)
        st = lib.status()
        assert st.chunks == 12 and st.embedded == st.vectors == 4 and st.consistent  # one batch kept
    enc2 = CountingEncoder(tiny_encoder)
    with Library(config(make_config), encoder=enc2) as lib:  # a fresh process resumes with only the rest
        rep = lib.sync()
        assert rep.chunks_embedded == 8 and len(enc2.texts) == 8 and not first & set(enc2.texts)
        assert lib.status().embedded == lib.status().vectors == 12


def test_identical_inputs_are_embedded_once_across_files(make_config, tiny_encoder, tmp_path):
    d = tmp_path / "docs"
    d.mkdir()
    same = "The same paragraph about kelp forests, copied into three files."
    for name in ("a.txt", "b.txt", "c.txt"):
        (d / name).write_text(same, encoding="utf-8")
    (d / "log.txt").write_text("\n\n".join(["one repeated log line about lotus"] * 50), encoding="utf-8")
    enc = CountingEncoder(tiny_encoder)
    with Library(config(make_config), encoder=enc) as lib:
        rep = lib.add_folder(d)
        assert len(enc.texts) == len(set(enc.texts)) == rep.chunks_embedded and enc.texts.count(same) == 1
        n_log = lib.store.conn.execute("SELECT n_chunks FROM files WHERE path LIKE '%log.txt'").fetchone()[0]
        assert rep.chunks_embedded == 1 + n_log  # the three copies share one vector
        assert lib.store.chunk_count() == 3 + n_log == lib.status().vectors


def test_cli_words_only_then_index_and_status_json(tmp_path, tiny_bi_encoder_dir, capsys):
    folder = make_folder(tmp_path, 4)
    data = str(tmp_path / "lib")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "config.toml").write_text(
        f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\nreranker = ""\ndevice = "cpu"\nthreads = 1\n')
    assert main(["--data-dir", data, "index", str(folder), "--words-only", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["chunks_pending"] == 4
    assert main(["--data-dir", data, "status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["meaning"] == {"embedded": 0, "total": 4, "percent": 0,
                                                               "passages_per_s": None, "left_s": None}
    assert main(["--data-dir", data, "status"]) == 0
    assert "meaning: 0% of passages" in capsys.readouterr().out
    assert main(["--data-dir", data, "search", "weather", "--json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["meaning_percent"] == 0 and "meaning: 0% of passages" in out.err
    assert main(["--data-dir", data, "saved", "add", "w", "weather"]) == 0
    capsys.readouterr()
    assert main(["--data-dir", data, "saved", "run", "w"]) == 0  # a saved search says it as a search does
    assert "meaning: 0% of passages" in capsys.readouterr().err
    assert main(["--data-dir", data, "index"]) == 0
    capsys.readouterr()
    assert main(["--data-dir", data, "status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["meaning"]["percent"] == 100


def test_progress_strip_says_searchable_by_words_and_meaning(qtbot):
    from searchapp.gui.progress_view import ProgressView

    view = ProgressView()
    qtbot.addWidget(view)
    view.start("Re-syncing")
    view.show_progress("Re-syncing", Progress("embedding", 30, 100, meaning_message(37, 100)), 1.0)
    assert view.label.full_text() == "Embedding 30 of 100 passages — Re-syncing — Searchable by words"
    assert "37%" not in view.label.full_text()  # one percentage: the bar's (the CLI's line does the same)
    assert (view.bar.value(), view.bar.maximum()) == (30, 100)
    # Time left once there is evidence enough (base/rate.py: EVIDENCE reports with progress over MIN_SPAN_S),
    # not from the first batches.
    for i, t in enumerate([2.0, 7.0, 12.0]):
        view.show_progress("Re-syncing", Progress("extracting", 2 * (i + 1), 20, "a.txt"), t)
    assert "left" not in view.label.full_text()
    view.show_progress("Re-syncing", Progress("extracting", 8, 20, "b.txt"), 17.0)
    assert "left" in view.label.full_text()
    view.show_progress("Re-syncing", Progress("ocr", 1, 4, "scan.png"), 4.0)
    assert "Reading by OCR 1 of 4 scans and images" in view.label.full_text() and "left" not in view.label.full_text()


class BulkEncoder(CountingEncoder):
    """The tiny encoder, asking for `bulk` texts a call as a GPU's BiEncoder does (bulk_batch)."""

    def __init__(self, inner, bulk: int) -> None:
        super().__init__(inner)
        self.bulk_batch = bulk


@pytest.mark.parametrize("bulk, sizes", [(10, [10, 2]), (2, [4, 4, 4])])
def test_the_meaning_pass_hands_an_encoder_the_batch_it_asks_for(make_config, tiny_encoder, tmp_path, bulk, sizes):
    from searchapp.library.sync.meaning_pass import embed_pending

    folder = make_folder(tmp_path)
    with Library(config(make_config), encoder=tiny_encoder) as lib:
        lib.add_folder(folder, embed=False)
        encoder = BulkEncoder(tiny_encoder, bulk)
        with lib._writing("indexing", check_model=False):
            assert embed_pending(lib.store, encoder, lib.vectors, batch=4) == 12
        # A bulk batch larger than the pass's is taken (one forward's worth on a GPU); a smaller one is not.
        assert [len(c) for c in encoder.calls] == sizes
        assert lib.store.pending_count() == 0
