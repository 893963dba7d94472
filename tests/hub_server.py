"""A Hugging Face hub on 127.0.0.1 for tests: the endpoints the real huggingface_hub client calls to download.

  GET  /api/models/{repo}/revision/{rev}     model info: {"id", "sha", "siblings"}
  GET  /api/models/{repo}/tree/{rev}         the file listing (size, oid, lfs {oid = sha256, size})
  HEAD /{repo}/resolve/{rev}/{file}          X-Repo-Commit, ETag, Content-Length (what hf_hub_download reads)
  GET  /{repo}/resolve/{rev}/{file}          the bytes (Range honoured, as the client's resume sends it)

Unknown repositories answer 404 with X-Error-Code: RepoNotFound, as the hub does. A file can be made to
stall half-way (`stall_once`): the server sends half, signals `stalled`, and waits for `release` before
dropping the connection, which is how a pull gets cancelled mid-file.

Hostile modes (off by default), for tests of a hub that is not to be trusted:
  lie_etag        this ETag on every file response (e.g. '"../../../../tmp/x/evil"')
  lie_commit      this commit id in the model info and X-Repo-Commit
  stall_info      the revision request is never answered (until `release`)
  endless_tree    every listing page is 100 folders and a Link rel="next" to one more page, forever
  endless_body    these file paths answer with a body that never ends (zeros, no Content-Length; stops
                  at ENDLESS_LIMIT or when the client hangs up); `sent[path]` counts what went out
  extra_entries   entries appended to the listing (hostile file names)
  slow_body       {file path: seconds}: that file's body (Content-Length as usual) goes one byte per interval
  slow_headers    seconds: the revision answer's status line and headers go one byte per interval, forever
  link_header     this Link header on every listing page (e.g. 60 KB of '<')
  malformed       the revision request answers "headers" (101 of them), "line" (a 65 KB header line) or
                  "status" (a status line that is not HTTP)
A trickle stops when the client hangs up or the hub is closed; `sent[path]` counts its bytes.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Optional

_INFO = re.compile(r"^/api/models/(?P<repo>[^/]+(?:/[^/]+)?)/revision/(?P<rev>[^/]+)$")
_TREE = re.compile(r"^/api/models/(?P<repo>[^/]+(?:/[^/]+)?)/tree/(?P<rev>[^/]+)$")
ENDLESS_LIMIT = 96 << 20
_RESOLVE = re.compile(r"^/(?P<repo>[^/]+/[^/]+)/resolve/(?P<rev>[^/]+)/(?P<path>.+)$")


class Repo:
    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        self.commit = hashlib.sha1(b"".join(hashlib.sha256(files[k]).digest() for k in sorted(files))).hexdigest()


class FakeHub:
    def __init__(self) -> None:
        self.repos: dict[str, Repo] = {}
        self.requests: list[tuple[str, str]] = []
        self.stall_file: Optional[tuple[str, str]] = None
        self.stalled = threading.Event()
        self.release = threading.Event()
        self.lie_etag: Optional[str] = None
        self.lie_commit: Optional[str] = None
        self.stall_info = False
        self.endless_tree = False
        self.endless_body: set[str] = set()
        self.extra_entries: list[dict] = []
        self.slow_body: dict[str, float] = {}
        self.slow_headers: Optional[float] = None
        self.link_header: Optional[str] = None
        self.malformed: Optional[str] = None
        self.sent: dict[str, int] = {}
        self.headers_seen: list[dict] = []
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet test output
                pass

            def do_HEAD(self) -> None:
                hub._serve(self, head=True)

            def do_GET(self) -> None:
                hub._serve(self, head=False)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "FakeHub":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()

    def add_repo(self, repo_id: str, folder: Path, only: Optional[tuple[str, ...]] = None) -> Repo:
        files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
        if only is not None:
            files = {k: v for k, v in files.items() if k in only}
        # What real repositories also carry; a pull must leave them on the hub.
        files.setdefault("README.md", b"# a test model\n")
        files.setdefault("onnx/model.onnx", b"\0" * 1024)
        repo = self.repos[repo_id] = Repo(files)
        return repo

    def stall_once(self, repo_id: str, path: str) -> None:
        self.stall_file = (repo_id, path)

    # -- serving --------------------------------------------------------------------------------
    def _serve(self, h: BaseHTTPRequestHandler, head: bool) -> None:
        path, _, query = h.path.partition("?")
        self.requests.append((h.command, path))
        self.headers_seen.append(dict(h.headers))
        if self.stall_info and _INFO.match(path):
            self.release.wait(60)
            h.close_connection = True
            return
        if (self.slow_headers is not None or self.malformed) and _INFO.match(path):
            return self._hostile_head(h, path)
        if self.endless_tree and _TREE.match(path):
            page = int(re.search(r"cursor=(\d+)", query).group(1)) if "cursor=" in query else 0
            entries = [{"type": "directory", "path": f"d{page}-{i}", "oid": "0" * 40} for i in range(100)]
            link = f'<{self.url}{path}?recursive=true&cursor={page + 1}>; rel="next"'
            return self._json(h, entries, head, {"Link": link})
        for rx, fn in ((_INFO, self._info), (_TREE, self._tree)):
            m = rx.match(path)
            if m:
                repo = self.repos.get(m["repo"])
                if repo is None:
                    return self._not_found(h, "RepoNotFound")
                body = fn(m["repo"], repo)
                if fn == self._info and self.lie_commit is not None:
                    body["sha"] = self.lie_commit
                if fn == self._tree:
                    body = body + self.extra_entries
                    if self.link_header is not None:
                        return self._json(h, body, head, {"Link": self.link_header})
                return self._json(h, body, head)
        m = _RESOLVE.match(path)
        if m is None:
            return self._not_found(h, None)
        repo = self.repos.get(m["repo"])
        if repo is None:
            return self._not_found(h, "RepoNotFound")
        data = repo.files.get(m["path"])
        if data is None:
            return self._not_found(h, "EntryNotFound")
        start = 0
        rng = h.headers.get("Range")
        if rng and rng.startswith("bytes="):
            start = int(rng[6:].split("-", 1)[0] or 0)
        body = data[start:]
        etag = self.lie_etag or f'"{hashlib.sha256(data).hexdigest()}"'
        commit = self.lie_commit or repo.commit
        if m["path"] in self.endless_body:
            return self._endless(h, m["path"], etag, commit, head)
        h.send_response(206 if start else 200)
        h.send_header("Content-Type", "application/octet-stream")
        h.send_header("Content-Length", str(len(body)))
        h.send_header("ETag", etag)
        h.send_header("X-Repo-Commit", commit)
        h.send_header("Accept-Ranges", "bytes")
        h.end_headers()
        if head:
            return
        if self.stall_file == (m["repo"], m["path"]) and not start:
            self.stall_file = None
            half = len(body) // 2
            h.wfile.write(body[:half])
            h.wfile.flush()
            self.stalled.set()
            self.release.wait(60)
            h.close_connection = True  # drop it: the rest never comes
            return
        if m["path"] in self.slow_body:
            h.close_connection = True
            return self._trickle(h, m["path"], body, self.slow_body[m["path"]])
        h.wfile.write(body)

    def _trickle(self, h: BaseHTTPRequestHandler, path: str, data: bytes, every: float) -> None:
        """Slowloris: one byte per `every` seconds, each well within any per-read timeout."""
        self.sent[path] = 0
        try:
            for i in range(len(data)):
                h.wfile.write(data[i:i + 1])
                h.wfile.flush()
                self.sent[path] += 1
                if self.release.wait(every):
                    return
        except OSError:  # the client hung up: what it should do
            pass

    def _hostile_head(self, h: BaseHTTPRequestHandler, path: str) -> None:
        h.close_connection = True
        if self.slow_headers is not None:  # a header that never ends, a byte at a time
            return self._trickle(h, path, b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * (1 << 20), self.slow_headers)
        head = [b"HTTP/1.1 200 OK", b"Content-Type: application/json", b"Content-Length: 2"]
        if self.malformed == "headers":
            head += [b"X-H%d: x" % i for i in range(101)]
        elif self.malformed == "line":
            head.append(b"X-Long: " + b"a" * (65 << 10))
        elif self.malformed == "status":
            head[0] = b"\x1b]0;pwned\x07 NOT HTTP AT ALL"
        try:
            h.wfile.write(b"\r\n".join(head) + b"\r\n\r\n{}")
        except OSError:
            pass

    def _endless(self, h: BaseHTTPRequestHandler, path: str, etag: str, commit: str, head: bool) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/octet-stream")
        h.send_header("ETag", etag)
        h.send_header("X-Repo-Commit", commit)
        h.send_header("Connection", "close")  # no Content-Length: the body ends when the connection does
        h.end_headers()
        h.close_connection = True
        if head:
            return
        block = b"\0" * 65536
        self.sent[path] = 0
        try:
            while self.sent[path] < ENDLESS_LIMIT:
                h.wfile.write(block)
                self.sent[path] += len(block)
        except OSError:  # the client hung up: what it asked for
            pass

    @staticmethod
    def _info(repo_id: str, repo: Repo) -> dict:
        return {"id": repo_id, "modelId": repo_id, "sha": repo.commit, "private": False,
                "siblings": [{"rfilename": k} for k in sorted(repo.files)]}

    @staticmethod
    def _tree(repo_id: str, repo: Repo) -> list:
        out = []
        for k, v in sorted(repo.files.items()):
            oid = hashlib.sha1(b"blob %d\0" % len(v) + v).hexdigest()  # git's blob id, as the hub lists it
            entry = {"type": "file", "path": k, "size": len(v), "oid": oid}
            if k.endswith((".safetensors", ".bin", ".onnx")):
                entry["lfs"] = {"oid": hashlib.sha256(v).hexdigest(), "size": len(v), "pointerSize": 134}
            out.append(entry)
        return out

    @staticmethod
    def _json(h: BaseHTTPRequestHandler, obj, head: bool, headers: Optional[dict] = None) -> None:
        body = json.dumps(obj).encode()
        h.send_response(200)
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        if not head:
            h.wfile.write(body)

    @staticmethod
    def _not_found(h: BaseHTTPRequestHandler, code: Optional[str]) -> None:
        body = b'{"error":"Repository not found"}'
        h.send_response(404)
        if code:
            h.send_header("X-Error-Code", code)
            h.send_header("X-Error-Message", "Repository not found" if code == "RepoNotFound" else "Entry not found")
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        h.wfile.write(body)
