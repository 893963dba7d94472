"""A Hugging Face hub on 127.0.0.1 for tests: the endpoints the real huggingface_hub client calls to download.

  GET  /api/models/{repo}/revision/{rev}     model info: {"id", "sha", "siblings"}
  GET  /api/models/{repo}/tree/{rev}         the file listing (size, oid, lfs {oid = sha256, size})
  HEAD /{repo}/resolve/{rev}/{file}          X-Repo-Commit, ETag, Content-Length (what hf_hub_download reads)
  GET  /{repo}/resolve/{rev}/{file}          the bytes (Range honoured, as the client's resume sends it)

Unknown repositories answer 404 with X-Error-Code: RepoNotFound, as the hub does. A file can be made to
stall half-way (`stall_once`): the server sends half, signals `stalled`, and waits for `release` before
dropping the connection, which is how a pull gets cancelled mid-file.
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
        path = h.path.split("?", 1)[0]
        self.requests.append((h.command, path))
        for rx, fn in ((_INFO, self._info), (_TREE, self._tree)):
            m = rx.match(path)
            if m:
                repo = self.repos.get(m["repo"])
                if repo is None:
                    return self._not_found(h, "RepoNotFound")
                return self._json(h, fn(m["repo"], repo), head)
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
        h.send_response(206 if start else 200)
        h.send_header("Content-Type", "application/octet-stream")
        h.send_header("Content-Length", str(len(body)))
        h.send_header("ETag", f'"{hashlib.sha256(data).hexdigest()}"')
        h.send_header("X-Repo-Commit", repo.commit)
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
        h.wfile.write(body)

    @staticmethod
    def _info(repo_id: str, repo: Repo) -> dict:
        return {"id": repo_id, "modelId": repo_id, "sha": repo.commit, "private": False,
                "siblings": [{"rfilename": k} for k in sorted(repo.files)]}

    @staticmethod
    def _tree(repo_id: str, repo: Repo) -> list:
        out = []
        for k, v in sorted(repo.files.items()):
            entry = {"type": "file", "path": k, "size": len(v), "oid": hashlib.sha1(v).hexdigest()}
            if k.endswith((".safetensors", ".bin", ".onnx")):
                entry["lfs"] = {"oid": hashlib.sha256(v).hexdigest(), "size": len(v), "pointerSize": 134}
            out.append(entry)
        return out

    @staticmethod
    def _json(h: BaseHTTPRequestHandler, obj, head: bool) -> None:
        body = json.dumps(obj).encode()
        h.send_response(200)
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
