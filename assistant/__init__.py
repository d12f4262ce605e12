"""Everything between the people at the table and the rules engine: the command language,
announcements, the referee session, the game store, voice and the Textual app."""

__version__ = "0.1.0"
