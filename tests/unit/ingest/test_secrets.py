"""ingest/secrets.py (decision 0177): which names and which texts are a secret's, and the one pattern named."""

from __future__ import annotations

import base64
import json
import random
import re
import string

import pytest

from searchapp.base.config import Config
from searchapp.base.config.schema import DEFAULT_SECRET_FILES
from searchapp.base.errors import ConfigError
from searchapp.ingest.secrets import TOKEN_MARKS, access_token, secret_content, secret_pattern
from searchapp.ingest.written_credentials import NETRC_MARKS, config_like

BODY = "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi6Z1ArEGk7Y8R5oQ9bYwC5sdfQ"  # one line of a key's base64


@pytest.mark.parametrize("name, pattern", [
    ("id_rsa", "id_rsa"), ("ID_ED25519", "id_ed25519"), ("server.PEM", "*.pem"), (".env.local", ".env.*"),
    ("credentials.json", "credentials.*"), ("Chrome Passwords.csv", "*passwords.csv"), ("vault.kdbx", "*.kdbx"),
    ("id_rsa.pub", None), ("talk.key", None), ("notes.txt", None), ("environment.md", None),
])
def test_a_secrets_name_is_matched_whatever_its_case_and_the_one_pattern_named(name, pattern):
    assert secret_pattern(name, DEFAULT_SECRET_FILES) == pattern
    assert secret_pattern(name, ()) is None


@pytest.mark.parametrize("text, holds", [
    (f"Garden notes.\n-----BEGIN RSA PRIVATE KEY-----\n{BODY}\n-----END RSA PRIVATE KEY-----\n", "RSA PRIVATE KEY"),
    (f"-----BEGIN OPENSSH PRIVATE KEY-----\r\n{BODY}\r\n", "OPENSSH PRIVATE KEY"),
    (f"-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n{BODY}\n", "PGP PRIVATE KEY BLOCK"),
    (f"-----BEGIN ENCRYPTED PRIVATE KEY-----\n{BODY}\n", "ENCRYPTED PRIVATE KEY"),
    # a cloud service account's key file: the key inside a JSON string, its line breaks written \n
    ('{"private_key": "-----BEGIN PRIVATE KEY-----\\n' + BODY + '\\n-----END PRIVATE KEY-----\\n"}', "PRIVATE KEY"),
    # a page about keys: the header, but no key after it (an example cut short), nor a public key
    ("Keys begin with -----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKC...\n-----END RSA PRIVATE KEY-----\n", None),
    (f"-----BEGIN PUBLIC KEY-----\n{BODY}\n-----END PUBLIC KEY-----\n", None),
    ("We changed the wifi password on Tuesday; ask the office for the new one.", None),
])
def test_a_text_holding_a_private_key_is_a_secret_a_text_about_one_is_not(text, holds):
    assert secret_content(text) == (None if holds is None else f"secret: holds a private key ({holds})")


_PICK = random.Random(184)


