"""Makes ``docs/table.svg``, the README's screenshot of the table mid-game in large print (as a
laptop at the end of a table shows it from 100 columns on; deterministic: a fixed
seed, no voice, a fixed data-file label). With ``--lang de`` or ``--lang ko``, the same table
in German or Korean, with names and commands of that language, as ``docs/table-de.svg`` or ``docs/table-ko.svg``.

    .venv/bin/python docs/screenshot.py [--lang de|ko]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from assistant.config import Language

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

#: The players' names at a table of each language (English: as in ``LINES``).
NAMES = {
    "en": ("alice", "bob", "carol", "dave"),
    "de": ("Anneliese", "Jürgen", "Käthe", "Dieter"),
    "ko": ("김민준", "이서연", "박지우", "최하은"),
}


def lines_in(language: str) -> list[str]:
    """``LINES`` with the language's names, typed as that table types them (written out by
    the language's templates: ``Jürgen tauscht Reihe 2 gegen Katze und Maus``)."""
    from assistant.commands import parse, say

    players: list[str] = []
    out = []
    for line in LINES:
        words = line.split()
        named = " ".join(NAMES[language][NAMES["en"].index(w)] if w in NAMES["en"] else w
                         for w in words)
        command = parse(named, players)
        players = list(command.names) or players
        out.append(named if language == "en" else say(command, language))
    return out


async def main(language: Language) -> None:
    from assistant.config import Settings, TableSettings
    from assistant.i18n import set_language
    from assistant.tui.app import LifeguardApp

    set_language(language)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["LIFEGUARD_DATA_DIR"] = tmp
        settings = Settings(table=TableSettings(language=language))
        app = LifeguardApp(settings, data_dir=tmp, seed=0, voice=False,
                           data_label="~/.local/share/lifeguard/lifeguard.sqlite3")
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.press("escape")
            for line in lines_in(language):
                await app.submit(line)
            app.table.toggle_known()
            await pilot.pause()
            name = "table.svg" if language == "en" else f"table-{language}.svg"
            out = Path(__file__).with_name(name)
            app.save_screenshot(str(out.name), str(out.parent))
            print(f"wrote {out}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Writes the README's screenshot of the table.")
    parser.add_argument("--lang", choices=sorted(NAMES), default="en",
                        help="the table's language (default: en, docs/table.svg)")
    asyncio.run(main(cast("Language", parser.parse_args().lang)))
