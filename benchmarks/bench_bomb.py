"""Decompression bombs against `tui-agent read`: peak memory of the real command, side by side
with httpx's own decoding of the same bodies.

A local ``PageServer`` (tests/servers.py) serves bodies that inflate to SIZE (default 2 GiB) of
HTML paragraphs under ``Content-Encoding`` gzip, deflate, br and zstd (when this Python can
decode them with a bound), and gzip of gzip (stacked layers, refused); a normal article and an
8 MB uncompressed page (cut at the 5 MB download cap) are the baselines. Each case runs three
child processes; each reports its own peak RSS (``VmHWM`` of /proc/self/status, read at exit).
Not ``os.wait4``'s ``ru_maxrss``: Linux carries the parent's high-water mark into a child
spawned with vfork and exec, so every child would show at least this process's peak.

- ``read``: ``tui-agent read URL --allow-private-urls`` (``python -m tui_agent``, run by
  ``runpy`` after the exit hook is set) — the whole command (fetch,
  decoding, main-content extraction, the observation), as a user runs it;
- ``fetch``: ``tui_agent.web.net.fetch`` alone (the guard, the pinned transport, bounded
  decoding up to ``visit_max_bytes``);
- ``httpx``: the same GET read with httpx's own decoding (``response.aiter_bytes()``) and the
  same 5 MB cap on decoded bytes — what the fetch did before bounded decoding.

The last column is httpx's peak over fetch's ("-" where httpx has no decoder for the encoding
here: zstd needs the ``zstandard`` package, br ``brotli``). Goal: the ``read`` peak below 400 MB for every
bomb.

Run: ``.venv/bin/python benchmarks/bench_bomb.py [--size-mib 2048] [--skip-httpx]``
(``--skip-httpx`` leaves out the old path, which needs several GB for the stacked bomb).
"""

from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.servers import PageServer  # noqa: E402
from tui_agent.web import decode  # noqa: E402

GOAL_MB = 400
MIB = 1 << 20
FILLER = b"<p>The tide gauge at the harbour recorded the spring tide, as the annual report says.</p>\n"
ARTICLE = ("<!doctype html><html><head><title>Tides</title></head><body><article><h1>Tides</h1>"
           + "".join(f"<p>Paragraph {i}: tides rise and fall twice a day, driven by the Moon and the Sun, "
                     f"and the range depends on the shape of the coast.</p>" for i in range(60))
           + "</article></body></html>").encode()

PEAK_HOOK = """
import atexit, sys
def _report_peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            sys.stderr.write("@@peak_kb " + line.split()[1] + "\\n")
atexit.register(_report_peak)
"""

READ_CHILD = PEAK_HOOK + """
import runpy
sys.argv = ["tui-agent", *sys.argv[1:]]
runpy.run_module("tui_agent", run_name="__main__", alter_sys=True)
"""

FETCH_CHILD = PEAK_HOOK + """
import asyncio
from tui_agent.config import Settings
from tui_agent.web.net import fetch, make_client
async def main():
    s = Settings(allow_private_urls=True)
    async with make_client(s) as client:
        r = await fetch(client, sys.argv[1], s)
    print(len(r.body), r.truncated)
try:
    asyncio.run(main())
except Exception as exc:
    print(type(exc).__name__)
"""

HTTPX_CHILD = PEAK_HOOK + """
import asyncio, httpx
from httpx._decoders import SUPPORTED_DECODERS
CAP = 5 * 1024 * 1024
async def main():
    async with httpx.AsyncClient() as client:
        async with client.stream("GET", sys.argv[1]) as response:
            encodings = response.headers.get_list("content-encoding", split_commas=True)
            if any(e.strip() not in SUPPORTED_DECODERS for e in encodings):
                print("undecoded")  # httpx has no decoder for it here: it would pass the bytes through
                return
            buf = bytearray()
            async for chunk in response.aiter_bytes():  # decoded by httpx, a chunk at a time
                if len(buf) + len(chunk) > CAP:
                    buf += chunk[: CAP - len(buf)]
                    break
                buf += chunk
    print(len(buf))
asyncio.run(main())
"""


