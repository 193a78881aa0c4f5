"""Secret redaction: credential formats, assignments, key blocks, URL/curl credentials, environment.

Credential samples are built here from their documented formats (deterministic pseudo-random
bodies), so no real credential is in the repository.
"""

from __future__ import annotations

import random
import string
import zlib

import pytest

from tui_agent import redaction
from tui_agent.hygiene import REDACTED, redact
from tui_agent.secret_rules import base62

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"


def body(n: int, alphabet: str = ALNUM, seed: int = 0) -> str:
    rng = random.Random(f"{n}{alphabet}{seed}")
    while True:
        s = "".join(rng.choice(alphabet) for _ in range(n))
        if alphabet != ALNUM or (any(c.isdigit() for c in s) and any(c.isalpha() for c in s)):
            return s


def jwt() -> str:
    import base64
    import json

    def part(obj):
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part({'sub': '1234567890', 'iat': 1516239022})}.{body(43)}"


FORMATS = {
    "aws temporary key id": "ASIA" + body(16, string.ascii_uppercase + "234567"),
    "aws access key id": "AKIA" + body(16, string.ascii_uppercase + "234567", 1),
    "github classic token": "ghp_" + body(36),
    "github fine-grained": "github_pat_11" + body(20) + "_" + body(59, ALNUM, 2),
    "gitlab pat": "glpat-" + body(20),
    "stripe live secret": "sk_live_" + body(24),
    "stripe test secret": "sk_test_" + body(24, ALNUM, 1),
    "stripe restricted": "rk_live_" + body(24, ALNUM, 2),
    "google api key": "AIza" + body(35),
    "npm token": "npm_" + body(36, ALNUM, 3),
    "pypi token": "pypi-AgEIcHlwaS5vcmc" + body(60, ALNUM + "-_"),
    "hugging face": "hf_" + body(34, ALNUM, 4),
    "slack bot": "xoxb-" + body(12, string.digits) + "-" + body(13, string.digits) + "-" + body(24),
    "slack app": "xapp-1-A" + body(10, string.digits + string.ascii_uppercase) + "-" + body(13, string.digits) + "-" + body(64, HEX),
    "slack refresh": "xoxe-1-" + body(146, ALNUM, 5),
    "openai project": "sk-proj-" + body(74, ALNUM + "-_") + "T3BlbkFJ" + body(74, ALNUM + "-_", 1),
    "anthropic": "sk-ant-api03-" + body(93, ALNUM + "-_") + "AA",
    "sendgrid": "SG." + body(22, ALNUM + "-_") + "." + body(43, ALNUM + "-_"),
    "twilio api key": "SK" + body(32, HEX),
    "mailgun": "key-" + body(32, HEX),
    "shopify": "shpat_" + body(32, HEX),
    "digitalocean": "dop_v1_" + body(64, HEX),
    "telegram bot": body(10, string.digits) + ":AA" + body(33, ALNUM + "_-"),
    "databricks": "dapi" + body(32, HEX),
    "doppler": "dp.pt." + body(43),
    "linear": "lin_api_" + body(40),
    "postman": "PMAK-" + body(24, HEX) + "-" + body(34, HEX),
    "grafana cloud": "glc_" + body(40, ALNUM + "+/"),
    "grafana service account": "glsa_" + body(32) + "_" + body(8, HEX),
    "new relic": "NRAK-" + body(27, string.ascii_uppercase + string.digits),
    "vault": "hvs." + body(95, ALNUM + "_-"),
    "atlassian": "ATATT3" + body(186, ALNUM + "_-="),
    "azure ad client secret": "bP8" + "8Q~" + body(34, ALNUM + "_~.-"),
    "heroku": "HRKU-AA" + body(58, ALNUM + "_-"),
    "square": "sq0atp-" + body(22, ALNUM + "_-"),
    "jwt without bearer": jwt(),
}


@pytest.mark.parametrize("secret", FORMATS.values(), ids=FORMATS.keys())
def test_redact_replaces_documented_credential_formats_in_prose(secret):
    out = redact(f"the value {secret} was printed", {})
    assert out == f"the value {REDACTED} was printed"


@pytest.mark.parametrize("secret", list(FORMATS.values())[:6], ids=list(FORMATS.keys())[:6])
def test_redact_finds_credentials_inside_quotes_urls_and_json(secret):
    text = f'{{"config": "{secret}"}} and https://example.com/?k={secret}&x=1'
    out = redact(text, {})
    assert secret not in out and out.count(REDACTED) == 2


