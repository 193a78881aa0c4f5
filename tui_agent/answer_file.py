"""Saving the answer as a Markdown file (question, answer with numbered sources, run facts)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tui_agent.trace_model import Source, answer_markdown


def answer_document(question: str, answer: str, sources: list[Source], *, session_id: str, model: str,
                    termination: str | None) -> str:
    head = f"# {question.strip()}\n\n" if question.strip() else ""
    facts = f"\n\n---\n\n*tui-agent session `{session_id}` · model `{model}`"
    facts += f" · ended: {termination}*\n" if termination else "*\n"
    return head + answer_markdown(answer, sources) + facts


def save_answer(text: str, session_id: str, data_dir: Path | None, cwd: Path | None = None) -> Path:
    """Write ``answer-<session>.md`` in the current directory, or the data directory when the
    current one is not writable. Returns the path; raises OSError when neither works."""
    name = f"answer-{session_id or 'session'}.md"
    errors: list[Any] = []
    for folder in [cwd or Path.cwd(), data_dir]:
        if folder is None:
            continue
        try:
            folder.mkdir(parents=True, exist_ok=True)
            if not os.access(folder, os.W_OK):
                raise PermissionError(f"{folder} is not writable")
            path = folder / name
            path.write_text(text, encoding="utf-8")
            return path.resolve()
        except OSError as exc:
            errors.append(exc)
    raise OSError("; ".join(str(e) for e in errors) or "no folder to write to")
