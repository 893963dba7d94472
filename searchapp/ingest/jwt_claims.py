"""Whether a string in a JSON Web Token's shape is a bearer token that may still open something (decision 0190).

A JWT's shape (`eyJ…` header, `.`, `eyJ…` claims, `.`, signature: secrets.py finds it) is also every sample in a
library's docs and tests, and a token logged last year opens nothing. Its header and claims are base64url JSON that
say so, so they are read: a token is one when both are JSON objects, it is signed (its `alg` is not "none"), its
`exp`, if it has one, is still to come, and neither its claims nor its signature is a sample's (jwt.io's
`"sub": "1234567890", "name": "John Doe"`, a claim saying "example", a run such as `123456` or `aaaaaa`), nor
signed with a key docs sign theirs with (`your-256-bit-secret`, `secret`), and its claims name an issuer, a subject,
an audience or a time (RFC 7519's registered claims: `{"some": "payload"}` is PyJWT's README). Without `exp` a
token never expires: it is one.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import json
import re
from typing import Any, Optional

__all__ = ["live_jwt"]

# What a sample's claims say (jwt.io's "John Doe", docs' "example.com", "your-user-id", `"foo": "bar"`, a test's
# or a demo's issuer: Supabase's local keys are "supabase-demo"'s, the same on every machine) and runs of six same or
# consecutive characters ("1234567890"); a real token's claims hold none but by chance.
_SAMPLE = re.compile(r"example|sample|dummy|placeholder|redacted|your|john doe|jane doe|(.)\1{5}"
                     r"|(?<![a-z])(?:test|demo|foo)(?![a-z])", re.IGNORECASE)  # "test-issuer", "supabase-demo"
_RUNS = ("0123456789", "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
# RFC 7519's registered claims: a token that opens something says who issued it, for whom, or until when
_REGISTERED = frozenset({"iss", "sub", "aud", "exp", "nbf", "iat", "jti"})
# The keys docs and tutorials sign their examples with (jwt.io's debugger, PyJWT's and jsonwebtoken's READMEs)
_SAMPLE_KEYS = (b"your-256-bit-secret", b"your-384-bit-secret", b"your-512-bit-secret", b"secret", b"secretkey",
                b"secret_key", b"mysecret", b"my-secret", b"your-secret-key", b"shhhhh", b"key")
_HMAC = {"HS256": "sha256", "HS384": "sha384", "HS512": "sha512"}


def _part(encoded: str) -> Optional[tuple[dict[str, Any], str]]:
    """(the JSON object, its text) of a token's base64url part, or None when it is none."""
    try:
        text = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode("utf-8")
        value = json.loads(text)
    except (binascii.Error, ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None
    return (value, text) if isinstance(value, dict) else None


def _written(text: str) -> bool:
    return _SAMPLE.search(text) is not None or any(run[i:i + 6] in text for run in _RUNS
                                                   for i in range(len(run) - 5))


def _expiry(claims: dict[str, Any]) -> Optional[float]:
    """The `exp` claim as seconds since 1970 (a number, or a number written as a string); None without one; -1 for
    one that is no time (`true`, `{}`): every verifier refuses such a token (RFC 7519: a NumericDate)."""
    if "exp" not in claims:
        return None
    exp = claims["exp"]
    if isinstance(exp, str) and exp.strip().isdigit():
        return float(exp)
    return float(exp) if isinstance(exp, (int, float)) and not isinstance(exp, bool) else -1.0


def live_jwt(token: str, now: float) -> bool:
    """Whether `token` ("eyJ….eyJ….sig") may still open something at `now` (seconds since 1970)."""
    parts = token.split(".")
    if len(parts) != 3:
        return False
    header, claims = _part(parts[0]), _part(parts[1])
    if header is None or claims is None or str(header[0].get("alg", "none")).lower() == "none":
        return False  # not JSON: a cut or made-up string; "none": unsigned, no server should take it
    if not _REGISTERED & claims[0].keys() or set(claims[0]) == {"iat"}:
        return False  # names no issuer, subject, audience nor limit: a doc's `{"some": "payload"}`, a test's `{"iat": …}`
    exp = _expiry(claims[0])
    if exp is not None and exp < now:
        return False  # expired, or no time: it opens nothing
    return not (_written(claims[1]) or _written(parts[2]) or _signed_with_a_sample_key(header[0], parts))


def _signed_with_a_sample_key(header: dict[str, Any], parts: list[str]) -> bool:
    """Whether an HMAC-signed token's signature is made with a key docs use (jwt.io's "your-256-bit-secret",
    PyJWT's "secret"): whatever its claims say, anyone holds its key, so it is a sample."""
    digest = _HMAC.get(str(header.get("alg", "")).upper())
    if digest is None:
        return False
    signed = f"{parts[0]}.{parts[1]}".encode("ascii")
    return any(base64.urlsafe_b64encode(hmac.new(key, signed, digest).digest()).rstrip(b"=") == parts[2].encode()
               for key in _SAMPLE_KEYS)
