"""Files that hold secrets never enter a library (decision 0177): a library is a searchable, previewable copy of
text, and a person who indexes their home folder must not find their keys and passwords in it.

Two rules, each said with its reason "secret: …" (the entry's state is `excluded`):
- by name: `[scan] secret_files`, glob patterns matched against a file's (or an archive member's) name, whatever
  its case (`Server.PEM` is a .pem); the scan leaves such a file out without opening it;
- by content: a document whose text holds a private key (a PEM, OpenSSH or PGP private key block with its body,
  also one written inside a JSON string, as a cloud service account's key file is), an access token of a
  well-known shape (GitHub, AWS, Slack, GitLab, Google, Stripe, OpenAI, Anthropic, Hugging Face, npm, PyPI,
  SendGrid, Twilio: decision 0184; a JWT still live, jwt_claims.py, but not a Firebase app's key: decision 0190),
  a password or key written out in a config file or a shell's history (written_credentials.py, decision 0190) or
  whose first line is the header of a list of passwords (a password manager's CSV export) is refused whole,
  whatever its name: `extract` raises SecretFileError, so neither a sync nor a preview ever holds its text.
"""

from __future__ import annotations

import fnmatch
import math
import re
import time
from collections import Counter
from functools import lru_cache
from typing import Optional, Sequence

from ..base.errors import SecretFileError
from .jwt_claims import live_jwt
from .written_credentials import written_credential

__all__ = ["SECRET", "secret_pattern", "named_secret", "left_out_by_name", "access_token", "TOKEN_MARKS",
           "JWT_MARKS", "token_reason", "secret_content", "refuse_secret_text"]

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

# Access tokens whose vendor gave them a shape of their own (decision 0184): a fixed prefix, a fixed alphabet and
# length, so a match is a token and not a word. The shapes are gitleaks' rules (github.com/gitleaks/gitleaks,
# cmd/generate/config/rules/), narrowed where gitleaks itself calls a rule loose (Slack's workspace tokens) and
# where a person's prose could match (AWS: a 20-letter capitals word beginning ASIA, see access_token). One
# expression, one pass over the text, each vendor a named group (the reason's word). Its speed is its form: every
# branch begins with one of six characters rare in prose (the "_" or "-" after a prefix, the "A" of AKIA and
# AIza, the "K" of Twilio's SK, the "G" of SendGrid's SG., the "J" of a JWT's "eyJ", '{"' in base64), so the engine skips from one to the next at the speed
# of a character search, and the prefix is asserted behind it; written prefix first, the engine tries every branch
# at every "s" and "g" (1-2 s for 10 MB, not 45-70 ms). SendGrid's begins at its "G", not its ".": a full stop
# ends every sentence (10 MB of prose: 44 ms with ".", 39.5 with "G", 37 before the five vendors of 0184's amendment).
# A token stands alone: no word character before it (`my_ghp_…`), none it could go on with after it.
_W = "[0-9A-Za-z_]"  # a word character
_TOKENS = re.compile(rf"""(?:
    _(?: (?P<GitHub>(?<=(?<!{_W})gh[pousr]_)[0-9A-Za-z]{{36}}   # classic, OAuth, user, server, refresh
                  | (?<=(?<!{_W})github_)pat_[0-9A-Za-z]{{22}}_[0-9A-Za-z]{{59}})  # fine-grained
       | (?P<Stripe>(?<=(?<!{_W})[sr]k_)live_[0-9A-Za-z]{{24,247}})  # live keys: test keys fill Stripe's docs
       | (?P<HuggingFace>(?<=(?<!{_W})hf_)[A-Za-z]{{34}})  # letters alone
       | (?P<npm>(?<=(?<!{_W})npm_)[0-9A-Za-z]{{36}}) )
  | -(?: (?P<Slack>(?<=(?<!{_W})xox[bpe]-)(?:[0-9]{{8,14}}-){{1,3}}[0-9A-Za-z]{{18,64}}  # bot, user
                 | (?<=(?<!{_W})xox[ar]-)[0-9]-(?:[0-9]{{6,14}}-){{1,3}}[0-9A-Za-z]{{10,64}}  # workspace
                 | (?<=(?<!{_W})xox[os]-)(?:[0-9]{{6,14}}-){{3}}[0-9a-fA-F]{{10,64}})  # legacy
       | (?P<GitLab>(?<=(?<!{_W})glpat-)(?:[0-9A-Za-z_-]{{27,300}}\.[0-9a-z]{{9}}|[0-9A-Za-z_-]{{20}}))
       | (?P<OpenAI>(?<=(?<!{_W})sk-)(?:proj|svcacct|admin)-(?:[0-9A-Za-z_-]{{74}}|[0-9A-Za-z_-]{{58}})
                                     T3BlbkFJ(?:[0-9A-Za-z_-]{{74}}|[0-9A-Za-z_-]{{58}})
                  | (?<=(?<!{_W})sk-)[0-9A-Za-z]{{20}}T3BlbkFJ[0-9A-Za-z]{{20}})  # T3BlbkFJ: "OpenAI", base64
       | (?P<Anthropic>(?<=(?<!{_W})sk-)ant-(?:api03|admin01)-[0-9A-Za-z_-]{{93}}AA)
       | (?P<PyPI>(?<=(?<!{_W})pypi-)AgEIcHlwaS5vcmc[0-9A-Za-z_-]{{50,1000}}) )  # a macaroon: "pypi.org", base64
  | A(?<!{_W}A)(?: (?P<AWS>(?:KIA|SIA|BIA|CCA)[A-Z2-7]{{16}})  # an access key id: base32 after its kind
                 | (?P<Google>Iza[0-9A-Za-z_-]{{35}}) )
  | K(?<=(?<!{_W})SK)(?P<Twilio>[0-9a-fA-F]{{32}})  # an API key's SID: "SK" and 32 hex
  | G(?<=(?<!{_W})SG)(?P<SendGrid>\.[0-9A-Za-z_-]{{22}}\.[0-9A-Za-z_-]{{43}})
  # a JWT (decision 0190): "eyJ" header "." "eyJ" claims "." signature, gitleaks' jwt rule bounded; jwt_claims.py
  # reads its header and claims (signed, not expired, no sample)
  | J(?<=(?<![\w.-])eyJ)(?P<JWT>[0-9A-Za-z_-]{{14,500}}\.eyJ[0-9A-Za-z_-]{{14,4000}}\.[0-9A-Za-z_-]{{16,1000}})
    )(?![0-9A-Za-z_-])""", re.VERBOSE)
