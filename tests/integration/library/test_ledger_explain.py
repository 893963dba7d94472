"""`searchapp explain PATH` and the per-file ledger (`status --files`, `files_by_state`)."""

from __future__ import annotations

import io
import json
import zipfile
from types import SimpleNamespace

import pytest

from searchapp.base.member_paths import DISPLAY_SEP, MEMBER_SEP


def _run(capsys, data, *args) -> SimpleNamespace:
    """The command line in this process (what it prints and its exit code are the point here, not a process):
    five runs through `python -m searchapp` were ~2 CPU s of this module's."""
    from searchapp.cli.main import main

    capsys.readouterr()
    code = main(["--data-dir", str(data), *args])
    out, err = capsys.readouterr()
    return SimpleNamespace(returncode=code, stdout=out, stderr=err)


def test_explain_of_a_folder_counts_its_files_as_status_does(tiny_library, tmp_path):
    """`explain home/Mail` said "100 files under it" where status said "52 files, 48 items in archives and mail":
    the files apart from what was read out of the archives and mail in them (decision 0163), as status counts."""
    mail = tmp_path / "home" / "Mail"
    mail.mkdir(parents=True)
    (mail / "note.txt").write_text("A note on the harbour tides.")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("one.txt", "A note about capybaras in the archive.")
        z.writestr("two.txt", "Another note about ocelots in the archive.")
    (mail / "a.zip").write_bytes(buf.getvalue())
    tiny_library.add_folder(tmp_path / "home", embed=False)
    root = tiny_library.status().roots[0]
    assert (root.files, root.members) == (2, 2), (root.files, root.members)
    for folder in (mail, tmp_path / "home"):
        e = tiny_library.explain(str(folder))
        assert e["reason"] == "a folder: 2 files and 2 items in archives and mail under it in the library", e


def test_explain_every_case(tiny_library, tmp_path, make_config, monkeypatch):
    monkeypatch.setenv("SEARCHAPP_OCR_ENGINE", "none")  # the image waits for OCR
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "kept.txt").write_text("The ocelot sleeps in the afternoon sun. " * 3)
    (docs / "secret.log").write_text("excluded by pattern")
    (docs / "big.txt").write_text("x" * 3000)
    (docs / "photo.png").write_bytes(b"\x89PNG\r\n")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("inside/note.txt", "A note about capybaras in the archive.")
    (docs / "a.zip").write_bytes(buf.getvalue())
    lib = tiny_library
    lib.config = make_config(models={"reranker": ""}, scan={"exclude": ["*.log"], "max_file_mb": 0.002})
    lib.add_folder(docs)

    e = lib.explain(str(docs / "kept.txt"))
    assert e["state"] == "indexed" and e["folder"] == str(docs) and e["passages"] >= 1 and e["vectors"] == e["passages"]
    assert e["text"].startswith("The ocelot sleeps") and len(e["text"]) <= 300 and e["member"] is None
    e = lib.explain(str(docs / "secret.log"))
    assert e["state"] == "excluded" and "exclude" in e["reason"]
    e = lib.explain(str(docs / "big.txt"))
    assert e["state"] == "skipped" and "too large" in e["reason"]
    e = lib.explain(str(docs / "photo.png"))
    assert e["state"] == "ocr_pending" and "OCR" in e["reason"]
    e = lib.explain(str(tmp_path / "elsewhere.txt"))
    assert e["state"] == "outside" and e["folder"] is None
    e = lib.explain(str(docs / "a.zip") + DISPLAY_SEP + "inside/note.txt")  # as shown
    assert e["state"] == "indexed" and e["container"] == str(docs / "a.zip") and e["member"] == "inside/note.txt"
    assert "capybaras" in e["text"]
    assert lib.explain(str(docs / "a.zip") + MEMBER_SEP + "inside/note.txt")["passages"] == e["passages"]


