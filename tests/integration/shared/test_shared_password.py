"""A shared library whose server asks for a password (SCRAM on the test server's socket, for one role): libpq's
bare "no password supplied" or "password authentication failed" comes with what to do, read from the same
password file libpq reads (store/postgres/pg_password.py), and never with the password itself."""

from __future__ import annotations

import itertools
import os

import pytest

from searchapp.cli.main import main

pytestmark = pytest.mark.subprocess  # the pg_server fixture starts PostgreSQL (tests/pg_server.py)

_ROLES = itertools.count(1)


@pytest.fixture
def team(pg_server, tmp_path, monkeypatch, tiny_bi_encoder_dir):
    """(a role that must give its password, its database, a password file, the command line) for one test."""
    user, secret = f"pw{os.getpid()}_{next(_ROLES)}", "s3cret-Horse"
    database = pg_server.new_database()
    pg_server.password_role(user, secret)
    pg_server.admin(f'ALTER DATABASE "{database}" OWNER TO "{user}"')
    pg_server.admin(f'ALTER SCHEMA public OWNER TO "{user}"', database=database)
    passfile = tmp_path / "pgpass"
    passfile.write_text(f"# the team's server\n*:*:{database}:{user}:{secret}\n", encoding="utf-8")
    passfile.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(passfile))
    monkeypatch.delenv("PGPASSWORD", raising=False)
    data = tmp_path / "lib"
    data.mkdir()
    (data / "config.toml").write_text(f'[models]\nbi_encoder = "{tiny_bi_encoder_dir}"\nreranker = ""\n',
                                      encoding="utf-8")

    def run(address: str, *argv: str) -> int:
        return main(["--data-dir", str(data), "--library", address, *argv])

    return user, secret, database, passfile, run


def test_a_mistyped_database_name_is_named(team, pg_server, capsys, tmp_path):
    user, secret, database, passfile, run = team
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "plan.txt").write_text("the team's plan for the spring", encoding="utf-8")
    code = run(pg_server.address(database, user), "index", "--words-only", str(tmp_path / "notes"))
    out, err = capsys.readouterr()
    assert code == 0 and out.startswith("1 file scanned: 1 added"), err  # the right name: the file's line found  # the right name: the password file's line is found
    code = run(pg_server.address(database + "x", user), "status")
    err = capsys.readouterr().err
    assert code == 3 and len(err.strip().splitlines()) == 1 and "no password supplied" in err
    assert (f"the password file {passfile} has a password for user '{user}' on database '{database}', none on "
            f"'{database}x': is the database name in the address right?") in err
    assert secret not in err


def test_no_line_a_file_others_may_read_and_a_refused_password(team, pg_server, capsys):
    user, secret, database, passfile, run = team
    address = pg_server.address(database, user)
    passfile.chmod(0o644)  # libpq ignores such a file
    code = run(address, "status")
    err = capsys.readouterr().err
    assert code == 3 and f"is not read while others may read it: chmod 600 {passfile}" in err
    passfile.write_text("", encoding="utf-8")
    passfile.chmod(0o600)
    code = run(address, "status")
    err = capsys.readouterr().err
    assert code == 3 and f"the server asks a password for user '{user}' and none was found" in err
    assert "host:port:database:user:password" in err
    passfile.write_text(f"*:*:*:{user}:wrong-one\n", encoding="utf-8")
    code = run(address, "status")
    err = capsys.readouterr().err
    assert code == 3 and "password authentication failed" in err
    assert f"the server refused the password in {passfile} for user '{user}'" in err
    assert "wrong-one" not in err and secret not in err