# A text every token above holds (its prefix, or part of it; OpenAI's "T3BlbkFJ"), as a library's stored passages
# are asked for them (SQL LIKE, decision 0184's once-per-library re-check: each mark one more scan of every
# passage, so Slack's seven kinds are "xox" and Stripe's two "k_live_"); none so short that words hold it but
# Twilio's "SK", all its key has besides hex: SQLite's LIKE, blind to case, finds it in "ask" and "task" (43 % of
# passages, each then asked the expression: the re-check 1.4 s for 100,000 passages, not 0.94), PostgreSQL's few.
JWT_MARKS = ("eyJ",)  # a JWT's header and claims begin so: '{"' in base64 (decision 0190)
TOKEN_MARKS = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "AKIA", "ASIA", "ABIA", "ACCA", "xox",
               "glpat-", "AIza", "k_live_", "T3BlbkFJ", "sk-ant-", "hf_", "npm_", "AgEIcHlwaS5vcmc", "SG.", "SK",
               *JWT_MARKS)
# Shannon entropy (bits a character) a match must reach, gitleaks' per rule: a placeholder written in the shape
# (ghp_ and 36 x's, AKIAXXXXXXXXXXXXXXXX) has almost none; a vendor's random token has 4 or more.
_ENTROPY = {"JWT": 3.0, "GitHub": 3.0, "AWS": 3.0, "Slack": 2.0, "GitLab": 3.0, "Google": 4.0, "Stripe": 2.0, "OpenAI": 3.0,
            "Anthropic": 3.0, "HuggingFace": 2.0, "npm": 2.0, "PyPI": 3.0, "SendGrid": 2.0, "Twilio": 3.0}