@pytest.mark.parametrize(
    "placeholder",
    ["ghp_" + "x" * 36, "AKIA" + "X" * 16, "xoxb-xxxxxxxxx-xxxxxxxxxx-xxxxxxxxxxxx", "sk-learn", "glpat-XXXXXXXXXXX-XXXXXXXX",
     "pk_live_" + "a1B2c3D4e5F6g7H8i9J0k1L2"],
)
def test_redact_leaves_placeholders_and_public_keys(placeholder):
    text = f"set it to {placeholder} first"
    assert redact(text, {}) == text


def test_redact_uses_the_github_checksum_to_keep_a_real_token_that_looks_uniform():
    random_part = "a" * 29 + "b"
    token = "ghp_" + random_part + base62(zlib.crc32(random_part.encode()))
    assert redact(f"t {token}", {}) == f"t {REDACTED}"
    assert redact("t ghp_" + random_part + "000000", {}) == "t ghp_" + random_part + "000000"


def test_redact_requires_a_jwt_header_naming_its_algorithm():
    not_jwt = "eyJ0eXAiOiJ4In0.eyJhIjoxfQ." + body(20)  # header {"typ":"x"}: no alg
    assert redact(f"v {not_jwt}", {}) == f"v {not_jwt}"
    assert redact(f"v {jwt()}", {}) == f"v {REDACTED}"


# --- blocks, URLs, headers, curl --------------------------------------------------------------

PEM_BODY = "\n".join(body(64, ALNUM + "+/", i) for i in range(5))


def test_redact_replaces_a_whole_pem_private_key_block():
    text = f"key:\n-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----\nafter"
    assert redact(text, {}) == f"key:\n{REDACTED}\nafter"


def test_redact_replaces_a_pem_block_quoted_in_json_and_one_without_end():
    escaped = PEM_BODY.replace("\n", "\\n")
    text = f'{{"private_key": "-----BEGIN PRIVATE KEY-----\\n{escaped}\\n-----END PRIVATE KEY-----\\n", "x": 1}}'
    assert redact(text, {}) == f'{{"private_key": "{REDACTED}\\n", "x": 1}}'
    cut = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{PEM_BODY}"
    assert redact(cut, {}) == REDACTED


def test_redact_leaves_public_keys_and_certificates():
    text = f"-----BEGIN PUBLIC KEY-----\n{PEM_BODY}\n-----END PUBLIC KEY-----"
    assert redact(text, {}) == text


def test_redact_masks_the_password_of_a_url_and_keeps_scheme_user_and_host():
    text = "db at postgres://alice:s3cr3t-Pa55@db.example.com:5432/app and https://example.com/a:b@c"
    assert redact(text, {}) == f"db at postgres://alice:{REDACTED}@db.example.com:5432/app and https://example.com/a:b@c"


def test_redact_leaves_url_placeholders():
    text = "mongodb://user:${PASSWORD}@host/db and https://user:<password>@host/"
    assert redact(text, {}) == text


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("Authorization: Basic dXNlcjpwYXNzd29yZDEyMw==", f"Authorization: Basic {REDACTED}"),
        ("Authorization: Bearer abc.def-123_456ghij", f"Authorization: Bearer {REDACTED}"),
        ('"authorization": "Token 22cb987851bc5659229114c62e60c79abd0d2c08"', f'"authorization": "Token {REDACTED}"'),
        ("X-Api-Key: c4ed6c21-9dd5-4a05-8e3f-c56d1151cce8", f"X-Api-Key: {REDACTED}"),
    ],
)
def test_redact_masks_authorization_and_api_key_headers(header, expected):
    assert redact(header, {}) == expected


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("curl -u alice:Pw9xQ2zL https://api.example.com", f"curl -u alice:{REDACTED} https://api.example.com"),
        ("curl --user 'bob:h0pk1ns~21s' -X POST https://x", f"curl --user 'bob:{REDACTED}' -X POST https://x"),
        ('curl -s \\\n  --user "j.smith:dB2yF6@qL9vZm1P#4J" https://x', f'curl -s \\\n  --user "j.smith:{REDACTED}" https://x'),
        ("curl -u sk_test_abc123DEF456ghi789JKL: https://api.stripe.com", f"curl -u {REDACTED}: https://api.stripe.com"),
    ],
)
def test_redact_masks_curl_user_passwords(command, expected):
    assert redact(command, {}) == expected


