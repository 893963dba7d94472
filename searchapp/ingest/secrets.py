"""Files that hold secrets never enter a library (decision 0177): a library is a searchable, previewable copy of
text, and a person who indexes their home folder must not find their keys and passwords in it.

Two rules, each said with its reason "secret: …" (the entry's state is `excluded`):
- by name: `[scan] secret_files`, glob patterns matched against a file's (or an archive member's) name, whatever
  its case (`Server.PEM` is a .pem); the scan leaves such a file out without opening it;
- by content: a document whose text holds a private key (a PEM, OpenSSH or PGP private key block with its body,
  also one written inside a JSON string, as a cloud service account's key file is) or whose first line is the
  header of a list of passwords (a password manager's CSV export) is refused whole, whatever its name: `extract`
  raises SecretFileError, so neither a sync nor a preview ever holds its text.
"""

from __future__ import annotations

import fnmatch
import re
from functools import lru_cache
from typing import Optional, Sequence

from ..base.errors import SecretFileError

__all__ = ["SECRET", "secret_pattern", "named_secret", "left_out_by_name", "secret_content", "refuse_secret_text"]

SECRET = "secret"  # the rule's word: every reason it gives begins "secret: " (status counts excluded files by it)

# "-----BEGIN RSA PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----", "-----BEGIN ENCRYPTED PRIVATE KEY-----",
# "-----BEGIN OPENSSH PRIVATE KEY-----", "-----BEGIN PGP PRIVATE KEY BLOCK-----", "---- BEGIN SSH2 ENCRYPTED
# PRIVATE KEY ----" (ssh.com's). A public key or a certificate is no secret: only PRIVATE KEY is looked for.
_KEY_HEADER = re.compile(r"-{4,5} ?BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?) ?-{4,5}")
# The key itself: a run of base64 (a PEM line is 64 characters, OpenSSH's 70). A header with none after it is a
# page about keys (this one's decision record, a tutorial whose example reads "MIIEpAIBAAKC..."), not a key.
_KEY_BODY = re.compile(r"[A-Za-z0-9+/=]{40,}")
_BODY_WITHIN = 600  # characters after the header the body must start in (PEM and PGP headers come between)
_HEADERS_LOOKED_AT = 100  # a hostile text of a million headers costs this many looks, not a million
# A password manager's export, and any table of the kind: a column of passwords beside one saying whose or where
# (Chrome, Firefox, Bitwarden, 1Password, KeePassXC, LastPass and Dashlane exports all begin so).
_PASSWORD_COLUMNS = frozenset({"password", "login_password", "passwd"})
_WHOSE_COLUMNS = frozenset({"username", "login_username", "user", "login", "email", "url", "login_uri", "website"})
_FIRST_LINE = 2000  # characters of the first line read for a header


@lru_cache(maxsize=8)
def _names(patterns: tuple[str, ...]) -> Optional[re.Pattern[str]]:
    """One expression for every pattern (a scan asks it of each of 500,000 names: one match each, not 30
    fnmatch calls), each pattern its own group so the one that matched can be named."""
    kept = [p.strip().lower() for p in patterns if p and p.strip()]
    if not kept:
        return None
    return re.compile("|".join(f"(?P<p{i}>{fnmatch.translate(p)})" for i, p in enumerate(kept)))


def secret_pattern(name: str, patterns: Sequence[str]) -> Optional[str]:
    """The first of `patterns` (`[scan] secret_files`) that the file name `name` matches, case aside; else None."""
    found = _names(tuple(patterns))
    hit = found.match(name.lower()) if found is not None else None
    if hit is None or hit.lastgroup is None:
        return None
    kept = [p.strip() for p in patterns if p and p.strip()]
    return kept[int(hit.lastgroup[1:])]


_NAMED = f"{SECRET}: its name matches "


def named_secret(pattern: str) -> str:
    """The reason an entry named like a secret is left out, naming the one pattern."""
    return f"{_NAMED}{pattern!r} ([scan] secret_files)"


def left_out_by_name(reason: Optional[str]) -> bool:
    """Whether an entry's reason is named_secret's: left out for its name alone, never read (a name `secret_files`
    no longer matches is read, and one whose text holds a secret is not read again unchanged)."""
    return (reason or "").startswith(_NAMED)


def _private_key(text: str) -> Optional[str]:
    """The header of the first private key block in `text` that has a key after it, or None."""
    if "PRIVATE KEY" not in text:  # the common case, at the speed of a substring search
        return None
    for n, header in enumerate(_KEY_HEADER.finditer(text)):
        if n >= _HEADERS_LOOKED_AT:
            break
        after = text[header.end():header.end() + _BODY_WITHIN].split("-----END", 1)[0]
        # a key inside a JSON string: its line breaks are the two characters \n
        if _KEY_BODY.search(after.replace("\\n", "\n").replace("\\r", "\n")):
            return header.group(1)
    return None


def _password_list(text: str) -> bool:
    """Whether the first line of `text` is the header of a table of passwords."""
    first = text[:4 * _FIRST_LINE].lstrip("\ufeff \t\r\n")[:_FIRST_LINE].split("\n", 1)[0]  # never a copy of it all
    columns = {c.strip().strip("\"'").strip().lower() for c in re.split(r"[,;\t]", first)}
    return bool(columns & _PASSWORD_COLUMNS) and bool(columns & _WHOSE_COLUMNS)


def secret_content(text: str) -> Optional[str]:
    """Why a document with this text is a secret ("secret: …"), or None."""
    key = _private_key(text)
    if key is not None:
        return f"{SECRET}: holds a private key ({key})"
    if _password_list(text):
        return f"{SECRET}: a list of passwords (its first line names a password column)"
    return None


def refuse_secret_text(text: str) -> None:
    """Raise SecretFileError when `text` is a secret's (secret_content): the whole document is refused."""
    why = secret_content(text)
    if why is not None:
        raise SecretFileError(why)
