"""A password or key written as a setting's value (decision 0190): a secret without a shape of its own, found only
where a setting is what a line is, and only when its value is written out, not referred to.

Prose says "password" all the time and code says `password = request.form["password"]`, so a line is looked at
only in a file whose every line is a setting or a command (its name says so, `config_like`), and only for a key
from a short list whose value reads as a credential (`is_credential`):
- a config file (`.ini`, `.cfg`, `.conf`, `.cnf`, `.toml`, `.yaml`, `.yml`, `.properties`, `*.env`, `.envrc`,
  `.npmrc`, `.pypirc`; `.json`, decision 0197, as the JSON reader writes it: `db.password: …`, or as it is:
  `"password": "…",`): a line that is `key = value` or `key: value` and nothing after it but a comment;
- a shell script (`.sh`, `.bash`, `.zsh`, `.ksh`: decision 0197; `.fish`, PowerShell's `.ps1`, `.psm1`, a
  Dockerfile, also `Dockerfile.prod`: 0197's amendment), a shell's history (`.bash_history`, `.zsh_history`,
  `fish_history`, `.psql_history`, PowerShell's `ConsoleHost_history.txt`…) and its start-up files (`.bashrc`,
  `.zshrc`, `.profile`…, also as a dotfiles folder names them, without the dot): `export KEY=value`, fish's
  `set -x KEY value`, PowerShell's `$env:KEY = "value"`, a Dockerfile's `ENV KEY=value` and `ENV KEY value`,
  `curl -u user:password`, `mysql -pPASSWORD`, `--password=…`;
- any text: a `.netrc` line, `machine HOST login USER password VALUE`: its shape is a sentence no one writes.
A value is a credential when it is written out (no `$VAR`, `${…}`, `{{ … }}`, `%(…)s`, `<…>`, path or address), at
least 6 characters with a letter and a digit in one part of it (`hunter2`, a random key; not a word, a number, a
name joined by `-` `_` `.` such as `prom-operator` or `db_user_2`), varied enough, and no placeholder or default
(`changeme`, `P@ssw0rd`, `your_password`, `example123`, `test1234`). What a line names is said, never its value.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from typing import Optional

from ..base.member_paths import DISPLAY_SEP

__all__ = ["config_like", "written_credential", "NETRC_MARKS"]

# What a setting's name ends with when its value is a credential: its last word (`DB_PASSWORD`, `db.password`,
# `clientSecret`, `aws_secret_access_key`, `api-key`), a whole word only (`bypass`, `compass` are no "pass").
_ENDS = ("password", "passwd", "passphrase", "secret", "token")
_LAST_WORDS = frozenset({"pass", "pwd", "apikey", "secretkey", "privatekey", "authkey"})
_LAST_TWO = frozenset({("api", "key"), ("secret", "key"), ("private", "key"), ("auth", "key")})
# A token that opens no account (decision 0197, met in AWS's API descriptions, botocore's JSON, by the thousand): a
# page's (`NextToken`, `nextPageToken`, `ContinuationToken`, `output_token`), a request's for idempotency
# (`ClientToken`, `ClientRequestToken`, `ChangeToken`, `LifecycleActionToken`, `PurchaseToken`), a form's (`csrf_token`),
# a tokenizer's (`pad_token`, `eos_token`): named by the word before "token"
_NO_CREDENTIAL_TOKENS = frozenset({"next", "page", "pagination", "continuation", "marker", "input", "output", "start",
                                   "starting", "end", "sync", "change", "client", "request", "idempotency", "lifecycle",
                                   "action", "purchase", "cancel", "csrf", "xsrf", "pad", "unk", "mask", "sep", "cls",
                                   "bos", "eos"})
# A key path that says it is an example (a JSON reader's path: AWS's `examples.CreateLoginProfile.input.Password`)
_SAMPLE_PATH_WORDS = frozenset({"example", "examples", "sample", "samples", "demo", "dummy", "mock", "fake",
                                "placeholder"})
_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z0-9]+(?![a-z])")  # camelCase and SNAKE_CASE into words

# A JSON file is a config file too (decision 0197): the JSON reader writes each string as a "key.path: value" line
# (`db.password: …` for `{"db": {"password": "…"}}`), and a file that is no strict JSON (a tsconfig with comments)
# is read as it is, its lines `"password": "…",`.
_CONFIG_SUFFIXES = frozenset({".ini", ".cfg", ".conf", ".cnf", ".toml", ".yaml", ".yml", ".properties", ".env",
                              ".json"})
# A shell script's lines are commands as a history's are (decision 0197): `export DB_PASSWORD=…`, `mysql -p'…'`,
# `curl -u user:pass`; fish's, PowerShell's and a Dockerfile's too (0197's amendment: `set -x KEY value`,
# `$env:KEY = "value"`, `ENV KEY value`)
_COMMANDS_SUFFIXES = frozenset({".sh", ".bash", ".zsh", ".ksh", ".fish", ".ps1", ".psm1", ".dockerfile"})
_CONFIG_NAMES = frozenset({".env", ".envrc", ".npmrc", ".pypirc", ".netrc", "_netrc"})
_BUILD_FILES = ("dockerfile.", "containerfile.")
_COMMANDS_NAMES = frozenset({".history", "consolehost_history.txt",  # PowerShell's PSReadLine file
                             ".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zshenv", ".zprofile",
                             "bashrc", "bash_profile", "zshrc", "zshenv", "zprofile", "dockerfile", "containerfile"})

# A config file's setting: the whole line (a YAML list item `- KEY=value` as docker compose writes environments),
# a quoted or bare key, `=` or `:`, a quoted or bare value, a JSON line's comma, then at most a comment.
_SETTING = re.compile(r"""^[ \t]*(?:-[ \t]+)?(?:export[ \t]+)?["']?(?P<key>[A-Za-z_][\w.-]{0,200}+)["']?[ \t]*[=:][ \t]*
    (?P<value>"[^"\n]{0,300}"|'[^'\n]{0,300}'|[^\s"'#;]{1,300}+)["']?[ \t]*,?[ \t]*(?:[#;].*|//.*)?$""",
                      re.MULTILINE | re.VERBOSE)  # ["']? after the value: a compose list's item `- "KEY=value"`
# A shell's commands (a history's, a start-up file's), wherever a line has them (zsh writes ": 1700000000:0;"
# first, fish "- cmd: ").
_VALUE = r"""(?P<value>"[^"\n]{0,300}"|'[^'\n]{0,300}'|[^\s"'`;&|)]{1,300}+)"""
# A variable exported as each shell writes it: `export KEY=value` (sh, a Dockerfile's `ENV KEY=value`), fish's
# `set -x KEY value` (`-gx`, `-Ux`), PowerShell's `$env:KEY = value`, a Dockerfile's `ENV KEY value`
_COMMANDS = re.compile(rf"""(?:^|[\s;&|(])(?:export[ \t]+)?(?P<key>[A-Za-z_][A-Za-z0-9_]{{0,80}}+)={_VALUE}
    | (?:^|[\s;&|(])set(?:[ \t]+-[A-Za-z-]{{1,16}}+){{1,4}}+[ \t]+(?P<fish_key>[A-Za-z_][A-Za-z0-9_]{{0,80}}+)[ \t]+
        {_VALUE.replace('value', 'fish_value')}
    | \$(?i:env):(?P<ps_key>[A-Za-z_][A-Za-z0-9_]{{0,80}}+)[ \t]{{0,8}}=[ \t]{{0,8}}
        {_VALUE.replace('value', 'ps_value')}
    | ^[ \t]*ENV[ \t]+(?P<env_key>[A-Za-z_][A-Za-z0-9_]{{0,80}}+)[ \t]+{_VALUE.replace('value', 'env_value')}
    | \bcurl\b[^\n]{{0,300}}?[ \t](?P<curl>-u|--user)[ \t=]?["']?[^\s:"'$]{{1,100}}:{_VALUE.replace('value', 'curl_value')}
    | \b(?P<mysql>mysql|mysqldump|mysqladmin|mariadb)\b[^\n]{{0,300}}?[ \t]-p{_VALUE.replace('value', 'mysql_value')}
    | [ \t](?P<option>--password)[ \t=]{_VALUE.replace('value', 'option_value')}""", re.MULTILINE | re.VERBOSE)
NETRC_MARKS = ("login",)  # what a library's stored passages are asked for a .netrc line (SQL LIKE, decision 0184's way)
# Begun at its literal word, the engine skips to each "machine" at the speed of a substring search (a `^` or `\b`
# first makes it try every character: 10 MB of prose in 290 or 1,270 ms, not 25-40); netrc allows several entries
# on one line anyway.
_NETRC = re.compile(r"machine(?<!\wmachine)[ \t]+\S{1,255}[ \t]+login[ \t]+\S{1,255}[ \t]+password[ \t]+(?P<value>\S{1,300})")
# Only the lines that may set a credential are asked the expressions above: one whose `=` or `:` follows a
# credential's last word, and of commands one naming a command. Asked of every line, the expressions tried every
# word of 10 MB of text (0.7 s as a config file, 5.7 s as a history). Found by str.find: an expression's `[=:]`
# took 350 ms to list the 35,000 of 10 MB of prose.
_SEPARATORS = "=:"
_NAME_ENDS = ("pass", "passwd", "password", "passphrase", "pwd", "secret", "token", "key")
# (fish's `set -x KEY value` and a Dockerfile's `ENV KEY value` have no "=": found by their command's word)
_COMMAND_WORDS = ("curl", "mysql", "mariadb", "--password", "set -", "ENV")

# A value that is no credential: a reference, a path, an address, markup, YAML's anchors and tags.
_REFERENCE = re.compile(r"^[$%{<\[(!@&*/~.\\]|\$\{|\$\(|\{\{|\}\}|%\(|://|ENC\(")
# Written to show one: a word no random key holds but by chance ("your_password", "example123", "test1234")
_PLACEHOLDER = re.compile(r"example|sample|dummy|placeholder|redacted|your|changeme|changeit|insecure|test|demo|fake"
                          r"|mock|(.)\1{3}", re.IGNORECASE)
# or a default, once unleeted and its digits and signs dropped: "P@ssw0rd", "admin123", "secret1", "Password1!"
_DEFAULT = re.compile(r"(?:my|the|super|new|default|dev)?(?:password|passwd|pass|pwd|secret|token|key|apikey|admin"
                      r"|root|user|guest|qwerty|letmein|welcome|login|abc|xyz)+")
_JWT_SHAPE = re.compile(r"eyJ[0-9A-Za-z_-]{1,4000}\.eyJ[0-9A-Za-z_-]{1,4000}\.[0-9A-Za-z_-]{0,1000}")
_UNLEET = str.maketrans("@$013457!", "asoieasti")
_MIN_LENGTH = 6
_MIN_ENTROPY = 2.5  # bits a character: "hunter2" has 2.8, "aaaa1111" 1.0
_LOOKED_AT = 1000  # settings looked at, at most: a text of a million lines costs this many looks
# Characters of one line asked the expressions, at most: a setting or a command typed by a person is far shorter,
# and a line of megabytes (minified, base64) would be asked at each of its words
LINE_CHARS = 4096


def config_like(path: str) -> str:
    """"config", "commands" or "" for a file's (or an archive member's) name: which lines of it set something."""
    name = os.path.basename(path.rsplit(DISPLAY_SEP, 1)[-1].replace("\\", "/")).lower()  # a member's own name
    if name in _CONFIG_NAMES or name.startswith(".env.") or os.path.splitext(name)[1] in _CONFIG_SUFFIXES:
        return "config"
    # a Dockerfile per stage or place is named after it: `Dockerfile.prod`, `Containerfile.dev`
    if (name in _COMMANDS_NAMES or name.endswith(("_history", ".history")) or name.startswith(_BUILD_FILES)
            or os.path.splitext(name)[1] in _COMMANDS_SUFFIXES):
        return "commands"
    return ""


def _credential_name(key: str) -> bool:
    """Whether a setting called `key` holds a credential: its last word is one (`DB_PASSWORD`, `clientSecret`)."""
    words = [w.lower() for w in _WORDS.findall(key)]
    if not words:
        return False
    last = words[-1]
    if _SAMPLE_PATH_WORDS.intersection(words[:-1]):  # a JSON file's `examples.ChangePassword.input.NewPassword`
        return False
    if last == "token" and len(words) > 1 and words[-2] in _NO_CREDENTIAL_TOKENS:  # `NextToken`, `ChangeToken`
        return False
    if tuple(words[-2:]) == ("access", "key"):  # an AWS secret access key; an access key alone is an id
        return len(words) > 2 and words[-3] == "secret"
    return last.endswith(_ENDS) or last in _LAST_WORDS or tuple(words[-2:]) in _LAST_TWO


def _entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def is_credential(value: str, key: str = "") -> bool:
    """Whether a setting's value is a credential written out (see the module's note). `key`: the setting's name,
    whose words a default repeats (`MINIO_ROOT_PASSWORD: minio123`, `POSTGRES_PASSWORD=postgres1`)."""
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        value = value[1:-1]
    if len(value) < _MIN_LENGTH or any(c.isspace() for c in value) or _REFERENCE.search(value):
        return False
    # a name's parts are words or numbers (`prom-operator`, `db_user_2`, `v1.2.3`); a credential mixes them in one
    if not any(re.search(r"[A-Za-z]", part) and re.search(r"[0-9]", part) or re.search(r"[^\w.-]", part)
               for part in re.split(r"[._-]", value)):
        return False
    if not (re.search(r"[A-Za-z]", value) and re.search(r"[0-9]", value)):
        return False
    unleeted = value.translate(_UNLEET)
    if _PLACEHOLDER.search(value) or _PLACEHOLDER.search(unleeted):
        return False
    if _JWT_SHAPE.fullmatch(value):  # a JWT is judged by its own rule (jwt_claims.py: jwt.io's sample is read)
        return False
    core = re.sub(r"^[\W\d_]+|[\W\d_]+$", "", value).translate(_UNLEET).lower()  # "P@ssw0rd1!": "password"
    letters = re.sub(r"[^a-z]", "", core)
    if _DEFAULT.fullmatch(letters) or letters in {w.lower() for w in _WORDS.findall(key)}:
        return False
    return _entropy(value) >= _MIN_ENTROPY


def written_credential(text: str, path: str) -> Optional[str]:
    """What names a credential written out in `text` (a setting's key, "curl -u", "a .netrc line"), or None;
    `path`: the file's or member's name, which says whether its lines are settings (config_like)."""
    for n, m in enumerate(_NETRC.finditer(text)):
        if n >= _LOOKED_AT:
            break
        if is_credential(m.group("value")):
            return "a .netrc line"
    kind = config_like(path)
    if not kind:
        return None
    lines = _SETTING if kind == "config" else _COMMANDS
    for start, end in _lines_to_read(text, kind == "commands"):
        for m in lines.finditer(text, start, end):
            found = _said(m)
            if found is not None:
                return found
    return None


def _lines_to_read(text: str, commands: bool) -> list[tuple[int, int]]:
    """(start, end) of each line of `text` that may set a credential (at most _LOOKED_AT, in order): its `=` or
    `:` follows a credential's last word (`DB_PASSWORD=`, `apiKey:`), or (`commands`) it names one of
    _COMMAND_WORDS."""
    starts: set[int] = set()
    # Once a line is listed the search goes on after it: a line is looked back along once, not at each of its
    # separators (a 2 MB `.env` of one line took 5 s), and never read past LINE_CHARS.
    for separator in _SEPARATORS:
        at = text.find(separator)
        while at >= 0 and len(starts) < _LOOKED_AT:
            if text[max(0, at - 16):at].rstrip(" \t\"'").lower().endswith(_NAME_ENDS):
                starts.add(text.rfind("\n", 0, at) + 1)
                at = _line_end(text, at)
            at = text.find(separator, at + 1)
    for word in _COMMAND_WORDS if commands else ():
        at = text.find(word)
        while at >= 0 and len(starts) < 2 * _LOOKED_AT:
            starts.add(text.rfind("\n", 0, at) + 1)
            at = text.find(word, _line_end(text, at))
    return [(start, min(_line_end(text, start), start + LINE_CHARS)) for start in sorted(starts)]


def _line_end(text: str, start: int) -> int:
    end = text.find("\n", start)
    return len(text) if end < 0 else end


def _said(m: re.Match[str]) -> Optional[str]:
    """What a setting's or command's match names when its value is a credential, else None."""
    groups = m.groupdict()
    for named in ("key", "fish_key", "ps_key", "env_key"):  # a variable, as each shell sets one
        if groups.get(named) is not None:
            key, value = groups[named], groups[named.replace("key", "value")]
            return key if _credential_name(key) and is_credential(value, key) else None
    for what in ("curl", "mysql", "option"):
        if groups.get(what) is not None and is_credential(groups[f"{what}_value"]):
            return {"curl": f"curl {groups['curl']}", "mysql": f"{groups['mysql']} -p"}.get(what, groups[what])
    return None
