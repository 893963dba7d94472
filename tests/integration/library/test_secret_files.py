"""Files that hold secrets are never read into the library (decision 0177): by name (`[scan] secret_files`) and by
text (a private key pasted into notes), counted as left out, named by `explain`, and taken out of a library that
indexed them before the rule."""

from __future__ import annotations

import argparse
import base64
import io
import zipfile

import pytest

from searchapp.base.errors import SecretFileError
from searchapp.cli.commands.status import print_ledger, print_status
from searchapp.ingest import scan as scan_module
from searchapp.ingest.extractors import registry
from searchapp.ingest.secrets import token_reason
from searchapp.library.search.preview import file_text
from searchapp.library.sync.secret_entries import SECRETS_META, recheck_secrets

KEY = ("-----BEGIN OPENSSH PRIVATE KEY-----\n"
       "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
       "QyNTUxOQAAACDwJ3Zy2Yq4m0t8Yk3vJkq1XbW0c9d3b2xkZ3Jhc3NlcyBhbmQgY2F0cw\n"
       "-----END OPENSSH PRIVATE KEY-----\n")
PROSE = "The ferry to the harbour leaves at noon; bring the heron survey and the tide tables. "


def _hits(lib, query):
    return [h.path for h in lib.search(query, mode="lexical", k=10).hits]


@pytest.mark.engines("sqlite")
def test_a_key_pasted_into_notes_is_never_searchable_nor_previewed(tiny_library, tmp_path, monkeypatch):
    """A key inside a paragraph of prose was indexed whole (only a paragraph of base64 alone was left out as not
    prose). Now the file is refused, and a library that had indexed it loses its passages at the next sync."""
    docs = tmp_path / "docs"
    docs.mkdir()
    notes = docs / "notes.txt"
    notes.write_text(PROSE * 2 + "\n" + KEY + PROSE + "\n", encoding="utf-8")
    (docs / "plain.txt").write_text(PROSE, encoding="utf-8")
    lib = tiny_library
    # as a version before the rule read it: the key's words are found
    monkeypatch.setattr(registry, "refuse_secret_text", lambda text, name="": None)
    lib.add_folder(docs, embed=False)
    assert str(notes) in _hits(lib, "OPENSSH")
    with lib.store.atomic():
        lib.store.set_meta(SECRETS_META, "")  # a library written before decision 0177
    monkeypatch.undo()

    rep = lib.sync(embed=False)
    assert [p for p, _ in rep.left_out] == [str(notes)] and rep.problems == []
    assert _hits(lib, "OPENSSH") == [] and _hits(lib, "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ") == []
    assert _hits(lib, "heron survey") == [str(docs / "plain.txt")]  # its prose goes with it: the file is refused
    e = lib.explain(str(notes))
    assert (e["state"], e["reason"], e["passages"]) == ("excluded", "secret: holds a private key (OPENSSH PRIVATE KEY)",
                                                        0)
    with pytest.raises(SecretFileError):  # the preview reads it again from disk: refused there too
        file_text(notes, lib.config)
    assert lib.sync(embed=False).left_out == []  # said once; the next sync does not read it again


@pytest.mark.engines("sqlite", "postgresql")
def test_a_token_pasted_into_notes_goes_at_the_next_sync_and_asia_stays(tiny_library, tmp_path, monkeypatch):
    """A GitHub token pasted into notes was indexed, its snippet showing it to a search for "github token"
    (decision 0184). A library read under decision 0177's rule has it marked by its stored passage, once, and the
    sync refuses the file; a passage about Asia, which SQLite's LIKE finds for "ASIA", is not read again. On both
    engines: the marks are LIKE patterns, escaped (ESCAPE), on each."""
    docs = tmp_path / "docs"
    docs.mkdir()
    notes = docs / "notes.txt"
    token = "gh" + "p_" + "R7mQ2xVb9KzL4pWn8TcY3dHf6JsGa1Ue5NoX"  # built from its parts: no file here holds one
    notes.write_text(f"The lighthouse keeper's github token for the tide gauge: {token}\n", encoding="utf-8")
    asia = docs / "asia.txt"
    asia.write_text("The ferry crossing to ASIA leaves at noon; the heron survey goes on in Asia.", encoding="utf-8")
    lib = tiny_library
    monkeypatch.setattr(registry, "refuse_secret_text", lambda text, name="": None)  # as a version before 0184 read it
    lib.add_folder(docs, embed=False)
    assert _hits(lib, "lighthouse keeper") == [str(notes)]
    with lib.store.atomic():
        lib.store.set_meta(SECRETS_META, "1")  # read under decision 0177's rule: keys, not tokens
    monkeypatch.undo()

    recheck_secrets(lib.store)
    readers = dict(lib.store.conn.execute("SELECT path, reader FROM files"))
    assert readers[str(notes)] == 0 and readers[str(asia)] != 0, readers
    rep = lib.sync(embed=False)
    assert [p for p, _ in rep.left_out] == [str(notes)] and rep.problems == []
    assert _hits(lib, "lighthouse keeper") == [] and _hits(lib, "github token") == []
    assert _hits(lib, "heron survey") == [str(asia)]
    e = lib.explain(str(notes))
    assert (e["state"], e["reason"], e["passages"]) == ("excluded", "secret: holds an access token (GitHub)", 0)
    with pytest.raises(SecretFileError, match="access token"):  # nor shown by the preview
        file_text(notes, lib.config)