def _random(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    """A vendor's random part (each token is built here from its parts: this file holds none whole)."""
    return "".join(_PICK.choice(alphabet) for _ in range(n))


def _pypi(caveat: bytes) -> str:
    """A PyPI upload token as PyPI writes one: a macaroon (location "pypi.org", an id, a caveat, a signature of 32
    random bytes) in unpadded base64url; its fixed parts must read as no placeholder."""
    macaroon = (b"\x02\x01\x08pypi.org\x02\x24" + _random(36).encode() + b"\x00\x02" + bytes([len(caveat)]) + caveat
                + b"\x00\x00\x06\x20" + bytes(_PICK.randrange(256) for _ in range(32)))
    return "py" + "pi-" + base64.urlsafe_b64encode(macaroon).decode().rstrip("=")


def _jwt(claims: dict[str, object], alg: str = "RS256", signature: str = "") -> str:
    """A JWT built as an issuer writes one: base64url JSON header and claims, a signature (random unless given)."""
    def part(value: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")
    return f"{part({'alg': alg, 'typ': 'JWT'})}.{part(claims)}.{signature or _random(43, string.ascii_letters + '_-')}"


_CLAIMS = {"sub": "u-83f2a9", "iss": "https://auth.acme.io", "aud": "billing", "exp": 4102444800}  # 2100


@pytest.mark.parametrize("token, vendor", [
    (_jwt(_CLAIMS), "JWT"),  # a bearer token pasted from a shell history or an HTTP log
    (_jwt({"sub": "svc-ci", "role": "service"}, "HS256"), "JWT"),  # no exp: it never expires
    # jwt.io's sample, a token expired (2020), one unsigned, a shape whose claims are no JSON: none is a secret
    (_jwt({"sub": "1234567890", "name": "John Doe", "iat": 1516239022}, "HS256",
          "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"), None),
    (_jwt(_CLAIMS | {"exp": 1600412397}), None),  # expired in 2020
    (_jwt(_CLAIMS, "none"), None),
    ("eyJ" + _random(30) + ".eyJ" + _random(60) + "." + _random(43), None),
    ("gh" + "p_" + _random(36), "GitHub"),
    ("gh" + "s_" + _random(36), "GitHub"),
    ("github" + "_pat_" + _random(22) + "_" + _random(59), "GitHub"),
    ("AK" + "IAQ3EGT5YB7NRDZXWL", "AWS"),
    ("xo" + "xb-781236542736-2364535789652-" + _random(24), "Slack"),
    ("xo" + "xp-41684372915-1320496754-45609968301-" + _random(32, "0123456789abcdef"), "Slack"),
    ("gl" + "pat-" + _random(20), "GitLab"),
    ("AI" + "za" + _random(35, string.ascii_letters + string.digits + "_-"), "Google"),
    ("sk" + "_live_" + _random(24), "Stripe"),
    ("sk" + "-proj-" + _random(74) + "T3Blbk" + "FJ" + _random(74), "OpenAI"),
    ("sk" + "-ant-api03-" + _random(93) + "AA", "Anthropic"),
    ("hf" + "_" + _random(34, string.ascii_letters), "Hugging Face"),
    ("np" + "m_" + _random(36), "npm"),
    (_pypi(b'{"permissions": "user", "version": 1}'), "PyPI"),
    (_pypi(b'[1,["project"]]'), "PyPI"),
    ("SG" + "." + _random(22, string.ascii_letters + string.digits + "_-") + "."
     + _random(43, string.ascii_letters + string.digits + "_-"), "SendGrid"),
    ("SK" + _random(32, "0123456789abcdef"), "Twilio"),
    # what is not one: AWS's documented example, placeholders, a shape cut short or run on, inside a longer word,
    # a word in capitals, a test key
    ("AKIAIOSFODNN7EXAMPLE", None),
    ("gh" + "p_" + "x" * 36, None),
    ("gh" + "p_1234567890abcdefghijklmnopqrstuvwxyz", None),
    ("gh" + "p_YourPersonalAccessTokenGoesHere00000", None),
    ("gh" + "p_...", None),
    ("gh" + "p_" + _random(35), None),
    ("gh" + "p_" + _random(37), None),
    ("my_gh" + "p_" + _random(36), None),
    ("ASIAMINORANTIQUITIES", None),
    ("AKIA" + "*" * 16, None),
    ("gl" + "pat-XXXXXXXXXXX-XXXXXXXX", None),
    ("sk" + "_test_" + _random(24), None),
    ("xoxo-and-hugs", None),
    ("hf" + "_" + _random(33, string.ascii_letters) + "7", None),  # a digit: Hugging Face's are letters alone
    ("np" + "m_" + _random(35), None),
    ("self.hf" + "_downloadPretrainedTokenizerFromHub.strip()", None),  # an identifier: a capital every word
    ("np" + "m_packagejsonscriptsprepublishonlyhook", None),  # a name: no digit in 36 characters
    ("py" + "pi-AgEIcHlwaS5vcmc" + _random(49), None),
    ("SG" + "." + _random(22) + "." + _random(42), None),
    ("TASK" + _random(32, "0123456789abcdef"), None),  # inside a longer word
])
def test_a_text_holding_an_access_token_is_a_secret_a_text_showing_one_is_not(token, vendor):
    text = f"Deploy notes.\nexport TOKEN={token}\nThen run the release script.\n"
    assert access_token(text) == vendor
    assert secret_content(text) == (None if vendor is None else f"secret: holds an access token ({vendor})")
    assert vendor is None or any(mark in token for mark in TOKEN_MARKS)  # a library written before finds it


_FIREBASE_KEY = "AI" + "za" + _random(35, string.ascii_letters + string.digits + "_-")


@pytest.mark.parametrize("text, vendor", [
    # a Firebase web app's config and google-services.json as the JSON reader writes it: public by design
    (f'const firebaseConfig = {{\n  apiKey: "{_FIREBASE_KEY}",\n  authDomain: "ferry.firebaseapp.com",\n'
     '  projectId: "ferry-7d2e1",\n  appId: "1:84:web:9f"\n};\ninitializeApp(firebaseConfig);', None),
    ("project_info.project_id: ferry-7d2e1\nclient.client_info.mobilesdk_app_id: 1:84:android:9f\n"
     f"client.api_key.current_key: {_FIREBASE_KEY}", None),
    # the same key alone (a Maps or Cloud key), or beside a Firebase config but not named as its apiKey
    (f'const MAPS = "{_FIREBASE_KEY}";', "Google"),
    (f'mapsKey: "{_FIREBASE_KEY}", authDomain: "ferry.firebaseapp.com", projectId: "ferry-7d2e1"', "Google"),
])
def test_a_firebase_apps_key_beside_its_config_is_no_secret(text, vendor):
    assert access_token(text) == vendor


_HIDDEN = "Zk29" + "xLq4Wd"  # a credential written out: letters and digits, no word


@pytest.mark.parametrize("name, text, named", [
    ("db.ini", f"[db]\nhost = harbour\npassword = {_HIDDEN}\n", "password"),
    ("app.properties", f"spring.datasource.password={_HIDDEN}\n", "spring.datasource.password"),
    ("docker-compose.yml", f"services:\n  db:\n    environment:\n      - POSTGRES_PASSWORD={_HIDDEN}\n",
     "POSTGRES_PASSWORD"),
    ("aws.cfg", "[default]\naws_secret_access_key = " + _random(40, string.ascii_letters + string.digits + "/+")
     + "\n", "aws_secret_access_key"),
    ("settings.toml", f'clientSecret = "{_HIDDEN}" # rotated in May\n', "clientSecret"),
    (".bash_history", f"ls\nexport GH_TOKEN={_HIDDEN}\ngit push\n", "GH_TOKEN"),
    ("dotfiles › zshrc", f"alias ll='ls -l'\nexport HOMEBREW_GITHUB_API_TOKEN={_HIDDEN}\n", "HOMEBREW_GITHUB_API_TOKEN"),
    (".zsh_history", f": 1700000000:0;curl -u admin:{_HIDDEN} https://ci.harbour\n", "curl -u"),
    ("backup.zip › home/.mysql_history", f"mysqldump -uroot -p{_HIDDEN} shop > shop.sql\n", "mysqldump -p"),
    ("fish_history", f"- cmd: restic --password={_HIDDEN} backup ~\n", "--password"),
    ("fish_history", f"- cmd: set -gx GH_TOKEN {_HIDDEN}\n  when: 1700000000\n", "GH_TOKEN"),  # 0197's amendment
    ("ConsoleHost_history.txt", f"cd ~\n$Env:GH_TOKEN='{_HIDDEN}'\n", "GH_TOKEN"),
    ("notes.txt", f"The CI box:\nmachine ci.harbour login deploy password {_HIDDEN}\n", "a .netrc line"),
    # what is not one: the line outside a config file, code, a reference, a default, a name, a placeholder
    ("notes.txt", f"password = {_HIDDEN}\n", None),
    ("views.py", 'password = request.form["password"]\n', None),
    ("app.yaml", "password: ${DB_PASSWORD}\ntoken: '{{ vault_token }}'\napi_key: <your-api-key>\n", None),
    ("app.yaml", "password: P@ssw0rd1\nsecret: admin123\nadminPassword: prom-operator\npassword: str\n", None),
    ("app.ini", "password_file = /etc/ferry/pw\nbypass = a1b2c3d4e5\npad_token = <pad>\npassword = \n", None),
    ("app.cfg", "token = example-9f8e7d6c\npassword = test1234\nsecret = xxxx1111\n", None),
    (".bash_history", "curl -u deploy:$CI_TOKEN https://ci\nmysql -p shop\nexport TOKEN=\"$(pass ci)\"\n", None),
    ("notes.txt", "machine example.com login daniel password qwerty\n", None),
])
def test_a_password_or_key_written_out_in_a_config_file_is_a_secret(name, text, named):
    assert secret_content(text, name) == (None if named is None
                                          else f"secret: holds a password or key written out ({named})")
    # a library written before finds it again: a .netrc line by its mark, a setting by its file's name
    assert named is None or config_like(name) or any(mark in text for mark in NETRC_MARKS)


def test_a_long_line_is_looked_along_once_and_read_to_a_cap():
    """A reviewer's 2 MB `.env` of one line took 5 s (the line looked back along at each `=`) and a 200 KB history
    line 38 s (a lazy run to each `curl`'s line end): a line is listed once, and read to LINE_CHARS at most."""
    from searchapp.ingest.written_credentials import LINE_CHARS, _lines_to_read

    one_line = "db_token=1," * 200_000
    assert _lines_to_read(one_line, commands=False) == [(0, LINE_CHARS)]
    history = "ls\n" + "curl x " * 30_000 + "\nls\n"
    assert _lines_to_read(history, commands=True) == [(3, 3 + LINE_CHARS)]
    # still found where a person writes it: the line's start
    assert secret_content(f"export GH_TOKEN={_HIDDEN}; " + "curl x " * 30_000, ".bash_history") is not None


@pytest.mark.parametrize("first_line, secret", [
    ("name,url,username,password,note", True),  # Chrome's export
    ('"Group","Title","Username","Password","URL","Notes"', True),  # KeePassXC's
    ("folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp", True),
    ("date,amount,payee,memo", False),
    ("password", False),  # a word alone, no table
])
def test_a_list_of_passwords_is_a_secret_by_its_first_line(first_line, secret):
    found = secret_content(first_line + "\nmail,https://mail.example,me,hunter2,\n")
    assert (found == "secret: a list of passwords (its first line names a password column)") is secret


def test_a_secret_files_pattern_with_a_path_is_refused():
    with pytest.raises(ConfigError, match="secret_files"):
        Config().replace(scan={"secret_files": ["~/.ssh/id_rsa"]}).validate()


def test_a_mail_sending_a_key_is_refused_not_kept_without_it(tmp_path):
    """The mail reader leaves out a body's paragraphs that are not prose: a key's base64 went, and the message was
    indexed as if it held none. It is refused as a notes file holding one is."""
    from searchapp.base.errors import SecretFileError
    from searchapp.ingest.extractors import extract

    mail = tmp_path / "key.eml"
    mail.write_text("From: a@example.org\nTo: b@example.org\nSubject: the server key\n\nHere it is, keep it safe.\n\n"
                    f"-----BEGIN OPENSSH PRIVATE KEY-----\n{BODY}\n-----END OPENSSH PRIVATE KEY-----\n\nBest, A.\n")
    with pytest.raises(SecretFileError, match="OPENSSH PRIVATE KEY"):
        extract(mail)
    mail.write_text("From: a@example.org\nSubject: the server key\n\nIt is on the usual drive.\n")
    assert "usual drive" in extract(mail).text


# jwt.io's own sample, as its debugger shows it: public, in a thousand docs and fixtures (decision 0197)
_JWT_IO = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIy"
           "fQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")


@pytest.mark.parametrize("name, content, named", [
    # a JSON config file (decision 0197): as the JSON reader writes it ("db.password: …"), nested, and one that is
    # no strict JSON (a comment), read as it is
    ("appsettings.json", json.dumps({"Db": {"Host": "harbour", "Password": _HIDDEN}}), "Db.Password"),
    ("config.json", json.dumps({"service": {"api_key": _HIDDEN, "client_secret": "none"}}), "service.api_key"),
    ("aws.json", json.dumps({"aws_secret_access_key": _random(40)}), "aws_secret_access_key"),
    ("tsconfig.json", '{\n  // the build\n  "client_secret": "' + _HIDDEN + '",\n  "strict": true\n}\n', "client_secret"),
    # a shell script's commands (decision 0197)
    ("deploy.sh", f"#!/bin/sh\nset -e\nexport DB_PASSWORD={_HIDDEN}\n./migrate\n", "DB_PASSWORD"),
    ("backup.bash", f"mysqldump -u root -p'{_HIDDEN}' shop > shop.sql\n", "mysqldump -p"),
    ("ci.sh", f'curl -u deploy:{_HIDDEN} "https://ci.harbour/job"\n', "curl -u"),
    # fish's, PowerShell's, a Dockerfile's and a compose file's (0197's amendment)
    ("config.fish", f"set -gx PATH $HOME/bin $PATH\nset -x DB_PASSWORD {_HIDDEN}\n", "DB_PASSWORD"),
    ("profile.ps1", f'Set-Location ~\n$env:DB_PASSWORD = "{_HIDDEN}"\n', "DB_PASSWORD"),
    ("Dockerfile", f"FROM postgres:16\nENV POSTGRES_PASSWORD={_HIDDEN}\n", "POSTGRES_PASSWORD"),
    ("Dockerfile", f"FROM postgres:16\nENV POSTGRES_PASSWORD {_HIDDEN}\n", "POSTGRES_PASSWORD"),
    ("Dockerfile.prod", f"FROM postgres:16\nENV POSTGRES_PASSWORD {_HIDDEN}\n", "POSTGRES_PASSWORD"),
    ("docker-compose.yml", f'services:\n  db:\n    environment:\n      - "POSTGRES_PASSWORD={_HIDDEN}"\n',
     "POSTGRES_PASSWORD"),
    # what is none: a package.json, a tsconfig, a script's references, jwt.io's sample under "token" in a fixture
    ("package.json", json.dumps({"name": "ferry", "version": "1.2.3", "scripts": {"build": "tsc -p ."},
                                 "keywords": ["tide"], "publishConfig": {"access": "public"}}), None),
    ("tsconfig.json", '{\n  // strict\n  "compilerOptions": {"strict": true, "outDir": "dist"},\n}\n', None),
    ("deploy.sh", 'export DB_PASSWORD="$1"\nmysql -u root -p"$DB_PASSWORD" shop\ncurl -u "$USER:$TOKEN" x\n', None),
    ("config.fish", "set -x DB_PASSWORD $argv[1]\nset -e DB_PASSWORD\nset -x EDITOR nvim\n", None),
    ("profile.ps1", "$env:DB_PASSWORD = Read-Host -AsSecureString\n$env:GH_TOKEN = $secret\n", None),
    ("Dockerfile", "ARG DB_PASSWORD\nENV DB_PASSWORD=${DB_PASSWORD}\nENV PG_MAJOR 16\nENV APP_ENV production\n", None),
    # botocore's API descriptions (AWS's own examples, pages' and requests' tokens), as met in the survey
    ("examples-1.json", json.dumps({"examples": {"CreateLoginProfile": [{"input": {"Password": "h]6EszR}vJ*m"}}]},
                                    "pagination": {"ListJobs": {"output_token": "Jobs[-1].JobId"}},
                                    "CreateIPSet": {"ChangeToken": "abcd12f2-46da-4fdb-b8d5-fbd4c466928f",
                                                    "NextContinuationToken": "1w41l63U0xa8q7smH50vCxyTQqdxo69O"}}), None),
    ("tests/fixtures/auth.json", json.dumps({"about": "the signed-in user the login page's tests start from: "
                                                      "a name, a role and a token as the server hands them out, "
                                                      "so the page shows the account menu and the sign-out link",
                                             "token": _JWT_IO, "user": "John Doe"}), None),
])
def test_a_credential_in_a_json_file_or_a_shell_script_is_a_secret(tmp_path, name, content, named):
    from searchapp.base.errors import SecretFileError
    from searchapp.ingest.extractors import extract

    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content, encoding="utf-8")
    if named is None:
        assert extract(path).text  # read, as it is
    else:
        with pytest.raises(SecretFileError, match=rf"written out \({named}\)"):
            extract(path)
    assert config_like(name)  # a library written before finds it by its name


