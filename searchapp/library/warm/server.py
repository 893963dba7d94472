"""The listening side of the warm index: a thread in a long-lived process that answers searches.

Decision: one connection at a time, on one thread (its read-only connection to the library is reused, a search
uses the CPU the others would share anyway); a client gets 2 s to send its one request line (64 KiB at most), a
reply gets 10 s to leave. Only this user's processes can connect: the socket is 0600 in the 0700 data dir and,
on Linux, the peer's uid (SO_PEERCRED) must be ours. Nothing received is ever run: the request is JSON, checked
field by field, and becomes, for a whole command (op "command", the one op a search comes by), the arguments
the command line's own parser reads (cli/warm_run.py), which only ever runs a search, `status` or `similar`:
reads.

One server per library: the process holding warm.lock serves; a socket file found at start is a killed
server's (the lock is free), so it is removed.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import stat
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

from ...base.errors import SearchAppError, UnsupportedFileError
from ...base.flock import fcntl
from ...base.safe_open import open_regular_fd
from .sockets import LineTooLong, address, peer_uid, read_line
from .protocol import (LOCK_NAME, MAX_REQUEST, SOCKET_NAME, VERSION, Refused, WireError, check_request, config_key,
                   context, encode, needs_context)

__all__ = ["WarmServer", "REQUEST_SECONDS", "CommandRunner"]

if TYPE_CHECKING:
    from ..search.result import SearchResult
    from .library_protocol import CommandLibrary, ServedLibrary, ServedSearch

# Answers a "command" request (protocol.py): (request, library, search) -> reply, where search(its search) is
# WarmServer.search. The command line's own (cli/warm_run.py), handed in by whoever serves: the core does not
# import the command line.
CommandRunner = Callable[[dict[str, Any], "CommandLibrary", "ServedSearch"], dict[str, Any]]

log = logging.getLogger(__name__)

REQUEST_SECONDS = 2.0
REPLY_SECONDS = 10.0


class WarmServer:
    def __init__(self, library: ServedLibrary, commands: Optional[CommandRunner] = None) -> None:
        self.library = library
        self.commands = commands  # None: no commands are run (every client searches directly)
        self.path = Path(library.data_dir) / SOCKET_NAME
        self.note: Optional[str] = None  # why it does not serve
        self.served = 0  # searches answered
        self._sock: Optional[socket.socket] = None
        self._lock_fd: Optional[int] = None
        self._ino: Optional[int] = None
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None

    @property
    def serving(self) -> bool:
        return self._thread is not None

    def start(self) -> bool:
        """Listen; False (with `note`) when this library cannot be served from here."""
        if os.name != "posix" or fcntl is None or not hasattr(socket, "AF_UNIX"):
            self.note = "the warm index needs Unix sockets"
            return False
        if self.library.read_only:
            self.note = "the library is read-only here"
            return False
        try:
            if not self._take_lock():
                self.note = "another process serves this library"
                return False
            self._listen()
        except OSError as exc:
            self._release()
            self.note = f"cannot serve the library: {exc.strerror or exc}"
            return False
        self._thread = threading.Thread(target=self._loop, name="searchapp-warm", daemon=True)
        self._thread.start()
        return True

    def stop(self) -> None:
        """Stop listening, wait for the answer in flight, remove the socket file."""
        self._stop.set()
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=REPLY_SECONDS + 30)
        self._thread = None
        self._release()

    # -- start and stop ------------------------------------------------------------------------------------
    def _take_lock(self) -> bool:
        try:  # a regular file only: a FIFO or device there is refused
            fd = open_regular_fd(self.path.with_name(LOCK_NAME), os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0))
        except UnsupportedFileError as exc:
            raise OSError(f"{self.path.with_name(LOCK_NAME)} is {exc}; remove it") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._lock_fd = fd
        return True

    def _listen(self) -> None:
        try:
            st = os.lstat(self.path)
        except FileNotFoundError:
            st = None
        if st is not None:
            if not stat.S_ISSOCK(st.st_mode):
                raise OSError(f"{self.path} is not a socket; remove it")
            os.unlink(self.path)  # a killed server's: the lock was free
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            with address(self.path) as where:
                sock.bind(where)
            os.chmod(self.path, 0o600)  # before listen(): nobody can connect before it is private
            self._ino = os.lstat(self.path).st_ino
            sock.listen(16)
            sock.settimeout(0.5)  # wakes to see stop()
        except OSError:
            sock.close()
            raise
        self._sock = sock

    def _release(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self._ino is not None:
            try:
                if os.lstat(self.path).st_ino == self._ino:  # ours, not one a later server made
                    os.unlink(self.path)
            except OSError:
                pass
            self._ino = None
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # the flock goes with it
            self._lock_fd = None

    # -- serving -------------------------------------------------------------------------------------------
    def _loop(self) -> None:
        while not self._stop.is_set():
            sock = self._sock
            if sock is None:
                return
            try:
                conn, _ = sock.accept()
            except socket.timeout:
                continue
            except OSError:
                if self._stop.is_set():
                    return
                time.sleep(0.1)  # e.g. out of descriptors: try again
                continue
            with conn:
                try:
                    self._answer(conn)
                except Exception:  # one bad exchange never ends the server
                    log.exception("warm index: a request failed")

    def _answer(self, conn: socket.socket) -> None:
        uid = peer_uid(conn)
        if uid is not None and uid != os.geteuid():
            return  # another user's process: not a word
        try:
            line = read_line(conn, MAX_REQUEST, time.monotonic() + REQUEST_SECONDS)
        except LineTooLong:
            self._send(conn, _refuse("too-large", f"a request is at most {MAX_REQUEST} bytes"))
            return
        except (TimeoutError, ConnectionError, OSError):
            return
        try:
            request = check_request(json.loads(line.decode("utf-8")))
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:  # WireError, JSONDecodeError: ValueErrors
            self._send(conn, _refuse("bad-request", str(exc) if isinstance(exc, WireError) else "not JSON"))
            return
        self._send(conn, self.reply(request))

    def reply(self, request: dict[str, Any]) -> dict[str, Any]:
        """The answer to a checked request: a ping, or a command (the one op a search comes by)."""
        if request["op"] == "ping":
            return {"v": VERSION, "ok": True, "pid": os.getpid(), "served": self.served}
        if self.commands is None:
            return _refuse("not-served", "this process runs no commands")
        try:
            return self.commands(request, self.library, self.search)
        except Refused as no:
            return _refuse(no.reason, no.error)

    def search(self, request: dict[str, Any]) -> tuple[SearchResult, str, Optional[str]]:
        """(SearchResult, marks, history) for the search a served command asks for (cli/commands/search.py
        warm_request), or Refused. `history`: None when the request did not ask to record the query, "" when it
        was kept, else why not."""
        lib = self.library
        if request["config"] != config_key(lib.config):  # the settings themselves, compared whole
            raise Refused("config", "the settings differ from this process's")
        if needs_context(request) and request["context"] != context():
            raise Refused("context", "the query reads paths or dates, and the folder or time zone differs")
        from ..query.check import is_empty_query
        from ..query.help import marked_text
        from ..query.filters import SearchFilters

        q = request["query"]
        if request["check_empty"] and is_empty_query(q):
            raise Refused("empty", "empty query")
        try:
            f = request["filters"]
            filters = None if f is None else SearchFilters.build(f["within"], f["types"], f["after"], f["before"])
            res = lib.search(q, k=request["k"], mode=request["mode"], rerank=request["rerank"],
                             candidates=request["candidates"], filters=filters if filters and filters.active else None,
                             group=request["group"], literal=request["literal"],
                             meaning_wait=request.get("meaning_wait"))
            marks = res.with_searched(marked_text(q, request["literal"]))  # "recieve" marked as searched
        except SearchAppError as exc:  # the command line searches itself and says it, with its exit code
            raise Refused("error", str(exc)) from None
        self.served += 1
        history = None
        if request.get("record"):
            # Kept here, where SQLite is loaded already, so the command line starts without it (~5 ms).
            from ..query.saved import SearchHistory

            keeper = SearchHistory(lib.config)
            history = "" if keeper.record(q, res.mode) else (keeper.problem or "")
        return res, marks, history

    @staticmethod
    def _send(conn: socket.socket, message: dict[str, Any]) -> None:
        conn.settimeout(REPLY_SECONDS)
        try:
            conn.sendall(encode(message))
        except OSError:
            pass  # the client gave up: it searches directly


def _refuse(reason: str, error: str) -> dict[str, Any]:
    return {"v": VERSION, "ok": False, "reason": reason, "error": error}
