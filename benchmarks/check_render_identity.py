"""Page reading gives the same output as a baseline version of the code, on every real page.

A speed-up of the page pipeline (``content.to_page``: main text, rendering, links) must not change
one byte of what the model reads. This runs ``to_page`` over every page of trafilatura's
evaluation corpus (all 923 real pages in ``tests/eval``, see ``benchmarks/bench_quality.py``) with the code of this
checkout and with the code of a baseline — a git ref of this repository (``--ref``, default
``main``, unpacked with ``git archive`` into a temporary folder) or another checkout
(``--baseline DIR``) — each in its own Python process, and prints how many outputs differ (title,
text, method and full length compared), per variant:

- ``markdown``: ``to_page(body, "text/html", url)`` (``tui-agent read``);
- ``text``: the same with ``fmt="text"`` (``--format text``);
- ``markdown, cut to N``: the same as markdown with ``max_chars=N`` (the text budget of a visit);
- links: every ``href`` of the pages joined to three bases by ``web/links.py`` and by ``urljoin``.

Exit status 1 when any output differs. Run:
``.venv/bin/python benchmarks/check_render_identity.py [--ref REF | --baseline DIR] [--corpus DIR]
[--limit N] [--jobs 2]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ("markdown", "text", "markdown, cut")


def emit(code: Path, corpus: Path, limit: int | None, cut: int, out: Path) -> None:
    """Run in a child process: the outputs of the code in ``code`` on every page, as JSON."""
    sys.path.insert(0, str(code))
    import logging

    from tui_agent.web import content

    assert Path(content.__file__).resolve().is_relative_to(code.resolve()), content.__file__
    logging.disable(logging.CRITICAL)
    results = {}
    start = time.perf_counter()
    for page in corpus_pages(corpus, limit):
        outputs = []
        for fmt, max_chars in (("markdown", None), ("text", None), ("markdown", cut)):
            try:
                p = content.to_page(page["body"], "text/html", page["url"], max_chars, fmt=fmt)
                outputs.append([p.title, p.text, p.method, p.full_chars])
            except Exception as exc:  # a crash is an output too: it must be the same crash
                outputs.append(["error", f"{exc.__class__.__name__}: {exc}"])
        results[page["url"]] = outputs
    out.write_text(json.dumps({"seconds": time.perf_counter() - start, "pages": results}), encoding="utf-8")


def corpus_pages(corpus: Path, limit: int | None) -> list[dict]:
    """Every page of the corpus (the files in ``tests/eval``) with its URL from ``evaldata.json``; the few
    pages the scores do not use get a made-up URL."""
    tests = corpus / "tests" if (corpus / "tests").is_dir() else corpus
    urls = {item["file"]: url for url, item in json.loads((tests / "evaldata.json").read_text(encoding="utf-8")).items()}
    pages = [{"url": urls.get(path.name, f"https://unscored.invalid/{path.name}"), "body": path.read_bytes()}
             for path in sorted((tests / "eval").iterdir()) if path.is_file()]
    return pages[:limit] if limit else pages


def _baseline(args, tmp: Path) -> Path:
    if args.baseline:
        return args.baseline.resolve()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_extract import checkout_tree

    return checkout_tree(args.ref, tmp)


def _corpus(args) -> Path:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_quality import default_tarball, unpacked

    if args.corpus:
        return args.corpus
    tarball = default_tarball()
    if tarball is None:
        sys.exit("no corpus: give --corpus DIR (an unpacked trafilatura-eval)")
    return unpacked(tarball)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default="main", help="git ref of the baseline code (default: main)")
    parser.add_argument("--baseline", type=Path, help="a checkout holding the baseline code (instead of --ref)")
    parser.add_argument("--corpus", type=Path, help="an unpacked trafilatura-eval folder")
    parser.add_argument("--limit", type=int, help="the first N pages only")
    parser.add_argument("--cut", type=int, default=4000, help="max_chars of the cut variant (default 4000)")
    parser.add_argument("--jobs", type=int, choices=(1, 2), default=1, help="2: run both codes side by side")
    parser.add_argument("--emit", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--code", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.emit:
        emit(args.code, args.corpus, args.limit, args.cut, args.emit)
        return

    corpus = _corpus(args)
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        codes = {"baseline": _baseline(args, tmp), "this checkout": ROOT}
        common = ["--corpus", str(corpus), "--cut", str(args.cut)] + (["--limit", str(args.limit)] if args.limit else [])
        procs = {}
        for name, code in codes.items():
            cmd = [sys.executable, str(Path(__file__).resolve()), "--emit", str(tmp / f"{name}.json"), "--code", str(code), *common]
            procs[name] = subprocess.Popen(cmd, cwd=tmp)
            if args.jobs == 1:
                procs[name].wait()
        if any(p.wait() for p in procs.values()):
            sys.exit("a run failed")
        runs = {name: json.loads((tmp / f"{name}.json").read_text(encoding="utf-8")) for name in codes}

    old, new = runs["baseline"]["pages"], runs["this checkout"]["pages"]
    assert old.keys() == new.keys()
    print(f"{len(old)} pages of {corpus}; baseline: {args.baseline or 'git ref ' + args.ref}\n")
    print("| variant | outputs | differ |")
    print("|---|---:|---:|")
    differing, examples = 0, []
    for i, variant in enumerate(VARIANTS):
        bad = [url for url in old if old[url][i] != new[url][i]]
        differing += len(bad)
        examples += [f"{variant}: {url}" for url in bad[:5]]
        label = f"{variant} to {args.cut:,} characters" if variant == "markdown, cut" else variant
        print(f"| to_page, {label} | {len(old)} | {len(bad)} |")
    links, wrong = links_checked(corpus, args.limit)
    examples += [f"links: urljoin({base!r}, {href!r})" for base, href in wrong[:5]]
    print(f"| links.absolute vs urljoin (every href of the pages, 3 bases) | {links} | {len(wrong)} |")
    print()
    for line in examples:
        print(f"- differs: {line}")
    seconds = runs["baseline"]["seconds"], runs["this checkout"]["seconds"]
    print(f"to_page time of the whole run: baseline {seconds[0]:.1f} s, this checkout {seconds[1]:.1f} s "
          f"({'one after the other' if args.jobs == 1 else 'side by side'})")
    differing += len(wrong)
    print(f"\n{'IDENTICAL' if not differing else 'DIFFERENT'}: {differing} outputs differ")
    sys.exit(1 if differing else 0)


def links_checked(corpus: Path, limit: int | None) -> tuple[int, list[tuple[str, str]]]:
    """Every href of the corpus joined to three bases by this checkout's ``links.absolute`` and by
    ``urljoin``: how many joins, and the (base, href) pairs where they differ."""
    from urllib.parse import urljoin

    import lxml.html

    sys.path.insert(0, str(ROOT))
    from tui_agent.web.links import absolute

    count, wrong = 0, []
    for page in corpus_pages(corpus, limit):
        try:
            tree = lxml.html.document_fromstring(page["body"])
        except Exception:
            continue
        hrefs = {(a.get("href") or "").strip() for a in tree.iter("a")} - {""}
        for base in (page["url"], "http://x.test/dir/page?q=1#top", "HTTPS://X.test"):
            for href in hrefs:
                try:
                    expected = urljoin(base, href)
                except ValueError:
                    expected = None
                count += 1
                if absolute(base, href) != expected:
                    wrong.append((base, href))
    return count, wrong

if __name__ == "__main__":
    main()
