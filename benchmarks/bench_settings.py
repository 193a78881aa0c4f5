"""What loading the settings costs a command at start-up: CPU of a child process that imports the
CLI's common module and builds the settings of ``tui-agent run q`` from every layer (config file,
TUI_AGENT_* environment, flags), as every subcommand does before its own work.

Each tree given is measured in turn, interleaved --repeat times (medians), beside a bare
``python -c pass`` child, so two trees (the old hand-coerced settings and the declared ones) are
compared side by side in one run. The CPU time (user + system) of each child comes from
``os.wait4``.

Run: ``.venv/bin/python benchmarks/bench_settings.py [--repeat 15] [TREE ...]`` (default: this
checkout; e.g. an older checkout from ``git archive HEAD~5 | tar -x -C /tmp/old``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOAD = ("from tui_agent.cli.common import build_run_parser, settings_from; "
        "settings_from(build_run_parser().parse_args(['q', '--max-calls', '5']))")


def child_cpu_ms(code: str, tree: Path | None, env: dict[str, str]) -> float:
    child_env = dict(env)
    if tree is not None:
        child_env["PYTHONPATH"] = str(tree)
    proc = subprocess.Popen([sys.executable, "-c", code], env=child_env, cwd=tempfile.gettempdir())
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the child failed in {tree}")
    return (usage.ru_utime + usage.ru_stime) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", nargs="*", type=Path, default=[ROOT])
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as config:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TUI_AGENT_")}
        env |= {"TUI_AGENT_CONFIG_DIR": config, "TUI_AGENT_MAX_MINUTES": "30"}
        Path(config, "config.toml").write_text('theme = "tui-light"\nanswer_reserve = 8000\n')
        rows: dict[str, list[float]] = {"python -c pass": []} | {str(t): [] for t in args.trees}
        for _ in range(args.repeat):
            rows["python -c pass"].append(child_cpu_ms("pass", None, env))
            for tree in args.trees:
                rows[str(tree)].append(child_cpu_ms(LOAD, tree, env))
    base = statistics.median(rows["python -c pass"])
    print(f"| child ({args.repeat} runs each, interleaved) | CPU ms median | beyond bare python | ratio to first tree |")
    print("|---|---|---|---|")
    first = statistics.median(rows[str(args.trees[0])]) - base
    for name, values in rows.items():
        med = statistics.median(values)
        ratio = f"{(med - base) / first:.2f}" if name != "python -c pass" and first > 0 else ""
        print(f"| {name} | {med:.0f} | {med - base:.0f} | {ratio} |")


if __name__ == "__main__":
    main()
