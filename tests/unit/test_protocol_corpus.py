"""The protocol corpus: real and constructed model replies, each with its expected parse.

tests/fixtures/protocol/replies.json holds one entry per reply: where it comes from (``source``
"real" for a model output quoted in a public issue or trajectory, "real-format" for a format as
written in a public prompt, "constructed" otherwise, with ``ref`` naming the report it follows), the
finish reason, the content (a list of lines) and reasoning_content, and the expected parse: thought,
calls (name + arguments, or name + problem), answer, problem / foreign format, and the kind of
correction the engine should send with text it must (and must not) contain. Every reply is run
through cut_reply + parse_reply with the agent's real tools (or the tools the entry gives).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tui_agent import protocol
from tui_agent.config import Settings
from tui_agent.tools import build_registry

CORPUS = json.loads((Path(__file__).parent.parent / "fixtures" / "protocol" / "replies.json").read_text(encoding="utf-8"))
AGENT_TOOLS = build_registry(Settings())
MIN_CASES = 40  # issue 12: a fixture set of at least 40 replies


def _text(value: str | list[str]) -> str:
    return "\n".join(value) if isinstance(value, list) else value


def _run(case: dict) -> tuple[str, bool, protocol.ParsedReply, object]:
    tools = case.get("tools") or AGENT_TOOLS
    text, cut = protocol.cut_reply(_text(case["content"]))
    return text, cut, protocol.parse_reply(text, _text(case.get("reasoning", "")), tools=tools), tools


def correction_for(case: dict, text: str, parsed: protocol.ParsedReply, tools: object) -> tuple[str | None, str]:
    """(kind, message) of what the engine sends back for this reply, as docs/protocol.md describes it."""
    if case["finish_reason"] == "length":
        return "cut", protocol.cut_correction(case.get("completion_tokens"), inside=protocol.open_block(text))
    if parsed.problem:
        return parsed.problem, protocol.correction(parsed, tools)
    failed = next((c for c in parsed.calls if c.error), None)
    if failed is not None:
        return failed.problem, failed.error
    return None, ""


def test_the_corpus_has_enough_replies_with_unique_ids_and_named_sources():
    ids = [c["id"] for c in CORPUS]
    assert len(CORPUS) >= MIN_CASES
    assert len(set(ids)) == len(ids)
    assert all(c["source"] in ("real", "real-format", "constructed") and c["ref"] for c in CORPUS)
    assert sum(c["source"] == "real" for c in CORPUS) >= 10


@pytest.mark.parametrize("case", CORPUS, ids=[c["id"] for c in CORPUS])
def test_corpus_reply_parses_as_expected(case):
    e = case["expect"]
    text, cut, parsed, tools = _run(case)

    got_calls = []
    for c, want in zip(parsed.calls, e.get("calls", [])):
        got = {"name": c.name}
        if "problem" in want:
            got["problem"] = c.problem
        else:
            got["arguments"] = c.arguments
            assert c.error is None, c.error
        if "format" in want:
            got["format"] = c.format
        got_calls.append(got)
    assert len(parsed.calls) == len(e.get("calls", [])), [(c.name, c.arguments, c.error) for c in parsed.calls]
    assert got_calls == e.get("calls", [])

    assert parsed.answer == e.get("answer")
    if "answer_closed" in e:
        assert parsed.answer_closed is e["answer_closed"]
    if "thought" in e:
        assert parsed.thought == e["thought"]
    for part in e.get("thought_contains", []):
        assert part in parsed.thought
    assert parsed.problem == e.get("problem")
    assert parsed.foreign_format == e.get("foreign_format")
    if "foreign_name" in e:
        assert parsed.foreign_name == e["foreign_name"]
    for flag in ("implicit_think_end", "actions_in_reasoning"):
        if flag in e:
            assert getattr(parsed, flag) is e[flag]
    assert cut is e.get("cut", False)
    if "open_block" in e:
        assert protocol.open_block(text) == e["open_block"]

    kind, message = correction_for(case, text, parsed, tools)
    assert kind == e.get("correction")
    for part in e.get("correction_contains", []):
        assert part in message
    for part in e.get("correction_excludes", []):
        assert part not in message


@pytest.mark.parametrize("case", CORPUS, ids=[c["id"] for c in CORPUS])
def test_corpus_reply_is_either_an_action_or_a_named_problem(case):
    _, _, parsed, tools = _run(case)
    assert parsed.has_action != (parsed.problem is not None)
    if parsed.problem:
        message = protocol.correction(parsed, tools)
        assert message and "<tool_call>{" in message  # always shows the expected shape
        if parsed.unclosed_think:
            assert "neither" not in message  # the false "neither" message of issue 12
