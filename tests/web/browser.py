"""A real browser for the page: Debian's ``chromium``, headless, at a phone's size (390x844).

Used by ``tests/web/test_browser.py`` and ``docs/screenshot_serve.py`` (the README's picture).
The page draws the state it was served with before its load event (the state is in the page),
so ``--dump-dom`` and ``--screenshot`` see it drawn; ``--virtual-time-budget`` is not used, as
the page's open event stream would keep virtual time from ever running out.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

PHONE = (390, 844)
#: What the demo game of the README shows: seed 3, four players, round 3 after a knock.
DEMO_SEED, DEMO_PLAYERS, DEMO_LINES = 3, 4, 48


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def browser_command(profile: Path, *args: str) -> list[str]:
    # CI runs as root in a container: no sandbox, no GPU, nothing fetched from the internet.
    binary = chromium()
    assert binary is not None
    return [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--no-first-run", "--hide-scrollbars", f"--user-data-dir={profile}",
            f"--window-size={PHONE[0]},{PHONE[1]}", *args]


def run_browser(profile: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, HOME=str(profile))
    return subprocess.run(browser_command(profile, *args), capture_output=True, text=True,
                          timeout=90, env=env)


def dump_dom(url: str, profile: Path) -> str:
    done = run_browser(profile, "--dump-dom", url)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def screenshot(url: str, path: Path, profile: Path) -> None:
    done = run_browser(profile, f"--screenshot={path}", url)
    assert done.returncode == 0 and path.exists(), done.stderr[-2000:]


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
