"""The few HTTP requests a pull makes to a Hugging Face hub, each with a timeout, a size cap and a cancel check.
This module is the only code in searchapp that opens a network connection (see the package docstring).

A hub is not trusted: whatever it sends (commit ids, ETags, file names, sizes, paging links, bodies) is
checked before it is used, and nothing it sends ever becomes part of a file path here. Plain urllib on
purpose: no token is sent (private and gated models are not supported), only http(s) is followed, and a
redirect never carries the endpoint's credentials to another host.

  GET {endpoint}/api/models/{repo}/revision/main          -> the commit (40 or 64 hex digits)
  GET {endpoint}/api/models/{repo}/tree/{commit}?recursive=true   (+ Link rel="next" pages, capped)
  GET {endpoint}/{repo}/resolve/{commit}/{path}            -> the bytes, streamed into a file we opened

Timeouts: HUB_TIMEOUT_S for connecting and for each wait for bytes ($SEARCHAPP_HUB_TIMEOUT overrides it), and
a deadline for each whole request, max(timeout, expected bytes / minimum rate) (deadline.py), so that a hub
trickling bytes cannot hold a pull open. Malformed HTTP (a bad status line, over 100 headers, a 64 KB line)
and an oversized Link header are refused in one sentence.
"""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import os
import re
import socket
import urllib.error
import urllib.request
from typing import IO, TYPE_CHECKING, Any, BinaryIO, Callable, Optional, TypeGuard
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

from ...base.errors import Cancelled, ConfigError, ModelNotFoundError, SearchAppError
from ...base.progress import CancelToken
from ...base.terminal import printable
from .deadline import RequestDeadline, hub_min_rate
from .errors import DownloadError, malformed_http, too_slow

__all__ = ["HubClient", "DEFAULT_ENDPOINT", "HUB_TIMEOUT_S", "MAX_JSON_BYTES", "MAX_LISTING_PAGES",
           "MAX_LISTING_ENTRIES", "hub_endpoint", "hub_host", "hub_timeout", "parse_endpoint", "host_of",
           "is_commit", "check_etag", "next_link", "MAX_LINK_CHARS"]

DEFAULT_ENDPOINT = "https://huggingface.co"
HUB_TIMEOUT_S = 30.0  # connect, and each wait for the next bytes; a cancel is noticed between chunks anyway
MAX_JSON_BYTES = 16 << 20  # one model-info answer or one listing page
MAX_LISTING_PAGES = 50  # the hub pages 1,000 entries at a time; a model repository needs one or two
MAX_LISTING_ENTRIES = 5000  # files AND folders: a hub that lists folders forever stops here
MAX_REDIRECTS = 5
MAX_LINK_CHARS = 8192  # a real Link header is one or two URLs
JSON_BUDGET = 1 << 20  # bytes a model-info answer or a listing page is given time for (a real page is ~200 kB)
CHUNK = 1 << 20

_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_ETAG = re.compile(r'(W/)?"?([A-Za-z0-9_\-.]{1,128})"?')


def hub_timeout() -> float:
    """Seconds to wait for a connection or for the next bytes: $SEARCHAPP_HUB_TIMEOUT, else HUB_TIMEOUT_S."""
    raw = os.environ.get("SEARCHAPP_HUB_TIMEOUT", "").strip()
    try:
        value = float(raw) if raw else HUB_TIMEOUT_S
    except ValueError:
        raise ConfigError(f"SEARCHAPP_HUB_TIMEOUT must be a number of seconds, not {printable(raw)!r}.") from None
    if not 0 < value <= 3600:
        raise ConfigError("SEARCHAPP_HUB_TIMEOUT must be between 0 and 3600 seconds.")
    return value


