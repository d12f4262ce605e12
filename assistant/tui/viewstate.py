"""What the table remembers between runs that is not part of the game: the view toggles (known
cards, large print) and the counts typed into the hand grid but not declared yet.

Kept as a small JSON file beside the game store (``table-view.json``), never in the game log:
the log holds what was said at the table, this only how the screen was left. A missing or
unreadable file is the defaults; writing it is best effort (the game is already safe in the store).
``ViewStateFile`` is the app's one owner of the file: the state the table screen changes in place
and the writes of it, which the app runs on worker threads (a disk write is never for the event
loop); no Textual here, so the file can be read and tested headless.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path

FILE_NAME = "table-view.json"


@dataclass
class ViewState:
    """How the table was left; the table screen changes it in place."""

    #: F8: the cards known to be in each hand are shown.
    show_known: bool = False
    #: F4: large print chosen (None: it follows the terminal's size).
    large_print: bool | None = None
    #: The hand grid's counts not yet declared: game id, round and per player animal -> count.
    draft_game: int | None = None
    draft_round: int | None = None
    drafts: dict[str, dict[str, int]] = field(default_factory=dict)

    def draft_for(self, game_id: int | None, round_number: int) -> dict[str, dict[str, int]]:
        """The drafts of this game's round; none for any other round (they end with it)."""
        if game_id is None or (self.draft_game, self.draft_round) != (game_id, round_number):
            return {}
        return self.drafts


def load(folder: Path | None) -> ViewState:
    """The state kept in ``folder``, or the defaults (no folder, no file, an unreadable one)."""
    if folder is None:
        return ViewState()
    try:
        data = json.loads((folder / FILE_NAME).read_text(encoding="utf-8"))
        state = ViewState()
        state.show_known = bool(data.get("show_known", False))
        large = data.get("large_print")
        state.large_print = large if isinstance(large, bool) else None
        state.draft_game = data.get("draft_game") if isinstance(data.get("draft_game"), int) else None
        state.draft_round = data.get("draft_round") if isinstance(data.get("draft_round"), int) else None
        drafts = data.get("drafts") or {}
        state.drafts = {
            str(p): {str(a): int(n) for a, n in counts.items() if isinstance(n, int)}
            for p, counts in drafts.items() if isinstance(counts, dict)
        }
        return state
    except (OSError, ValueError, TypeError, AttributeError):
        return ViewState()


def save(folder: Path | None, state: ViewState) -> None:
    """Write the file whole (a temporary file renamed over it); errors are ignored."""
    if folder is None:
        return
    path = folder / FILE_NAME
    temporary = path.with_suffix(".tmp")
    try:
        temporary.write_text(json.dumps(asdict(state)), encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        pass


class ViewStateFile:
    """The view state of one table and its file: loaded once, written whole after each change.
    Why an object: the writes may overlap (each one a worker thread), so one lock keeps them one
    at a time and each takes the state as it is then: the last to run leaves the newest."""

    def __init__(self, folder: Path | None) -> None:
        #: The store's folder (None: the table is not saved, and neither is its view).
        self.folder = folder
        self.state = load(folder)
        self._lock = threading.Lock()

    @property
    def kept(self) -> bool:
        """Whether there is a file to write to (a saved table)."""
        return self.folder is not None

    def write(self) -> None:
        """Blocking (a few hundred bytes, but a disk write all the same): call it on a thread."""
        with self._lock:
            save(self.folder, ViewState(**vars(self.state)))
