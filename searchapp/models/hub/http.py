"""The few HTTP requests a pull makes to a Hugging Face hub, each with a timeout, a size cap and a cancel check.
This module is the only code in searchapp that opens a network connection (see the package docstring).

A hub is not trusted: whatever it sends (commit ids, ETags, file names, sizes, paging links, bodies) is
checked before it is used, and nothing it sends ever becomes part of a file path here. Plain urllib on
purpose: no token is sent (private and gated models are not supported), only http(s) is followed, and a
redirect never carries the endpoint's credentials to another host.

  GET {endpoint}/api/models/{repo}/revision/main          -> the commit (40 or 64 hex digits)
  GET {endpoint}/api/models/{repo}/tree/{commit}?recursive=true   (+ Link rel="next" pages, capped)
  GET {endpoint}/{repo}/resolve/{commit}/{path}            -> the bytes, streamed into a file we opened

Timeouts: HUB_TIMEOUT_S for connecting and for each wait for bytes ($SEARCHAPP_HUB_TIMEOUT overrides it).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import socket
import urllib.error
import urllib.request
from typing import BinaryIO, Callable, Optional
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

from ...base.errors import Cancelled, ConfigError, ModelNotFoundError, SearchAppError
from ...base.progress import CancelToken
from ...base.terminal import printable
from .errors import DownloadError

__all__ = ["HubClient", "DEFAULT_ENDPOINT", "HUB_TIMEOUT_S", "MAX_JSON_BYTES", "MAX_LISTING_PAGES",
           "MAX_LISTING_ENTRIES", "hub_endpoint", "hub_host", "hub_timeout", "parse_endpoint", "host_of",
           "is_commit", "check_etag"]

DEFAULT_ENDPOINT = "https://huggingface.co"
HUB_TIMEOUT_S = 30.0  # connect, and each wait for the next bytes; a cancel is noticed between chunks anyway
MAX_JSON_BYTES = 16 << 20  # one model-info answer or one listing page
MAX_LISTING_PAGES = 50  # the hub pages 1,000 entries at a time; a model repository needs one or two
MAX_LISTING_ENTRIES = 5000  # files AND folders: a hub that lists folders forever stops here
MAX_REDIRECTS = 5
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


def is_commit(value: object) -> bool:
    return isinstance(value, str) and _COMMIT.fullmatch(value) is not None


def check_etag(value: Optional[str], what: str) -> None:
    """A plain quoted hex/token string, or none at all; anything else means the hub is not to be trusted."""
    if value is None:
        return
    m = _ETAG.fullmatch(value.strip())
    if m is None or ".." in m.group(2):
        raise DownloadError(f"The hub sent a malformed ETag for {printable(what)}; refusing to download from it.")


class _Redirects(urllib.request.HTTPRedirectHandler):
    max_redirections = MAX_REDIRECTS

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        if urlsplit(newurl).scheme not in ("http", "https"):
            raise DownloadError("The hub redirected to something that is not http(s); refusing to follow it.")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _opener() -> urllib.request.OpenerDirector:
    """http and https only: no file:, ftp: or data: handlers that a redirect or HF_ENDPOINT could reach."""
    opener = urllib.request.OpenerDirector()
    for handler in (urllib.request.ProxyHandler(), urllib.request.HTTPHandler(), urllib.request.HTTPSHandler(),
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
        self._auth = None
        if creds is not None:
            self._auth = "Basic " + base64.b64encode(f"{creds[0]}:{creds[1]}".encode()).decode("ascii")
        self._opener = _opener()

    # -- requests ---------------------------------------------------------------------------------
    def _open(self, url: str, repo_id: str, what: str):
        self.cancel.check()
        req = urllib.request.Request(url, headers={"User-Agent": "searchapp", "Accept-Encoding": "identity"})
        if self._auth and urlsplit(url).netloc == self.host:
            req.add_unredirected_header("Authorization", self._auth)  # never copied onto a redirect
        try:
            return self._opener.open(req, timeout=self.timeout)
        except urllib.error.HTTPError as exc:
            raise self._http_error(exc, repo_id, what) from None
        except (socket.timeout, TimeoutError) as exc:
            raise self._timeout_error(repo_id) from exc
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, (socket.timeout, TimeoutError)):
                raise self._timeout_error(repo_id) from exc
            if isinstance(exc.reason, SearchAppError):
                raise exc.reason from None
            raise self._unreachable(repo_id) from exc
        except (OSError, ValueError) as exc:  # connection reset, malformed status line, bad URL
            raise self._unreachable(repo_id) from exc

    def _read(self, resp, cap: int, repo_id: str, what: str, sink: Optional[Callable[[bytes], None]] = None) -> bytes:
        """Read at most `cap` bytes (more is an error); chunks go to `sink` when given, else are returned."""
        got = 0
        buf = bytearray()
        try:
            while True:
                self.cancel.check()
                chunk = resp.read1(min(CHUNK, cap + 1 - got))  # read1: a trickling hub cannot hold a read open
                if not chunk:
                    break
                got += len(chunk)
                if got > cap:
                    raise DownloadError(f"The hub sent more than the {cap:,} bytes expected for {printable(what)} "
                                        f"of {repo_id}; stopped, nothing was installed.")
                if sink is None:
                    buf += chunk
                else:
                    sink(chunk)
        except (socket.timeout, TimeoutError) as exc:
            raise self._timeout_error(repo_id) from exc
        except (Cancelled, SearchAppError):
            raise
        except OSError as exc:
            if getattr(exc, "errno", None) is not None and sink is not None and not isinstance(exc, ConnectionError):
                raise  # a disk error while writing: the caller says which disk
            raise self._unreachable(repo_id) from exc
        except Exception as exc:  # noqa: BLE001 - http.client's IncompleteRead and protocol errors
            raise DownloadError(f"The connection to {self.host} broke while fetching {printable(what)} of {repo_id}; "
                                "try again (nothing was installed).") from exc
        finally:
            resp.close()
        return bytes(buf)

    def get_json(self, url: str, repo_id: str, what: str):
        resp = self._open(url, repo_id, what)
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

    def tree(self, repo_id: str, commit: str) -> list[dict]:
        """Every entry of the recursive listing (files and folders), following Link rel="next", capped."""
        url: Optional[str] = f"{self.base}/api/models/{repo_id}/tree/{commit}?recursive=true"
        entries: list[dict] = []
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
            url = self._next_page(link, url)
        return entries

    def _next_page(self, link: Optional[str], current: str) -> Optional[str]:
        m = re.search(r'<([^>]*)>\s*;\s*rel="?next"?', link or "")
        if m is None:
            return None
        nxt = urljoin(current, m.group(1))
        here, there = urlsplit(current), urlsplit(nxt)
        if (there.scheme, there.netloc) != (here.scheme, here.netloc):
            raise DownloadError(f"{self.host} sent a next-page link to another host; refusing to follow it.")
        return nxt

    def fetch(self, repo_id: str, commit: str, path: str, size: int, out: BinaryIO,
              on_bytes: Callable[[int], None]) -> tuple[str, str]:
        """Stream `path` into `out`, refusing more than `size` bytes; returns (sha256, git blob sha1) hex."""
        resp = self._open(f"{self.base}/{repo_id}/resolve/{commit}/{quote(path)}", repo_id, path)
        check_etag(resp.headers.get("ETag"), path)
        check_etag(resp.headers.get("X-Linked-Etag"), path)
        said = resp.headers.get("X-Repo-Commit")
        if said is not None and said.strip() != commit:
            resp.close()
            raise DownloadError(f"{self.host} served {printable(path)} of {repo_id} from another commit than it "
                                "announced; refusing it (nothing was installed).")
        length = resp.headers.get("Content-Length")
        if length is not None and (not length.strip().isdigit() or int(length) > size):
            resp.close()
            raise DownloadError(f"{self.host} announced more bytes for {printable(path)} of {repo_id} than its file "
                                f"list declared ({size:,}); refusing it (nothing was installed).")
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

    def _timeout_error(self, repo_id: str) -> DownloadError:
        return DownloadError(f"{self.host} did not answer within {self.timeout:g} s while downloading {repo_id}; "
                             "try again later (nothing was installed).")

    def _unreachable(self, repo_id: str) -> DownloadError:
        return DownloadError(f"Could not reach {self.host} to download {repo_id}: check the internet connection "
                             "(nothing was changed).")