def parse_endpoint(endpoint: Optional[str]) -> tuple[str, Optional[tuple[str, str]]]:
    """(base URL without credentials, (user, password) or None); ConfigError for anything not http(s)://host.

    The message never repeats the value: it may hold a password."""
    raw = (endpoint or DEFAULT_ENDPOINT).strip().rstrip("/")
    bad = ConfigError("HF_ENDPOINT is not a usable http(s) URL (like https://huggingface.co); nothing was downloaded.")
    try:
        parts = urlsplit(raw)
        host, port = parts.hostname, parts.port  # both raise ValueError on "http://[::1" or a bad port
    except ValueError:
        raise bad from None
    if parts.scheme not in ("http", "https") or not host or parts.query or parts.fragment:
        raise bad
    netloc = f"[{host}]" if ":" in host else host
    if port is not None:
        netloc += f":{port}"
    creds = (parts.username or "", parts.password or "") if parts.username or parts.password else None
    return urlunsplit((parts.scheme, netloc, parts.path, "", "")), creds


def host_of(endpoint: Optional[str]) -> str:
    """host[:port] of `endpoint` for messages: never the credentials, never an exception."""
    try:
        return urlsplit(parse_endpoint(endpoint)[0]).netloc
    except ConfigError:
        return "the hub named by HF_ENDPOINT"


def hub_endpoint(endpoint: Optional[str] = None) -> str:
    """The hub to talk to: the argument, else $HF_ENDPOINT read now (huggingface_hub froze it at import).
    May hold credentials: show `hub_host()` instead."""
    return (endpoint or os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).strip().rstrip("/")


def hub_host(endpoint: Optional[str] = None) -> str:
    """host[:port] of the hub for messages: never its credentials, never an exception (even for `http://[::1`)."""
    return host_of(hub_endpoint(endpoint))