@pytest.mark.parametrize("command", ["curl -u $USER:$PASS https://x", "curl -u <user:password> https://x",
                                     "curl -u test:test https://x", "sudo -u postgres:admin1x psql"])
def test_redact_leaves_curl_placeholders_and_other_tools(command):
    assert redact(command, {}) == command


# --- assignments ------------------------------------------------------------------------------

SECRET = "Xk29fLq83vBn01Zt"


@pytest.mark.parametrize(
    "template",
    [
        'password = "{s}"', "password: {s}", '"client_secret": "{s}"', "API_KEY={s}", "export GITHUB_TOKEN={s}",
        "db_passwd = '{s}'", "--password {s}", "--api-key={s}", "<accessToken>{s}</accessToken>",
        'auth_token := "{s}"', "aws_secret_access_key = {s}", "secret_key: |\n  {s}", 'os.environ["MY_TOKEN"] = "{s}"',
        '<add key="ClearTextPassword" value="{s}" />', 'setenv("SERVICE_TOKEN", "{s}")', "Password={s};Server=db",
        '\\"apiKey\\": \\"{s}\\"', "machine api.example.com login me@example.com password {s}",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={s};EndpointSuffix=core.windows.net",
        "jdbc:mysql://db/app?user=root&password={s}&ssl=true",
    ],
)
def test_redact_masks_the_value_of_secret_named_assignments_and_keeps_the_name(template):
    out = redact(template.format(s=SECRET), {})
    assert out == template.format(s=REDACTED)


@pytest.mark.parametrize(
    "text",
    [
        "password = ${DB_PASSWORD}", "token: <your-token-here>", 'api_key = os.environ["API_KEY"]', "token = self._token",
        'token_url = "https://example.com/oauth/token"', "max_tokens = 4096", "max_completion_tokens: 100000",
        'password_field = "password"', "password: changeme", 'secret_name = "prod-db-credentials-2024"',
        "public_key = 9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit", "tokenizer = cl100k_base",
        "if token == expected_token:", "def extract(self, member, path=None, pwd=None):",
        "the key findings: 42 of 100 samples", 'key = "primary"', 'kms_key_id = "555ea4a3-d53a-4412-9c66-3a7cb667b0d6"',
        "Use a password manager: Bitwarden or 1Password.",
    ],
)
def test_redact_leaves_references_placeholders_labels_and_prose(text):
    assert redact(text, {}) == text


def test_redact_masks_kubernetes_secret_data_values():
    text = "apiVersion: v1\nkind: Secret\ndata:\n  password: UyFCXCpkJHpEc2I9\n  extra: YWRtaW46cGFzc3dvcmQ=\nmetadata:\n  name: x\n"
    out = redact(text, {})
    assert "UyFCXCpkJHpEc2I9" not in out and "YWRtaW46cGFzc3dvcmQ=" not in out and "name: x" in out


def test_redact_leaves_data_of_other_kinds():
    text = "kind: ConfigMap\ndata:\n  greeting: SGVsbG8gd29ybGQh\n"
    assert redact(text, {}) == text


# --- what must stay intact --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "commit 3f5a9c1e8b7d6a5f4e3c2b1a0f9e8d7c6b5a4f3e fixed it",
        "id 123e4567-e89b-42d3-a456-426614174000 in the log",
        "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
        '<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==">',
        "The key to the 2024 results is that the token economy grew 35% (see https://example.com/report?id=42).",
        "Bearer bonds were common; a bearer instrument is payable to whoever holds it.",
    ],
)
def test_redact_leaves_hashes_uuids_image_data_urls_and_prose_alone(text):
    assert redact(text, {}) == text


def test_redact_is_idempotent():
    text = "\n".join([*(f"x {s}" for s in FORMATS.values()), f"password = '{SECRET}'",
                      "https://u:Pw9xQ2zL@h/", "curl -u a:Pw9xQ2zL https://x", "Authorization: Basic dXNlcjpwYXNzd29yZDEyMw=="])
    once = redact(text, {})
    assert redact(once, {}) == once
    assert all(s not in once for s in FORMATS.values())


def test_find_secrets_names_the_detector_and_the_vendored_rule():
    kinds = {f.kind for f in redaction.find_secrets(f"ghp_{body(36)} and password = '{SECRET}'", {})}
    assert kinds == {"github-token", "gitleaks:github-pat", "noseyparker:np.github.1", "assignment-password"}


