"""Exports of a session, all views over the one fold: a cited Markdown report, JSON (result +
events), JSONL (events), and the answer document that Save and Copy use.

Every export is made safe on plain text before it is encoded: secrets redacted, control
characters and escape sequences removed (so JSON carries neither raw controls nor ``\\u``
escapes of them).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Iterable

from tui_agent.safety.hygiene import redact, scrub, strip_controls
from tui_agent.core.events import Event, Purpose
from tui_agent.core.fold import SessionState, SourceState, fold, result
from tui_agent.core.plan_report import plan_markdown

OBSERVATION_EXCERPT_CHARS = 1500
THOUGHT_EXCERPT_CHARS = 3000
FORMATS = ("md", "json", "jsonl")


def clean(text: Any) -> str:
    """Text for a person or a file: controls stripped, secrets redacted."""
    return redact(strip_controls(str(text)))


def dumps(value: Any, **kw: Any) -> str:
    """JSON of a cleaned structure (non-ASCII kept as is): no control character reaches the
    output, neither raw nor as a ``\\u`` escape, and no secret."""
    return json.dumps(scrub(value), ensure_ascii=False, **kw)


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(ts))


def _quote(text: str, limit: int) -> str:
    text = text.strip()
    if len(text) > limit:
        text = text[:limit].rstrip() + f"\n[… {len(text) - limit} more characters]"
    return "\n".join("> " + line if line else ">" for line in text.splitlines())


# -- the answer document (Save, Copy) ------------------------------------------------------------


def answer_notes(answer: Any) -> list[str]:
    """What a reader must know about an answer, in the words every view uses."""
    notes = []
    if not answer.tagged:
        notes.append("no <answer> tags: the whole reply is kept")
    if answer.truncated:
        notes.append("truncated: cut by the model's length limit")
    if answer.unsupported:
        notes.append("unsupported: no tool had run")
    return notes



def answer_markdown(answer: str, sources: Iterable[SourceState]) -> str:
    """The answer with its numbered sources, as Markdown."""
    text = answer.strip()
    lines = []
    for s in sorted(sources, key=lambda s: s.number):
        title = s.title.replace("[", "(").replace("]", ")") if s.title else ""
        lines.append(f"- **[{s.number}]** " + (f"[{title}]({s.url}) — {s.url}" if title else f"<{s.url}>"))
    if lines:
        text += "\n\n**Sources**\n\n" + "\n".join(lines)
    return text


def answer_document(state: SessionState) -> str:
    """The answer as a file: question, answer with numbered sources, run facts."""
    question = clean(state.question).strip()
    head = f"# {question}\n\n" if question else ""
    answer = clean(state.answer.text) if state.answer else ""
    ended = f" · ended: {state.ended.termination}" if state.ended else ""
    facts = f"\n\n---\n\n*tui-agent session `{state.session_id}` · model `{clean(state.model)}`{ended}*\n"
    return head + answer_markdown(answer, state.source_list()) + facts


def default_answer_path(folder: Path, session_id: str) -> Path:
    return folder / f"answer-{session_id or 'session'}.md"


def default_report_path(folder: Path, session_id: str) -> Path:
    return folder / f"tui-agent-session-{session_id}.md"


def write_file(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` (folders made as needed); returns the resolved path."""
    path = path.expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path.resolve()


# -- the report -------------------------------------------------------------------------------


def markdown(state: SessionState) -> str:
    question = clean(state.question)
    out = [f"# {question.splitlines()[0] if question else 'Research session'}", ""]
    if question and "\n" in question:
        out += [_quote(question, 10_000), ""]
    if state.session_id:
        out += [f"Session `{state.session_id}` · model `{clean(state.model)}`", ""]
    out += ["## Answer", ""]
    answer = state.answer
    if answer:
        out.append(clean(answer.text).strip())
        notes = answer_notes(answer)
        if notes:
            out += ["", "*Note: " + "; ".join(notes) + ".*"]
    else:
        out.append("*No answer was produced.*")
    out += ["", "## Sources", ""]
    sources = state.source_list()
    for s in sources:
        out += [f"[{s.number}] {clean(s.title) or clean(s.url)} — <{clean(s.url)}> (read {_when(s.read_at)})", ""]
    if not sources:
        out += ["*No sources were read.*", ""]
    out += plan_markdown(state)  # plan mode: each sub-question with its status
    if state.verification is not None:
        out += citation_check_markdown(state)
    ended = state.ended
    r = ended.result if ended else {}
    cost = r.get("cost_usd")
    out += [
        "## Run", "",
        "| termination | model calls | tool calls | tokens | cost | time |",
        "|---|---|---|---|---|---|",
        f"| {ended.termination if ended else 'unfinished'} | {r.get('model_calls', '-')} | {r.get('tool_calls', '-')} | "
        f"{r.get('total_tokens', '-')} | {'$%.4f' % cost if cost is not None else 'unknown'} | "
        f"{'%.1f s' % r['elapsed_s'] if 'elapsed_s' in r else '-'} |",
        "", "## Appendix: trace", "",
    ]
    for n in state.step_numbers:
        out += _step_markdown(state, n)
    return "\n".join(out).rstrip() + "\n"


