"""A regular (non-editable) install, as pip and pipx make it, ships what the app needs."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
THEMES = ("tui-dark", "tui-light", "tui-solarized")


def test_a_built_wheel_holds_the_themes_and_the_installed_app_finds_them(tmp_path):
    out = tmp_path / "wheel"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                            "-q", str(ROOT), "-w", str(out)], capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr
    (wheel,) = out.glob("tui_agent-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {f"tui_agent/shipped_themes/{t}.toml" for t in THEMES} <= names
    assert {"tui_agent/app/app.tcss", "tui_agent/prompts/system.txt", "tui_agent/prompts/extract.txt"} <= names
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    probe = ("from tui_agent.app.themes import load_themes, shipped_dir\n"
             "print(shipped_dir())\nprint(' '.join(sorted(load_themes([shipped_dir()]).themes)))\n")
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                           env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"})
    assert found.returncode == 0, found.stderr
    folder, themes = found.stdout.splitlines()
    assert Path(folder).is_relative_to(site)  # the installed copy, not the checkout
    assert themes.split() == sorted(THEMES)
