"""What to do when the shared library's server asks for a password it did not get, or refuses the one it got.

libpq finds the password itself (decision 0119: PGPASSWORD, the password file, a service file); when that fails it
says only "fe_sendauth: no password supplied" or "password authentication failed for user …". The usual cause is
one letter: the password file's lines are keyed on host:port:database:user, so a database name mistyped in the
address finds no line, and the person is told there is no password while one sits in the file. This reads the
password file as libpq does (its path, its escapes, its refusal of a file others may read) to say which. It never
returns or logs a password: only the database names of the lines for this user.
"""

from __future__ import annotations

import getpass
import os
import stat
from pathlib import Path
from typing import Optional

__all__ = ["password_hint", "password_file", "pgpass_fields"]

_NO_PASSWORD = "no password supplied"
_REFUSED = "password authentication failed"
_FROM_FILE = 'password retrieved from file "'
MAX_FILE_BYTES = 1 << 20  # a password file is a few lines; a larger one is not read for a hint


def password_file() -> Path:
    """The password file libpq reads: PGPASSFILE, else ~/.pgpass (%APPDATA%/postgresql/pgpass.conf on Windows)."""
    if os.environ.get("PGPASSFILE"):
        return Path(os.environ["PGPASSFILE"])
    if os.name == "nt":
        return Path(os.environ.get("APPDATA", "")) / "postgresql" / "pgpass.conf"
    return Path.home() / ".pgpass"


def pgpass_fields(line: str) -> Optional[list[str]]:
    """The five fields of a password file line (host, port, database, user, password), `\\:` and `\\\\` read as
    libpq reads them; None for a comment, a blank or a line of fewer fields."""
    if not line.strip() or line.lstrip().startswith("#"):
        return None
    fields: list[str] = []
    cur: list[str] = []
    escaped = False
    for ch in line.rstrip("\r\n"):
        if escaped:
            cur.append(ch)
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == ":" and len(fields) < 4:
            fields.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    fields.append("".join(cur))
    return fields if len(fields) == 5 else None


def _who(address: str) -> tuple[str, str]:
    """The user and database a connection to `address` asks for, with libpq's defaults (PGUSER, the login name;
    PGDATABASE, the user name)."""
    try:
        import psycopg

        given = psycopg.conninfo.conninfo_to_dict(address)
    except Exception:
        given = {}
    user = str(given.get("user") or os.environ.get("PGUSER") or _login())
    return user, str(given.get("dbname") or os.environ.get("PGDATABASE") or user)


def _login() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no login name (a container without an /etc/passwd line)
        return ""


def _databases(path: Path, user: str) -> Optional[list[str]]:
    """The database fields of the file's lines for `user` (or any user), in order; None where it cannot be read or
    is no plain file (libpq reads none other; a FIFO would never end)."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return None
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return [f[2] for f in map(pgpass_fields, text.splitlines()) if f is not None and f[3] in (user, "*")]


def password_hint(message: str, address: str) -> str:
    """A sentence to put after libpq's `message` when it is about a password; '' when it is not."""
    if _REFUSED in message:
        source = message.split(_FROM_FILE, 1)[1].split('"', 1)[0] if _FROM_FILE in message else ""
        where = f"the password in {source}" if source else "the password given (PGPASSWORD or a service file)"
        user, _ = _who(address)
        return f"; the server refused {where} for user {user!r}: check it there, and the user name in the address"
    if _NO_PASSWORD not in message:
        return ""
    user, database = _who(address)
    path = password_file()
    how = (f"searchapp, like psql, takes it from PGPASSWORD or the password file {path}, a line "
           "host:port:database:user:password")
    if os.name != "nt" and path.is_file() and stat.S_IMODE(path.stat().st_mode) & 0o077:
        return (f"; the server asks for a password, and the password file {path} is not read while others may "
                f"read it: chmod 600 {path}")
    found = _databases(path, user)
    if not found:
        return f"; the server asks a password for user {user!r} and none was found: {how}"
    if database in found or "*" in found:
        return (f"; the server asks a password for user {user!r}: {path} has a line for database {database!r} but "
                "its host or port does not match the address's")
    others = ", ".join(repr(d) for d in dict.fromkeys(found))
    return (f"; the password file {path} has a password for user {user!r} on database {others}, none on "
            f"{database!r}: is the database name in the address right?")
