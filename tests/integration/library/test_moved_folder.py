"""A folder renamed or moved on disk follows to its new place with its meaning kept (library/sync/moved.py, decision
0157): the new place is indexed while the old one is still in the library, so every passage reuses its stored
vector, and only then is the old place removed (undoable as a Remove is). Refused before anything is written when
the move makes no sense; a stop halfway keeps the old place. On both engines, and through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from notes_folder import cli, make_notes

from searchapp.base.errors import Cancelled, ConfigError, SearchAppError
from searchapp.base.progress import CancelToken
from searchapp.library.query.saved import SavedSearches
from searchapp.library.resources.undo_file import BEGUN_NAME, kept_move, undo_last_remove
from searchapp.library.sync.moved import follow_move, undo_move


def moved_away(library, tmp_path: Path) -> tuple[Path, Path]:
    """tmp_path/Documents indexed, then renamed to tmp_path/Docs on disk: (old, new)."""
    old, new = make_notes(tmp_path / "Documents"), tmp_path / "Docs"
    assert library.add_folder(old).chunks_embedded > 0
    old.rename(new)
    return old, new


def test_a_moved_folder_follows_with_every_vector_reused(tiny_library, tmp_path):
    old, new = moved_away(tiny_library, tmp_path)
    passages = tiny_library.status().chunks

    moved = follow_move(tiny_library, str(old), str(new))

    # Nothing went through the bi-encoder: indexed while the old place was still there, every passage found the
    # stored vector of the very same model input. Removing the old place first embeds all three again.
    assert moved.report.chunks_embedded == 0 and moved.report.added == 3 and moved.removed == 3
    assert moved.summary() == "3 files, 0 passages embedded (meaning reused)"
    assert tiny_library.roots() == [str(new)]
    st = tiny_library.status()
    assert st.chunks == passages and st.vectors == passages and st.consistent
    hits = tiny_library.search("orthodontist consultation", mode="lexical").hits
    assert hits[0].path == str(new / "orthodontist.txt") and hits[0].available
    assert tiny_library.search("shield volcanoes lava", mode="dense").hits


def test_an_edited_file_is_the_only_one_embedded_and_exclusions_under_the_old_place_are_named(tiny_library, tmp_path):
    old, new = moved_away(tiny_library, tmp_path)
    (new / "volcano.txt").write_text("Pahoehoe lava forms smooth ropy crusts as it cools.", encoding="utf-8")
    tiny_library.config = tiny_library.config.replace(scan={"exclude": [str(old / "private"), "*.bak"]})
    moved = follow_move(tiny_library, str(old), str(new))
    assert moved.report.chunks_embedded == 1
    assert moved.summary() == "3 files, 1 passage embedded (the rest reused)"
    [note] = moved.notes  # the config is the person's file: said, not rewritten
    assert f"leaves out {old / 'private'} under {old}; it does not cover {new}" in note


def test_moves_that_make_no_sense_are_refused_before_anything_is_written(tiny_library, tmp_path):
    old, new = moved_away(tiny_library, tmp_path)
    other = make_notes(tmp_path / "other")
    tiny_library.add_folder(other)
    (other / "inner").mkdir()
    before = (sorted(tiny_library.roots()), tiny_library.status().chunks)
    cases = [
        (str(tmp_path / "never-indexed"), str(new), "is not a folder of the library"),
        (str(other / "inner"), str(new), f"belongs to {other}"),
        (str(old), str(tmp_path / "nowhere"), "no such folder"),
        (str(old), str(old), "nothing to move"),
        (str(old), str(tmp_path), "holds"),
    ]
    for old_arg, new_arg, says in cases:
        with pytest.raises(ConfigError, match=says):
            follow_move(tiny_library, old_arg, new_arg)
    assert (sorted(tiny_library.roots()), tiny_library.status().chunks) == before


def test_a_folder_moved_into_another_indexed_folder_follows_as_that_folders_part(tiny_library, tmp_path):
    """A newcomer moved an indexed drive's folder into the indexed home: `status` said `moved OLD NEW`, and `moved`
    refused ("choose … not one inside an indexed folder"). That part of the home is synced, OLD's meaning reused,
    then OLD removed; a NEW its folder's rules leave out (a hidden folder) follows nothing, and OLD is kept."""
    home = make_notes(tmp_path / "home")
    tiny_library.add_folder(home)
    old = make_notes(tmp_path / "usb")
    (old / "kayak.txt").write_text("The kayak club meets at the boathouse on Thursdays.", encoding="utf-8")
    tiny_library.add_folder(old)
    hidden = home / ".cache"
    hidden.mkdir()
    (hidden / "x.txt").write_text("cached", encoding="utf-8")
    with pytest.raises(SearchAppError, match="nothing under .* is indexed"):
        follow_move(tiny_library, str(old), str(hidden))
    assert str(old) in tiny_library.roots()
    new = home / "USB"
    old.rename(new)
    moved = follow_move(tiny_library, str(old), str(new))
    assert (moved.report.chunks_embedded, moved.report.scanned, moved.removed) == (0, 4, 4)
    assert tiny_library.roots() == [str(home)]
    assert tiny_library.search("kayak boathouse", mode="lexical").hits[0].path == str(new / "kayak.txt")
    st = tiny_library.status()
    assert st.vectors == st.chunks and st.consistent