@pytest.mark.engines("sqlite")
def test_a_library_read_under_0184_reads_again_settings_jwts_and_firebase_apps(tiny_library, tmp_path, monkeypatch):
    """Decision 0190 on a library 0.27.0 wrote (rule "2"): a password written in a config file and a live JWT pasted
    into notes, indexed then, are marked by their stored passages and refused at the next sync; a Firebase web app's
    source file, refused then for its apiKey, is read again and found; the same line in prose is not read again."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "db.ini").write_text("[ferry]\nhost = harbour\npassword = Zk29" + "xLq4Wd\n", encoding="utf-8")
    claims = base64.urlsafe_b64encode(b'{"sub": "tide-gauge", "exp": 4102444800}').decode().rstrip("=")
    jwt = "eyJhbGciOiJIUzI1NiJ9." + claims + ".Qm9vR3J4c1R6dkJ3eEtMcE5hRmg3WTJxVjhrTWQ5"
    (docs / "notes.txt").write_text(PROSE + f"The tide gauge's bearer token, for the curl calls of the survey: {jwt}\n",
                                     encoding="utf-8")
    (docs / "prose.txt").write_text("The old pier password = Zk29" + "xLq4Wd, said the ferryman.", encoding="utf-8")
    key = "AI" + "zaSyB3kR9xQ2mL7vT0nW4pZ8cY1hJ6fD5gE2s"
    app = docs / "app.js"
    app.write_text(f'const firebaseConfig = {{ apiKey: "{key}", authDomain: "ferry.firebaseapp.com",\n'
                   '  projectId: "ferry-7d2e1" }; // the quay schedule\n', encoding="utf-8")
    lib = tiny_library

    def as_0_27_0(text, name=""):  # read as 0.27.0 did: no rule on settings nor JWTs, any Google key refused
        if "AI" + "za" in text:
            raise SecretFileError(token_reason("Google"))

    monkeypatch.setattr(registry, "refuse_secret_text", as_0_27_0)
    lib.add_folder(docs, embed=False)
    assert _hits(lib, "tide gauge") == [str(docs / "notes.txt")] and _hits(lib, "quay schedule") == []
    with lib.store.atomic():
        lib.store.set_meta(SECRETS_META, "2")
    monkeypatch.undo()

    recheck_secrets(lib.store)
    readers = {p.rsplit("/", 1)[1]: r for p, r in lib.store.conn.execute("SELECT path, reader FROM files")}
    assert {n for n, r in readers.items() if r == 0} == {"db.ini", "notes.txt", "app.js"}, readers
    rep = lib.sync(embed=False)
    assert sorted(p for p, _ in rep.left_out) == [str(docs / "db.ini"), str(docs / "notes.txt")] and not rep.problems
    assert _hits(lib, "harbour") == [] and _hits(lib, "tide gauge") == []
    assert _hits(lib, "quay schedule") == [str(app)] and _hits(lib, "old pier") == [str(docs / "prose.txt")]
    reasons = {p.rsplit("/", 1)[1]: r.error for _, r in lib.ledger() for p in [r.path]}
    assert reasons["db.ini"] == "secret: holds a password or key written out (password)", reasons
    assert reasons["notes.txt"] == "secret: holds an access token (JWT)", reasons


@pytest.mark.engines("sqlite")
def test_an_id_rsa_in_a_dragged_folder_is_counted_as_left_out(tiny_library, tmp_path, make_config, capsys,
                                                              monkeypatch):
    """A person drags in a home folder holding a copy of .ssh (not hidden there) and a backup archive of it: the keys
    are left out unread, counted per rule, and explain names the one pattern. Those indexed before the rule go at
    the next sync: the scan meets them by name at every sync."""
    home = tmp_path / "home"
    (home / "backup" / "ssh").mkdir(parents=True)
    (home / "backup" / "ssh" / "id_rsa").write_text(PROSE * 3 + "\n" + KEY, encoding="utf-8")
    (home / "letter.txt").write_text(PROSE, encoding="utf-8")
    # hidden: .env was counted "hidden", not as the secret it is; .bashrc is hidden, no secret; .ssh a hidden folder
    (home / ".env").write_text("FERRY_TOKEN=harbour-0a1b2c\n", encoding="utf-8")
    (home / ".bashrc").write_text("export FERRY=harbour\n", encoding="utf-8")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text(KEY, encoding="utf-8")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("home/.ssh/id_ed25519", "The ferry and the harbour, kept in the archive.")  # its name alone
        z.writestr("home/todo.txt", "Mend the gate.")
    (home / "backup" / "old.zip").write_bytes(buf.getvalue())
    lib = tiny_library
    lib.config = make_config(models={"reranker": ""}, scan={"secret_files": []})  # as before the rule
    monkeypatch.setattr(registry, "refuse_secret_text", lambda text, name="": None)
    lib.add_folder(home, embed=False)
    assert len(_hits(lib, "ferry harbour")) == 3  # the letter, the id_rsa and the archive's id_ed25519

    monkeypatch.undo()
    lib.config = make_config(models={"reranker": ""})  # the default secret_files
    lib.sync(embed=False)
    assert _hits(lib, "ferry harbour") == [str(home / "letter.txt")]
    st = lib.status()
    assert st.left_out == {"secret": 3} and st.failed == []  # counted, not listed among the problems
    assert (st.roots[0].left_out_by_rules, st.roots[0].folders_left_out) == ({"hidden": 1}, {"hidden": 1})
    e = lib.explain(str(home / "backup" / "ssh" / "id_rsa"))
    assert (e["state"], e["reason"]) == ("excluded", "secret: its name matches 'id_rsa' ([scan] secret_files)")
    e = lib.explain(str(home / ".env"))  # never read: no passage, no hash; the rule that leaves it out, the same
    named_env = "secret: its name matches '.env' ([scan] secret_files)"
    assert (e["state"], e["reason"], e["rule"], e["passages"]) == ("excluded", named_env, named_env, 0)
    assert lib.explain(str(home / ".bashrc"))["reason"] == "hidden: '.bashrc' starts with a dot"
    assert [r.sha256 for _, r in lib.ledger() if r.path == str(home / ".env")] == [None]  # its bytes never read
    print_ledger(argparse.Namespace(json=False), lib, "excluded")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "secret: 3 files" and len(out) == 4, out
    assert any(line.endswith("id_ed25519: secret: its name matches 'id_ed25519' ([scan] secret_files)")
               for line in out), out
    # secret_files emptied: a file left out by its name alone is read again; a key's text is refused all the same
    lib.config = make_config(models={"reranker": ""}, scan={"secret_files": []})
    lib.sync(embed=False)
    ledger = {r.path.rsplit("/", 1)[1]: (s, r.error) for s, r in lib.ledger()}
    assert ledger["id_ed25519"] == ("indexed", None) and ledger["id_rsa"] == (
        "excluded", "secret: holds a private key (OPENSSH PRIVATE KEY)"), ledger


@pytest.mark.engines("sqlite")
def test_the_windows_summary_counts_no_secret_nor_empty_file_as_not_indexed(tiny_library, tmp_path, monkeypatch):
    """The window said "2 not indexed" for a key and an empty file, every sync, while its Not indexed list showed
    neither (a reviewer): they are left out on purpose, said once as such."""
    from searchapp.gui.write_jobs import WriteJobs

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text(PROSE, encoding="utf-8")
    (docs / "id_rsa").write_text(KEY, encoding="utf-8")
    (docs / "empty.txt").write_text("", encoding="utf-8")
    (docs / "broken.pdf").write_bytes(b"%PDF-1.4 cut short")
    monkeypatch.setattr(scan_module, "RACY_NS", 0)  # none "just written": the next sync keeps them unread, as at home
    rep = tiny_library.add_folder(docs, embed=False)
    assert (rep.skipped + rep.failed, rep.quiet) == (3, 2)
    said = WriteJobs.summary(rep)
    assert ", 1 not indexed, 1 left out on purpose (secrets, lockfiles…);" in said, said
    again = WriteJobs.summary(tiny_library.sync(embed=False))
    # said once; the PDF is tried again. The unchanged empty file is not counted as not indexed either: a re-sync
    # of a newcomer's folder said "3 not indexed" beside the window's "Not indexed: 2"
    assert ", 1 not indexed;" in again and "left out" not in again, again


@pytest.mark.engines("sqlite")
def test_a_library_read_under_0190_hides_a_connection_strings_password_and_refuses_a_json_secret(
        tiny_library, tmp_path, monkeypatch):
    """Decision 0197 on a library 0.28.0 wrote (rule "3"): a note holding a database URL with its password, indexed
    then, is read again and kept, found by its words, its password in no passage, no preview, and counted by
    `status`; a JSON config's password is refused; a URL without a password is not read again."""
    docs = tmp_path / "docs"
    docs.mkdir()
    password = "Zk29" + "xLq4Wd"
    notes = docs / "notes.md"
    notes.write_text(PROSE + f"\nThe tide gauge writes to postgres://gauge:{password}@db.harbour/tides.\n",
                     encoding="utf-8")
    (docs / "settings.json").write_text('{"quay": {"schedule": "daily", "client_secret": "' + password + '"}}',
                                        encoding="utf-8")
    (docs / "links.txt").write_text("The heron survey lives at https://survey.harbour/herons.\n", encoding="utf-8")
    lib = tiny_library
    monkeypatch.setattr(registry, "refuse_secret_text", lambda text, name="": None)  # as 0.28.0 read them
    monkeypatch.setattr(registry, "hide_connection_passwords", lambda doc, where="": doc)
    lib.add_folder(docs, embed=False)
    assert sorted(_hits(lib, password)) == [str(notes), str(docs / "settings.json")]
    with lib.store.atomic():
        lib.store.set_meta(SECRETS_META, "3")
    monkeypatch.undo()

    recheck_secrets(lib.store)
    readers = {p.rsplit("/", 1)[1]: r for p, r in lib.store.conn.execute("SELECT path, reader FROM files")}
    assert {n for n, r in readers.items() if r == 0} == {"notes.md", "settings.json"}, readers
    rep = lib.sync(embed=False)
    assert [p for p, _ in rep.left_out] == [str(docs / "settings.json")] and not rep.problems
    assert _hits(lib, "tide gauge") == [str(notes)] and _hits(lib, "schedule") == []
    assert _hits(lib, password) == [] and _hits(lib, "postgres gauge") == [str(notes)]
    assert not [t for (t,) in lib.store.conn.execute("SELECT text FROM chunks") if password in t]
    assert password not in file_text(notes, lib.config).text  # the preview reads it again: hidden there too
    assert any("password written in a connection string hidden" in n for n in lib.explain(str(notes))["notes"])
    assert lib.status().passwords_hidden == 1
    out = io.StringIO()
    print_status(argparse.Namespace(json=False, check=False), lib.status(), None, out)
    assert "passwords hidden: 1 file holds a connection string" in out.getvalue(), out.getvalue()


