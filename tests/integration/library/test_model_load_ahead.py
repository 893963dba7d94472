"""A sync's words pass loads no model; a sync that embeds loads the bi-encoder once, on a thread of its own that
starts at its first chunking, so the words pass goes on meanwhile (library/resources/model_set.py, issue 45)."""

from __future__ import annotations

import threading

from searchapp.library import Library
from searchapp.models import bi_encoder


def _spy_loads(monkeypatch) -> list[str]:
    """The names of the threads each BiEncoder was built on (the real model is built)."""
    built: list[str] = []
    real_init = bi_encoder.BiEncoder.__init__

    def init(self, *args, **kw):
        built.append(threading.current_thread().name)
        real_init(self, *args, **kw)

    monkeypatch.setattr(bi_encoder.BiEncoder, "__init__", init)
    return built


def _docs(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(4):
        (docs / f"n{i}.txt").write_text(f"Note {i}: the heron waits by the reeds at dawn, day {i}.\n", encoding="utf-8")
    return docs


def _config(make_config, model_dir):
    return make_config(models={"bi_encoder": str(model_dir), "reranker": "", "precision": "fp32", "threads": 1})


def test_words_only_loads_no_model(make_config, tiny_bi_encoder_dir, tmp_path, monkeypatch):
    built = _spy_loads(monkeypatch)
    with Library(_config(make_config, tiny_bi_encoder_dir)) as lib:
        rep = lib.add_folder(_docs(tmp_path), embed=False)
        assert rep.added == 4 and lib.store.pending_count() == lib.store.chunk_count() > 0
        assert lib.search("heron", mode="lexical").hits
        assert built == [] and lib.models.loaded_encoder is None


def test_a_sync_that_embeds_loads_the_model_once_beside_the_words(make_config, tiny_bi_encoder_dir, tmp_path,
                                                                  monkeypatch):
    built = _spy_loads(monkeypatch)
    with Library(_config(make_config, tiny_bi_encoder_dir)) as lib:
        docs = _docs(tmp_path)
        lib.add_folder(docs)
        assert lib.store.pending_count() == 0 and lib.store.chunk_count() > 0
        (docs / "n9.txt").write_text("A later note about the heron.\n", encoding="utf-8")
        lib.sync()
        assert lib.store.pending_count() == 0
    assert built == ["searchapp-load-bi-encoder"]  # once per process, not on the sync's thread


class _HeldLoad(threading.Thread):
    """The load-ahead thread, held at its start until the test lets it go: the moment in which a sync reaching
    for the model before the load has taken MODELS_LOCK built it a second time, on its own thread."""

    release = threading.Event()

    def run(self) -> None:
        if self.name == "searchapp-load-bi-encoder":
            self.release.wait(120)
        super().run()


def test_the_model_is_waited_for_not_built_again_while_it_loads_ahead(make_config, tiny_bi_encoder_dir,
                                                                    monkeypatch):
    from searchapp.library.resources import model_set

    built = _spy_loads(monkeypatch)
    _HeldLoad.release = threading.Event()
    monkeypatch.setattr(model_set.threading, "Thread", _HeldLoad)
    models = model_set.ModelSet(_config(make_config, tiny_bi_encoder_dir))
    models.load_encoder_ahead()
    got: list = []
    sync = _HeldLoad(target=lambda: got.append(models.encoder), name="sync")
    sync.start()
    sync.join(2.0)  # time for a sync that does not wait to build the model itself (none needed when it waits)
    _HeldLoad.release.set()
    sync.join(120)
    assert got and got[0] is models.loaded_encoder
    assert built == ["searchapp-load-bi-encoder"]  # built once, by the load started ahead