_SAID = {"HuggingFace": "Hugging Face"}  # a group's name is one word; the reason says the vendor's own
# What a person writes in a token's shape to show one (AWS's AKIAIOSFODNN7EXAMPLE, "ghp_YourTokenHere…",
# "…abcdefghijklmnop…" as Firebase's examples are): a vendor's random token holds none of it but by a chance
# of one in 10,000 or less (a run of six same or consecutive characters, the letters of a word).
_PLACEHOLDER = re.compile(r"example|sample|dummy|placeholder|redacted|your|(.)\1{5}", re.IGNORECASE)
_RUNS = ("0123456789", "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_TOKENS_LOOKED_AT = 1000  # shapes looked at, at most: a text of a million placeholders costs this many looks
# A Firebase app's config names its key (a web app's `apiKey: "AIza…"` in `firebaseConfig`, google-services.json's
# `current_key`, GoogleService-Info.plist's `<key>API_KEY</key><string>`) and holds two fields beside it that only a
# Firebase config has together (web, Android, iOS), within a config's length of it.
_FIREBASE_KEY_NAME = re.compile(r"(?i:api_?key|current_key)(?:</key>\s*<string>|[\"']?\s*[:=]\s*[\"']?)$")
_FIREBASE_FIELDS = (("authDomain", "projectId"), ("project_id", "mobilesdk_app_id"), ("GOOGLE_APP_ID", "PROJECT_ID"))
_FIREBASE_WITHIN = 1000


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


def _entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def _looks_written(token: str) -> bool:
    """Whether a string in a token's shape is a person's placeholder, not a vendor's random token."""
    return _PLACEHOLDER.search(token) is not None or any(run[i:i + 6] in token for run in _RUNS
                                                         for i in range(len(run) - 5))


def access_token(text: str) -> Optional[str]:
    """The vendor of the first access token in `text` (GitHub, AWS, …, "JWT"), or None: a whole word in the
    vendor's shape, random enough, and not a placeholder (decision 0184); a JWT still live and no sample, a Google
    key not a Firebase app's (decision 0190)."""
    now = time.time()
    for n, m in enumerate(_TOKENS.finditer(text)):
        if n >= _TOKENS_LOOKED_AT:
            break
        vendor, token = m.lastgroup or "", m.group(0)  # the token from its "_", "-", "A" or "J" on
        if vendor == "AWS" and not any(c in "234567" for c in token[4:]):
            continue  # capitals alone: a word (ASIAMINORANTIQUITIES); 1 key in 28 has no digit, and is missed
        if not _random_enough(vendor, token):
            continue
        if vendor == "JWT":
            if live_jwt("ey" + token, now) and _entropy(token) >= _ENTROPY[vendor]:
                return vendor
            continue
        if vendor == "Google" and _firebase_config(text, m.start(), m.end()):
            continue
        if _entropy(token) >= _ENTROPY[vendor] and not _looks_written(token):
            return _SAID.get(vendor, vendor)
    return None


def _firebase_config(text: str, start: int, end: int) -> bool:
    """Whether the Google key at text[start:end] is a Firebase app's `apiKey`: its config's other fields beside it.
    Firebase: "API keys for Firebase services are ok to include in code or checked-in config files", they only
    identify the project (firebase.google.com/docs/projects/api-keys). A lone key (Maps, Cloud) is still refused."""
    if _FIREBASE_KEY_NAME.search(text[max(0, start - 40):start]) is None:
        return False
    around = text[max(0, start - _FIREBASE_WITHIN):end + _FIREBASE_WITHIN]
    return any(one in around and other in around for one, other in _FIREBASE_FIELDS)


def _random_enough(vendor: str, token: str) -> bool:
    """A name written after `hf_` or `npm_` is no token: a camelCase identifier of 34 letters
    (`self.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`) has a capital every word, a random one about every other letter;
    a 36-letter npm name has no digit, a random npm token one in every ~1.7 characters. A token with fewer than 8
    capitals and 8 small letters (hf_: 1 in ~1,250 random ones) or no digit (npm_: 1 in ~550) is missed."""
    if vendor == "HuggingFace":  # the match is "_" and the 34 letters
        return sum(c.isupper() for c in token) >= 8 and sum(c.islower() for c in token) >= 8
    if vendor == "npm":
        return any(c.isdigit() for c in token)
    return True


def token_reason(vendor: str) -> str:
    """The reason a text holding a vendor's access token is refused ("secret: holds an access token (GitHub)")."""
    return f"{SECRET}: holds an access token ({vendor})"


def secret_content(text: str, name: str = "") -> Optional[str]:
    """Why a document with this text is a secret ("secret: …"), or None. `name`: its file's or member's name,
    which says whether its lines are settings (written_credentials.config_like)."""
    key = _private_key(text)
    if key is not None:
        return f"{SECRET}: holds a private key ({key})"
    vendor = access_token(text)
    if vendor is not None:
        return token_reason(vendor)
    written = written_credential(text, name)
    if written is not None:
        return f"{SECRET}: holds a password or key written out ({written})"
    if _password_list(text):
        return f"{SECRET}: a list of passwords (its first line names a password column)"
    return None


def refuse_secret_text(text: str, name: str = "") -> None:
    """Raise SecretFileError when `text` is a secret's (secret_content): the whole document is refused."""
    why = secret_content(text, name)
    if why is not None:
        raise SecretFileError(why)