def test_a_place_inside_the_old_one_is_refused_while_it_is_there(tiny_library, tmp_path):
    old = make_notes(tmp_path / "Documents")
    tiny_library.add_folder(old)
    (old / "sub").mkdir()
    (old / "sub" / "a.txt").write_text("inside", encoding="utf-8")
    with pytest.raises(ConfigError, match="removing .* would remove it too"):
        follow_move(tiny_library, str(old), str(old / "sub"))


def test_a_stop_during_the_sync_keeps_the_old_place_and_the_move_goes_on_later(tiny_library, tmp_path):
    old, new = moved_away(tiny_library, tmp_path)
    token = CancelToken()

    def press_cancel(p):  # the person presses Ctrl+C (or Cancel) as soon as the sync reports anything
        token.cancel()

    with pytest.raises(Cancelled):
        follow_move(tiny_library, str(old), str(new), press_cancel, token)
    assert str(old) in tiny_library.roots()  # not removed: its meaning is all there still
    roots = {r.path: r for r in tiny_library.status().roots}
    assert roots[str(old)].files == 3
    # NEW, in the library with what was read of it, says why (an empty folder beside OLD, unexplained: a newcomer)
    assert roots[str(new)].moving_from == str(old) and roots[str(old)].moving_from is None

    moved = follow_move(tiny_library, str(old), str(new))  # the same move again finishes it
    assert moved.report.chunks_embedded == 0 and tiny_library.roots() == [str(new)]
    # ... and it is still the move that added NEW: its undo takes NEW out again (it found NEW in the library
    # already, and an undo put OLD back beside it: every file twice)
    assert moved.added  # what the window's Undo and the shared library's go by
    # `searchapp undo` goes by the note, on either library (a shared one's undo once put OLD back beside NEW)
    assert kept_move(tiny_library.config.data_dir, str(old)).new == str(new)
    assert not (Path(tiny_library.config.data_dir) / BEGUN_NAME).exists()  # the move has ended: no note left


def test_a_move_onto_a_folder_the_library_held_before_it_is_not_the_moves_to_undo(tiny_library, tmp_path):
    old, new = moved_away(tiny_library, tmp_path)
    other = make_notes(tmp_path / "Other")
    tiny_library.add_folder(other)
    for f in new.iterdir():  # NEW's files moved into a folder indexed on its own before the move
        f.rename(other / f.name) if f.is_file() else None
    moved = follow_move(tiny_library, str(old), str(other))
    assert not moved.added and kept_move(tiny_library.config.data_dir, str(old)) is None


