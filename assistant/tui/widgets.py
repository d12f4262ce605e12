"""The table's widgets: the rows as cards, the players with their hearts, the log, the command
input with completion and history, and the status line.

Each widget draws from the engine's public state (``engine.game.Game``) handed down by its screen
(``update_from(game)``); none of them changes the game. Colour never carries meaning alone: every
card shows its animal's name and points, every lost life is a different glyph, every mark a word.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.text import Text
from textual.binding import Binding
from textual.suggester import Suggester
from textual.widgets import Input, RichLog, Static

from assistant.colours import ANIMAL_COLOURS
from assistant.commands.grammar import ANIMAL_WORDS, TREES
from assistant.commands.templates import first_required_word
from engine.deck import ANIMALS, COPIES, ROW_SIZES, Animal, Cards
from engine.game import Game, Phase, title

CARD_WIDTH = 9
PHASE_WORDS = {
    Phase.ROWS: "rows",
    Phase.TURNS: "turns",
    Phase.FINAL_TURNS: "final turns after a knock",
    Phase.REVEAL: "reveal",
    Phase.GAME_OVER: "game over",
}


def animal_style(animal: Animal) -> str:
    bg, fg = ANIMAL_COLOURS[animal]
    return f"bold {fg} on {bg}"


def card_lines(animal: Animal | None, height: int) -> list[Text]:
    """One card as ``height`` lines of ``CARD_WIDTH`` cells: the name on top, the points below."""
    if animal is None:  # a row not entered yet
        lines = ["╭───────╮"] + ["│   ?   │"] * max(0, height - 2) + ["╰───────╯"]
        return [Text(line[:CARD_WIDTH], style="dim") for line in lines[:height]]
    style = animal_style(animal)
    name = animal.value.upper().center(CARD_WIDTH)
    points = f"{animal.points}".center(CARD_WIDTH)
    blank = " " * CARD_WIDTH
    body = [name, points] if height <= 2 else [name, blank, points] + [blank] * (height - 3)
    return [Text(line, style=style) for line in body[:height]]


def animal_chip(animal: Animal, count: int | None = None, pad: bool = True) -> Text:
    """An animal's name in its card colours (``2x pig`` with a count), for lists and tables."""
    label = animal.value if count is None else f"{count}x {animal.value}"
    if pad:
        label = f" {label} "
    return Text(label, style=animal_style(animal))