@pytest.mark.parametrize("text, hidden", [
    (f"The tide database: postgres://ferry:{_HIDDEN}@db.harbour:5432/tides (read-only).", ["postgres"]),
    (f"mysql://root:{_HIDDEN}@localhost/shop and mongodb+srv://admin:{_HIDDEN}@c0.ab.mongodb.net/x",
     ["mysql", "mongodb+srv"]),
    (f"cache at redis://:{_HIDDEN}@cache:6379/0; queue at amqp://ferry:{_HIDDEN}@rabbit/", ["redis", "amqp"]),
    (f"git clone https://daniel:{_HIDDEN}@github.com/daniel/tides.git", ["https"]),
    (f"url=jdbc:mysql://db:3306/shop?user=root&password={_HIDDEN}&ssl=true", ["mysql"]),
    (f"jdbc:sqlserver://db:1433;databaseName=shop;user=sa;password={_HIDDEN};", ["sqlserver"]),
    # its parameter stops at "&", its pair runs to ";": hidden whole, once (the part after "&" was shown)
    (f"jdbc:sqlserver://db:1433;user=sa;password={_HIDDEN}&{_HIDDEN};", ["sqlserver"]),
    (f"pip.conf: index-url = https://ferry:p%40ss{_HIDDEN}@pypi.harbour/simple", ["https"]),  # %-escaped
    (f"mysql://root:Xk9@{_HIDDEN}@db.harbour:3306/shop", ["mysql"]),  # an "@" left unescaped: hidden whole
    ("postgres://u:changeme@db/x\n" * 1000 + f"postgres://ferry:{_HIDDEN}@db.harbour/tides", ["postgres"]),
    # a connection string of keys and values outside a URL (0197's amendment): ADO.NET's, ODBC's, a JDBC URL's
    # properties, libpq's
    (f"Server=db1;Database=tides;User Id=sa;Password={_HIDDEN};", ["Password="]),
    (f'<add name="Tides" connectionString="Data Source=db;Initial Catalog=tides;Pwd={_HIDDEN}" />', ["Pwd="]),
    (f"Driver={{ODBC Driver 18}};Server=db;UID=sa;PWD={{{_HIDDEN}}};", ["PWD="]),
    # a brace or a quote written twice inside the value is its part (ODBC's `}}`, ADO.NET's `""`)
    (f"Driver={{ODBC Driver 18}};Server=db;UID=sa;PWD={{Zk}}}}{_HIDDEN}}};", ["PWD="]),
    (f'Server=db;User Id=sa;Password="Zk""{_HIDDEN}";', ["Password="]),
    (f"jdbc:h2:mem:tides;USER=sa;PASSWORD={_HIDDEN}", ["PASSWORD="]),
    (f'psycopg2.connect("host=db dbname=tides user=ferry password={_HIDDEN}")', ["password="]),
    # what is none: a user without a password, placeholders (decision 0190's rule), a default of the scheme's word
    ("ssh://git@github.com/daniel/tides.git and postgres://ferry@db/tides", []),
    # a pair alone, a setting's key, a default of the string's own word, a placeholder
    (f"Password={_HIDDEN} alone\ndb_password={_HIDDEN};server=db\nServer=postgres;User Id=postgres;Password=postgres1"
     ";\nServer=db;Password=<your password>;", []),
    ("postgres://u:<password>@db/x postgres://u:${DB_PASS}@db/x postgres://u:****@db/x postgres://u:password@db/x "
     "postgres://u:changeme@db/x postgres://u:xxx@db/x postgres://postgres:postgres1@db/x", []),
    ("the login form posts to https://harbour.example/login?password=<yours>; see http://[::1]:8080/@me", []),
    (f"a form's body, no URL: user=ferry&password={_HIDDEN} (see https://harbour.example/login)", []),
    # docs' samples met in the survey (pip's, httpx's, pydantic's multi-host URL)
    ("https://user:he%2F%2Fo@pypi.company.com/simple https://jo%40email.com:a%20secret@www.example.com "
     "MultiHostUrl('https://foo.com:123,foo:bar@bar.com/path')", []),
])
def test_a_connection_strings_password_is_hidden_and_its_text_kept(text, hidden):
    from searchapp.base.types import Document
    from searchapp.ingest.connection_strings import CONNECTION_MARKS, HIDDEN_NOTE, hide_connection_passwords

    doc = hide_connection_passwords(Document(text))
    assert len(doc.text) == len(text)  # every passage's and page's offsets stay
    if hidden:
        assert _HIDDEN not in doc.text and doc.text.count("*" * len(_HIDDEN)) == text.count(_HIDDEN)
    else:
        assert doc.text == text
    # every other word stays, to be found by
    assert [w for w in text.split() if _HIDDEN not in w] == [w for w in doc.text.split()
                                                              if _HIDDEN not in w and "*" * 10 not in w]
    assert doc.notes == ((f"{HIDDEN_NOTE} ({len(hidden)}: {', '.join(dict.fromkeys(hidden))})",) if hidden else ())
    assert secret_content(text) is None  # not refused: kept, the password alone hidden
    assert not hidden or any(mark in text for mark in CONNECTION_MARKS)  # a library written before finds it


