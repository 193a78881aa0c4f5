"""A regular (non-editable) install, as pip and pipx make it: the wheel holds the whole package, and
installed into an empty virtualenv it imports every module and answers a research from another folder.

The rest of the suite runs on the editable install, which reads the checkout and so cannot see a
module or data file the wheel leaves out.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.helpers import call

ROOT = Path(__file__).resolve().parents[2]
THEMES = ("tui-dark", "tui-light", "tui-solarized")
# What a fresh clone holds that the build reads; the checkout's .venv, build/ and caches are left behind.
SOURCES = ("pyproject.toml", "README.md", "tui_agent")


def package_files(root: Path) -> set[str]:
    """Every file of the package in the source tree, as a wheel names it (bytecode caches aside)."""
    return {p.relative_to(root).as_posix() for p in (root / "tui_agent").rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """(the wheel, the copied source tree it was built from): built offline, as `pip wheel .` builds it."""
    tree = tmp_path_factory.mktemp("clone")
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tree / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, tree / name)
    out = tmp_path_factory.mktemp("wheel")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                            "-q", str(tree), "-w", str(out)], capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr
    (wheel,) = out.glob("tui_agent-*.whl")
    return wheel, tree


def test_the_wheel_holds_every_module_and_data_file_of_the_package_and_nothing_else(built):
    wheel, tree = built
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {n for n in names if not n.startswith("tui_agent-")}  # the dist-info aside
    assert shipped == package_files(tree)
    # the ones the code opens by name, spelled out so a rename shows up here too
    assert {f"tui_agent/shipped_themes/{t}.toml" for t in THEMES} <= shipped
    assert {"tui_agent/app/app.tcss", "tui_agent/prompts/system.txt", "tui_agent/prompts/system_native.txt",
            "tui_agent/prompts/extract.txt", "tui_agent/prompts/verify.txt",
            "tui_agent/safety/secret_rule_data/gitleaks.toml", "tui_agent/safety/secret_rule_data/noseyparker/aws.yml",
            "tui_agent/context/view.py", "tui_agent/core/plan_schema.py"} <= shipped


# Run by the fresh virtualenv's python in a folder outside the checkout: imports every module of the
# installed package (but __main__, which runs the CLI: the console script below does) and prints where
# the package and every third-party module it loaded came from.
PROBE = """
import importlib, json, pkgutil, sys
import tui_agent
failed = {}
names = [m.name for m in pkgutil.walk_packages(tui_agent.__path__, "tui_agent.",
                                               onerror=lambda name: failed.setdefault(name, repr(sys.exc_info()[1])))]
for name in names:
    if not name.endswith("__main__"):
        try:
            importlib.import_module(name)
        except Exception as exc:
            failed[name] = repr(exc)
loaded = {name.split(".")[0]: getattr(module, "__file__", None) for name, module in list(sys.modules.items())}
print(json.dumps({"package": tui_agent.__file__, "modules": len(names), "failed": failed,
                  "loaded": {top: file for top, file in loaded.items() if file}}))
"""


RUNTIME_EXTRAS = ("", "otel")
"""The wheel's own extras whose modules the probe imports: ``otel`` for telemetry/otlp.py (every module
is imported, so that one loads the SDK); ``test`` is not one."""


def declared_closure(wheel_requirements: list[str]) -> set[str]:
    """The distributions the wheel's Requires-Dist asks for (with its runtime extras), and theirs, with
    the extras they name."""
    extras: dict[str, set[str]] = {}
    todo = [Requirement(r) for r in wheel_requirements]
    todo = [r for r in todo if r.marker is None or any(r.marker.evaluate({"extra": e}) for e in RUNTIME_EXTRAS)]
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        if name in extras and set(req.extras) <= extras[name]:
            continue
        wanted = extras.setdefault(name, set())
        wanted.update(req.extras)
        try:
            requires = metadata.distribution(name).requires or []
        except metadata.PackageNotFoundError:
            continue
        for line in requires:
            sub = Requirement(line)
            if sub.marker is None or any(sub.marker.evaluate({"extra": e}) for e in wanted | {""}):
                todo.append(sub)
    return set(extras)


@pytest.mark.slow
def test_installed_into_an_empty_virtualenv_it_imports_every_module_and_answers_a_research(
        built, tmp_path, chat_server, page_server, searx_server):
    wheel, tree = built
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)  # empty: no system site-packages, no tui_agent
    python = env_dir / "bin" / "python"
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                              "--no-index", str(wheel)], capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr
    # The third-party dependencies come from this test environment's site-packages, offline: a .pth line
    # puts the folder on the path after the venv's own. A folder named by a .pth has its own .pth files
    # left unread, so the checkout's editable install stays out; tui_agent comes from the wheel alone
    # (checked below), and every third-party module it loads must be a declared dependency (also below).
    shared = Path(sysconfig.get_paths()["purelib"])
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "test_dependencies.pth").write_text(f"{shared}\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {"PATH": f"{env_dir / 'bin'}:/usr/bin:/bin", "HOME": str(elsewhere),
           "TUI_AGENT_CONFIG_DIR": str(tmp_path / "config"), "TUI_AGENT_DATA_DIR": str(tmp_path / "data"),
           "LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENAI_API_KEY": "sk-test-not-real-000000"}

    probe = subprocess.run([str(python), "-c", PROBE], capture_output=True, text=True, timeout=300, cwd=elsewhere,
                           env=env)
    assert probe.returncode == 0, probe.stderr
    found = json.loads(probe.stdout.splitlines()[-1])
    assert Path(found["package"]).is_relative_to(site)  # the installed copy, not the checkout
    assert found["failed"] == {}
    assert found["modules"] == len([n for n in package_files(tree) if n.endswith(".py")]) - 1  # all but __init__
    providers = metadata.packages_distributions()
    declared = declared_closure(metadata.Distribution.at(next(site.glob("tui_agent-*.dist-info"))).requires or [])
    undeclared = {top: providers.get(top) for top, file in found["loaded"].items()
                  if Path(file).is_relative_to(shared)
                  and not {canonicalize_name(d) for d in providers.get(top, [])} & declared}
    assert undeclared == {}

    url = page_server.add("/tides", "<html><head><title>Tides</title></head><body><article><h1>Tides</h1>"
                          "<p>Spring tides happen twice a month, at new moon and at full moon, when the sun and "
                          "the moon pull along one line and the tidal range is at its largest.</p></article>"
                          "</body></html>")
    searx_server.results["spring tides"] = [{"url": url, "title": "Tides", "content": "new and full moon"}]
    chat_server.script(
        "<think>Search.</think>" + call("search", query=["spring tides"]),
        "<think>Read it.</think>" + call("visit", url=[url], goal="when are spring tides"),
        "<answer>At new and full moon [1].</answer>",
    )
    run = subprocess.run([str(env_dir / "bin" / "tui-agent"), "run", "When are spring tides?", "--json", "--yes",
                          "--model", "openai/test-model", "--api-base", chat_server.base_url,
                          "--search-backend", "searxng", "--searxng-url", searx_server.url, "--allow-private-urls",
                          "--no-extract"], capture_output=True, text=True, timeout=300, cwd=elsewhere, env=env,
                         stdin=subprocess.DEVNULL)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert (result["termination"], result["answer"], result["sources"]) == ("answer", "At new and full moon [1].",
                                                                            [url])
    assert page_server.hits == ["/tides"] and "spring tides happen twice" in \
        chat_server.requests[2]["messages"][-1]["content"].lower()
    assert os.path.isfile(tmp_path / "data" / "sessions.sqlite3")
