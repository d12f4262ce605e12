"""The headless modules stay headless (like harlequin's tests/unit_tests/test_import_hygiene.py):
in a fresh interpreter, importing them and running ``lifeguard replay`` must not load textual or
an audio library, and the engine must not import the assistant package at all."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("textual", "pyttsx3", "speech_recognition", "pocketsphinx")
HEADLESS = ("engine", "engine.simulate", "assistant.commands", "assistant.announce",
            "assistant.referee", "assistant.config", "assistant.cli", "assistant.colours",
            "assistant.cli.serve", "assistant.web.table", "assistant.web.server")

PROBE = """
import json, sys
{body}
loaded = sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r})
project = sorted(m for m in sys.modules if m.split('.')[0] == 'assistant')
print(json.dumps({{"heavy": loaded, "assistant": project}}))
"""


def probe(body: str, tmp_path: Path) -> dict[str, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(body=body, heavy=tuple(m.split('.')[0] for m in HEAVY))],
        capture_output=True, text=True, cwd=tmp_path, timeout=60,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LIFEGUARD_DATA_DIR": str(tmp_path),
             "XDG_CONFIG_HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("module", HEADLESS)
def test_headless_modules_import_no_ui_or_audio(module: str, tmp_path: Path) -> None:
    loaded = probe(f"import {module}", tmp_path)
    assert loaded["heavy"] == [], f"{module} loads {loaded['heavy']}"


def test_engine_does_not_import_the_assistant(tmp_path: Path) -> None:
    loaded = probe("import engine, engine.game, engine.log, engine.simulate, engine.rules", tmp_path)
    assert loaded["assistant"] == [] and loaded["heavy"] == []


def test_engine_source_imports_only_the_standard_library_and_itself() -> None:
    allowed = set(sys.stdlib_module_names) | {"engine", "__future__"}
    for path in sorted((ROOT / "engine").glob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""] if node.level == 0 else []
            else:
                continue
            for name in names:
                assert name.split(".")[0] in allowed, f"{path.name} imports {name}"


def test_lifeguard_replay_runs_without_ui_or_audio(tmp_path: Path) -> None:
    game = tmp_path / "game.txt"
    game.write_text("new game alice bob carol\nalice starts\nrow 1 giraffe\nrow 9 pig\n")
    body = (
        "import contextlib, io\n"
        "from assistant.cli import main\n"
        "out, err = io.StringIO(), io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):\n"
        f"    status = main(['replay', {str(game)!r}]) + main(['replay', {str(game)!r}, '--json'])\n"
        "assert status == 2, status\n"
        "assert 'Row 1: giraffe.' in out.getvalue(), out.getvalue()\n"
    )
    loaded = probe(body, tmp_path)
    assert loaded["heavy"] == [], f"lifeguard replay loads {loaded['heavy']}"


def test_the_help_of_every_subcommand_loads_no_ui_or_audio(tmp_path: Path) -> None:
    # build_parser imports every subcommand's module: they must defer their heavy imports.
    body = "from assistant.cli.parser import build_parser\nbuild_parser().format_help()\n"
    loaded = probe(body, tmp_path)
    assert loaded["heavy"] == []