def test_a_connection_strings_password_is_neither_indexed_nor_previewed(tmp_path, caplog):
    """extract is what a sync and a preview read: the note's text comes back whole but the password, and the file
    is named as the caps name a file they cut."""
    from searchapp.ingest.connection_strings import HIDDEN_NOTE
    from searchapp.ingest.extractors import extract

    note = tmp_path / "harbour.md"
    note.write_text(f"# Harbour server redis://:{_HIDDEN}@cache\n\n"
                    f"The tide gauge writes to postgres://gauge:{_HIDDEN}@db.harbour/tides.\n")
    doc = extract(note)
    assert _HIDDEN not in doc.text and "tide gauge writes to postgres://gauge:" in doc.text
    assert doc.title.startswith("Harbour server redis://:***") and _HIDDEN not in doc.title  # a hit shows its title
    assert any(HIDDEN_NOTE in n for n in doc.notes)
    assert f"{note}: {HIDDEN_NOTE} (2: redis, postgres)" in caplog.messages and _HIDDEN not in caplog.text


def _unbounded(pattern: re.Pattern[str]) -> list[str]:
    """The repeats of `pattern` with no upper bound (`*`, `+`, `{n,}`): what lets a match run the length of a line."""
    import re._parser as sre_parse  # the parser Python's own engine compiles from

    found: list[str] = []

    def walk(items: object) -> None:
        for op, arg in items:  # type: ignore[attr-defined]
            if op in (sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT, sre_parse.POSSESSIVE_REPEAT):
                if arg[1] == sre_parse.MAXREPEAT:
                    found.append(str(op))
                walk(arg[2])
            elif op in (sre_parse.SUBPATTERN, sre_parse.ATOMIC_GROUP, sre_parse.ASSERT, sre_parse.ASSERT_NOT):
                walk(arg[-1])
            elif op is sre_parse.BRANCH:
                for branch in arg[1]:
                    walk(branch)
    walk(sre_parse.parse(pattern.pattern, pattern.flags))
    return found


