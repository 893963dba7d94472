"""A one-shot `status` reads the vector index file's ids without building the graph (IndexKeeper.current_ids)
when the file is current; it must say exactly what the opened index says, and open it whenever the file is not
current (then the open repairs, rebuilds or follows as before)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from searchapp.library import Library


def _files(docs, n: int, start: int = 0) -> None:
    docs.mkdir(exist_ok=True)
    for i in range(start, start + n):
        (docs / f"f{i}.txt").write_text(f"Passage {i} about subject {i * 7} and nothing else at all.\n",
                                        encoding="utf-8")


def _both_ways(config, encoder) -> tuple[dict, dict, bool]:
    """status of a fresh Library (one-shot) and of one whose index is open; whether the first opened it."""
    with Library(config, encoder=encoder) as lib:
        cold = lib.status().to_json()
        opened = lib.vectors._index is not None
    with Library(config, encoder=encoder) as lib:
        lib._fresh()
        warm = lib.status().to_json()
    return cold, warm, opened


@pytest.mark.parametrize("backend", ["hnsw", "exact"])
def test_saved_ids_say_what_the_open_index_says(make_config, tiny_encoder, tmp_path, backend):
    config = make_config(models={"reranker": ""}, index={"backend": backend})
    docs = tmp_path / "docs"
    _files(docs, 12)
    with Library(config, encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
    cold, warm, opened = _both_ways(config, tiny_encoder)
    assert not opened  # the file was current: read, not built
    assert cold == warm and cold["vectors"] == cold["meaning"]["embedded"] == 12 and cold["consistent"]
    for i in (1, 4, 9):  # removed files leave delete marks in the saved graph
        (docs / f"f{i}.txt").unlink()
    _files(docs, 3, start=100)
    with Library(config, encoder=tiny_encoder) as lib:
        lib.sync()
    cold, warm, opened = _both_ways(config, tiny_encoder)
    assert not opened
    assert cold == warm and cold["vectors"] == cold["meaning"]["embedded"] == 12 and cold["consistent"]
    with Library(config, encoder=tiny_encoder) as lib:
        saved = lib.vectors.current_ids(lib.reader())
        assert saved is not None and np.array_equal(saved, lib._fresh().ids())  # the same ids, in order


def test_a_file_that_is_not_current_is_opened_and_repaired(make_config, tiny_encoder, tmp_path):
    config = make_config(models={"reranker": ""})
    docs = tmp_path / "docs"
    _files(docs, 6)
    with Library(config, encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
        with lib.store.atomic():  # a commit the saved index never saw (an interrupted sync)
            lib.store.conn.execute("DELETE FROM chunks WHERE id = (SELECT MIN(id) FROM chunks)")
            lib.store.bump_generation()
    with Library(config, encoder=tiny_encoder) as lib:
        assert lib.vectors.current_ids(lib.reader()) is None
        st = lib.status().to_json()
        assert lib.vectors._index is not None  # opened, and repaired on the way
        assert st["consistent"] and st["vectors"] == st["meaning"]["embedded"] == 5
        assert any("repaired: 0 added, 1 removed" in n for n in st["notes"])


def _flip_a_byte(data_dir):
    path = data_dir / "vectors.hnsw"
    raw = bytearray(path.read_bytes())
    raw[-3] ^= 0xFF  # the checksum no longer matches the sidecar
    path.write_bytes(bytes(raw))


def _count_one_more(data_dir):
    sidecar = data_dir / "vectors.hnsw.json"
    meta = json.loads(sidecar.read_text())
    sidecar.write_text(json.dumps({**meta, "count": meta["count"] + 1}))  # says more than the file holds


@pytest.mark.parametrize(("spoil", "note"), [
    (_flip_a_byte, "unreadable"),
    (lambda data_dir: (data_dir / "vectors.hnsw").unlink(), "was missing"),
    (_count_one_more, "unreadable"),
])
def test_a_damaged_or_missing_file_is_opened_and_rebuilt(make_config, tiny_encoder, tmp_path, spoil, note):
    config = make_config(models={"reranker": ""})
    docs = tmp_path / "docs"
    _files(docs, 5)
    with Library(config, encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
    spoil(lib.data_dir)
    with Library(config, encoder=tiny_encoder) as lib:
        assert lib.vectors.current_ids(lib.reader()) is None
        st = lib.status().to_json()
        assert st["consistent"] and st["vectors"] == 5 and any(note in n for n in st["notes"]), st["notes"]