@pytest.mark.engines("sqlite")
def test_a_library_read_under_0197_hides_a_connection_strings_pair_and_refuses_a_fish_secret(
        tiny_library, tmp_path, monkeypatch):
    """0197's amendment on a library 0.29.0 wrote (rule "4"): a note holding an ADO.NET connection string, indexed
    then with its password, is read again and kept, its password in no passage; a note without one is not; a fish
    script setting a password is refused."""
    docs = tmp_path / "docs"
    docs.mkdir()
    password = "Zk29" + "xLq4Wd"
    notes = docs / "notes.md"
    notes.write_text(PROSE + f"\nThe tide gauge: Server=db.harbour;Database=tides;User Id=gauge;Password={password};\n",
                     encoding="utf-8")
    (docs / "crowd.txt").write_text("A crowd on the quay watched the herons.\n", encoding="utf-8")
    (docs / "config.fish").write_text(f"# the quay's tide feed\nset -gx TIDE_TOKEN {password}\n", encoding="utf-8")
    lib = tiny_library
    monkeypatch.setattr(registry, "hide_connection_passwords", lambda doc, where="": doc)  # as 0.29.0 read them
    monkeypatch.setattr(registry, "refuse_secret_text", lambda text, name="": None)
    lib.add_folder(docs, embed=False)
    assert sorted(_hits(lib, password)) == [str(docs / "config.fish"), str(notes)]
    with lib.store.atomic():
        lib.store.set_meta(SECRETS_META, "4")
    monkeypatch.undo()

    recheck_secrets(lib.store)
    readers = {p.rsplit("/", 1)[1]: r for p, r in lib.store.conn.execute("SELECT path, reader FROM files")}
    assert {n for n, r in readers.items() if r == 0} == {"notes.md", "config.fish"}, readers
    rep = lib.sync(embed=False)
    assert [p for p, _ in rep.left_out] == [str(docs / "config.fish")]
    assert _hits(lib, password) == [] and _hits(lib, "tide gauge") == [str(notes)]
    assert not [t for (t,) in lib.store.conn.execute("SELECT text FROM chunks") if password in t]
    assert lib.status().passwords_hidden == 1
