"""Duplicates: exact copies by sha256 and near duplicates (rewordings) from the HNSW graph of stored vectors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import discover_corpus
from office_files import make_ods
from searchapp.base.errors import ConfigError
from searchapp.cli.main import main
from searchapp.library import Library
from searchapp.library.search.duplicates import CAUTION, ONE_DOCUMENT, DuplicateReport, NearPair


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, packaged_encoder):
    return discover_corpus.index(tmp_path_factory.mktemp("dups"), packaged_encoder)


def rel(docs: Path, p: str) -> str:
    return Path(p).relative_to(docs).as_posix()


def test_exact_groups_and_near_pairs(indexed):
    docs, config = indexed
    with Library(config) as lib:
        rep = lib.duplicates(threshold=0.75)
        assert lib.models.loaded_encoder is None  # stored vectors only
    assert [[rel(docs, p) for p in g] for g in rep.exact] == [["reports/copy.txt", "reports/original.txt"]]
    near = {(rel(docs, p.a), rel(docs, p.b)): p for p in rep.near}
    # The rewording pairs with both the original and its copy; the exact pair itself is not repeated as near.
    assert ("drafts/reworded.md", "reports/original.txt") in near
    assert ("drafts/reworded.md", "reports/copy.txt") in near
    assert ("reports/copy.txt", "reports/original.txt") not in near
    # Same topic, different content: not a duplicate. Unrelated files never are.
    assert not any("basics" in a + b for a, b in near)
    p = near[("drafts/reworded.md", "reports/original.txt")]
    assert 0.75 <= p.similarity < 1.0
    assert p.pairs and p.pairs[0].a_text.startswith("Each morning") and p.pairs[0].b_text.startswith("Our sourdough")
    assert p.pairs[0].similarity == pytest.approx(p.similarity, abs=1e-4)  # one passage each: pair = file score
    # The edited archive copies of misc/* (same text plus a few words) are near duplicates of them.
    for name in discover_corpus.UNRELATED:
        assert (f"misc/{name}", f"old/{name}") in near


def test_threshold_is_respected_and_pairs_are_sorted(indexed):
    docs, config = indexed
    with Library(config) as lib:
        loose = lib.duplicates(threshold=0.75)
        strict = lib.duplicates(threshold=0.99)
    assert len(strict.exact) == 1 and all(p.similarity >= 0.99 for p in strict.near)
    assert not any("reworded" in p.a + p.b for p in strict.near) and len(strict.near) < len(loose.near)
    sims = [p.similarity for p in loose.near]
    assert sims == sorted(sims, reverse=True)
    with Library(config) as lib, pytest.raises(ConfigError):
        lib.duplicates(threshold=1.5)


def test_a_copy_with_one_extra_paragraph_is_near_not_exact(tmp_path, packaged_encoder, make_config):
    docs = tmp_path / "docs"
    docs.mkdir()
    paras = [discover_corpus.ORIGINAL, *discover_corpus.UNRELATED.values()]
    (docs / "v1.txt").write_text("\n\n".join(paras), encoding="utf-8")
    (docs / "v2.txt").write_text("\n\n".join(paras) + "\n\nAppendix: the oven thermometer was calibrated.",
                                 encoding="utf-8")
    (docs / "other.txt").write_text(discover_corpus.SAME_TOPIC, encoding="utf-8")
    with Library(make_config(chunking={"max_tokens": 48, "overlap": 0}), encoder=packaged_encoder) as lib:
        lib.add_folder(docs)
        rep = lib.duplicates()  # the default threshold
    assert rep.exact == []
    assert [(Path(p.a).name, Path(p.b).name) for p in rep.near] == [("v1.txt", "v2.txt")]
    assert rep.near[0].similarity > 0.9 and len(rep.near[0].pairs) > 1
    assert rep.stats["candidate_pairs"] >= 1


def test_duplicates_cli_json_shape(indexed, capsys):
    docs, config = indexed
    code = main(["--data-dir", str(config.data_dir), "duplicates", "--threshold", "0.75", "--json"])
    out = capsys.readouterr().out
    assert code == 0
    rep = json.loads(out)
    low = any(g["caution"] for g in rep["near_groups"])  # a near pair below ONE_DOCUMENT, or files linked through others
    assert low == any(p["similarity"] < ONE_DOCUMENT or g["not_near"] for g in rep["near_groups"]
                      for p in (rep["near"][i] for i in g["near"]))
    assert set(rep) == {"exact", "near", "near_groups"} | ({"caution"} if low else set())
    assert rep.get("caution") == (CAUTION if low else None)
    copies = [str(docs / "reports" / "copy.txt"), str(docs / "reports" / "original.txt")]
    assert rep["exact"] == [{"paths": copies, "keys": copies}]  # files: shown as named
    first = rep["near"][0]
    assert set(first) == {"a", "b", "a_key", "b_key", "similarity", "pairs"} and 0 < first["similarity"] <= 1
    assert set(first["pairs"][0]) == {"a_text", "b_text", "similarity"}
    sims = [p["similarity"] for p in rep["near"]]
    assert sims == sorted(sims, reverse=True)
    # the pairs in groups beside them: each pair in one group, a group's files those of its pairs
    assert sorted(i for g in rep["near_groups"] for i in g["near"]) == list(range(len(rep["near"])))
    for g in rep["near_groups"]:
        assert set(g) >= {"paths", "keys", "near", "weakest", "lowest", "highest", "not_near", "caution"}
        assert set(g["keys"]) == {k for i in g["near"] for k in (rep["near"][i]["a_key"], rep["near"][i]["b_key"])}


def test_duplicates_cli_text_and_bad_threshold(indexed, capsys, tmp_path):
    docs, config = indexed
    code = main(["--data-dir", str(config.data_dir), "duplicates", "--threshold", "0.75"])
    out = capsys.readouterr().out
    assert code == 0 and "exact copies (1 group)" in out and "reworded.md" in out
    code = main(["--data-dir", str(config.data_dir), "duplicates", "--threshold", "2"])
    assert code == 2 and "threshold" in capsys.readouterr().err
    code = main(["--data-dir", str(tmp_path / "none"), "duplicates"])
    assert code == 2 and not (tmp_path / "none").exists()


def test_a_library_without_near_pairs_answers_empty(tmp_path, packaged_encoder, make_config):
    """No candidate pair to score (only distinct files, then only an exact copy besides them) is an empty answer,
    not a crash (`searchapp duplicates` raised IndexError on a small library with no near pair)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in discover_corpus.UNRELATED.items():
        (docs / f"{name}.txt").write_text(text, encoding="utf-8")
    with Library(make_config(), encoder=packaged_encoder) as lib:
        lib.add_folder(docs)
        alone = lib.duplicates(threshold=0.99)
        (docs / "copy.txt").write_text(discover_corpus.UNRELATED[next(iter(discover_corpus.UNRELATED))],
                                       encoding="utf-8")
        lib.add_folder(docs)
        copies = lib.duplicates(threshold=0.99)
    assert alone.exact == [] and alone.near == []
    assert len(copies.exact) == 1 and copies.near == [] and copies.stats["candidate_pairs"] >= 1