# -- the command line --------------------------------------------------------------------------------------------
def test_cli_moved_reuses_the_meaning_and_undo_puts_the_old_place_back(tiny_cli, tmp_path, capsys):
    data = str(tmp_path / "lib")
    old = make_notes(tmp_path / "Documents")
    assert cli(capsys, "--data-dir", data, "index", str(old))[0] == 0
    new = tmp_path / "Docs"
    old.rename(new)

    code, out, _ = cli(capsys, "--data-dir", data, "status")
    assert "MISSING" in out and f"`searchapp moved {old} NEW` keeps its meaning" in out

    code, out, err = cli(capsys, "--data-dir", data, "moved", str(old), str(new))
    assert code == 0, err
    assert f"moved {old} -> {new}: 3 files, 0 passages embedded (meaning reused)" in out
    assert "`searchapp undo` undoes the move within 60 s" in out
    st = json.loads(cli(capsys, "--data-dir", data, "status", "--json")[1])
    assert [r["path"] for r in st["roots"]] == [str(new)] and st["vectors"] == st["chunks"] > 0
    code, out, _ = cli(capsys, "--data-dir", data, "search", "orthodontist consultation", "--json")
    assert code == 0 and json.loads(out)["hits"][0]["path"] == str(new / "orthodontist.txt")

    # undo undoes the move: the old place back and the new one out (put back alone, both stood in the library,
    # every file twice: a newcomer)
    code, out, _ = cli(capsys, "--data-dir", data, "undo")
    assert code == 0 and f"put back {old} (3 files) and took {new} out again: the move is undone" in out, out
    st = json.loads(cli(capsys, "--data-dir", data, "status", "--json")[1])
    assert [r["path"] for r in st["roots"]] == [str(old)]
    code, _, err = cli(capsys, "--data-dir", data, "undo")  # one Undo per Remove: said as such
    assert code == 1 and "puts back the last folder removed, once, within a minute" in err


def test_cli_a_stopped_move_says_so_in_one_line_and_status_marks_the_new_place(tiny_cli, tmp_path, capsys,
                                                                               monkeypatch):
    """A newcomer's Ctrl+C during `moved` printed "stopped: OLD is still in the library, nothing lost" and then
    "cancelled; nothing half-written was kept", and `status` listed NEW, nearly empty, with no word of why."""
    from searchapp.library.sync import moved as moved_module

    data = str(tmp_path / "lib")
    old = make_notes(tmp_path / "Documents")
    assert cli(capsys, "--data-dir", data, "index", str(old))[0] == 0
    new = tmp_path / "Docs"
    old.rename(new)

    def stopped_at_once(lib, old_, new_, progress, cancel):  # Ctrl+C as soon as the sync reports anything
        return follow_move(lib, old_, new_, lambda p: cancel.cancel(), cancel)

    with monkeypatch.context() as m:
        m.setattr(moved_module, "follow_move", stopped_at_once)
        code, out, err = cli(capsys, "--data-dir", data, "moved", str(old), str(new))
    again = f"`searchapp moved {old} {new}`"
    assert code == 130 and out == "" and err.splitlines() == [
        f"searchapp: stopped: {old} is still in the library, nothing lost; {new} is in it too, with the files read "
        f"so far (`searchapp status` marks it); {again} again goes on where this stopped"], err
    out = cli(capsys, "--data-dir", data, "status")[1]
    assert f"{new}: " in out and f"[a move here from {old} stopped halfway: {again} goes on]" in out, out
    assert cli(capsys, "--data-dir", data, "moved", str(old), str(new))[0] == 0
    out = cli(capsys, "--data-dir", data, "status")[1]
    assert "stopped halfway" not in out and str(old) not in out, out


