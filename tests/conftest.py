"""Shared fixtures for the whole suite; kept small (subfolders add their own conftest files)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def isolated_env(tmp_path: Path) -> dict[str, str]:
    """Environment for ``lifeguard`` subprocesses that never touches a real home: the game store,
    the config directory and HOME all point into ``tmp_path``."""
    env = dict(os.environ)
    env.pop("LIFEGUARD_CONFIG", None)
    env["LIFEGUARD_DATA_DIR"] = str(tmp_path / "data")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    env["XDG_DATA_HOME"] = str(tmp_path / "share")
    env["HOME"] = str(tmp_path / "home")
    return env
