"""Makes ``docs/serve-phone.png``, the README's picture of ``lifeguard serve`` on a phone: the
demo game of ``tests/web/browser.py`` (seed 3, four players, round 3 after a knock) in a fresh
store, served on loopback and photographed by headless chromium at 390x844.

    .venv/bin/python docs/screenshot_serve.py
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.web.browser import DEMO_LINES, DEMO_PLAYERS, DEMO_SEED, screenshot  # noqa: E402
from tests.web.conftest import game_lines, play, start_server  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        play(data, game_lines(DEMO_SEED, players=DEMO_PLAYERS)[:DEMO_LINES])
        env = dict(os.environ, LIFEGUARD_DATA_DIR=str(data), XDG_CONFIG_HOME=str(Path(tmp) / "c"))
        env.pop("LIFEGUARD_CONFIG", None)
        served = start_server(env)
        try:
            target = ROOT / "docs" / "serve-phone.png"
            screenshot(served.url, target, Path(tmp) / "profile")
            print(f"wrote {target}")
        finally:
            served.stop()


if __name__ == "__main__":
    main()
