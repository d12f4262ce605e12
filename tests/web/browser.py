"""A real browser for the page: Debian's ``chromium``, headless, at a phone's size (390x844).

Used by ``tests/web/test_browser.py`` and ``docs/screenshot_serve.py`` (the README's picture);
``DevTools`` drives one over its DevTools protocol for ``tests/web/test_a11y.py`` (axe-core, the
accessibility tree, text size, light and dark) and ``bench/serve_paint.py``.
The page draws the state it was served with before its load event (the state is in the page),
so ``--dump-dom`` and ``--screenshot`` see it drawn; ``--virtual-time-budget`` is not used, as
the page's open event stream would keep virtual time from ever running out.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path

PHONE = (390, 844)
#: What the demo game of the README shows: seed 3, four players, round 3 after a knock.
DEMO_SEED, DEMO_PLAYERS, DEMO_LINES = 3, 4, 48
#: In that game, the lines up to the end of round 1 (Dave's hand ends it: 2 lives lost).
ROUND_ONE_ENDS = 18


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


# ---------------------------------------------------------------------------- driven over CDP
#: axe-core's own packaged script, installed from the npm registry by ``make test`` (the
#: Makefile's AXE): nothing is fetched at test time.
AXE = Path(__file__).resolve().parents[2] / "build" / "npm" / "node_modules" / "axe-core" / "axe.min.js"


def skip_module_without_browser(axe: bool = False) -> None:
    """Skip the calling test module where chromium (and, with ``axe``, axe-core) is missing, as
    on a machine set up by hand; never in CI, where a missing browser must fail the suite."""
    import pytest

    if os.environ.get("CI"):
        return
    if chromium() is None or (axe and not AXE.exists()):
        pytest.skip("chromium or axe-core is not installed (make test installs both)" if axe else
                    "chromium is not installed (make setup installs it)", allow_module_level=True)


class DevTools:
    """One headless chromium driven over the DevTools protocol on a pipe
    (``--remote-debugging-pipe``: the browser reads commands on its fd 3 and answers on fd 4,
    each message JSON ended by a NUL byte), so no port is opened and no WebSocket library is
    needed. One page (tab) is attached; ``call`` sends a command to it and waits for its answer."""

    def __init__(self, profile: Path, size: tuple[int, int] = PHONE) -> None:
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # Above 4 first: dup2 onto the number a descriptor already has would keep its
        # close-on-exec flag, and the browser would find fd 3 or 4 closed.
        high_r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD_CLOEXEC, 10)
        high_w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD_CLOEXEC, 10)
        for fd in (to_browser_r, from_browser_w):
            os.close(fd)

        def pipes_at_3_and_4() -> None:  # in the child, before exec
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        command = browser_command(profile, "--remote-debugging-pipe", "about:blank")
        command = [c if not c.startswith("--window-size=") else f"--window-size={size[0]},{size[1]}"
                   for c in command]
        self.process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, close_fds=False, preexec_fn=pipes_at_3_and_4,
            env=dict(os.environ, HOME=str(profile)))
        os.close(high_r)
        os.close(high_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict] = []
        self.session: str | None = None
        self.target: str | None = None
        self.new_page()

    def new_page(self) -> None:
        """Attach to a new tab (the window's size) and close the old one: a page as a fresh
        browser opens it (no page, no device size, colour scheme or text size set, no events
        kept), without starting chromium again (``tests/web/conftest.py`` keeps one per test
        module)."""
        old = self.target
        self.session = None
        self.events = []
        self.target = self.call("Target.createTarget", {"url": "about:blank"},
                                browser=True)["targetId"]
        if old is not None:
            self.call("Target.closeTarget", {"targetId": old}, browser=True)
        self.session = self.call("Target.attachToTarget", {"targetId": self.target,
                                                           "flatten": True},
                                 browser=True)["sessionId"]
        for domain in ("Page", "Runtime"):
            self.call(f"{domain}.enable")

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def call(self, method: str, params: dict | None = None, browser: bool = False,
             timeout: float = 60.0) -> dict:
        self._next_id += 1
        message: dict = {"id": self._next_id, "method": method, "params": params or {}}
        if not browser and self.session is not None:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                answer = json.loads(raw)
                if answer.get("id") == self._next_id:
                    if "error" in answer:
                        raise RuntimeError(f"{method}: {answer['error']}")
                    return answer.get("result", {})
                if "method" in answer:
                    self.events.append(answer)
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"chromium did not answer {method}")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed its DevTools pipe")
                self._buffer += chunk

    def evaluate(self, expression: str, timeout: float = 60.0):
        """The value of ``expression`` in the page (a promise is awaited)."""
        result = self.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                "returnByValue": True}, timeout=timeout)
        if "exceptionDetails" in result:
            raise RuntimeError(f"in the page: {result['exceptionDetails']}")
        return result["result"].get("value")

    def size(self, width: int, height: int, scale: float = 1.0) -> None:
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": False})

    def scheme(self, dark: bool) -> None:
        """The device's light or dark setting (``prefers-color-scheme``)."""
        self.call("Emulation.setEmulatedMedia", {"features": [
            {"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})

    def text_size(self, pixels: int) -> None:
        """The reader's default text size (the browser's font-size setting; 16 is 100%)."""
        self.call("Page.setFontSizes", {"fontSizes": {"standard": pixels, "fixed": pixels}})

    def open(self, url: str, ready: str = "document.readyState === 'complete'") -> None:
        self.call("Page.navigate", {"url": url})
        deadline = time.monotonic() + 30
        # the old document answers until the new one is there: ask for the new one by its URL
        check = (f"(() => {{ try {{ return document.URL === {json.dumps(url)} && Boolean({ready}); }}"
                 " catch (err) { return false; } })()")
        while not self.evaluate(check):
            if time.monotonic() > deadline:
                raise TimeoutError(f"the page did not get ready ({ready})")
            time.sleep(0.05)

    def screenshot(self, path: Path) -> None:
        shot = self.call("Page.captureScreenshot", {"format": "png"})
        path.write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.call("Browser.close", browser=True, timeout=5)
        with contextlib.suppress(OSError):
            os.close(self._to_browser)
        with contextlib.suppress(OSError):
            os.close(self._from_browser)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
