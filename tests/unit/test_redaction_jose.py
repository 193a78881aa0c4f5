"""JSON Web Tokens in every compact form are redacted, known by their header, whatever their payload."""

from __future__ import annotations

import base64
import json

from tui_agent.safety.redaction import redact


def _b64(obj: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


HEADER = _b64({"alg": "HS256", "typ": "JWT"})
PAYLOAD = _b64({"sub": "user-4711", "role": "admin", "iat": 1700000000})


def test_a_signed_token_in_prose_is_redacted_whole():
    token = f"{HEADER}.{PAYLOAD}.c2lnbmF0dXJlLW9mLXRoZS10b2tlbi14eXo"
    out = redact(f"the cookie was {token} yesterday")
    assert token not in out and PAYLOAD not in out and out.startswith("the cookie was ") and out.endswith(" yesterday")


def test_an_unsigned_token_without_its_last_segment_is_redacted():
    assert PAYLOAD not in redact(f"session: {HEADER}.{PAYLOAD}")


def test_an_encrypted_token_of_five_segments_is_redacted_whole():
    jwe = ".".join([_b64({"alg": "RSA-OAEP", "enc": "A256GCM"}), "OKOawDo13gRp2ojaHV7LFpZcgV7T6DVZKTyKOMTYUmKoTCVJ",
                    "48V1_ALb6US04U3b", "5eym8TW_c8SuK0ltJ3rpYIzOeDQz7TALvtu6UG9oMo4vpzs9tX_EFShS8iB7j6ji",
                    "XFBoMYUZodetZdvTiFvSkQ"])
    out = redact(f"x {jwe} y")
    assert "48V1_ALb6US04U3b" not in out and "XFBoMYUZodetZdvTiFvSkQ" not in out


def test_base64_json_without_a_jose_header_is_left_alone():
    text = f"{_b64({'page': 2, 'size': 50})}.{_b64({'cursor': 'next'})}"
    assert redact(text) == text