# --- environment values -----------------------------------------------------------------------


def test_redact_replaces_random_looking_values_of_secret_named_env_vars():
    env = {"MY_API_KEY": "abcdef123456", "GITHUB_TOKEN": "tok-987654", "DB_PASSWORD": "hunter22",
           "app_secret": "s3cr3t!!", "HOME": "/home/user-long-value"}
    text = "k=abcdef123456 t=tok-987654 p=hunter22 s=s3cr3t!! h=/home/user-long-value"
    assert redact(text, env) == f"k={REDACTED} t={REDACTED} p={REDACTED} s={REDACTED} h=/home/user-long-value"


@pytest.mark.parametrize("value", ["ollama", "x", "none", "test-key", "true", "100000", "/opt/models/cache",
                                   "http://localhost:11434/v1", "sk-local", "placeholder"])
def test_redact_never_masks_ordinary_env_values(value):
    env = {"OPENAI_API_KEY": value}
    text = f"pull {value} from the {value} server"
    assert redact(text, env) == text


def test_redact_masks_the_url_encoded_form_of_an_env_secret():
    env = {"SERVICE_TOKEN": "a1b2/c3d4+e5f6=g7"}
    assert redact("q=a1b2%2Fc3d4%2Be5f6%3Dg7 and a1b2/c3d4+e5f6=g7", env) == f"q={REDACTED} and {REDACTED}"


def test_redact_prefers_the_longest_secret_when_values_overlap():
    env = {"A_KEY": "secret42value", "B_KEY": "secret42value-and-more"}
    assert redact("x secret42value-and-more y", env) == f"x {REDACTED} y"


def test_redact_compiles_the_env_pattern_once_per_environment():
    env = {"ONE_TOKEN": "value-one-123"}
    values = redaction.secret_values(env)
    assert redaction._env_pattern(values) is redaction._env_pattern(redaction.secret_values(dict(env)))
    other = redaction._env_pattern(redaction.secret_values({"TWO_TOKEN": "value-two-456"}))
    assert other is not redaction._env_pattern(values)


def test_redact_reads_os_environ_by_default(monkeypatch):
    monkeypatch.setenv("TUI_TEST_SERVICE_API_KEY", "zq-unique-secret-4711")
    assert redact("echo zq-unique-secret-4711") == f"echo {REDACTED}"


def test_redact_leaves_values_of_location_variables_alone():
    env = {"TIKTOKEN_CACHE_DIR": "/opt/tokenizers/cache2", "SSH_KEY_PATH": "/home/me/.ssh/id_ed25519",
           "REAL_API_KEY": "abcdef123456"}
    text = "paths /opt/tokenizers/cache2 and /home/me/.ssh/id_ed25519, key abcdef123456"
    assert redact(text, env) == f"paths /opt/tokenizers/cache2 and /home/me/.ssh/id_ed25519, key {REDACTED}"


# --- formats from the maintained rule sets (gitleaks, Nosey Parker) ----------------------------

UPPER_ALNUM = string.ascii_uppercase + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits

# The families a corpus the redaction was not tuned on found missing (Nosey Parker's rule
# examples, trufflehog's detector tests), each in its provider's documented shape.
OTHER_SCANNER_FAMILIES = {
    "docker hub pat": "dckr_pat_" + body(27, ALNUM + "_-", 7),
    "adafruit io": "aio_" + body(28, ALNUM, 8),
    "dependency-track": "odt_" + body(32, ALNUM, 9),
    "tavily": "tvly-" + body(32, ALNUM, 10),
    "tavily dev": "tvly-dev-" + body(32, ALNUM, 11),
    "new relic user key": "NRAK-" + body(27, UPPER_ALNUM, 12),
    "new relic query key": "NRIQ-" + body(32, UPPER_ALNUM, 13),
    "pinecone": "pcsk_" + body(6, ALNUM, 14) + "_" + body(63, ALNUM, 15),
    "apify": "apify_api_" + body(36, ALNUM, 16),
    "rootly": "rootly_" + body(64, HEX, 17),
    "ramp": "ramp_sec_" + body(48, ALNUM, 18),
    "portainer": "ptr_" + body(43, ALNUM + "+/", 19) + "=",
    "nuget": "oy2" + body(43, LOWER_ALNUM, 20),
    "salesforce": "00D" + body(12, ALNUM, 21) + "!" + body(96, ALNUM + "._", 22),
}