def test_every_line_about_a_renamed_folder_says_moved_first_then_remove(tiny_cli, tmp_path, capsys, monkeypatch):
    """A newcomer renamed Pictures -> Photos and ran `searchapp index`: its error named `remove` alone (which
    embeds every passage again once the new place is indexed); only `status` named `moved`. index, `index OLD`,
    watch's catch-up and status now say the same: `moved` first, then `remove`."""
    import argparse

    from searchapp.cli.commands import watch

    data = str(tmp_path / "lib")
    import shlex

    old = make_notes(tmp_path / "My Pictures")  # quoted as a shell reads it: the advice is pasted as it is
    assert cli(capsys, "--data-dir", data, "index", str(old))[0] == 0
    old.rename(tmp_path / "Photos")
    quoted = shlex.quote(str(old))
    assert quoted.startswith("'")
    advice = (f"Moved? `searchapp moved {quoted} NEW` keeps its meaning (no embedding again); "
              f"`searchapp remove {quoted}` forgets it")
    code, _, err = cli(capsys, "--data-dir", data, "index")
    assert code == 1 and f"its passages are kept and still searchable. {advice}" in err, err
    code, _, err = cli(capsys, "--data-dir", data, "index", str(old))
    assert code != 0 and advice in err, err
    code, out, _ = cli(capsys, "--data-dir", data, "status")
    assert f"kept and searchable. {advice}]" in out, out

    class Caught:  # watch's catch-up, its sync finding the folder gone
        writer_wait = None

        def roots(self):
            return [str(old)]

        def index(self):
            pass

        def sync(self, progress, cancel):
            from searchapp.library import SyncReport

            return SyncReport(missing_roots=[(str(old), "not found")])

    from searchapp.cli.progress import TerminalProgress

    watch._catch_up(Caught(), argparse.Namespace(no_wait=True), TerminalProgress(enabled=False), CancelToken())
    assert f"{old}: not found; its passages are kept. {advice}" in capsys.readouterr().err


def test_cli_moved_refuses_in_one_line(tiny_cli, tmp_path, capsys):
    data = str(tmp_path / "lib")
    old = make_notes(tmp_path / "Documents")
    assert cli(capsys, "--data-dir", data, "index", str(old))[0] == 0
    code, out, err = cli(capsys, "--data-dir", data, "moved", str(tmp_path / "Other"), str(old))
    assert code == 2 and out == "" and "is not a folder of the library" in err and str(old) in err
    code, _, err = cli(capsys, "--data-dir", data, "moved", str(old), str(tmp_path / "Docs"))
    assert code == 2 and "no such folder" in err and len(err.strip().splitlines()) == 1
    code, _, err = cli(capsys, "--data-dir", data, "moved", str(old), str(old))
    assert code == 2 and "nothing to move" in err


def test_an_empty_new_place_is_refused_and_the_old_one_kept(tiny_library, tmp_path):
    """An unplugged drive often leaves its mount point as an empty folder: `moved OLD /mnt/backup2` there indexed
    nothing, removed OLD ("0 files, 0 passages embedded (meaning reused)"), and a minute later OLD's meaning was gone
    for good, the very embedding `moved` exists to keep (found by a review). Refused before anything is written."""
    old, _ = moved_away(tiny_library, tmp_path)
    empty = tmp_path / "mnt" / "backup2"
    empty.mkdir(parents=True)
    before = (tiny_library.roots(), tiny_library.status().chunks)
    with pytest.raises(ConfigError, match="is empty"):
        follow_move(tiny_library, str(old), str(empty))
    assert (tiny_library.roots(), tiny_library.status().chunks) == before == ([str(old)], 3)


