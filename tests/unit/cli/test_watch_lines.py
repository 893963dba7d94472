"""`searchapp watch`'s line for a live update: a file there named first, and why files were left out."""

from __future__ import annotations

from searchapp.cli.commands.watch import SHOWN_PROBLEMS, print_change
from searchapp.library.sync.contract import SyncReport


def test_a_live_update_names_a_file_and_says_why_files_were_left_out(tmp_path, capsys):
    """A tester's lines named a checkout's folder ("30 added: /…/projects and 31 more"), or an editor's temporary
    file already gone, and "6 skipped" said no reason."""
    kept = tmp_path / "notes.txt"
    kept.write_text("kept", encoding="utf-8")
    folder, gone = str(tmp_path), str(tmp_path / ".notes.txt.swp")
    rep = SyncReport(updated=1, skipped=SHOWN_PROBLEMS + 2,
                     problems=[(str(tmp_path / f"link{i}"), "symlink (following symlinks is off)")
                               for i in range(SHOWN_PROBLEMS + 2)])
    print_change(rep, [folder, gone, str(kept)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(f"1 updated, {SHOWN_PROBLEMS + 2} skipped: {kept} and {SHOWN_PROBLEMS + 2} more"), lines[0]
    assert lines[1] == f"  {tmp_path / 'link0'}: symlink (following symlinks is off)"
    assert len(lines) == 1 + SHOWN_PROBLEMS + 1 and lines[-1].startswith("  ... and 2 more")
    print_change(SyncReport(), [str(kept)])  # nothing happened: nothing said
    assert capsys.readouterr().out == ""
    # failed before, skipped now (a reader now tells it is encrypted): not lost from the search, another reason
    print_change(SyncReport(skipped=1, reason_changed=[(str(kept), "skipped", "encrypted: password-protected")]),
                 [str(kept)])
    assert capsys.readouterr().out.splitlines()[1:] == [f"  {kept}: now skipped: encrypted: password-protected"]
    print_change(SyncReport(), [str(kept)])
    assert capsys.readouterr().out == ""


def test_a_live_update_counts_files_not_event_paths(tmp_path, capsys):
    """A newcomer moved Notes/fr (3 files) to Documents/Francais: "3 added, 3 removed: …/Francais/impots.md and 7
    more" named 8 where 6 changed, counting the folders and each file's events. Removed files, whose paths are gone,
    count at most one each; a folder moved away is named alone."""
    moved = tmp_path / "Documents" / "Francais"
    moved.mkdir(parents=True)
    names = ("banque.md", "impots.md", "loyer.md")
    for name in names:
        (moved / name).write_text(name, encoding="utf-8")
    old = tmp_path / "Notes" / "fr"
    paths = sorted([str(old), *(str(old / n) for n in names), str(moved), *(str(moved / n) for n in names)])
    print_change(SyncReport(added=3, removed=3), paths)
    assert capsys.readouterr().out.rstrip().endswith(f"3 added, 3 removed: {moved / 'banque.md'} and 5 more")
    print_change(SyncReport(removed=3), [str(old)])  # the folder moved out of the indexed ones
    assert capsys.readouterr().out.rstrip().endswith(f"3 removed: {old}")
    print_change(SyncReport(removed=3), [str(old), *(str(old / n) for n in names)])
    assert capsys.readouterr().out.rstrip().endswith(f"3 removed: {old / 'banque.md'} and 2 more")
    print_change(SyncReport(removed=1), [str(old / "impots.md")])
    assert capsys.readouterr().out.rstrip().endswith(f"1 removed: {old / 'impots.md'}")


def test_a_live_update_stopped_by_the_watchs_end_says_how_far_it_got(capsys):
    """Stopping `watch` cancels the live update in flight (library/sync/watch.py): no "failed (will retry)", which
    would never come, but how far it got and what reads the rest."""
    from searchapp.base.errors import Cancelled
    from searchapp.cli.commands.watch import print_failure

    print_failure(Cancelled("cancelled", report=SyncReport(added=12)))
    out = capsys.readouterr()
    assert "failed" not in out.err + out.out
    assert out.out.rstrip().endswith("the live update in progress stopped part way (12 added, 0 updated, 0 removed "
                                     "by then); the next `searchapp watch` or `searchapp index` reads the rest"), out
    print_failure(Cancelled("cancelled"))
    assert "stopped part way; the next" in capsys.readouterr().out


def test_a_lost_server_s_line_says_watch_retries_not_to_run_it_again(capsys):
    """A shared library's server stopped: watch said "(will retry): …; the next request connects again (a command:
    run it again once the server is back)", contradicting itself. It retries: no advice to run it again."""
    from searchapp.base.errors import ConnectionLost
    from searchapp.cli.commands.watch import print_failure
    from searchapp.store.postgres.pg_store import RUN_AGAIN

    print_failure(ConnectionLost("lost the connection to the shared library db: server closed the connection "
                                 "unexpectedly; the next request connects again", RUN_AGAIN))
    err = capsys.readouterr().err
    assert err == ("searchapp: live update failed (will retry): lost the connection to the shared library db: server "
                   "closed the connection unexpectedly; the next request connects again\n"), err


def test_a_member_left_out_is_named_as_every_command_names_it(tmp_path, capsys):
    """A newcomer's watch named `archive-copy-2.zip//big/zeros.txt` where every other command shows `›`."""
    zipped = tmp_path / "archive.zip"
    zipped.write_bytes(b"")
    key = f"{zipped}//big/zeros.txt"
    print_change(SyncReport(added=1, skipped=1, problems=[(key, "zip bomb: big/zeros.txt compresses more than 100:1")]),
                 [str(zipped)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == f"  {zipped} › big/zeros.txt: zip bomb: big/zeros.txt compresses more than 100:1", lines
