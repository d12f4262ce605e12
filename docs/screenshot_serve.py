"""Makes ``docs/serve-phone.png``, the README's picture of ``lifeguard serve`` on a phone: the
demo game of ``tests/web/browser.py`` (seed 3, four players, round 3 after a knock) in a fresh
store, served on loopback and photographed by headless chromium at 390x844.

    .venv/bin/python docs/screenshot_serve.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.web.browser import screenshot  # noqa: E402
from tests.web.conftest import demo_store, start_server  # noqa: E402


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        env = demo_store(Path(tmp))
        served = start_server(env)
        try:
            target = ROOT / "docs" / "serve-phone.png"
            screenshot(served.url, target, Path(tmp) / "profile")
            print(f"wrote {target}")
        finally:
            served.stop()


if __name__ == "__main__":
    main()
