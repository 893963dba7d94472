"""On a shared library a machine judges its meaning pass by its own queue (decision 0164): another machine's
passages waiting for their vectors (its sync embeds them) do not make this machine load the model for its one
edited note."""

from __future__ import annotations

import pytest

from searchapp.library.resources import sync_encoder
from searchapp.library.shared import SharedLibrary

pytestmark = pytest.mark.subprocess  # the pg_server fixture's PostgreSQL


def test_a_machine_embeds_its_few_passages_without_the_model_beside_anothers_backlog(make_config,
                                                                                     tiny_bi_encoder_dir, tmp_path,
                                                                                     pg_address):
    config = make_config(models={"bi_encoder": str(tiny_bi_encoder_dir), "reranker": "", "threads": 1})
    a_docs, b_docs = tmp_path / "a", tmp_path / "b"
    a_docs.mkdir()
    b_docs.mkdir()
    for i in range(sync_encoder.LEAN_PASSAGES + 6):
        (a_docs / f"a{i}.txt").write_text(f"alder note {i} about the orchard and its pruning", encoding="utf-8")
    (b_docs / "b.txt").write_text("The beekeeper moved the hives before the frost.", encoding="utf-8")
    with SharedLibrary(config, pg_address, create=True, machine="desk-a") as a:
        a.add_folder(a_docs, embed=False)  # desk-a's backlog: its own sync will embed it
        assert a.store.pending_count() > sync_encoder.LEAN_PASSAGES
    with SharedLibrary(config, pg_address, machine="desk-b") as b:
        waiting = b.store.pending_count()
        b.add_folder(b_docs)
        assert b.models.loaded_encoder is None  # its one passage by the query path
        assert b.store.pending_count() == waiting  # desk-a's still wait; desk-b's has its vector
        assert b.search("hives moved before winter", mode="dense").hits[0].path.endswith("b.txt")
