"""The game store: games and their command logs in one SQLite file, autosave and resume.

``open_session`` gives front ends (``lifeguard chat``, the Textual app) a referee whose every
accepted command is committed before it answers; ``assistant.cli.games`` holds the
console script's ``status``, ``history``, ``stats``, ``export`` and ``import`` subcommands.
"""

from assistant.store.db import GameStatus, GameStore, StoreError, StoreErrorKind, data_dir
from assistant.store.session import Session, open_session

__all__ = [
    "GameStatus",
    "GameStore",
    "Session",
    "StoreError",
    "StoreErrorKind",
    "data_dir",
    "open_session",
]
