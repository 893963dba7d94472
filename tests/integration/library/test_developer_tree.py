"""A developer's folder is indexed as what its people wrote (decision 0178): its lockfiles, minified bundles and
large JSON are left out unread, each counted by its rule, and read once the setting that left them out no longer
does (a name `[scan] lockfiles` no longer holds, a size under a raised `max_json_mb`)."""

from __future__ import annotations

import json
import zipfile

import pytest

from searchapp.base.member_paths import MEMBER_SEP


@pytest.mark.engines("sqlite")
def test_a_checkouts_generated_files_are_left_out_by_rule_and_read_when_the_rule_is_lifted(tiny_library, tmp_path,
                                                                                          make_config):
    repo = tmp_path / "repo"
    (repo / "static").mkdir(parents=True)
    (repo / "README.md").write_text("# Tides\nPredicts harbour tides from harmonic constants.\n", encoding="utf-8")
    lock = {"packages": {f"node_modules/pkg{i}": {"version": "1.0.0", "resolved": f"https://r.example/pkg{i}"}
                         for i in range(50)}}
    (repo / "package-lock.json").write_text(json.dumps(lock, indent=2), encoding="utf-8")
    (repo / "yarn.lock").write_text('"pkg0@^1.0.0":\n  version "1.0.0"\n', encoding="utf-8")  # a ".lock": named too
    (repo / "static" / "app.min.js").write_text("function tide(){return 1}\n", encoding="utf-8")
    (repo / "readings.json").write_text(json.dumps([{"station": "brest gauge", "level": i} for i in range(100)]),
                                        encoding="utf-8")
    lib = tiny_library
    lib.config = make_config(models={"reranker": ""}, scan={"max_json_mb": 0.001})  # readings.json: ~4 KB
    rep = lib.add_folder(repo, embed=False)
    assert sorted(r.split(":", 1)[0] for _, r in rep.left_out) == ["large JSON", "lockfile", "lockfile", "minified"]
    assert lib.status().left_out == {"lockfile": 2, "minified": 1, "large JSON": 1}
    assert [h.path for h in lib.search("harbour", mode="lexical").hits] == [str(repo / "README.md")]
    assert lib.explain(str(repo / "yarn.lock"))["reason"].startswith("lockfile: its name matches 'yarn.lock'")

    lib.config = make_config(models={"reranker": ""}, scan={"lockfiles": [], "max_json_mb": 1})
    rep = lib.sync(embed=False)
    # unchanged bytes, read now that no rule leaves them out (yarn.lock is a ".lock" again: left out quietly, as before)
    assert (rep.added, rep.updated) == (0, 2)
    assert lib.status().left_out == {"minified": 1}
    assert [h.path for h in lib.search("brest gauge", mode="lexical").hits] == [str(repo / "readings.json")]
    assert [h.path for h in lib.search("pkg7", mode="lexical").hits] == [str(repo / "package-lock.json")]


@pytest.mark.engines("sqlite")
def test_an_archives_members_follow_the_rules_that_leave_them_out_when_those_change(tiny_library, tmp_path,
                                                                                   make_config):
    """A zip's members are left out by the same rules as files, but a change of `lockfiles` or `max_json_mb` read
    the files again and never the archive, unchanged: its members stayed as the old rules had left them."""
    repo = tmp_path / "repo"
    repo.mkdir()
    with zipfile.ZipFile(repo / "backup.zip", "w") as z:
        z.writestr("tides/pins.txt", "walrusdep 1.0.0 sha256-abc\n")
        z.writestr("tides/readings.json", json.dumps([{"station": "brest gauge", "level": i} for i in range(100)]))
    member = str(repo / "backup.zip") + MEMBER_SEP + "tides/"
    lib = tiny_library

    def found(words: str) -> list[str]:
        return [h.path for h in lib.search(words, mode="lexical").hits]

    lib.config = make_config(models={"reranker": ""}, scan={"lockfiles": ["pins.txt"], "max_json_mb": 0.001})
    lib.add_folder(repo, embed=False)
    assert found("walrusdep") == found("brest gauge") == []
    lib.config = make_config(models={"reranker": ""}, scan={"lockfiles": [], "max_json_mb": 1})
    lib.sync(embed=False)  # lifted: both read
    assert (found("walrusdep"), found("brest gauge")) == ([member + "pins.txt"], [member + "readings.json"])
    lib.config = make_config(models={"reranker": ""}, scan={"lockfiles": [], "max_json_mb": 0.001})
    lib.sync(embed=False)  # lowered again: the JSON member is left out, the other kept
    assert (found("walrusdep"), found("brest gauge")) == ([member + "pins.txt"], [])


