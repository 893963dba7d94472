"""Similar files when one huge file holds most of the library's passages (a server log beside a folder of notes):
it must not crowd the other files out, by meaning or by words. A new user's 29 MB log held 17,216 of 26,876
passages and `similar` answered one file, the log, for k=6 (the nearest passages asked were nearly all its own)."""

from __future__ import annotations

import os

import pytest

from corpus import write_texts
from searchapp.library import Library

SOURCE = "Heat pump filter: the installer changes the filter each spring and checks the warranty."
# The log says what the source says, line after line: every near neighbour of the source's passage is one of its.
LOG = "\n\n".join(f"{i:05d} heat pump filter check, installer filter warranty spring heat pump filter ok"
                  for i in range(400))
NOTES = {
    "bread.txt": "Sourdough bread: feed the starter in spring, shape the loaf and bake it in a hot oven.",
    "shed.txt": "The garden shed roof leaks near the gutter; the installer brings roofing felt and nails.",
    "car.txt": "The car's air filter and oil were changed at the garage; the warranty covers the brakes.",
    "boiler.txt": "The gas boiler was serviced by the installer; its pressure gauge reads one and a half bar.",
    "bike.txt": "Bicycle chain oiled, tyres pumped to four bar, brake pads replaced before the spring rides.",
    "plants.txt": "Water the tomato plants every morning in spring and tie them to the canes as they grow.",
}


def names(hits) -> list[str]:
    return [os.path.basename(h.path) for h in hits]


@pytest.fixture
def crowded(tmp_path, make_config, tiny_encoder):
    """(a library of the source, the log and NOTES; the docs folder). Short passages: the log is ~400 of them."""
    docs = write_texts(tmp_path / "docs", {"source.txt": SOURCE, "server.log.txt": LOG, **NOTES})
    lib = Library(make_config(models={"reranker": ""}, chunking={"max_tokens": 32}), encoder=tiny_encoder)
    yield lib, docs
    lib.close()


def test_one_huge_file_does_not_crowd_out_the_others_by_meaning(crowded):
    lib, docs = crowded
    lib.add_folder(docs)
    log = lib.reader().file_by_path(str(docs / "server.log.txt"))
    assert log is not None and log.n_chunks > 300  # the log holds far more passages than the other files together
    res = lib.similar(str(docs / "source.txt"), k=5)
    found = names(res.hits)
    assert len(found) == 5 and len(set(found)) == 5, found  # k distinct files: there are 7 others
    assert "source.txt" not in found and all(h.by == "meaning" for h in res.hits)
    every = names(lib.similar(str(docs / "source.txt"), k=10).hits)  # fewer files than k: all of them
    assert sorted(every) == sorted(["server.log.txt", *NOTES]), every


def test_one_huge_file_does_not_crowd_out_the_others_by_words(crowded):
    lib, docs = crowded
    lib.add_folder(docs, embed=False)  # no meaning yet: similar finds the files by the source's words
    res = lib.similar(str(docs / "source.txt"), k=5)
    found = names(res.hits)
    assert all(h.by == "words" for h in res.hits)
    # each file sharing a distinctive word of the source, the log among them, however many of its lines match
    sharing = ["server.log.txt", "bread.txt", "shed.txt", "car.txt", "boiler.txt", "bike.txt", "plants.txt"]
    assert len(found) == 5 and len(set(found)) == 5 and set(found) <= set(sharing), found
    every = names(lib.similar(str(docs / "source.txt"), k=10).hits)
    assert sorted(every) == sorted(sharing), every
