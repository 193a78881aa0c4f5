"""Claims found in answers: sentence splitters side by side under the same Markdown and citation
handling (tui_agent/verify/claims.py), on two corpora.

- ``answers``: tests/fixtures/verify/answers.json — research answers in the styles models write
  (prose, citations before and after the full stop, Markdown lists, tables, quotes, code, source
  lists, German and Chinese), each with the claims a person marks: the sentences that cite a
  source, exactly as they stand. Scored per claim: a claim found exactly is a true positive, a
  found claim that is not one of them a false positive, a missing one a false negative.
- ``golden``: the English "Golden Rules" of the Pragmatic Segmenter, as pySBD ships them in its
  ``tests/lang/test_english.py`` (MIT; pass the file with ``--golden FILE``; not committed).
  Every sentence there is given a citation ``[1]`` before its final punctuation, so each
  sentence is a claim; scored like the answers. pySBD was built against these rules: a strong
  baseline for it here.

Splitters: tui-agent's (nupunkt, then a cut after CJK full stops), nupunkt alone
(``sent_spans``), sentencex (``get_sentence_boundaries("en", …)``), pySBD
(``Segmenter(char_span=True)``), and a naive regex (a cut after ``.!?`` and whitespace) as the
floor. The golden rules that start with a list marker ("1. The first item 2. …") are left out:
in an answer that is a Markdown list marker, which claims leave out by design. The time
column is the whole claim extraction of a corpus, per answer, median of 5 rounds.

Run: ``.venv/bin/python benchmarks/bench_claims.py [--golden PATH/test_english.py]`` (pySBD and
sentencex are not dependencies of tui-agent: ``pip install pysbd sentencex`` first; a splitter
that is not installed is left out).
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tui_agent.verify.claims import find_claims, split_sentences  # noqa: E402

ANSWERS = ROOT / "tests" / "fixtures" / "verify" / "answers.json"
ROUNDS = 5


def naive(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for m in re.finditer(r"(?<=[.!?。])\s+", text):
        spans.append((start, m.start()))
        start = m.end()
    return spans + [(start, len(text))]


def splitters() -> dict:
    import nupunkt

    out = {"tui-agent": split_sentences, "nupunkt": lambda t: list(nupunkt.sent_spans(t))}
    try:
        import sentencex

        out["sentencex"] = lambda t: [(b["start_index"], b["end_index"])
                                      for b in sentencex.get_sentence_boundaries("en", t)]
    except ImportError:
        pass
    try:
        import pysbd

        seg = pysbd.Segmenter(language="en", clean=False, char_span=True)
        out["pysbd"] = lambda t: [(s.start, s.end) for s in seg.segment(t)]
    except ImportError:
        pass
    out["naive regex"] = naive
    return out


def golden_cases(path: Path) -> list[dict]:
    """The golden rules, every sentence given a citation before its final punctuation."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    cases = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple) and len(node.elts) == 2 and isinstance(node.elts[1], ast.List):
            try:
                text, sentences = ast.literal_eval(node.elts[0]), ast.literal_eval(node.elts[1])
            except ValueError:
                continue
            if _LIST_START.match(text):
                continue  # "1. The first item 2. …": a Markdown list marker, left out of claims by design
            cited = [_cite(s) for s in sentences]
            for s, c in zip(sentences, cited):
                text = text.replace(s, c, 1)
            cases.append({"answer": text, "claims": cited})
    return cases


_LIST_START = re.compile(r"\s*(?:[-*+•⁃]\s*|\d+\.\)?\s|\d+\)\s|[a-z]\.\s)")


def _cite(sentence: str) -> str:
    m = re.search(r"[.!?…”\"')]*$", sentence)
    return sentence[: m.start()] + " [1]" + sentence[m.start():]


def score(cases: list[dict], split) -> tuple[int, int, int, float]:
    tp = fp = fn = 0
    for case in cases:
        got = [c.text for c in find_claims(case["answer"], split)]
        want = list(case["claims"])
        for g in got:
            if g in want:
                tp += 1
                want.remove(g)
            else:
                fp += 1
        fn += len(want)
    times = []
    for _ in range(ROUNDS):
        t0 = time.perf_counter()
        for case in cases:
            find_claims(case["answer"], split)
        times.append((time.perf_counter() - t0) / len(cases))
    return tp, fp, fn, statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--golden", type=Path, help="pySBD's tests/lang/test_english.py")
    args = ap.parse_args()
    corpora = {"answers": json.loads(ANSWERS.read_text(encoding="utf-8"))}
    if args.golden:
        corpora["golden"] = golden_cases(args.golden)
    for split in splitters().values():  # warm up (imports, rule compilation)
        split("A b. C d.")
    print(f"{'corpus':<8} {'splitter':<12} {'claims':>6} {'exact':>6} {'wrong':>6} {'missed':>6} "
          f"{'precision':>9} {'recall':>7} {'ms/answer':>10}")
    for name, cases in corpora.items():
        total = sum(len(c["claims"]) for c in cases)
        for label, split in splitters().items():
            tp, fp, fn, per = score(cases, split)
            precision = tp / (tp + fp) if tp + fp else 0.0
            recall = tp / (tp + fn) if tp + fn else 0.0
            print(f"{name:<8} {label:<12} {total:>6} {tp:>6} {fp:>6} {fn:>6} {precision:>9.1%} {recall:>7.1%} "
                  f"{per * 1000:>10.3f}")


if __name__ == "__main__":
    main()