def test_explain_and_status_files_cli(tmp_path, tiny_bi_encoder_dir, tiny_encoder, capsys):
    from searchapp.base.config import load_config
    from searchapp.library import Library

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Lemurs eat fruit in Madagascar.\n")
    (docs / "blank.html").write_text("<html><body> </body></html>")  # read, no text found
    (docs / "empty.txt").write_bytes(b"")
    data = tmp_path / "lib"
    data.mkdir()
    (data / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\nreranker = ""\n')
    with Library(load_config(data, env={}), encoder=tiny_encoder) as lib:
        lib.add_folder(docs)
    out = _run(capsys, data, "explain", str(docs / "a.txt"), "--json")
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    assert info["state"] == "indexed" and "Lemurs" in info["text"]
    out = _run(capsys, data, "explain", str(docs / "a.txt"))
    assert "state: indexed" in out.stdout and "passages: 1" in out.stdout and "note:" not in out.stdout
    out = _run(capsys, data, "explain", str(docs / "empty.txt"))  # said "state: empty (empty)" (a newcomer)
    assert "  state: empty\n" in out.stdout, out.stdout
    out = _run(capsys, data, "status", "--files", "no_text", "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["files"]
    assert [r["path"] for r in rows] == [str(docs / "blank.html")] and rows[0]["state"] == "no_text"
    st = json.loads(_run(capsys, data, "status", "--json").stdout)
    assert st["files_by_state"]["indexed"] == 1 and st["files_by_state"]["no_text"] == 1
    # listed by the state `--files` finds it by (it said "[skipped]", which `--files skipped` did not list)
    assert f"  [no_text] {docs / 'blank.html'}: no text found" in _run(capsys, data, "status").stdout
    assert [(f["status"], f["state"]) for f in st["failed"]] == [("skipped", "no_text")]  # the same in JSON


def test_explain_says_what_reading_a_file_left_out(tiny_library, tmp_path, capsys):
    """A newcomer searched for words of a paragraph left out as "not prose", and `explain` said only "indexed":
    what a file's reading leaves out is kept with it and said (on both engines)."""
    from searchapp.cli.commands.status import cmd_explain

    docs = tmp_path / "docs"
    docs.mkdir()
    blob = "QUJDRGVmZ2hpamtsbW5vcHFyc3R1dnd4eXo0" * 30
    (docs / "pasted.txt").write_text(f"Minutes of the lichen survey.\n\n{blob}\n\nThe survey resumes in May.\n")
    (docs / "plain.txt").write_text("Lemurs eat fruit in Madagascar.\n")
    tiny_library.add_folder(docs, embed=False)
    info = tiny_library.explain(str(docs / "pasted.txt"))
    assert info["state"] == "indexed" and "resumes in May" in info["text"] and blob[:40] not in info["text"]
    assert [n.split(":")[0] for n in info["notes"]] == ["1 paragraph(s) left out, not prose"]
    assert tiny_library.explain(str(docs / "plain.txt"))["notes"] == []

    class Args:
        path, json, text = str(docs / "pasted.txt"), False, False

    class Opened:
        def __enter__(self):
            return tiny_library

        def __exit__(self, *exc):
            return False

    import searchapp.cli.commands.status as status_cmd

    real = status_cmd._library
    status_cmd._library = lambda config, create=False: Opened()
    try:
        assert cmd_explain(Args(), tiny_library.config, None, None) == 0
    finally:
        status_cmd._library = real
    out = capsys.readouterr().out
    assert "  note: 1 paragraph(s) left out, not prose: most of the text is runs of" in out, out


class _WhiteboardEngine:
    """Stands in for an OCR engine: every page reads as the same line (the engine is not what is tested)."""

    name = "stub"

    def recognize(self, image, cancel=None) -> str:
        return "Whiteboard notes about capybaras and their burrows"


def test_explain_of_an_ocrd_image_names_no_rule_against_it(tiny_library, tmp_path, make_config, monkeypatch):
    from PIL import Image

    from searchapp.library.ocr import step

    monkeypatch.setattr(step, "available_engine", lambda: _WhiteboardEngine())
    docs = tmp_path / "docs"
    docs.mkdir()
    Image.new("RGB", (64, 32), "white").save(docs / "board.png")
    lib = tiny_library
    lib.add_folder(docs)

    e = lib.explain(str(docs / "board.png"))
    assert e["state"] == "ocr_done" and "capybaras" in e["text"]
    assert e["rule"] is None and "unsupported" not in json.dumps(e)

    lib.config = make_config(models={"reranker": ""}, scan={"ocr": False})
    e = lib.explain(str(docs / "board.png"))
    assert "unsupported" not in (e["rule"] or "") and "OCR" in e["rule"] and "off" in e["rule"]


def test_status_files_says_an_unknown_state_before_opening_anything(tmp_path, capsys):
    """A mistyped state is the message, even where no library is (the state is checked before one is opened)."""
    from searchapp.cli.main import main

    code = main(["--data-dir", str(tmp_path / "nowhere"), "status", "--files", "bogus"])
    err = capsys.readouterr().err
    assert code == 2 and "unknown state 'bogus'" in err and not (tmp_path / "nowhere").exists()


def test_editors_backup_and_autosave_copies_are_left_out_by_default(tiny_library, tmp_path):
    """A newcomer found a file's old text in Emacs' `notes.txt~` and `#notes.txt#`, ranked beside the file itself.
    The default [scan] exclude leaves them out, as explain says; a name merely holding ~ or # is kept."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.txt").write_text("The plumber comes on Tuesday to mend the boiler.")
    (docs / "notes.txt~").write_text("The plumber comes on Monday, last week's plan for the boiler.")
    (docs / "#notes.txt#").write_text("An autosaved plumber draft about the boiler.")
    (docs / "a~b #1.txt").write_text("A plumber's invoice numbered one.")
    lib = tiny_library
    rep = lib.add_folder(docs)
    assert rep.added == 2 and sorted(p.rsplit("/", 1)[1] for p in (h.path for h in lib.search(
        "plumber", mode="lexical", k=10).hits)) == ["a~b #1.txt", "notes.txt"]
    for name, pattern in (("notes.txt~", "'*~'"), ("#notes.txt#", "'#*#'")):  # the one pattern that left it out
        e = lib.explain(str(docs / name))
        assert e["state"] == "excluded" and e["reason"] == f"matches the [scan] exclude pattern {pattern}", e


def test_an_indexed_folder_whose_own_name_matches_an_exclude_pattern_is_indexed_and_followed(tiny_library, tmp_path):
    """A reviewer's root folder named `old~`: a full sync read it, but explain called its files excluded and the
    watcher dropped its changes (the default pattern `*~` was matched against the root's own name). The person
    chose that folder: only what is below it is matched."""
    from searchapp.library.sync.roots import in_scope

    old = tmp_path / "old~"
    old.mkdir()
    (old / "letter.txt").write_text("A letter about the garden fence and the new gate.")
    (old / "letter.txt~").write_text("Last week's letter about the fence.")
    lib = tiny_library
    assert lib.add_folder(old).added == 1
    e = lib.explain(str(old / "letter.txt"))
    assert e["state"] == "indexed" and e["rule"] is None, e
    assert lib.explain(str(old / "letter.txt~"))["state"] == "excluded"  # below it, the patterns still apply
    exclude = lib.config.scan.exclude
    assert in_scope(str(old), str(old / "letter.txt"), (), exclude)
    assert not in_scope(str(old), str(old / "letter.txt~"), (), exclude)


def test_an_entrys_notes_are_kept_to_the_first_twenty(tiny_library, tmp_path, monkeypatch):
    """A note per slide or sheet (a part over its cap) ran to thousands of lines in `explain`."""
    from office_files import make_pptx

    from searchapp.ingest.extractors import pptx
    from searchapp.store.file_records import MAX_STORED_NOTES
    from searchapp.store.ledger import entry_notes

    monkeypatch.setattr(pptx, "MAX_SLIDE_BYTES", 2000)  # the long slides are over it: one note each
    docs = tmp_path / "docs"
    docs.mkdir()
    slides = [([f"Slide {i} about the heron survey"], []) for i in range(5)]
    slides += [([f"Slide {i} " + "reeds " * 400], []) for i in range(5, 65)]
    deck = make_pptx(docs / "survey.pptx", slides)
    tiny_library.add_folder(docs, embed=False)
    row = tiny_library.store.file_by_path(str(deck))
    notes = entry_notes(tiny_library.store, row.id)
    assert len(notes) == MAX_STORED_NOTES + 1 and notes[-1] == "… and 40 more", notes
    assert all(n.endswith("skipped: larger than 0 MB") for n in notes[:-1])
    assert tiny_library.search("heron survey", mode="lexical").hits


def test_explain_tells_the_truth_of_the_librarys_own_files_and_of_folders(tmp_path, tiny_bi_encoder_dir,
                                                                          tiny_encoder):
    """A newcomer's data dir lay inside the indexed folder: `explain` said its vectors.hnsw.json was "not indexed
    yet: `searchapp index` reads it" (index rightly never does) and library.sqlite an "unsupported type"; a folder,
    even an empty one, was "not indexed yet" too."""
    from searchapp.base.config import load_config
    from searchapp.library import Library

    home = tmp_path / "home"
    (home / "Documents" / "Work").mkdir(parents=True)
    (home / "Documents" / "Work" / "plan.txt").write_text("Lemurs eat fruit in Madagascar.\n")
    (home / "Scratch").mkdir()
    (home / "node_modules").mkdir()
    data = home / "lib"  # not hidden: only the scan's own rule leaves it out
    data.mkdir()
    with Library(load_config(data, env={}), encoder=tiny_encoder) as lib:
        lib.add_folder(home, embed=False)
        for name in ("vectors.hnsw.json", "library.sqlite", ""):
            e = lib.explain(str(data / name) if name else str(data))
            assert (e["state"], e["known"]) == ("excluded", False), (name, e)
            assert e["reason"].startswith("the library's own folder") and e["reason"].endswith("never indexed"), e
        e = lib.explain(str(home / "Documents"))
        assert (e["state"], e["known"]) == ("folder", True) and e["reason"] == "a folder: 1 file under it in the library"
        e = lib.explain(str(home / "Scratch"))
        assert (e["state"], e["known"], e["reason"]) == ("folder", False, "a folder, empty: nothing to index")
        e = lib.explain(str(home / "node_modules"))
        assert e["state"] == "excluded" and e["reason"].startswith("a skipped folder 'node_modules'"), e
        (home / "node_modules" / "pkg" / "node_modules").mkdir(parents=True)  # inside the outer one
        e = lib.explain(str(home / "node_modules" / "pkg" / "node_modules"))
        assert e["reason"].startswith("inside a skipped folder 'node_modules'"), e
        assert lib.status().files == {"indexed": 1}  # nothing of the data dir was indexed


@pytest.mark.engines("sqlite")
def test_explain_tells_a_file_changed_deleted_or_renamed_since_the_last_sync(tiny_library, tmp_path, capsys):
    """`explain` called a file just edited "indexed" with its old text, a deleted one "indexed" with the rule
    "cannot read", and a renamed one "missing" though the sync had said "1 renamed or moved" (decision 0192)."""
    import os

    import searchapp.cli.commands.status as status_cmd

    docs = tmp_path / "docs"
    (docs / "car").mkdir(parents=True)
    for name, text in {"dentist.md": "Dentist on 4 November at 14:30.\n", "soup.md": "Red lentil soup.\n",
                       "kept.md": "Nothing changes here.\n", "same-size.md": "Pay the gas bill.\n",
                       "car-service.txt": "Brake pads and MOT at Fenwick Garage.\n"}.items():
        (docs / name).write_text(text)
    lib = tiny_library
    lib.add_folder(docs, embed=False)
    with open(docs / "dentist.md", "a") as f:
        f.write("Moved to 11 November because of a strike.\n")
    (docs / "soup.md").unlink()
    before = os.stat(docs / "same-size.md")
    (docs / "same-size.md").write_text("Pay the tax bill.\n")  # its size and mtime kept: its bytes tell
    os.utime(docs / "same-size.md", ns=(before.st_atime_ns, before.st_mtime_ns))
    said = {name: lib.explain(str(docs / name)) for name in ("dentist.md", "soup.md", "kept.md", "same-size.md")}
    assert {n: (e["state"], e["on_disk"]) for n, e in said.items()} == {
        "dentist.md": ("indexed", "changed"), "soup.md": ("indexed", "deleted"), "kept.md": ("indexed", "as_read"),
        "same-size.md": ("indexed", "changed")}
    assert said["dentist.md"]["on_disk_note"].startswith("changed since the last sync (indexed text is older)")
    assert said["soup.md"]["rule"] is None  # a file gone is no rule of [scan]

    class Opened:
        def __enter__(self):
            return lib

        def __exit__(self, *exc):
            return False

    def explain_cli(path) -> int:
        class Args:
            json, text = False, False

        Args.path = str(path)
        real = status_cmd._library
        status_cmd._library = lambda config, create=False: Opened()
        try:
            return status_cmd.cmd_explain(Args(), lib.config, None, None)
        finally:
            status_cmd._library = real

    capsys.readouterr()
    assert explain_cli(docs / "dentist.md") == 0 and explain_cli(docs / "soup.md") == 1  # gone: no file there
    out = capsys.readouterr().out
    assert "  on disk: changed since the last sync" in out and "  on disk: deleted since the last sync" in out
    (docs / "car-service.txt").rename(docs / "car" / "service-2025.txt")
    assert lib.sync(embed=False).moved == 1
    e = lib.explain(str(docs / "car-service.txt"))
    assert (e["state"], e["known"], e["moved_to"]) == ("missing", False, str(docs / "car" / "service-2025.txt"))
    assert e["reason"] == f"renamed or moved at a sync: now {docs / 'car' / 'service-2025.txt'}"
    assert explain_cli(docs / "car-service.txt") == 1


@pytest.mark.engines("sqlite")
def test_explain_of_a_symlink_loop_says_the_sync_skipped_it_and_nothing_changed(tiny_library, tmp_path):
    """A newcomer's `explain deep/self` (self -> ../deep) answered for the folder it leads to, "a folder: 1 file
    under it" (that file the link's own entry), and `explain loop` (loop -> ..) said "changed since the last sync"
    of a link untouched, with two equal times."""
    import os

    docs = tmp_path / "docs"
    (docs / "deep").mkdir(parents=True)
    (docs / "deep" / "note.md").write_text("A note on the harbour tides.\n")
    os.symlink("../deep", docs / "deep" / "self")
    os.symlink("..", docs / "loop")
    tiny_library.add_folder(docs, embed=False)
    (tmp_path / "later.md").write_text("Written after the sync.\n")  # the folders the links lead to change
    (docs / "deep" / "later.md").write_text("Written after the sync.\n")
    for link in (docs / "deep" / "self", docs / "loop"):
        e = tiny_library.explain(str(link))
        assert (e["path"], e["state"], e["reason"], e["on_disk"]) == (str(link), "skipped", "symlink loop", "as_read")
    assert tiny_library.explain(str(docs / "deep"))["state"] == "folder"


@pytest.mark.engines("sqlite")
def test_status_files_lists_one_folder(tiny_library, tmp_path, capsys, monkeypatch):
    """`status --files /some/folder` was "unknown state '/some/folder'": a folder in place of STATE, or --in PATH
    beside a state, lists the entries at or below it (a member with its container), never a sibling's."""
    from argparse import Namespace

    from searchapp.cli.commands.status import ledger_state, print_ledger

    home = tmp_path / "home"
    for rel, text in (("a/one.txt", "A note on the harbour tides."), ("a/sub/two.txt", "Ocelots hunt at dusk."),
                      ("ab/three.txt", "Capybaras graze by the river."), ("b/blank.txt", "  ")):
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(text)
    with zipfile.ZipFile(home / "a" / "notes.zip", "w") as z:
        z.writestr("inner.txt", "A zipped note about lemurs.")
    tiny_library.add_folder(home, embed=False)

    def listed(files, *within):
        args = Namespace(files=files, within=list(within), json=False)
        assert print_ledger(args, tiny_library, ledger_state(args)) == 0
        lines = capsys.readouterr().out.splitlines()
        return sorted(ln.split("] ", 1)[1].split(":", 1)[0].removeprefix(f"{home}/") for ln in lines if "] " in ln)

    a = ["a/notes.zip", f"a/notes.zip{DISPLAY_SEP}inner.txt", "a/one.txt", "a/sub/two.txt"]
    assert listed(str(home / "a")) == a  # not ab/three.txt: /home/ab is not inside /home/a
    assert listed(None, str(home / "a"), str(home / "b")) == [*a, "b/blank.txt"]  # --in alone, repeated
    assert listed("indexed", str(home / "b")) == [] and listed("empty", str(home / "b")) == ["b/blank.txt"]
    monkeypatch.chdir(home)
    assert listed("./ab") == ["ab/three.txt"]
