"""Makes ``docs/table.svg``, the README's screenshot of the table mid-game in large print (as a
laptop at the end of a table shows it from 100 columns on; deterministic: a fixed
seed, no voice, a fixed data-file label).

    .venv/bin/python docs/screenshot.py
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

LINES = [
    "new game alice bob carol dave",
    "bob starts",
    "row 1 giraffe",
    "row 2 bear dog",
    "row 3 pig pig cat",
    "row 4 mole goat sheep mouse",
    "bob swaps 2 cat mouse",
    "carol swaps 4 rabbit rabbit pig giraffe",
    "dave swaps 1 dog",
    "alice swaps 3 bear bear bear",
    "bob swaps 1 sheep",
    "dave knocks",
]


async def main() -> None:
    from assistant.config import Settings
    from assistant.tui.app import LifeguardApp

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["LIFEGUARD_DATA_DIR"] = tmp
        app = LifeguardApp(Settings(), data_dir=tmp, seed=0, voice=False,
                           data_label="~/.local/share/lifeguard/lifeguard.sqlite3")
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.press("escape")
            for line in LINES:
                await app.submit(line)
            app.table.toggle_known()
            await pilot.pause()
            out = Path(__file__).with_name("table.svg")
            app.save_screenshot(str(out.name), str(out.parent))
            print(f"wrote {out}")


if __name__ == "__main__":
    asyncio.run(main())