def citation_check_markdown(state: SessionState) -> list[str]:
    """The "Citation check" section: each checked claim with its verdict and evidence, the counts,
    and whether the session needs review."""
    from tui_agent.verify.claims import all_claims
    from tui_agent.core.events import Verdict

    v = state.verification
    assert v is not None
    found = len(all_claims(state))
    out = ["## Citation check", ""]
    which = f"{len(v.claims)} of {found} claims that cite sources" if found > len(v.claims) else \
        f"{len(v.claims)} claims that cite sources"
    out += [f"Checked {which} with `{clean(v.model)}`.", ""]
    for i, c in enumerate(v.claims, 1):
        claim = " ".join(clean(c.claim).split())
        out.append(f"{i}. **{c.verdict}** — {claim}")
        if c.evidence:
            out.append(f"   > {' '.join(clean(c.evidence).split())}")
        if c.note:
            out.append(f"   *Note: {' '.join(clean(c.note).split())}.*")
    if v.claims:
        out.append("")
    if not v.ended:
        out += ["*The check did not finish.*", ""]
        return out
    if not v.claims:
        out += ["**Needs review:** the answer cites no sources.", ""]
        return out
    share = v.unsupported_share or 0.0
    counts = (f"{v.count(Verdict.SUPPORTED)} supported, {v.count(Verdict.UNSUPPORTED)} unsupported, "
              f"{v.count(Verdict.UNCLEAR)} unclear ({share:.0%} unsupported)")
    out += [f"**Needs review:** {counts}." if v.needs_review else f"Fine: {counts}.", ""]
    return out


def _step_markdown(state: SessionState, n: int) -> list[str]:
    sv = state.steps[n]
    label = " (forced answer)" if sv.purpose == Purpose.FORCED else ""
    tokens = sv.prompt_tokens if sv.prompt_tokens is not None else sv.prompt_tokens_estimate
    out = [f"### Step {n}{label}", "",
           f"Prompt {tokens} tokens" + (" (measured)" if sv.prompt_tokens is not None else " (estimated)")
           + (f", completion {sv.completion_tokens}" if sv.completion_tokens is not None else "")
           + (" · cancelled" if sv.cancelled else "") + (" · cut by the length limit" if sv.finish_reason == "length"
                                                        else ""), ""]
    if sv.thought:
        out += ["**Thought**", "", _quote(clean(sv.thought), THOUGHT_EXCERPT_CHARS), ""]
    for av in sv.calls:
        args = clean(json.dumps(av.arguments, ensure_ascii=False))
        decision = str(av.decision) if av.decision else ("not run" if av.error else "")
        reason = f" ({clean(av.reason)})" if av.reason else ""
        out += [f"**Action {av.call_id}** `{clean(av.tool) or '?'}` `{args}` — {decision}{reason}", ""]
        if av.observation:
            out += [f"Observation ({av.status}, {av.duration_s or 0.0:.1f} s):", "",
                    _quote(clean(av.observation), OBSERVATION_EXCERPT_CHARS), ""]
    return out


# -- JSON -------------------------------------------------------------------------------------


def result_json(events: list[Event], state: SessionState | None = None) -> dict[str, Any]:
    state = state or fold(events)
    termination = state.ended.termination if state.ended else None
    res = dict(state.ended.result) if state.ended else result(state, None)
    res["termination"] = str(termination) if termination else None
    return {"result": res, "events": [e.stored_dict() for e in events]}


def jsonl(events: list[Event]) -> str:
    return "".join(dumps(e.stored_dict()) + "\n" for e in events)


def export(events: list[Event], fmt: str) -> str:
    if fmt == "md":
        return markdown(fold(events))
    if fmt == "json":
        return dumps(result_json(events), indent=2) + "\n"
    if fmt == "jsonl":
        return jsonl(events)
    raise ValueError(f"unknown export format {fmt!r}")


VERDICT_MARKS = {"supported": "✓ supported", "unsupported": "✗ unsupported", "unclear": "? unclear"}


def checked_answer(state: SessionState) -> str:
    """The answer as Markdown with each checked claim marked where it stands (✓ / ✗ / ?), its
    sources, then the "Citation check" section (the TUI's answer pane after a check)."""
    from tui_agent.verify.claims import claims_of

    answer, v = state.answer.text if state.answer else "", state.verification
    if v is None or not v.claims:
        return answer_markdown(answer, state.source_list())
    verdicts = {c.claim: c.verdict for c in v.claims}
    marked, at = [], 0
    for claim in claims_of(state, v.sample):  # the checked claims, with their places in the answer
        verdict = verdicts.get(claim.text)
        if verdict is not None and claim.start >= at:
            marked += [answer[at:claim.end], f" **[{VERDICT_MARKS.get(str(verdict), str(verdict))}]**"]
            at = claim.end
    marked.append(answer[at:])
    return answer_markdown("".join(marked), state.source_list()) + "\n\n" + "\n".join(citation_check_markdown(state))
