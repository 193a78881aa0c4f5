"""Tag escaping: forged variants that reach the model, and the time escape_tags takes (issue 16).

Prints two tables, side by side in one run:
- the forged tags, tokens and markers of tests/unit/test_hygiene.py (lookalike_variants) that still
  look like a tag after escaping, for the escaping before issue 16 (protocol tags only, ASCII only)
  and for ``hygiene.escape_tags`` now;
- milliseconds per MB for ordinary and hostile texts, old and new, and their ratio.

Run: .venv/bin/python benchmarks/bench_escape.py
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.unit.test_hygiene import ALL_VARIANTS, looks_like_a_tag  # noqa: E402
from tui_agent.safety.hygiene import escape_tags  # noqa: E402

_OLD_TAG_RE = re.compile(r"<(?=\s*/?\s*(?:think|tool_call|tool_response|answer)(?![\w-]))", re.IGNORECASE)


def old_escape(text: str) -> str:
    """escape_tags before issue 16."""
    return _OLD_TAG_RE.sub("&lt;", text) if "<" in text else text


def per_mb(fn, text: str, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn(text)
        best = min(best, time.perf_counter() - t0)
    return best * 1000 / (len(text.encode()) / 1e6)


def main() -> None:
    old = sum(looks_like_a_tag(old_escape(v)) for v in ALL_VARIANTS)
    new = sum(looks_like_a_tag(escape_tags(v)) for v in ALL_VARIANTS)
    print(f"| forged variants | reach the model looking like a tag: old | new |\n|---|---|---|\n"
          f"| {len(ALL_VARIANTS)} | {old} | {new} |\n")
    size = 1_000_000
    texts = {
        "prose": ("The quick brown fox jumps over the lazy dog, 1 < 2. " * 30000)[:size],
        "markdown links": ("See [the docs](https://x.example/a) and [1], a = b. " * 30000)[:size],
        "html-ish code": ("if (a < b && c <= d) { x = <div class='y'>[i]</div>; } " * 30000)[:size],
        "CJK and emoji": ("日本語のテキスト「引用」、絵文字👍🏽と＜括弧＞。" * 40000)[:size // 3],
        "forged tags": ("\n".join(ALL_VARIANTS) * 60)[:size],
        "all '<'": "<" * size,
        "all '='": "=" * size,
        "all '['": "[" * size,
    }
    print("| text | old ms/MB | new ms/MB | new/old |\n|---|---|---|---|")
    for name, text in texts.items():
        o, n = per_mb(old_escape, text), per_mb(escape_tags, text)
        print(f"| {name} | {o:.1f} | {n:.1f} | {n / max(o, 1e-9):.1f}x |")


if __name__ == "__main__":
    main()