def test_a_saved_search_sees_nothing_new_in_a_moved_folder(tiny_cli, tmp_path, capsys):
    """A newcomer's saved search read "roof (2 new)" after Moved…, its files marked new under the new place though
    nothing had changed: the files it had seen follow the move. And one naming the old place follows it (decision
    0196: it went to "nothing new (0 files)"), said old -> new; `undo` puts it back; history is not rewritten."""
    data = str(tmp_path / "lib")
    old = make_notes(tmp_path / "Documents")
    assert cli(capsys, "--data-dir", data, "index", str(old))[0] == 0
    assert cli(capsys, "--data-dir", data, "saved", "add", "texts", "type:txt")[0] == 0
    assert cli(capsys, "--data-dir", data, "saved", "add", "here", f"volcano in:{old}")[0] == 0
    assert cli(capsys, "--data-dir", data, "search", f"lava in:{old}")[0] == 0
    new = tmp_path / "Docs"
    old.rename(new)
    code, out, err = cli(capsys, "--data-dir", data, "moved", str(old), str(new))
    assert code == 0 and f"\nsaved search here: volcano in:{old} -> volcano in:{new}\n" in out, out
    assert "holds nothing now" not in err and "texts" not in out, err
    assert "`searchapp undo` undoes the move within 60 s" in out
    code, out, _ = cli(capsys, "--data-dir", data, "saved", "list")
    assert code == 0 and "texts\tnothing new (2 files)" in out and "here\tnothing new (3 files)\t" in out, out
    code, out, _ = cli(capsys, "--data-dir", data, "saved", "run", "texts")
    assert code == 0 and str(new / "volcano.txt") in out and "[new]" not in out, out
    # what was typed then, as it was typed (it is a record, not a search kept to run again)
    assert cli(capsys, "--data-dir", data, "history")[1].splitlines() == [f"lava in:{old}"]

    code, out, err = cli(capsys, "--data-dir", data, "undo")
    assert code == 0 and out.endswith("the move is undone\nsaved search here put back as before the move\n"), out
    code, out, _ = cli(capsys, "--data-dir", data, "saved", "list")
    assert code == 0 and f"here\tnothing new (3 files)\thybrid\tvolcano in:{old}\n" in out, out


def test_saved_searches_follow_a_move_and_its_undo_on_both_engines(tiny_library, tmp_path):
    """Decision 0196: the saved searches' in: places at the old folder or under it name the new place once the move
    has completed (not when it stopped), their seen files follow (nothing new), and the move's undo puts each query
    back as it was, unless edited since."""
    old, new = make_notes(tmp_path / "My Documents"), tmp_path / "My Docs"
    tiny_library.add_folder(old)
    saved = SavedSearches(tiny_library)
    saved.add("texts", "type:txt")
    saved.add("ducks", f'volcano in:"{old}"')
    saved.add("sub", f'dir:"{old / "x"}" lava')  # a place under the folder, as dir: writes it
    saved.add("neighbour", f'in:"{old}2"')  # a folder whose name begins with the old one's: not the moved folder
    saved.add("edited", f'in:"{old}"')
    before = {s.name: s.query for s in saved.list()}
    old.rename(new)
    token = CancelToken()
    with pytest.raises(Cancelled):  # stopped: OLD is still in the library, and the searches name it still
        follow_move(tiny_library, str(old), str(new), lambda p: token.cancel(), token)
    assert {s.name: s.query for s in saved.list()} == before

    moved = follow_move(tiny_library, str(old), str(new))
    after = {s.name: s.query for s in saved.list()}
    assert after == {"texts": "type:txt", "ducks": f'volcano in:"{new}"', "sub": f'dir:"{new / "x"}" lava',
                     "neighbour": f'in:"{old}2"', "edited": f'in:"{new}"'}
    assert moved.saved_lines() == [f"saved search {n}: {before[n]} -> {after[n]}" for n in ("ducks", "edited", "sub")]
    assert [(s.name, s.new_hits, s.hits) for s in saved.refresh() if s.name in ("texts", "ducks")] == [
        ("ducks", 0, 3), ("texts", 0, 2)]  # its files found where they are now (none at OLD), none new

    saved.add("edited", "in:/elsewhere", replace=True)  # the person's own edit meanwhile: the undo keeps it
    assert undo_last_remove(tiny_library)[0] == str(old)  # as `searchapp undo` does it, on either library
    done = undo_move(tiny_library, kept_move(tiny_library.config.data_dir, str(old)))
    assert (done.taken_out, done.saved_back, done.saved_kept) == (str(new), ["ducks", "sub"], ["edited"])
    assert {s.name: s.query for s in saved.list()} == {**before, "edited": "in:/elsewhere"}
    assert tiny_library.roots() == [str(old)]


