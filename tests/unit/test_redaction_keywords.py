"""Secrets after a keyword without an assignment operator, prefixed tokens of unknown providers,
and key blocks without an END line (tui_agent.safety.keywords, redaction._pem_spans)."""

from __future__ import annotations

import random
import string

import pytest

from tui_agent.safety import keywords
from tui_agent.safety.hygiene import REDACTED, redact

ALNUM = string.ascii_letters + string.digits


def rand(n: int, seed: int = 0, alphabet: str = ALNUM) -> str:
    rng = random.Random(f"{n}-{seed}")
    while True:
        s = "".join(rng.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in s) and any(c.isupper() for c in s) and any(c.islower() for c in s):
            return s


TOKEN = rand(32)
HEX = "".join(random.Random(5).choices("0123456789abcdef", k=40))


@pytest.mark.parametrize("template", [
    "my api key is {s} so use it",
    "the access token: {s}",
    "Token\n    {s}\n",
    "here is the secret - {s}.",
    "password is {s}",
    "**API key:** `{s}`",
    "client secret {s}",
    "the credentials are {s}, keep them safe",
])
@pytest.mark.parametrize("secret", [TOKEN, HEX])
def test_redact_masks_a_random_value_after_a_secret_word_without_an_operator(template, secret):
    assert redact(template.format(s=secret), {}) == template.format(s=REDACTED)


def test_redact_masks_a_short_password_after_a_password_word():
    assert redact("my password is Tr0ub4dor&3 now", {}) == f"my password is {REDACTED} now"


@pytest.mark.parametrize("text", [
    "the api key is stored in a vault",
    "token count 12345 of 4096",
    "password hashing with bcrypt and argon2id",
    "the secret sauce of FastAPI",
    "token = tokenize.TokenInfo(1, 'x')",
    "('joe:password@proxy.example.com:3128',",
    "api key: ${OPENAI_API_KEY}",
    "token /home/user/.config/gh/token.json",
    "see the token https://example.com/docs/tokens/overview2024",
    "password is changeme",
    "secret Lavender》专辑。同年",
    "passwords must be 8-64 characters long",
    "the token limit_exceeded_error_code_2",
    "access token TOKEN_ENVIRONMENT_VARIABLE",
    'VERSION = os.getenv("BETA_VERSION", "token-counting-2024-11-01")',
    '_URL = "https://auth.example.com/oauth/token"\n_X509_SUBJECT_TOKEN_TYPE = "urn:x:params:oauth:token-type:x509"',
    'GRANT = "urn:ietf:params:oauth:token-type:access_token"\n_RFC8693_GRANT_TYPE: Final = "x"',
])
def test_redact_leaves_prose_and_code_after_a_secret_word(text):
    assert redact(text, {}) == text


def test_keyword_near_token_leaves_name_equals_value_to_the_assignment_detector():
    found = [kind for _, _, kind in keywords.keyword_spans(f"password = '{TOKEN}'")]
    assert "keyword-near-token" not in found


@pytest.mark.parametrize("prefix", ["vcp_", "shpss_", "cfk_", "zz-"])
def test_redact_masks_a_prefixed_random_token_of_a_provider_no_rule_knows(prefix):
    text = f"deploy with {prefix}{rand(40, 3)} today"
    assert redact(text, {}) == f"deploy with {REDACTED} today"


@pytest.mark.parametrize("text", [
    "check_assertRaisesRegexWithCallableAndMessage2",
    "get_someVeryLongCamelCaseMethodNameForTests",
    "sha_0123456789abcdef0123456789abcdef01234567",
    "img_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef1",
    '-> "file-bGl0ZWxsbTpmaWxlLWFiYzEyMzttb2RlbCxncHQtNG8taWZvb2Q"',  # base64 of "litellm:file-abc123;…"
])
def test_redact_leaves_identifiers_shaped_like_prefixed_tokens(text):
    assert redact(text, {}) == text


KEY_LINES = "\n".join(rand(64, i, ALNUM + "+/") for i in range(4))


def test_a_begin_private_key_line_without_end_does_not_swallow_the_prose_after_it():
    text = f"-----BEGIN PRIVATE KEY-----\n{KEY_LINES}\nAb8=\n\nThe key above was pasted by mistake, rotate it."
    assert redact(text, {}) == f"{REDACTED}\n\nThe key above was pasted by mistake, rotate it."


def test_a_begin_line_alone_masks_only_itself():
    text = "-----BEGIN RSA PRIVATE KEY----- is the line a key file starts with"
    assert redact(text, {}) == f"{REDACTED} is the line a key file starts with"


def test_a_key_quoted_in_json_without_end_is_masked_to_its_closing_quote():
    body = KEY_LINES.replace("\n", "\\n")
    text = '{"private_key": "-----BEGIN PRIVATE KEY-----\\n' + body + '\\n", "client_email": "a@b.example"}'
    assert redact(text, {}) == '{"private_key": "' + REDACTED + '", "client_email": "a@b.example"}'


def test_an_armored_pgp_block_with_headers_and_checksum_is_masked_whole():
    text = f"-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n{KEY_LINES}\n=Ab3d\n-----END PGP PRIVATE KEY BLOCK-----\nafter"
    assert redact(text, {}) == f"{REDACTED}\nafter"


def test_a_secret_found_once_is_masked_wherever_else_it_occurs_in_the_text():
    text = f"stripe token = '{TOKEN}'\nlog: retrying with {TOKEN} | {TOKEN}"
    assert redact(text, {}) == f"stripe token = '{REDACTED}'\nlog: retrying with {REDACTED} | {REDACTED}"
