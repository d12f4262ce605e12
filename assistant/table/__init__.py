"""The headless table model: one typed, frozen ``TableState`` per applied command, read by
every front end (the table, the phone page, the speech grammar, ``status``). No Textual, no
audio, no files: the store's ``assistant.store.current.load_current`` loads the game it is
built from.
"""

from assistant.table.expect import expecting, first_words, hint_parts, intent_weights
from assistant.table.sheet import (
    SheetLabels,
    SheetLine,
    SheetRound,
    lives_left,
    place_word,
    score_sheet,
    sheet_labels,
    sudden_death_note,
)
from assistant.table.state import (
    Announcement,
    Place,
    PlayerState,
    StoredGame,
    TableState,
    help_examples,
    last_turn_taken,
    points_table,
)

__all__ = ["Announcement", "Place", "PlayerState", "SheetLabels", "SheetLine", "SheetRound", "StoredGame",
           "TableState", "expecting", "first_words", "help_examples", "hint_parts", "intent_weights",
           "last_turn_taken", "lives_left", "place_word", "points_table", "score_sheet",
           "sheet_labels", "sudden_death_note"]