@pytest.mark.engines("sqlite")
def test_a_move_and_an_in_typed_through_links_name_the_folders_as_index_does(tiny_library, tmp_path):
    """Decision 0192, one file one path: `index` resolves a folder typed through a link; `moved` and `--in` (and a
    query's in:) typed through one named nothing of the library ("not a folder of the library"; no hits, "no
    folder of the library is there"). They are resolved by the same rule (sync/roots.library_place)."""
    from searchapp.library.query.filters import SearchFilters

    old, new = make_notes(tmp_path / "Documents"), tmp_path / "Docs"
    tiny_library.add_folder(old)
    (tmp_path / "old-link").symlink_to(old)
    saved = SavedSearches(tiny_library)  # a saved search typed through the link follows the move (decision 0196)
    saved.add("linked", f"volcano in:{tmp_path / 'old-link' / 'x'}")
    saved.add("elsewhere", f"in:{tmp_path / 'old-link2'}")
    old.rename(new)  # the link now leads where the folder was
    (tmp_path / "new-link").symlink_to(new)
    moved = follow_move(tiny_library, str(tmp_path / "old-link"), str(tmp_path / "new-link"))
    assert (moved.old, moved.new, moved.added) == (str(old), str(new), True) and tiny_library.roots() == [str(new)]
    assert {s.name: s.query for s in saved.list()} == {"linked": f"volcano in:{new / 'x'}",
                                                      "elsewhere": f"in:{tmp_path / 'old-link2'}"}

    for query, filters in ((f"orthodontist in:{tmp_path / 'new-link'}", None),
                           ("orthodontist", SearchFilters.build(folders=[str(tmp_path / "new-link")]))):
        res = tiny_library.search(query, mode="lexical", filters=filters)
        assert [h.path for h in res.hits] == [str(new / "orthodontist.txt")] and not res.notices, res.notices
    assert tiny_library.unplaced([str(tmp_path / "new-link"), str(tmp_path / "nowhere")]) == [str(tmp_path / "nowhere")]


def test_undo_after_a_remove_that_followed_a_move_puts_back_only_that_remove(tiny_cli, tmp_path, capsys):
    """The move's note is the last Remove's: a Remove after it (of a folder gone from disk) is undone alone, and
    says its place is not on disk now."""
    data = str(tmp_path / "lib")
    old, other = make_notes(tmp_path / "Documents"), make_notes(tmp_path / "Other")
    for folder in (old, other):
        assert cli(capsys, "--data-dir", data, "index", str(folder))[0] == 0
    new = tmp_path / "Docs"
    old.rename(new)
    assert cli(capsys, "--data-dir", data, "moved", str(old), str(new))[0] == 0
    gone = tmp_path / "Other-gone"
    other.rename(gone)
    assert cli(capsys, "--data-dir", data, "remove", "--yes", str(other))[0] == 0
    code, out, _ = cli(capsys, "--data-dir", data, "undo")
    assert code == 0 and f"put back {other} (3 files)" in out and "the move is undone" not in out, out
    assert "it is not there on disk now" in out
    st = json.loads(cli(capsys, "--data-dir", data, "status", "--json")[1])
    assert sorted(r["path"] for r in st["roots"]) == sorted([str(new), str(other)])