def _block() -> bytes:
    return FILLER * (MIB // len(FILLER)) + FILLER[: MIB % len(FILLER)]


def zlib_bomb(wbits: int, mib: int) -> bytes:
    c, block = zlib.compressobj(9, zlib.DEFLATED, wbits), _block()
    return b"".join(c.compress(block) for _ in range(mib)) + c.flush()


def brotli_bomb(mib: int) -> bytes:
    import brotli

    c, block = brotli.Compressor(quality=5), _block()
    return b"".join(c.process(block) for _ in range(mib)) + c.finish()


def zstd_bomb(mib: int) -> bytes:
    module = decode._ZSTD
    c, block = module.ZstdCompressor(level=3), _block()
    return b"".join(c.compress(block) for _ in range(mib)) + c.flush()


def cases(mib: int) -> list[tuple[str, bytes, dict, str]]:
    """(name, body, headers, what it inflates to)."""
    size = f"{mib / 1024:g} GiB" if mib >= 1024 else f"{mib} MiB"
    gz = zlib_bomb(zlib.MAX_WBITS | 16, mib)
    out = [
        ("normal article", ARTICLE, {}, f"{len(ARTICLE) / 1024:.0f} KB"),
        ("8 MB page, no encoding", _block() * 8, {}, "8 MB"),
        ("gzip", gz, {"Content-Encoding": "gzip"}, size),
        ("gzip, gzip (stacked)", gzip.compress(gz, 9), {"Content-Encoding": "gzip, gzip"}, size),
        ("deflate", zlib_bomb(zlib.MAX_WBITS, mib), {"Content-Encoding": "deflate"}, size),
    ]
    if "br" in decode.supported():
        out.append(("br", brotli_bomb(mib), {"Content-Encoding": "br"}, size))
    if "zstd" in decode.supported():
        out.append(("zstd", zstd_bomb(mib), {"Content-Encoding": "zstd"}, size))
    return out


def run_child(code: str, args: list[str], env: dict) -> tuple[float, int, float, str, str]:
    """(peak RSS MB, exit code, wall s, the first lines of stdout, of stderr)."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, env=env, cwd=ROOT)
    wall = time.perf_counter() - start
    err = proc.stderr.decode("utf-8", "replace").splitlines()
    peaks = [int(line.split()[1]) for line in err if line.startswith("@@peak_kb ")]
    err = [line for line in err if not line.startswith("@@peak_kb ")]
    out = proc.stdout.decode("utf-8", "replace").splitlines()
    return (peaks[-1] / 1024 if peaks else float("nan")), proc.returncode, wall, " | ".join(out[:3]), \
        " ".join(err[:2])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size-mib", type=int, default=2048, help="inflated size of each bomb (default 2048)")
    ap.add_argument("--skip-httpx", action="store_true", help="leave out httpx's own decoding (the old path)")
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUI_AGENT_")}
    env["TUI_AGENT_CONFIG_DIR"] = tempfile.mkdtemp(prefix="bench-bomb-")
    print(f"building bombs of {args.size_mib} MiB ...", file=sys.stderr)
    built = cases(args.size_mib)
    rows = []
    with PageServer() as server:
        for i, (name, body, headers, inflated) in enumerate(built):
            url = server.add(f"/case{i}", body, headers=headers)
            print(f"  {name} ...", file=sys.stderr)
            read = run_child(READ_CHILD, ["read", url, "--allow-private-urls"], env)
            fetch = run_child(FETCH_CHILD, [url], env)
            old = None if args.skip_httpx else run_child(HTTPX_CHILD, [url], env)
            if read[1] == 0:
                outcome = "read, cut at the cap" if "download cap]" in read[3] else "read"
            else:
                outcome = "refused (stacked)" if "stacked" in read[4] else f"exit {read[1]}: {read[4][:40]}"
            rows.append((name, len(body), inflated, read, fetch, old, outcome))
    print(f"\nDecompression bombs, `tui-agent read` and the fetch (visit_max_bytes 5 MB); peak RSS in MB; "
          f"decoded here: {decode.ACCEPT_ENCODING}\n")
    head = (f"{'case':<24} {'sent':>10} {'inflates to':>11} {'read RSS':>9} {'read s':>7} {'outcome':<22} "
            f"{'fetch RSS':>9} {'httpx RSS':>9} {'httpx/fetch':>11}")
    print(head)
    print("-" * len(head))
    worst = 0.0
    for name, sent, inflated, read, fetch, old, outcome in rows:
        if name not in ("normal article", "8 MB page, no encoding"):
            worst = max(worst, read[0])
        measured = old is not None and old[3] != "undecoded"
        old_rss = f"{old[0]:9.0f}" if measured else f"{'-':>9}"
        ratio = f"{old[0] / fetch[0]:10.1f}x" if measured else f"{'-':>11}"
        print(f"{name:<24} {sent:>10,} {inflated:>11} {read[0]:9.0f} {read[2]:7.1f} {outcome:<22} "
              f"{fetch[0]:9.0f} {old_rss} {ratio}")
    verdict = "met" if worst < GOAL_MB else "NOT met"
    print(f"\nworst bomb: {worst:.0f} MB peak RSS for `tui-agent read` (goal < {GOAL_MB} MB: {verdict})")
    return 0 if worst < GOAL_MB else 1


if __name__ == "__main__":
    sys.exit(main())