def test_a_huge_line_is_checked_in_bounded_steps():
    """The checks run on every text of every sync; a reviewer's 200 KB line took 38 s (an unbounded run after each
    `curl`). The connection strings' expressions have no unbounded repeat (each URL costs its few hundred
    characters) and look at _LOOKED_AT matches at most; a 2 MB line of URLs and a 200 KB line are checked, and what
    stands at their end is still found."""
    from searchapp.ingest import connection_strings as cs

    assert _unbounded(cs._USERINFO) == [] and _unbounded(cs._PARAMETER) == [] and _unbounded(cs._SCHEME) == []
    assert _unbounded(cs._PAIR) == [] and _unbounded(cs._PAIR_KEY) == [] and _unbounded(cs._CONNECTION_KEY) == []
    assert _unbounded(re.compile(".*")) != []  # the walk sees one
    two_mb = "see https://u:" + "a" * 2 * 2**20  # one line, no "@": the password's run ends at its cap and fails
    assert cs.connection_passwords(two_mb) == [] and secret_content(two_mb, "dump.json") is None
    many = f"x://u:{_HIDDEN}@h " * 100_000  # 2 MB of URLs holding one: judged up to the cap, the rest hidden unjudged
    assert len(cs.connection_passwords(many)) == 100_000
    line = "curl x " * 30_000 + f"postgres://u:{_HIDDEN}@db/x"  # a 200 KB line: its end still looked at
    assert [s for _, _, s in cs.connection_passwords(line)] == ["postgres"]
    pairs = "Server=db;Password=" * 100_000 + _HIDDEN  # a 2 MB line of pairs: each judged in its 1 KB run, at most
    assert [pairs[a:b] for a, b, _ in cs.connection_passwords(pairs)][-1] == _HIDDEN
    assert secret_content(line, "deploy.sh") is None and secret_content(line + "\n", "config.json") is None
