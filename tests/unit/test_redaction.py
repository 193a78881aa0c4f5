"""Secret redaction: credential formats, assignments, key blocks, URL/curl credentials, environment.

Credential samples are built here from their documented formats (deterministic pseudo-random
bodies), so no real credential is in the repository.
"""

from __future__ import annotations

import random
import string
import zlib

import pytest

from tui_agent.safety import env_values, redaction
from tui_agent.safety.hygiene import REDACTED, redact
from tui_agent.safety.token_checks import base62

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
    assert kinds == {"gitleaks:github-pat", "noseyparker:np.github.1", "kingfisher:kingfisher.github.1",
                     "prefixed-token", "assignment-password"}


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
    assert env_values.value_pattern(values) is env_values.value_pattern(redaction.secret_values(dict(env)))
    other = env_values.value_pattern(redaction.secret_values({"TWO_TOKEN": "value-two-456"}))
    assert other is not env_values.value_pattern(values)


def test_redact_reads_os_environ_by_default(monkeypatch):
    monkeypatch.setenv("TUI_TEST_SERVICE_API_KEY", "zq-unique-secret-4711")
    assert redact("echo zq-unique-secret-4711") == f"echo {REDACTED}"


def test_redact_leaves_values_of_location_variables_alone():
    env = {"TIKTOKEN_CACHE_DIR": "/opt/tokenizers/cache2", "SSH_KEY_PATH": "/home/me/.ssh/id_ed25519",
           "REAL_API_KEY": "abcdef123456"}
    text = "paths /opt/tokenizers/cache2 and /home/me/.ssh/id_ed25519, key abcdef123456"
    assert redact(text, env) == f"paths /opt/tokenizers/cache2 and /home/me/.ssh/id_ed25519, key {REDACTED}"



def test_the_model_boundary_sends_a_text_marked_redacted_as_is_and_scans_anything_made_from_it(monkeypatch):
    from tui_agent.config import Settings
    from tui_agent.model.llm import LLM
    from tui_agent.tools.visit import extraction_messages

    secret = "boundary-" + "k3Yq9ZpR7wXv2LmN8bTc"
    monkeypatch.setenv("TUI_TEST_BOUNDARY_API_KEY", secret)
    llm = LLM(Settings())
    marked = redaction.Redacted("a page, redacted before")
    derived = marked + " and then " + secret  # any change gives a plain str: scanned again
    assert type(derived) is str
    sent = llm._redacted([{"role": "user", "content": marked}, {"role": "user", "content": derived}])
    assert sent[0]["content"] is marked
    assert secret not in sent[1]["content"] and REDACTED in sent[1]["content"]
    # the extraction prompt is marked, so its goal and URL are redacted where it is built
    [message] = extraction_messages(f"find {secret}", f"http://x.test/?api_key={secret}", "the page")
    assert isinstance(message["content"], redaction.Redacted) and secret not in message["content"]


# --- invisible and fullwidth characters inside a secret ------------------------------------------

INVISIBLES = ["\u200b", "\u00ad", "\u2060", "\ufeff", "\u202e", "\u0600", "\U00013430", "\U000e0041"]


@pytest.mark.parametrize("hidden", INVISIBLES, ids=lambda c: f"U+{ord(c):04X}")
def test_a_token_with_an_invisible_character_inside_is_redacted_whole(hidden):
    token = "ghp_" + body(36)
    for i in (1, 3, 4, 20, len(token) - 1):
        text = f"the token {token[:i]}{hidden * (1 + i % 2)}{token[i:]} leaked"
        assert redact(text, {}) == f"the token {REDACTED} leaked", i


def test_a_token_written_in_fullwidth_letters_is_redacted_whole():
    token = "ghp_" + body(36)
    wide = "".join(chr(ord(c) + 0xFEE0) if c.isalnum() and i % 3 else c for i, c in enumerate(token))
    assert redact(f"see ｛{wide}｝ there", {}) == f"see ｛{REDACTED}｝ there"


def test_an_environment_secret_with_a_soft_hyphen_or_zero_width_space_inside_is_redacted():
    value = body(32, seed=7)
    env = {"SERVICE_TOKEN": value}
    for hidden in ("\u00ad", "\u200b\u200c"):
        text = f"it printed {value[:10]}{hidden}{value[10:]}."
        assert redact(text, env) == f"it printed {REDACTED}."
