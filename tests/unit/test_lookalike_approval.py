"""A call waiting for approval names the real (punycode) host of a look-alike address it would visit."""

from __future__ import annotations

from types import SimpleNamespace

from tui_agent.screens.trace_text import pending_content
from tui_agent.web.domains import lookalike_addresses


def test_the_waiting_call_says_a_cyrillic_look_alike_is_punycode():
    request = SimpleNamespace(step=2, tool="visit", arguments={"url": "https://\u0430pple.com/login", "goal": "x"})
    text = pending_content(request).plain
    assert "look-alike address: \u0430pple.com = xn--pple-43d.com" in text


def test_plain_ascii_addresses_carry_no_look_alike_note():
    request = SimpleNamespace(step=1, tool="visit", arguments={"url": "https://apple.com/", "goal": "x"})
    assert "look-alike" not in pending_content(request).plain


def test_look_alikes_are_found_at_any_depth_and_in_punycode_too_each_once():
    args = {"urls": ["https://\u0430pple.com/a", "see http://user@xn--pple-43d.com:8080/b"], "q": "https://example.org"}
    assert lookalike_addresses(args) == ["\u0430pple.com = xn--pple-43d.com"]
