"""The password file read as libpq reads it (store/postgres/pg_password.py): its escapes, and the line that names
the database a mistyped address missed."""

from __future__ import annotations

from searchapp.store.postgres.pg_password import password_hint, pgpass_fields


def test_fields_with_escapes_comments_and_short_lines():
    assert pgpass_fields(r"db.example:5432:team\:lib:ann:pa\\ss:word") == ["db.example", "5432", "team:lib", "ann",
                                                                          "pa\\ss:word"]
    assert pgpass_fields("*:*:*:bob:x\r\n") == ["*", "*", "*", "bob", "x"]
    assert pgpass_fields("# a comment") is None and pgpass_fields("   ") is None
    assert pgpass_fields("host:5432:db:user") is None  # four fields: libpq skips it


def test_the_database_names_of_the_users_lines_only(tmp_path, monkeypatch):
    passfile = tmp_path / "pgpass"
    passfile.write_text("*:*:payroll:carol:x\n*:*:team\\:lib:bob:y\n*:*:archive:*:z\n", encoding="utf-8")
    passfile.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(passfile))
    hint = password_hint("fe_sendauth: no password supplied", "postgresql://bob@db.example/teamlib")
    assert "has a password for user 'bob' on database 'team:lib', 'archive', none on 'teamlib'" in hint
    assert "payroll" not in hint  # another user's line
    assert password_hint("FATAL:  database \"x\" does not exist", "postgresql://bob@db/x") == ""


def test_a_password_file_that_is_no_plain_file_is_not_read(tmp_path, monkeypatch):
    """libpq reads only a plain file; a FIFO read for the hint would never end (a reviewer's find)."""
    import os

    fifo = tmp_path / "pgpass"
    os.mkfifo(fifo)
    monkeypatch.setenv("PGPASSFILE", str(fifo))
    hint = password_hint("fe_sendauth: no password supplied", "postgresql://bob@db/teamlib")
    assert "none was found" in hint