def test_files_alike_in_a_few_words_only_are_no_near_duplicates(tmp_path, packaged_encoder, make_config):
    """Two different workbooks holding only their default sheet names ("Лист1 Лист2 Лист3") were near duplicates
    at 1.000: a person cleaning up might delete one. A rewording of real text still is one."""
    from searchapp.library.search.duplicates import MIN_NEAR_WORDS

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "sheets-a.txt").write_text("Лист1\nЛист2\nЛист3\n", encoding="utf-8")
    (docs / "sheets-b.txt").write_text("Лист1\n\nЛист2\n\nЛист3", encoding="utf-8")  # other bytes, same words
    text = ("Each morning the bakery mixes rye flour, water and a spoon of old dough, and leaves it to rise "
            "slowly in the cool cellar until noon.")
    (docs / "bakery.txt").write_text(text, encoding="utf-8")
    (docs / "bakery-draft.txt").write_text(text.replace("Each morning", "Every morning"), encoding="utf-8")
    # Two different workbooks sharing only a header row ("Sheet1 / Name | Date | Amount | Notes": its separators
    # counted as words) were near duplicates at 0.82
    header = ["Name", "Date", "Amount", "Notes"]
    make_ods(docs / "groceries.ods", {"Sheet1": [header], "Sheet2": [header]})
    make_ods(docs / "repairs.ods", {"Sheet1": [header], "Sheet2": [["Total"]]})
    with Library(make_config(), encoder=packaged_encoder) as lib:
        lib.add_folder(docs)
        rep = lib.duplicates(threshold=0.9)
        loose = lib.duplicates(threshold=0.75)
    names = [{Path(p.a).name, Path(p.b).name} for p in rep.near]
    assert {"bakery.txt", "bakery-draft.txt"} in names
    assert {"sheets-a.txt", "sheets-b.txt"} not in names and MIN_NEAR_WORDS > 3
    assert [{Path(p.a).name, Path(p.b).name} for p in loose.near] == [{"bakery.txt", "bakery-draft.txt"}]


