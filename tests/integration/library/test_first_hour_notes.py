"""Issue 39: a library whose passages have no vector yet (its first sync stopped in the words pass, or still reading
them in another process) is not told that "passages were embedded without their title"."""

from __future__ import annotations

import pytest

from searchapp.base.errors import Cancelled
from searchapp.base.progress import CancelToken
from searchapp.library import Library
from searchapp.library.sync import words_pass


def test_no_title_note_before_any_passage_is_embedded(tmp_path, make_config, tiny_encoder, monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(12):
        (docs / f"note{i}.txt").write_text(f"Note {i} about the harbour crane and the night shift.\n",
                                           encoding="utf-8")
    monkeypatch.setattr(words_pass, "BATCH_CHUNKS", 2)  # several words batches: the stop comes between them
    cancel = CancelToken()

    def stop_after_a_batch(p) -> None:
        if p.stage == "extracting" and p.done >= 6:
            cancel.cancel()

    with Library(make_config(chunking={"title_context": True}), encoder=tiny_encoder) as lib:
        with pytest.raises(Cancelled):
            lib.add_folder(docs, progress=stop_after_a_batch, cancel=cancel)
        st = lib.status()
        assert st.chunks > 0 and st.embedded == 0  # words kept, no meaning yet
        assert not [n for n in st.notes if "title" in n], st.notes
