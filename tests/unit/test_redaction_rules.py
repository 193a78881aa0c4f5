"""Redaction against corpora it was not tuned on: token families from the maintained rule sets
(gitleaks, Nosey Parker) and the examples those sets ship, long values masked whole, bounded reads
on crafted text (linear time), and real library code that names credentials without holding one.
"""

from __future__ import annotations

import json
import re
import string
from pathlib import Path

import pytest

from tests.unit.test_redaction import ALNUM, HEX, body
from tui_agent.safety import redaction
from tui_agent.safety.hygiene import REDACTED, redact


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

    from tui_agent.safety import rule_sets

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
    from tui_agent.safety.assignments import is_placeholder
    from tui_agent.safety.rule_sets import uniform

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
    from tui_agent.safety import detectors

    counting = CountingPattern(detectors._PEM_BODY)
    monkeypatch.setattr(detectors, "_PEM_BODY", counting)
    text = "-----BEGIN PRIVATE KEY-----\n" * 2000
    assert redact(text, {}) == REDACTED + "\n"  # the block ends with its last line, not the newline after
    assert counting.calls == 1 and counting.chars <= len(text)


def test_assignment_values_are_read_a_bounded_number_of_times(monkeypatch):
    from tui_agent.safety import assignments

    counting = CountingPattern(assignments._VALUE_RE)
    monkeypatch.setattr(assignments, "_VALUE_RE", counting)
    text = "password=" * 5000
    redact(text, {})
    assert counting.chars <= 2 * len(text)


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


# --- detect-secrets' plugin test strings (a third corpus) ---------------------------------------

DETECT_SECRETS = Path(__file__).resolve().parents[1] / "fixtures" / "detect_secrets_samples.jsonl"
NOT_SECRETS = {"ip_public"}  # a public IP address is not a credential here
KNOWN_DETECT_SECRETS_MISSES = {
    "eyJ0eXAiOiJKV1QiLA0KImFsZyI6IkhTMjU2In0.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ":
        "a JWT without its signature part",
    "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJuYW1lIjoiSm9lIiwKInN0YXR1cyI6ImVtcGxveWVlIgp9": "a JWT without its signature part",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ":
        "a JWT without its signature part",
    "glcbt-helloworld380_testin": "a CI build token in a shape GitLab does not issue (gitleaks' rule wants 20 characters)",
    "glptt-Need5_T00-be-exactly-40-chars--ELse_fail": "a trigger token must be 40 hex characters",
}


def detect_secrets_samples() -> list[dict]:
    with DETECT_SECRETS.open(encoding="utf-8") as f:
        return [r for r in map(json.loads, f) if "_meta" not in r]


def placeholder(text: str) -> bool:
    """xxxx…, or the words themselves (https://username:password@…)."""
    return re.search(r"(.)\1{5,}", text) is not None or "username:password" in text


def test_redact_masks_detect_secrets_true_samples():
    samples = detect_secrets_samples()
    assert len(samples) > 100
    missed = [s["text"] for s in samples if s["should_flag"] and s["plugin"] not in NOT_SECRETS
              and not placeholder(s["text"]) and s["text"] not in KNOWN_DETECT_SECRETS_MISSES
              and redact(s["text"], {}) == s["text"]]
    assert not missed


def test_netrc_lines_are_read_once_each_however_many_keywords_they_hold(monkeypatch):
    from tui_agent.safety import assignments

    reads = []
    real = assignments._NetrcLines._login_end
    monkeypatch.setattr(assignments._NetrcLines, "_login_end", lambda self, start: reads.append(start) or real(self, start))
    text = "key " * 20_000 + "\nmachine db.example login alice password " * 3 + "Zq8mW3rT9pLx2v\n"
    out = redact(text, {})
    assert out.endswith("password [REDACTED]\n")
    assert len(reads) <= text.count("\n") + 1  # one read per line, not one per keyword


def test_a_begin_private_key_line_without_end_does_not_swallow_the_prose_after_it():
    key_lines = "\n".join(body(64, ALNUM + "+/", i) for i in range(3)) + "\nAbCd=="
    prose = "The deploy notes go on here: rotate the key, then restart the service.\nThanks, ops"
    for begin in ("-----BEGIN PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----"):
        text = f"before\n{begin}\n{key_lines}\n{prose}"
        assert redact(text, {}) == f"before\n{REDACTED}\n{prose}"
        assert redact(f"{begin} {prose}", {}) == f"{REDACTED} {prose}"
