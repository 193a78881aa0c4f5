"""The token gauge: context used against the forced-answer threshold and the window (the
reserve visible), coloured by fill; beside it model calls, elapsed time and cost.

Its format is chosen by the room it has and the run's window, never by the figures of the moment:
the longest figures the window allows must fit, so the gauge keeps one format while a run's
tokens grow and a measured count arrives. Its tooltip (``LEGEND``) says what each figure is."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from textual.content import Content
from textual.widget import Widget

# Fill (of the threshold) at which the bar turns from ok to warn, and from warn to high.
WARN_AT, HIGH_AT = 0.6, 0.85

LEGEND = (
    "ctx: the prompt of the last model call, in tokens.\n"
    "First figure: estimated by the local tokenizer before the call. "
    "'measured' (meas.): what the provider counted for that call, once it answered.\n"
    "Second figure: the gate; past it the model is made to answer (forced answer).\n"
    "Bar: █ used, ░ free below the gate, ▒ the reserve kept for the answer (window − gate).\n"
    "Then: model calls / the call limit, time worked / the time limit (waiting for you does not "
    "count), cost / budget."
)


@dataclass
class GaugeFigures:
    prompt_tokens: int = 0
    threshold: int = 0
    window: int = 0
    measured: int | None = None
    calls: int = 0
    max_calls: int = 0
    elapsed_s: float = 0.0
    max_s: float = 0.0
    cost_usd: float | None = None
    budget_usd: float | None = None


def human_k(n: int) -> str:
    if n >= 1000:
        return f"{n / 1000:.1f}k".replace(".0k", "k")
    return str(n)


def clock(seconds: float) -> str:
    s = int(max(0.0, seconds))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def fill_level(f: GaugeFigures) -> str:
    if not f.threshold:
        return "ok"
    ratio = f.prompt_tokens / f.threshold
    return "high" if ratio >= HIGH_AT else "warn" if ratio >= WARN_AT else "ok"


class TokenGauge(Widget):
    DEFAULT_CSS = """
    TokenGauge { height: 1; width: 1fr; }
    """

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.figures = GaugeFigures()
        self.tooltip = LEGEND

    def set_figures(self, figures: GaugeFigures) -> None:
        if figures != self.figures:
            self.figures = figures
            self.refresh()

    # -- pieces ---------------------------------------------------------------------------
    def _bar(self, width: int) -> list:
        f = self.figures
        if not f.window:
            return [("▕", "$text-muted"), ("·" * width, "$gauge-empty"), ("▏", "$text-muted")]
        fill = min(width, round(f.prompt_tokens / f.window * width))
        if f.prompt_tokens and not fill:
            fill = 1
        gate = min(width, max(0, round(f.threshold / f.window * width)))
        style = "$gauge-" + fill_level(f)
        parts: list = [("▕", "$text-muted")]
        if fill:
            parts.append(("█" * fill, style))
        if gate > fill:
            parts.append(("░" * (gate - fill), "$gauge-empty"))
        rest = width - max(fill, gate)
        if rest > 0:
            parts.append(("▒" * rest, "$gauge-reserve"))
        parts.append(("▏", "$text-muted"))
        return parts

    def _token_texts(self, f: GaugeFigures | None = None) -> list[str]:
        f = f or self.figures
        reserve = max(0, f.window - f.threshold)
        meas = f" · {f.measured:,} measured" if f.measured is not None else ""
        meas_short = f" · {human_k(f.measured)} meas." if f.measured is not None else ""
        if not f.window:
            return ["tokens —", "—"]
        return [
            f" {f.prompt_tokens:,} / {f.threshold:,} tokens · window {f.window:,}, reserve {reserve:,}{meas}",
            f" {f.prompt_tokens:,}/{f.threshold:,} · window {human_k(f.window)} reserve {human_k(reserve)}{meas_short}",
            f" {human_k(f.prompt_tokens)}/{human_k(f.threshold)} · res {human_k(reserve)}{meas_short}",
            f" {human_k(f.prompt_tokens)}/{human_k(f.threshold)}{meas_short}",  # the bar shows the reserve
            f" {human_k(f.prompt_tokens)}/{human_k(f.threshold)}",
        ]

    def _tail(self, f: GaugeFigures | None = None) -> list[str]:
        f = f or self.figures
        out = [f"calls {f.calls}/{f.max_calls}", f"{clock(f.elapsed_s)} / {clock(f.max_s)}"]
        if f.cost_usd is not None:
            out.append(f"${f.cost_usd:.4f}" + (f" / ${f.budget_usd:.2f}" if f.budget_usd is not None else ""))
        elif f.budget_usd is not None:
            out.append(f"budget ${f.budget_usd:.2f}")
        return out

    def render(self) -> Content:
        width = self.size.width or 100
        f = self.figures
        tail = self._tail()
        tail_text = "  │  ".join(tail)
        texts = self._token_texts()
        # The widest the figures get in this run: the format that fits them fits all the run
        # (the gate forces the answer: a prompt seldom grows past it)
        top = int("8" * len(str(max(f.prompt_tokens, f.measured or 0, f.threshold))))  # its widest text
        most = replace(f, prompt_tokens=top, measured=top,
                       calls=max(f.calls, f.max_calls), elapsed_s=max(f.elapsed_s, f.max_s))
        widest, widest_tail = self._token_texts(most), len("  │  ".join(self._tail(most)))
        choices = [(24, 0), (24, 1), (12, 1), (12, 2), (12, 3), (8, 3), (8, 4)]
        for bar_w, i in choices:
            if len("ctx ") + bar_w + 2 + len(widest[i]) + 5 + widest_tail <= width:
                break
        text = texts[i]
        if len("ctx ") + bar_w + 2 + len(text) + 5 + len(tail_text) > width:  # nothing fits: the tail packs
            tail_text = "  ".join(tail)
        parts: list = [("ctx ", "bold")]
        parts += self._bar(bar_w)
        parts.append((text, ""))
        parts.append(("  │  ", "$text-muted"))
        for i, item in enumerate(tail_text.split("  │  ")):
            if i:
                parts.append(("  │  ", "$text-muted"))
            parts.append((item, ""))
        return Content.assemble(*parts)


def gauge_figures(s: Any, cfg: Any, elapsed_s: float) -> GaugeFigures:
    """The gauge's figures for session state ``s`` under settings ``cfg``."""
    prompt = s.last_prompt
    measured = s.steps[prompt.step].prompt_tokens if prompt is not None and prompt.step in s.steps else None
    return GaugeFigures(
        prompt_tokens=prompt.prompt_tokens if prompt else 0, threshold=s.threshold, window=s.context_window,
        measured=measured, calls=s.shown_calls, max_calls=cfg.max_calls, elapsed_s=elapsed_s,
        max_s=cfg.max_minutes * 60, cost_usd=s.cost_usd, budget_usd=cfg.budget_usd,
    )
