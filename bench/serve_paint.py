"""What a phone pays to open the page of ``lifeguard serve``: bytes over the wire and the first
contentful paint, in headless chromium (driven over DevTools, as tests/web/test_a11y.py does),
unthrottled and on "slow 4G" with a 4x slower CPU (Lighthouse's mobile preset: 562.5 ms round
trip, 1.47 Mbit/s down, 0.61 Mbit/s up), first load and reload. The README's demo game.

    .venv/bin/python bench/serve_paint.py [--runs 5] [--code DIR]

``--code DIR`` serves the page from another checkout (e.g. ``git archive`` of an older commit
unpacked in DIR), to compare.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.web.browser import DevTools  # noqa: E402
from tests.web.conftest import demo_store, start_server  # noqa: E402

SLOW_4G = {"offline": False, "latency": 562.5, "downloadThroughput": 1.4745e6 / 8,
           "uploadThroughput": 675e3 * 0.9 / 8}
MEASURE = """(() => {
    const paint = performance.getEntriesByName('first-contentful-paint')[0];
    const all = performance.getEntriesByType('navigation')
        .concat(performance.getEntriesByType('resource'));
    return {fcp: paint ? paint.startTime : null,
            bytes: all.reduce((n, e) => n + e.transferSize, 0)};
})()"""


def measure(browser: DevTools, url: str, reload: bool) -> dict:
    if not reload:
        browser.call("Network.clearBrowserCache")
    browser.open(url, ready="performance.getEntriesByName('first-contentful-paint').length > 0"
                            " && document.getElementById('link').dataset.state === 'live'")
    return browser.evaluate(MEASURE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--code", type=Path, help="serve from this checkout instead")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = demo_store(Path(tmp))
        here = Path.cwd()
        if args.code:  # ``python -m`` looks in the current folder first
            env["PYTHONPATH"] = str(args.code.resolve())
            os.chdir(args.code)
        try:
            served = start_server(env)
        finally:
            os.chdir(here)
        browser = DevTools(Path(tmp) / "profile")
        try:
            browser.call("Network.enable")
            for name, network, cpu in (("unthrottled", None, 1), ("slow 4G, CPU/4", SLOW_4G, 4)):
                if network:
                    browser.call("Network.emulateNetworkConditions", network)
                browser.call("Emulation.setCPUThrottlingRate", {"rate": cpu})
                for reload in (False, True):
                    seen = [measure(browser, served.url, reload) for _ in range(args.runs)]
                    fcp = statistics.median(s["fcp"] for s in seen)
                    size = statistics.median(s["bytes"] for s in seen)
                    print(f"{name:15} {'reload' if reload else 'first load':10} "
                          f"first paint {fcp:6.0f} ms   {size / 1000:5.1f} KB over the wire "
                          f"(median of {args.runs})")
        finally:
            browser.close()
            served.stop()


if __name__ == "__main__":
    main()
