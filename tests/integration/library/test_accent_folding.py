""""things to put on my CV" found no résumé (a newcomer; decision 0169, item 3): not our accent folding. A résumé
written "Résumé", "RÉSUMÉ" or "resume" is found by each spelling, in the words index and in the marks of its
snippet (FTS5's `remove_diacritics 2`, the snippet's stems from the index); "CV" is no word of any of them, so only
meaning can link it, and MiniLM puts "things to put on my" before it (see the decision's figures)."""

from __future__ import annotations

from pathlib import Path

from corpus import write_texts

from searchapp.library import Library
from searchapp.library.search.snippet import best_snippet

NOTES = {"accent.txt": "Résumé of Jane Doe: experience, education and skills.",
         "capitals.txt": "RÉSUMÉ — John Smith, warehouse supervisor.",
         "plain.txt": "My resume, updated for the spring applications.",
         "other.txt": "Things to put in my suitcase: passport, charger and socks."}


def test_every_spelling_finds_every_resume_and_is_marked(tmp_path, make_config, tiny_encoder):
    with Library(make_config(models={"reranker": ""}), encoder=tiny_encoder) as lib:
        lib.add_folder(write_texts(tmp_path / "notes", NOTES))
        for query in ("resume", "résumé", "RÉSUMÉ", "Resumé"):
            hits = lib.search(query, mode="lexical", rerank=False).hits
            assert sorted(Path(h.path).name for h in hits) == ["accent.txt", "capitals.txt", "plain.txt"], query
            for h in hits:
                snip = best_snippet(h.text, query)
                assert [snip.text[a:b].lower() for a, b in snip.spans] in (["résumé"], ["resume"]), (query, snip)
        assert lib.search("CV", mode="lexical", rerank=False).hits == []  # no synonyms: the words index has none