@pytest.mark.parametrize("secret", OTHER_SCANNER_FAMILIES.values(), ids=OTHER_SCANNER_FAMILIES.keys())
def test_redact_masks_token_families_other_scanners_know(secret):
    for text in (f"the value {secret} was printed", f'export SOME_VALUE="{secret}"', f"--header {secret}"):
        out = redact(text, {})
        assert secret not in out and REDACTED in out, text
        assert all(secret[i:i + 8] not in out for i in range(len(secret) - 7)), out


def test_a_finding_names_the_vendored_rule_that_found_it():
    kinds = {f.kind for f in redaction.find_secrets(f"docker login -p {OTHER_SCANNER_FAMILIES['docker hub pat']}", {})}
    assert "noseyparker:np.dockerhub.1" in kinds
    kinds = {f.kind for f in redaction.find_secrets(f"key {OTHER_SCANNER_FAMILIES['rootly']}", {})}
    assert kinds == {"tui-agent:rootly-api-key"}


def noseyparker_examples() -> list[tuple[str, str, list[str]]]:
    """(rule id, example, secrets) for every example of the Nosey Parker rules in use: the
    regression corpus the rule set ships (its ``examples``), with the secret its rule captures."""
    import re2
    import yaml

    from tui_agent import rule_sets

    in_use = {r.id.split(":", 1)[1]: r for r in rule_sets.compiled().rules if r.id.startswith("noseyparker:")}
    out = []
    for path in sorted(rule_sets._data().joinpath("noseyparker").iterdir(), key=lambda p: p.name):
        if not path.name.endswith(".yml"):
            continue
        for rule in yaml.safe_load(path.read_text(encoding="utf-8"))["rules"]:
            if rule["id"] not in in_use:
                continue
            rx = re2.compile(rule_sets.re2_pattern(rule["pattern"]))
            groups = rule_sets.SECRET_GROUPS.get(rule["id"])
            for example in rule.get("examples") or []:
                m = rx.search(example)
                assert m, (rule["id"], example)
                secrets = [m.group(g) for g in groups] if groups else [g for g in m.groups() if g] or [m.group(0)]
                out.append((rule["id"], example, [s for s in secrets if s]))
    return out


# Examples that are placeholders or that a rule set reports but this redaction deliberately
# leaves (each with the reason); everything else in the corpus must be masked.
KNOWN_NOSEYPARKER_MISSES = {
    "np.mongodb.1": "a password containing '@' (bria@pass135!): only the part after the last '@' is taken as host",
    "np.odbc.1": "'Password =specialbill_user': a password that reads as an identifier",
    "np.postgres.1": "a second user:password in a multi-host URI",
    "np.reactapp.1": "REACT_APP_AUTH_USERNAME=bowie: a user name",
}


def leaked(secret: str, text: str, out: str, window: int = 8) -> bool:
    context = text.replace(secret, "\0")
    n = min(window, len(secret))
    return any(secret[i:i + n] in out and secret[i:i + n] not in context for i in range(len(secret) - n + 1))


def test_redact_masks_the_examples_the_vendored_rule_set_ships():
    from tui_agent.assignments import is_placeholder
    from tui_agent.rule_sets import uniform

    corpus = noseyparker_examples()
    assert len(corpus) > 300
    missed = []
    for rule_id, example, secrets in corpus:
        secrets = [s for s in secrets if not (uniform(s) or is_placeholder(s.strip("\"'")))]
        out = redact(example, {})
        if any(leaked(s, example, out) for s in secrets) and rule_id not in KNOWN_NOSEYPARKER_MISSES:
            missed.append((rule_id, example[:100], out[:100]))
    assert not missed


# --- long values, whole -----------------------------------------------------------------------

LONG_B64 = body(2400, ALNUM + "+/", 30)


@pytest.mark.parametrize(
    "template",
    ["PRIVATE_KEY_B64={s}\nNEXT=1", '{{"privateKey": "{s}", "x": 1}}', "private_key: {s}\nother: 1",
     '{{"auths": {{"https://index.docker.io/v1/": {{"auth": "{s}"}}}}}}'],
)
def test_redact_masks_a_long_secret_value_whole(template):
    out = redact(template.format(s=LONG_B64), {})
    assert out == template.format(s=REDACTED)