def test_undo_of_a_move_keeps_a_folder_of_the_library_the_new_place_held(tiny_cli, tmp_path, capsys):
    """NEW held a folder already indexed on its own (Archive/Recipes): adding NEW took it in (roots merge), so
    taking NEW out again on undo took Recipes out of the library too, a folder the move never added. The undo
    puts OLD back and leaves NEW, Recipes with it."""
    data = str(tmp_path / "lib")
    old, recipes = make_notes(tmp_path / "Documents"), make_notes(tmp_path / "Archive" / "Recipes")
    for folder in (old, recipes):
        assert cli(capsys, "--data-dir", data, "index", str(folder))[0] == 0
    new = tmp_path / "Archive" / "Documents"
    old.rename(new)
    assert cli(capsys, "--data-dir", data, "moved", str(old), str(tmp_path / "Archive"))[0] == 0
    code, out, err = cli(capsys, "--data-dir", data, "undo")
    assert code == 0, err
    code, out, _ = cli(capsys, "--data-dir", data, "search", "orthodontist consultation", "--mode", "lexical",
                       "--json")
    paths = {h["path"] for h in json.loads(out)["hits"]}
    assert str(recipes / "orthodontist.txt") in paths, paths


def test_a_stopped_move_is_still_the_one_that_added_new_after_another_move_in_between(tiny_library, tmp_path):
    """The note of a move begun is the data dir's one file: a second move meanwhile (another folder renamed)
    wrote and then dropped it, and the first move, run again, took NEW for a folder the library held before it:
    its undo left NEW in the library beside OLD, every file twice."""
    old, new = moved_away(tiny_library, tmp_path)
    token = CancelToken()
    with pytest.raises(Cancelled):
        follow_move(tiny_library, str(old), str(new), lambda p: token.cancel(), token)
    other_old, other_new = make_notes(tmp_path / "Papers"), tmp_path / "Articles"
    tiny_library.add_folder(other_old)
    other_old.rename(other_new)
    assert follow_move(tiny_library, str(other_old), str(other_new)).added  # another move, to its end

    moved = follow_move(tiny_library, str(old), str(new))  # the first move again
    assert moved.added
    assert not (Path(tiny_library.config.data_dir) / BEGUN_NAME).exists()


def test_the_move_counts_the_items_in_archives_apart(tiny_library, tmp_path):
    """Decision 0163: a tester's `moved` said "107 files" where status said 92 files and 15 items in archives."""
    import zipfile

    old, new = make_notes(tmp_path / "Documents"), tmp_path / "Docs"
    with zipfile.ZipFile(old / "letters.zip", "w") as z:
        z.writestr("a.txt", "a letter about the allotment and its runner beans")
        z.writestr("b.txt", "a letter about the parish fete and its tombola")
    tiny_library.add_folder(old)
    old.rename(new)
    moved = follow_move(tiny_library, str(old), str(new))
    assert moved.summary() == "4 files and 2 items in archives and mail, 0 passages embedded (meaning reused)"


def test_a_saved_search_the_move_cannot_rewrite_is_named(tiny_cli, tmp_path, capsys):
    """A new place a query cannot write (a space needs quotes, and a '"' would end them) leaves the saved search
    naming the old place: the move names it, by the rule it rewrites the others by (SavedSearches.naming)."""
    data = str(tmp_path / "lib")
    old = make_notes(tmp_path / "Documents")
    assert cli(capsys, "--data-dir", data, "index", str(old))[0] == 0
    assert cli(capsys, "--data-dir", data, "saved", "add", "here", f"volcano in:{old}")[0] == 0
    assert cli(capsys, "--data-dir", data, "saved", "add", "texts", "type:txt")[0] == 0
    new = tmp_path / 'say "hi" docs'
    old.rename(new)
    code, out, err = cli(capsys, "--data-dir", data, "moved", str(old), str(new))
    assert code == 0 and "saved search here:" not in out, out
    assert f"1 saved search names in:{old}, which holds nothing now (here)" in err, err