@pytest.mark.engines("sqlite")
@pytest.mark.parametrize("git", [True, False])
def test_a_branch_switched_back_takes_its_meaning_off_the_shelf_in_a_git_tree_alone(tiny_library, tmp_path, git):
    """Decision 0187: in a git tree, the passages a sync deletes (a file rewritten, a file gone) keep their vectors
    on the shelf, and the same text back is not embedded again; elsewhere a deleted file's meaning goes with it.
    `remove` of the folder takes its shelved vectors with it."""
    repo = tmp_path / "repo"
    repo.mkdir()
    if git:
        (repo / ".git").mkdir()  # what git_trees.py looks for (the scan never reads it: skip_dirs)
    tides, gauge = repo / "tides.md", repo / "gauge.md"
    lib = tiny_library
    tides.write_text("Harbour tides are predicted from harmonic constants.\n", encoding="utf-8")
    gauge.write_text("The Brest tide gauge has recorded sea level since 1711.\n", encoding="utf-8")
    assert lib.add_folder(repo).chunks_embedded == 2
    # the other branch: one file with other text, one not there
    tides.write_text("Storm surges are forecast by a separate model of wind stress.\n", encoding="utf-8")
    gauge.unlink()
    rep = lib.sync()
    assert (rep.updated, rep.removed, rep.chunks_embedded) == (1, 1, 1)
    assert lib.store.shelved_count() == (2 if git else 0)
    # back: the same two texts again
    tides.write_text("Harbour tides are predicted from harmonic constants.\n", encoding="utf-8")
    gauge.write_text("The Brest tide gauge has recorded sea level since 1711.\n", encoding="utf-8")
    rep = lib.sync()
    assert (rep.updated, rep.added, rep.chunks_embedded) == (1, 1, 0 if git else 2)
    assert lib.store.shelved_count() == (1 if git else 0)  # the other branch's text now; tides' and gauge's taken off
    st = lib.status()
    assert st.chunks == st.vectors == 2 and st.consistent
    shelf = [n for n in st.notes if "kept for up to 30 days" in n]  # status says what the shelf holds
    assert shelf == (["1 vector of passages deleted from git trees kept for up to 30 days, so a branch switched back "
                      "is not embedded again (decision 0187; `remove` of the folder takes them)"] if git else [])
    assert [h.path for h in lib.search("Brest tide gauge sea level", mode="dense").hits][:1] == [str(gauge)]
    lib.remove_folder(repo)
    assert lib.store.shelved_count() == 0 and not [n for n in lib.status().notes if "git trees" in n]


@pytest.mark.engines("sqlite")
@pytest.mark.parametrize("how", ["excluded", "secret"])
def test_a_file_left_out_later_takes_its_earlier_versions_off_the_shelf(tiny_library, tmp_path, make_config, how):
    """A git tree's file edited (its old text's vector shelved), then excluded or found to hold an access token:
    its meaning goes, the shelved vectors of its earlier versions too (they stayed up to 30 days)."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    diary = repo / "diary.md"
    (repo / "readme.md").write_text("Tide tables for the harbour.\n", encoding="utf-8")
    diary.write_text("I told nobody about the hospital visit on Tuesday.\n", encoding="utf-8")
    lib = tiny_library
    lib.add_folder(repo)
    diary.write_text("Shopping list: eggs, flour, walrus food.\n", encoding="utf-8")
    lib.sync()
    assert lib.store.shelved_count() == 1
    if how == "excluded":
        lib.config = make_config(models={"reranker": ""}, scan={"exclude": ["diary.md"]})
    else:
        token = "gh" + "p_R7kQ2xZp9LmN4vB8cT1wY6dF3hJ5sGqaE2uI"  # built from parts: no file of the repo holds one whole
        diary.write_text(f"deploy with {token}\n", encoding="utf-8")
    lib.sync()
    assert lib.store.shelved_count() == 0