def test_redact_masks_a_pem_block_of_any_length_from_begin_to_end():
    key_body = "\n".join(body(64, ALNUM + "+/", i) for i in range(600))  # ~39 KB
    text = f"before\n-----BEGIN RSA PRIVATE KEY-----\n{key_body}\n-----END RSA PRIVATE KEY-----\nafter"
    assert redact(text, {}) == f"before\n{REDACTED}\nafter"


# --- linear time: each part of the text is read a bounded number of times -----------------------


class CountingPattern:
    """Wraps a compiled pattern and counts the characters its matches span."""

    def __init__(self, pattern):
        self.pattern, self.calls, self.chars = pattern, 0, 0

    def match(self, text, pos=0, *args):
        m = self.pattern.match(text, pos, *args)
        self.calls += 1
        self.chars += (m.end() - pos) if m else 0
        return m

    def __getattr__(self, name):
        return getattr(self.pattern, name)


def test_pem_body_after_many_begin_lines_is_read_once(monkeypatch):
    counting = CountingPattern(redaction._PEM_BODY)
    monkeypatch.setattr(redaction, "_PEM_BODY", counting)
    text = "-----BEGIN PRIVATE KEY-----\n" * 2000
    assert redact(text, {}) == REDACTED
    assert counting.calls == 1 and counting.chars <= len(text)


def test_assignment_values_are_read_a_bounded_number_of_times(monkeypatch):
    from tui_agent import assignments

    counting = CountingPattern(assignments._VALUE_RE)
    monkeypatch.setattr(assignments, "_VALUE_RE", counting)
    text = "password=" * 5000
    redact(text, {})
    assert counting.chars <= 2 * len(text)


def test_format_prefixes_inside_a_matched_token_are_not_tried_again(monkeypatch):
    from tui_agent import secret_rules

    calls = []
    real = secret_rules.plausible
    monkeypatch.setattr(secret_rules, "plausible", lambda name, token: calls.append(len(token)) or real(name, token))
    text = "sntrys_=" * 5000
    redact(text, {})
    assert sum(calls) <= len(text)


# --- code is not a credential -------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "    'HTTPBasicAuthHandler', 'ProxyBasicAuthHandler', 'AbstractDigestAuthHandler',",
        "            address=address, authkey=authkey, serializer=SERIALIZER,",
        "    def add_password(self, realm, uri, user, passwd, is_authenticated=False):",
        "             (None, 'joe', 'password', 'proxy.example.com:3128')),",
        "            resp = smtp.auth(\"LOGIN\", smtp.auth_login, initial_response_ok=True)",
        '            proxy_auth_hdr = "Proxy-Authorization"',
        "            capabilities = 'LOGINDISABLED AUTH=CRAM-MD5'",
        "        super(BasicAuthTests, self).setUp()",
        "    expectedchecksum = '4739770dd4d0e5f1b1677accfc3552ed3c8ef326'",
        '    base_key = "Software\\\\Python\\\\PythonCore\\\\{}.{}".format(',
        "        url = \"http://User:Pass@www.python.org:080/doc/?query=yes#frag\"",
        "                           [('Authorization', 'Basic dXNlcg==')], {}))",
        # site-packages
        'MovedAttribute("HTTPPasswordMgr", "urllib2", "urllib.request"),',
        '"api_key": v1_api_key,',
        '"azure_password": "AZURE_PASSWORD",',
        'PASS_THROUGH_ENDPOINTS = "pass_through_endpoints"',
        "master_key: os.environ/LITELLM_MASTER_KEY",
        "# Format: AWS4-HMAC-SHA256 Credential=Bearer $LITELLM_MASTER_KEY/date/region/service/aws4_",
        "# langfuse returns {'Authorization': 'Basic <base64(username:password)>'}",
        "# authn is enabled (JWT, OAuth2, OAuth2-proxy), authz must run.",
        'auth: "OneLogin_Saml2_Auth",',
        "- stores key: `provider_spend:{provider}:1d`, value: response_cost",
        '"extra_hints": ["your-secret-key", "us-east-1"],',
        "if key_node.tag == 'tag:yaml.org,2002:value':",
        '{"Authorization": "Bearer os.environ/COHERE_API_KEY"}',
    ],
)
def test_redact_leaves_library_code_that_names_credentials(text):
    assert redact(text, {}) == text


def test_a_quoted_label_does_not_swallow_the_next_key():
    text = 'passwordLabel:"Password:",rememberMeLabel:"Remember me:"'
    assert redact(text, {}) == text