def is_commit(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and _COMMIT.fullmatch(value) is not None


def check_etag(value: Optional[str], what: str) -> None:
    """A plain quoted hex/token string, or none at all; anything else means the hub is not to be trusted."""
    if value is None:
        return
    m = _ETAG.fullmatch(value.strip())
    if m is None or ".." in m.group(2):
        raise DownloadError(f"The hub sent a malformed ETag for {printable(what)}; refusing to download from it.")


def next_link(header: str) -> Optional[str]:
    """The rel="next" target of a Link header (RFC 8288), found in one pass: no regex that could backtrack."""
    pos = 0
    while True:
        end = header.find(">", pos)
        if end < 0:
            return None
        start = header.rfind("<", pos, end)  # the last '<' before '>': junk before a link is not part of it
        stop = header.find(",", end)  # its parameters run to the next link
        stop = len(header) if stop < 0 else stop
        if start >= 0:
            for param in header[end + 1:stop].split(";"):
                name, _, value = param.partition("=")
                if name.strip().lower() == "rel" and "next" in value.strip().strip('"').lower().split():
                    return header[start + 1:end].strip()
        pos = stop + 1


class _Redirects(urllib.request.HTTPRedirectHandler):
    max_redirections = MAX_REDIRECTS

    def redirect_request(self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str,
                         headers: http.client.HTTPMessage, newurl: str) -> Optional[urllib.request.Request]:
        if urlsplit(newurl).scheme not in ("http", "https"):
            raise DownloadError("The hub redirected to something that is not http(s); refusing to follow it.")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


if TYPE_CHECKING:  # the base that _Watched is mixed into before, so that its super() calls type-check
    _HandlerBase = urllib.request.AbstractHTTPHandler
else:
    _HandlerBase = object


class _Watched(_HandlerBase):
    """Hands the socket of each connection it opens to the request's deadline, which may cut it."""

    def __init__(self, deadline: RequestDeadline) -> None:
        super().__init__()
        self.deadline = deadline

    def do_open(self, http_class: Any, req: urllib.request.Request, **kw: Any) -> http.client.HTTPResponse:
        deadline = self.deadline

        class Connection(http_class):
            def connect(self) -> None:
                super().connect()
                deadline.attach(self.sock)

        return super().do_open(Connection, req, **kw)


class _HTTPHandler(_Watched, urllib.request.HTTPHandler):
    pass


class _HTTPSHandler(_Watched, urllib.request.HTTPSHandler):
    pass


def _opener(deadline: RequestDeadline) -> urllib.request.OpenerDirector:
    """http and https only: no file:, ftp: or data: handlers that a redirect or HF_ENDPOINT could reach."""
    opener = urllib.request.OpenerDirector()
    for handler in (urllib.request.ProxyHandler(), _HTTPHandler(deadline), _HTTPSHandler(deadline),
                    _Redirects(), urllib.request.HTTPDefaultErrorHandler(), urllib.request.HTTPErrorProcessor()):
        opener.add_handler(handler)
    return opener


class HubClient:
    """One pull's conversation with one hub. Every method raises DownloadError / ModelNotFoundError (one
    sentence, host without credentials, hub-sent names escaped) or Cancelled."""

    def __init__(self, endpoint: Optional[str], cancel: Optional[CancelToken] = None,
                 timeout: Optional[float] = None) -> None:
        self.base, creds = parse_endpoint(endpoint)
        self.host = urlsplit(self.base).netloc
        self.cancel = cancel or CancelToken()
        self.timeout = timeout if timeout is not None else hub_timeout()
        self.min_rate = hub_min_rate()
        self._deadline = RequestDeadline()
        self._auth = None
        if creds is not None:
            self._auth = "Basic " + base64.b64encode(f"{creds[0]}:{creds[1]}".encode()).decode("ascii")
        self._opener = _opener(self._deadline)

    # -- requests ---------------------------------------------------------------------------------
    def _open(self, url: str, repo_id: str, what: str, expect: int) -> http.client.HTTPResponse:
        """The response to a GET whose body should be `expect` bytes: the request's deadline runs from here."""
        self.cancel.check()
        req = urllib.request.Request(url, headers={"User-Agent": "searchapp", "Accept-Encoding": "identity"})
        if self._auth and urlsplit(url).netloc == self.host:
            req.add_unredirected_header("Authorization", self._auth)  # never copied onto a redirect
        self._deadline.start(max(self.timeout, expect / self.min_rate))
        try:
            resp: http.client.HTTPResponse = self._opener.open(req, timeout=self.timeout)  # http(s) only
            return resp
        except Exception as exc:
            self._deadline.stop()
            err = self._slow_error(repo_id, what) if self._deadline.expired else self._open_error(exc, repo_id, what)
            if err is exc:
                raise
            raise err from exc

    def _open_error(self, exc: Exception, repo_id: str, what: str) -> Exception:
        if isinstance(exc, urllib.error.HTTPError):
            return self._http_error(exc, repo_id, what)
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        if isinstance(reason, (socket.timeout, TimeoutError)):
            return self._timeout_error(repo_id)
        if isinstance(reason, SearchAppError):
            return reason
        if isinstance(exc, (OSError, ValueError)):  # connection refused or reset, closed before a status line
            return self._unreachable(repo_id)
        if isinstance(exc, http.client.HTTPException):  # a bad status line, over 100 headers, a 64 KB line
            return self._malformed(exc, repo_id, what)
        return exc

    def _read(self, resp: http.client.HTTPResponse, cap: int, repo_id: str, what: str,
              sink: Optional[Callable[[bytes], None]] = None) -> bytes:
        """Read at most `cap` bytes (more is an error); chunks go to `sink` when given, else are returned.

        Past the request's deadline its socket is shut down: the read ends, and the error says why."""
        got = 0
        buf = bytearray()
        try:
            while True:
                self.cancel.check()
                if self._deadline.passed():
                    raise self._slow_error(repo_id, what)
                chunk = resp.read1(min(CHUNK, cap + 1 - got))  # read1: returns what has come, up to CHUNK
                if not chunk:
                    if self._deadline.expired:
                        raise self._slow_error(repo_id, what)
                    break
                got += len(chunk)
                if got > cap:
                    raise DownloadError(f"The hub sent more than the {cap:,} bytes expected for {printable(what)} "
                                        f"of {repo_id}; stopped, nothing was installed.")
                if sink is None:
                    buf += chunk
                else:
                    sink(chunk)
        except (Cancelled, SearchAppError):
            raise
        except Exception as exc:
            if self._deadline.expired:  # the deadline cut the socket: that is the error, not what it caused
                raise self._slow_error(repo_id, what) from exc
            if isinstance(exc, (socket.timeout, TimeoutError)):
                raise self._timeout_error(repo_id) from exc
            if isinstance(exc, OSError):
                if exc.errno is not None and sink is not None and not isinstance(exc, ConnectionError):
                    raise  # a disk error while writing: the caller says which disk
                raise self._unreachable(repo_id) from exc
            if isinstance(exc, http.client.LineTooLong):  # a chunk size line of 64 KB
                raise self._malformed(exc, repo_id, what) from exc
            # http.client's IncompleteRead and other protocol errors
            raise DownloadError(f"The connection to {self.host} broke while fetching {printable(what)} of {repo_id}; "
                                "try again (nothing was installed).") from exc
        finally:
            self._done(resp)
        return bytes(buf)

    def _done(self, resp: http.client.HTTPResponse) -> None:
        self._deadline.stop()
        resp.close()

    def get_json(self, url: str, repo_id: str, what: str) -> tuple[Any, Optional[str]]:
        resp = self._open(url, repo_id, what, JSON_BUDGET)
        link = resp.headers.get("Link")
        body = self._read(resp, MAX_JSON_BYTES, repo_id, what)
        try:
            return json.loads(body), link
        except ValueError:
            raise DownloadError(f"{self.host} answered with something that is not JSON for {repo_id}; "
                                "it does not look like a Hugging Face hub.") from None

    # -- the three things a pull asks --------------------------------------------------------------
    def revision(self, repo_id: str) -> str:
        info, _ = self.get_json(f"{self.base}/api/models/{repo_id}/revision/main", repo_id, "its model info")
        commit = info.get("sha") if isinstance(info, dict) else None
        if not commit:
            raise DownloadError(f"{self.host} gave no revision for {repo_id}; it does not look like a Hugging Face hub.")
        if not is_commit(commit):
            raise DownloadError(f"{self.host} gave a malformed commit id for {repo_id} (not 40 hex digits); "
                                "refusing to download from it.")
        return commit

    def tree(self, repo_id: str, commit: str) -> list[dict[str, Any]]:
        """Every entry of the recursive listing (files and folders), following Link rel="next", capped."""
        url: Optional[str] = f"{self.base}/api/models/{repo_id}/tree/{commit}?recursive=true"
        entries: list[dict[str, Any]] = []
        pages = 0
        while url:
            pages += 1
            if pages > MAX_LISTING_PAGES:
                raise DownloadError(f"{self.host} pages the file list of {repo_id} beyond {MAX_LISTING_PAGES} pages; "
                                    "that is not a single model, so nothing was downloaded.")
            page, link = self.get_json(url, repo_id, "its file list")
            if not isinstance(page, list):
                raise DownloadError(f"{self.host} sent a malformed file list for {repo_id}; nothing was downloaded.")
            entries.extend(e for e in page if isinstance(e, dict))
            if len(entries) > MAX_LISTING_ENTRIES:
                raise DownloadError(f"{self.host} lists more than {MAX_LISTING_ENTRIES} files and folders for {repo_id}; "
                                    "that is not a single model, so nothing was downloaded.")
            url = self._next_page(link, url, repo_id)
        return entries

    def _next_page(self, link: Optional[str], current: str, repo_id: str) -> Optional[str]:
        if link and len(link) > MAX_LINK_CHARS:
            raise DownloadError(f"{self.host} sent a paging link longer than {MAX_LINK_CHARS:,} characters for "
                                f"{repo_id}; refusing it (nothing was downloaded).")
        target = next_link(link or "")
        if target is None:
            return None
        nxt = urljoin(current, target)
        here, there = urlsplit(current), urlsplit(nxt)
        if (there.scheme, there.netloc) != (here.scheme, here.netloc):
            raise DownloadError(f"{self.host} sent a next-page link to another host; refusing to follow it.")
        return nxt

    def fetch(self, repo_id: str, commit: str, path: str, size: int, out: BinaryIO,
              on_bytes: Callable[[int], None]) -> tuple[str, str]:
        """Stream `path` into `out`, refusing more than `size` bytes; returns (sha256, git blob sha1) hex."""
        resp = self._open(f"{self.base}/{repo_id}/resolve/{commit}/{quote(path)}", repo_id, path, size)
        try:
            check_etag(resp.headers.get("ETag"), path)
            check_etag(resp.headers.get("X-Linked-Etag"), path)
            said = resp.headers.get("X-Repo-Commit")
            if said is not None and said.strip() != commit:
                raise DownloadError(f"{self.host} served {printable(path)} of {repo_id} from another commit than it "
                                    "announced; refusing it (nothing was installed).")
            length = resp.headers.get("Content-Length")
            if length is not None and (not length.strip().isdigit() or int(length) > size):
                raise DownloadError(f"{self.host} announced more bytes for {printable(path)} of {repo_id} than its "
                                    f"file list declared ({size:,}); refusing it (nothing was installed).")
        except DownloadError:
            self._done(resp)
            raise
        sha256 = hashlib.sha256()
        sha1 = hashlib.sha1(b"blob %d\0" % size)  # git's blob id, the name the cache gives small files

        def sink(chunk: bytes) -> None:
            out.write(chunk)
            sha256.update(chunk)
            sha1.update(chunk)
            on_bytes(len(chunk))

        self._read(resp, size, repo_id, path, sink)
        if out.tell() != size:
            raise DownloadError(f"{printable(path)} of {repo_id} arrived incomplete ({out.tell():,} of {size:,} bytes); "
                                "nothing was installed. Try again.")
        return sha256.hexdigest(), sha1.hexdigest()

    # -- errors ----------------------------------------------------------------------------------
    def _http_error(self, exc: urllib.error.HTTPError, repo_id: str, what: str) -> SearchAppError:
        code = (exc.headers.get("X-Error-Code") if exc.headers else None) or ""
        exc.close()
        asking = what in ("its model info", "its file list")  # the hub answers 401 for a repository it does not have
        if code in ("RepoNotFound", "GatedRepo") or (asking and exc.code in (401, 403, 404) and code != "RevisionNotFound"):
            return ModelNotFoundError(f"{repo_id} was not found on {self.host}; check the name (private and gated "
                                      "models are not supported).")
        if code == "RevisionNotFound":
            return ModelNotFoundError(f"{repo_id} has no main revision on {self.host}.")
        if code == "EntryNotFound" or exc.code == 404:
            return DownloadError(f"{printable(what)} of {repo_id} disappeared from {self.host} during the download; "
                                 "try again.")
        return DownloadError(f"{self.host} answered HTTP {exc.code} for {repo_id}; try again later (nothing was changed).")

    def _slow_error(self, repo_id: str, what: str) -> DownloadError:
        return too_slow(self.host, what, repo_id, self.min_rate, self.timeout)

    def _malformed(self, exc: http.client.HTTPException, repo_id: str, what: str) -> DownloadError:
        return malformed_http(self.host, exc, repo_id, asking=what in ("its model info", "its file list"))

    def _timeout_error(self, repo_id: str) -> DownloadError:
        return DownloadError(f"{self.host} did not answer within {self.timeout:g} s while downloading {repo_id}; "
                             "try again later (nothing was installed).")

    def _unreachable(self, repo_id: str) -> DownloadError:
        return DownloadError(f"Could not reach {self.host} to download {repo_id}: check the internet connection "
                             "(nothing was changed).")