class CardRows(Static):
    """The four face-up rows, drawn as cards; taller cards when there is room."""

    DEFAULT_CSS = """
    CardRows { height: auto; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rows: list[Cards | None] = [None] * len(ROW_SIZES)
        #: Taller (3-line) cards when the terminal has room; the screen sets this on resize.
        self.tall = False

    def update_from(self, game: Game | None) -> None:
        rows = list(game.rows) if game is not None else [None] * len(ROW_SIZES)
        if rows == self.rows:
            return  # nothing to repaint (most commands leave most rows alone)
        self.rows = rows
        self.refresh()  # same height whatever the cards: no new layout (a full-screen repaint)

    def card_height(self) -> int:
        return 3 if self.tall else 2

    def get_content_height(self, container, viewport, width: int) -> int:
        return 4 * self.card_height() + 3

    def render(self) -> Text:
        height = self.card_height()
        out = Text()
        for i, (k, cards) in enumerate(zip(ROW_SIZES, self.rows, strict=True)):
            animals: list[Animal | None] = list(cards) if cards is not None else [None] * k
            columns = [card_lines(a, height) for a in animals]
            for line in range(height):
                label = f"Row {k} " if line == 0 else "      "
                out.append(label, style="bold" if line == 0 else "")
                for column in columns:
                    out.append_text(column[line])
                    out.append(" ")
                if line < height - 1:
                    out.append("\n")
            if i < len(ROW_SIZES) - 1:
                out.append("\n\n")
        return out


def hearts(lives: int, total: int = 5) -> Text:
    """Lives as hearts: ``♥`` for each life left, a dim ``♡`` for each one lost."""
    text = Text()
    for i in range(total):
        if i < lives:
            text.append("♥ ", style="bold red")
        else:
            text.append("♡ ", style="dim")
    text.rstrip()
    return text


class PlayersPanel(Static):
    """The players in seating order: turn, lives, swapped/knocked/out, optionally known cards."""

    DEFAULT_CSS = """
    PlayersPanel { height: auto; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.game: Game | None = None
        self.show_known = False

    def update_from(self, game: Game | None, show_known: bool | None = None) -> None:
        self.game = game
        if show_known is not None:
            self.show_known = show_known
        lines = self.lines()
        if lines == getattr(self, "_lines", None):
            return  # nothing to repaint
        # A new layout repaints the whole screen: only when the panel's height changes.
        self.refresh(layout=len(lines) != len(getattr(self, "_lines", None) or ()))
        self._lines = lines

    def lines(self) -> list[Text]:
        game = self.game
        if game is None:
            return [Text("No game yet.", style="dim")]
        out: list[Text] = []
        for p in game.players:
            lives = game.lives[p]
            line = Text()
            is_turn = p == game.turn
            line.append("▶ " if is_turn else "  ", style="bold")
            name_style = "bold reverse" if is_turn else ("dim strike" if lives == 0 else "bold")
            line.append(f"{title(p):<8}", style=name_style)
            line.append(" ")
            line.append_text(hearts(lives))
            out.append(line)
            detail = Text("    ")
            marks: list[str] = []
            if lives == 0:
                place = game.out_order.index(p) + 1 if p in game.out_order else 0
                marks.append(f"OUT ({_ordinal(place)} out)" if place else "OUT")
            else:
                if p == game.starter and game.phase is not Phase.GAME_OVER:
                    marks.append("starts")
                if p in game.swapped:
                    marks.append("swapped")
                if p == game.knocker:
                    marks.append("KNOCKED")
                if game.phase is Phase.REVEAL:
                    marks.append("declared" if p in game.declared else "to declare")
                if p in game.winners:
                    marks.append("WINNER")
            detail.append(" · ".join(marks), style="italic")
            if self.show_known and lives:
                width = self.size.width or 40
                known = known_text(game.known[p])
                if detail.cell_len + 2 + known.cell_len <= width:
                    detail.append("  ")
                    detail.append_text(known)
                else:  # its own line, in short names if need be, so nothing wraps
                    out.append(detail)
                    detail = Text("  ")
                    if 2 + known.cell_len > width:
                        known = known_text(game.known[p], short=True)
                    detail.append_text(known)
            out.append(detail)
        return out

    def render(self) -> Text:
        return Text("\n").join(self.lines())


def known_text(cards: Cards, short: bool = False) -> Text:
    """``knows: 2x pig cat``: the cards known to be in a hand, as coloured names.

    ``short`` uses the first three letters, which still tell the ten animals apart.
    """
    text = Text("knows: ", style="dim")
    if not cards:
        text.append("nothing", style="dim")
        return text
    for i, (animal, n) in enumerate(cards.counts().items()):
        if i:
            text.append(" ")
        name = animal.value[:3] if short else animal.value
        label = name if n == 1 else f"{n}x {name}"
        text.append(label, style=animal_style(animal))
    return text


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


class TableLog(RichLog):
    """Commands and announcements, newest at the bottom; refused commands marked with the reason.

    ``plain`` keeps the same lines as text so tests (and people) can read them back.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(wrap=True, markup=False, highlight=False, auto_scroll=True, **kwargs)
        self.plain: list[str] = []

    def command(self, text: str, source: str = "", said: Sequence[str] = ()) -> None:
        """An accepted command and what the referee said, in one write (one relayout)."""
        prefix = {"heard": "🎤 ", "grid": "▦ "}.get(source, "› ")
        rich = Text.assemble((prefix, "bold"), (text, "bold"))
        self.plain.append(prefix + text)
        for line in said:
            rich.append("\n  " + line)
            self.plain.append("  " + line)
        self.write(rich)

    def said(self, lines: Sequence[str]) -> None:
        """Sentences without a command (a greeting), in one write."""
        if not lines:
            return
        self.plain.extend("  " + line for line in lines)
        self.write(Text("\n").join(Text("  " + line) for line in lines))

    def refused(self, text: str, reason: str) -> None:
        line = Text.assemble(("✗ ", "bold red"), (text, "bold"), (" refused: ", "bold red"), reason)
        self._add(line, f"✗ {text} refused: {reason}")

    def note(self, text: str) -> None:
        self._add(Text(text, style="italic dim"), text)

    def _add(self, rich: Text, plain: str) -> None:
        self.plain.append(plain)
        self.write(rich)


def _command_words() -> tuple[set[str], set[str]]:
    """Words that may start a command, and verbs that follow a player's name, from the grammar."""
    starters: set[str] = set()
    verbs: set[str] = set()
    for trees in TREES.values():
        for tree in trees:
            verb = first_required_word(tree, after_slot="player")
            if verb is not None:
                verbs.add(verb)
            elif (first := first_required_word(tree)) is not None:
                starters.add(first)
    return starters, verbs


START_WORDS, VERBS = _command_words()


class CommandSuggester(Suggester):
    """Completes the word being typed: names, then verbs, then animals (from the grammar data)."""

    def __init__(self, players: Callable[[], Sequence[str]]) -> None:
        super().__init__(use_cache=False, case_sensitive=False)
        self.players = players

    async def get_suggestion(self, value: str) -> str | None:
        return suggest(value, self.players())


def suggest(value: str, players: Sequence[str]) -> str | None:
    """The completed line for ``value``, or None: pure, so it is tested directly."""
    if not value or value.endswith(" "):
        return None
    words = value.split()
    prefix = words[-1]
    before = words[:-1]
    if not before:
        candidates = sorted(players) + sorted(START_WORDS)
    elif len(before) == 1 and before[0] in players:
        candidates = sorted(VERBS)
    elif before[0] == "new":
        candidates = ["game"] if len(before) == 1 else []
    else:
        candidates = [a.value for a in ANIMALS] + sorted(w for w in ANIMAL_WORDS if w not in
                                                         {a.value for a in ANIMALS})
    if prefix in candidates:  # a whole word already: a plural is no help
        return None
    for word in candidates:
        if word.startswith(prefix) and word != prefix:
            return value + word[len(prefix):]
    return None


class CommandInput(Input):
    """The command line: completion (tab or right arrow takes it) and history on up/down."""

    BINDINGS = [
        Binding("up", "history(-1)", "Previous command", show=False),
        Binding("down", "history(1)", "Next command", show=False),
        Binding("tab", "complete", "Complete", show=False),
    ]

    def __init__(self, players: Callable[[], Sequence[str]], **kwargs) -> None:
        super().__init__(suggester=CommandSuggester(players), **kwargs)
        self.history: list[str] = []
        self._position = 0

    def remember(self, text: str) -> None:
        if text and (not self.history or self.history[-1] != text):
            self.history.append(text)
        self._position = len(self.history)

    def action_history(self, step: int) -> None:
        if not self.history:
            return
        self._position = max(0, min(len(self.history), self._position + step))
        self.value = self.history[self._position] if self._position < len(self.history) else ""
        self.cursor_position = len(self.value)

    def action_complete(self) -> None:
        if self._suggestion and self._suggestion != self.value:
            self.value = self._suggestion
            self.cursor_position = len(self.value)
        else:
            self.screen.focus_next()


class StatusLine(Static):
    """Microphone, speech and the data file, in words (never colour alone)."""

    DEFAULT_CSS = """
    StatusLine { height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, data_label: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.mic = ("off", None)
        self.speech = ("off", None)
        self.data_label = data_label

    def set_mic(self, state: str, reason: str | None = None) -> None:
        self.mic = (state, reason)
        self.refresh()

    def set_speech(self, state: str, reason: str | None = None) -> None:
        self.speech = (state, reason)
        self.refresh()

    def text(self) -> str:
        """States first (they fit), then the data file, then why anything is unavailable."""
        reasons = [
            f"{label} {reason}"
            for label, (state, reason) in (("mic:", self.mic), ("speech:", self.speech))
            if reason and state == "unavailable"
        ]
        text = f"mic: {self.mic[0]} · speech: {self.speech[0]} · data: {self.data_label}"
        return text + (" · " + "; ".join(reasons) if reasons else "")

    def render(self) -> Text:
        return Text(self.text(), no_wrap=True, overflow="ellipsis")


def deck_totals(rows: Sequence[Cards | None], hands: Sequence[Cards]) -> dict[Animal, int]:
    total: dict[Animal, int] = {a: 0 for a in ANIMALS}
    for cards in [*rows, *hands]:
        if cards is None:
            continue
        for animal, n in cards.counts().items():
            total[animal] += n
    return total


def over_limit(total: dict[Animal, int]) -> list[Animal]:
    return [a for a in ANIMALS if total[a] > COPIES[a]]