def test_duplicates_json_names_a_member_as_search_does():
    """`duplicates --json` gave a member's internal key (`old_docs_2019.zip//reviews/review.docx`) where `search
    --json` and `similar --json` give the shown form as `path` and the key as `key` (docs/formats.md)."""
    from searchapp.base.member_paths import DISPLAY_SEP, MEMBER_SEP
    from searchapp.library.search.duplicates import DuplicateReport, NearPair

    member, file = f"/home/me/old.zip{MEMBER_SEP}reviews/review.docx", "/home/me/Office/review.docx"
    mail = f"/home/me/inbox.mbox{MEMBER_SEP}3: Travel"
    rep = DuplicateReport(exact=[[member, file]], near=[NearPair(mail, file, 0.9)], threshold=0.8).to_json()
    shown = f"/home/me/old.zip{DISPLAY_SEP}reviews/review.docx"
    assert rep["exact"] == [{"paths": [shown, file], "keys": [member, file]}]
    near = rep["near"][0]
    assert (near["a"], near["a_key"]) == (f"/home/me/inbox.mbox{DISPLAY_SEP}3: Travel", mail)
    assert (near["b"], near["b_key"]) == (file, file)


def test_a_near_pair_that_may_be_two_documents_comes_with_a_caution(indexed, capsys):
    """A newcomer: 12 of 26 near pairs at 0.80-0.87 were different papers on one subject; a person cleaning up
    by the list would delete distinct work. The list keeps them, with a caution (CLI, --json, window)."""
    same = DuplicateReport(exact=[], near=[NearPair("/d/a.doc", "/d/a.docx", 0.976)], threshold=0.8)
    alike = DuplicateReport(exact=[], near=[NearPair("/d/a.doc", "/d/a.docx", 0.976),
                                            NearPair("/d/obesity.txt", "/d/adoptees.txt", 0.846)], threshold=0.8)
    assert same.caution is None and "caution" not in same.to_json()
    assert alike.caution == CAUTION and alike.to_json()["caution"] == CAUTION
    _, config = indexed
    for threshold, low in (("0.75", True), ("0.99", False)):
        assert main(["--data-dir", str(config.data_dir), "duplicates", "--threshold", threshold]) == 0
        out = capsys.readouterr().out
        assert (f"  ({CAUTION})" in out) is low, out


@pytest.mark.engines("sqlite")
def test_exact_copies_are_listed_in_the_order_a_person_counts(tiny_library, tmp_path):
    """A newcomer's `duplicates` listed orig(10).pdf … orig(19).pdf before orig(2).pdf (base/natural_order.py)."""
    from searchapp.base.natural_order import natural_key

    docs = tmp_path / "docs"
    docs.mkdir()
    for n in (10, 2, 1, 19, 3):
        (docs / f"orig({n}).txt").write_text("The same quarterly rota, copied many times over.\n")
    tiny_library.add_folder(docs, embed=False)
    rep = tiny_library.duplicates(threshold=0.99)
    assert [Path(p).name for p in rep.exact[0]] == [f"orig({n}).txt" for n in (1, 2, 3, 10, 19)]
    assert sorted(["a10", "a9", "a09x", "b", "a" + "9" * 5000], key=natural_key) == ["a9", "a09x", "a10",
                                                                                     "a" + "9" * 5000, "b"]
