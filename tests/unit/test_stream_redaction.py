"""StreamRedactor: what waits, how long, and what the pieces add up to."""

from __future__ import annotations

from tui_agent.safety.redaction import REDACTED, redact
from tui_agent.safety.stream_redaction import STREAM_BATCH_CHARS, STREAM_HOLDBACK_CHARS, StreamRedactor

PEM = ("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n"
       "Zq8mW3rT9pLx2vK7bN4cR6tYaB3dE5fG7hJ9kL1mN3pQ5rS7tU9v\nAbCd==\n-----END PRIVATE KEY-----\n")


def stream(text: str, size: int, environ=None) -> list[str]:
    r = StreamRedactor(environ if environ is not None else {})
    out = [r.feed(text[i:i + size]) for i in range(0, len(text), size)]
    return out + [r.flush()]


def test_a_private_key_block_waits_for_its_end_line_and_goes_out_as_one_mask():
    text = f"The key:\n{PEM}and prose after it."
    for size in (1, 4, 9, 64):
        out = stream(text, size)
        assert "".join(out) == redact(text, {}) == f"The key:\n{REDACTED}\nand prose after it."
        assert not any("MIIE" in piece or "-----BEGIN" in piece for piece in out)


def test_prose_goes_out_as_it_streams_not_only_at_the_end():
    text = "a plain sentence with many words in it and no secret at all. " * 20
    out = stream(text, 3)
    assert "".join(out) == text
    assert len(out[-1]) <= STREAM_BATCH_CHARS + 20  # only the last batch waited for the end


def test_a_run_without_whitespace_waits_at_most_the_holdback_and_is_then_shown_redacted():
    token = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    text = token + "x" * (2 * STREAM_HOLDBACK_CHARS)
    r = StreamRedactor({})
    shown = [r.feed(text[i:i + 16]) for i in range(0, len(text), 16)]
    assert shown[len(token) // 16] == ""  # the token's run waits...
    before_end = "".join(shown)
    assert before_end and len(text) - len(before_end) <= STREAM_HOLDBACK_CHARS  # ...but not for ever
    assert token[:8] not in before_end + r.flush()


def test_a_value_after_a_provider_name_streams_masked_in_any_pieces():
    value = "EeOPHL7PyBlUk0qkJX72sDtdNL3WLdpxg1czllR"
    text = f'the template client is set up: apiTemplate := "{value}"\nand cloudmersive: {value} too.\n'
    expected = redact(text, {})
    assert value not in expected
    for size in (1, 3, 7, 16, 50):
        out = stream(text, size)
        assert "".join(out) == expected
        assert not any(value[:8] in piece for piece in out)
