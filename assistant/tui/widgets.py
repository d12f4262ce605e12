"""The table's widgets: the rows as cards, the players with their hearts, the log, the command
input with completion and history, and the status line.

Each widget draws from the engine's public state (``engine.game.Game``) handed down by its screen
(``update_from(game)``); none of them changes the game. Colour never carries meaning alone: every
card shows its animal's name and points, every lost life is a different glyph, every mark a word.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.padding import Padding
from rich.text import Text
from textual.binding import Binding
from textual.events import Key, Paste, Resize
from textual.geometry import Size
from textual.message import Message
from textual.reactive import Reactive
from textual.suggester import Suggester
from textual.widgets import Input, RichLog, Static
from textual.widgets.input import Selection

from assistant.colours import ANIMAL_COLOURS
from assistant.commands.grammar import ANIMAL_WORDS
from assistant.i18n import N_, _, animal_name, format, ngettext, pgettext
from assistant.table.expect import (
    START_WORDS,
    expected_start,
    expected_verbs,
    first_words,
    hint_parts,
)
from assistant.tui.bigtype import big, big_width, in_font
from assistant.tui.cells import cell_len, centred, cut, padded, spaced
from engine.deck import ANIMALS, ROW_SIZES, Animal, Cards
from engine.game import Game, Phase, places
from engine.words import title

CARD_WIDTH = 9
#: The phases in words (``N_``: translated where shown, ``_(PHASE_WORDS[phase])``).
PHASE_WORDS = {
    Phase.ROWS: N_("rows"),
    Phase.TURNS: N_("turns"),
    Phase.FINAL_TURNS: N_("final turns after a knock"),
    Phase.REVEAL: N_("reveal"),
    Phase.GAME_OVER: N_("game over"),
}


def animal_style(animal: Animal) -> str:
    bg, fg = ANIMAL_COLOURS[animal]
    return f"bold {fg} on {bg}"


def card_lines(animal: Animal | None, height: int, width: int = CARD_WIDTH,
               letter_spacing: bool = True) -> list[Text]:
    """One card as ``height`` lines of ``width`` cells: the name on top, the points below.

    Large cards (large print) spell the name in spaced capitals when every animal's name fits
    so (``spacing_fits``; not without ``letter_spacing``: normal print's wide cards), and say ``9 points``: easier to read from
    the other end of the table."""
    if animal is None:  # a row not entered yet
        inner = width - 2
        lines = ["╭" + "─" * inner + "╮"] + ["│" + "?".center(inner) + "│"] * max(0, height - 2) \
            + ["╰" + "─" * inner + "╯"]
        return [Text(line[:width], style="dim") for line in lines[:height]]
    style = animal_style(animal)
    word = animal_name(animal.value).upper()
    name = centred(spaced(word) if letter_spacing and spacing_fits(width) else word, width)
    points_word = format(_("{n} points"), n=animal.points)  # every animal is worth 3 to 9
    # In cells: a word of Hangul is twice its letters.
    points = centred(points_word if width >= 12 else f"{animal.points}", width)
    blank = " " * width
    if height <= 2:
        body = [name, points]
    else:  # the name and the points in the middle of the card
        top = (height - 3) // 2
        body = [blank] * top + [name, blank, points] + [blank] * (height - 3 - top)
        if height == 3:
            body = [name, blank, points]
    return [Text(line, style=style) for line in body[:height]]


def spacing_fits(width: int) -> bool:
    """Every animal's name in spaced capitals fits a card ``width`` cells wide (a cell either
    side): the cards spell them all so, or none (at 100x30 RABBIT and GIRAFFE were the only
    names not spaced, so they looked like another kind of card)."""
    return width >= 12 and all(cell_len(spaced(animal_name(a.value).upper())) <= width - 2
                               for a in ANIMALS)


#: The cells a name keeps where space is short (``short_names``): "Barth…", "김민…".
SHORT_NAME = 6
#: The players panel's line a player (normal print, a wide panel: ``PlayersPanel._wide_lines``).
WIDE_ROWS = -2
#: The cells of the lives in words after the hearts there ("  4 lives  ").
WIDE_LIVES = 12


def short_names(players: Sequence[str], limit: int | None) -> dict[str, str]:
    """Each player's name as shown where space is short: whole (capitalised) when it takes at
    most ``limit`` cells, else cut to ``limit - 1`` cells and ``…`` ("Bartholomew" -> "Barth…"
    at 6; a Hangul syllable takes two cells), one length for all, made longer until no two are
    alike. ``limit`` None: whole names."""
    whole = {p: title(p) for p in players}
    if limit is None:
        return whole
    for size in range(max(2, limit - 1), max((cell_len(n) for n in whole.values()), default=0) + 1):
        short = {p: cut(n, size + 1) for p, n in whole.items()}
        if len(set(short.values())) == len(short):
            return short
    return whole


def name_limit(players: Sequence[str], room: int) -> int | None:
    """The ``short_names`` limit for names in at most ``room`` cells: None (whole names) when
    the longest fits, else ``room`` (never under ``SHORT_NAME``): names are cut only as far as
    the space really asks, and all alike."""
    longest = max((cell_len(title(p)) for p in players), default=0)
    return None if longest <= room else max(SHORT_NAME, room)


def animal_chip(animal: Animal, count: int | None = None, pad: bool = True,
                large: bool = False, many: bool = False) -> Text:
    """An animal's name in its card colours (``2x pig`` with a count; ``rabbits`` when
    ``many``), for lists and tables; in capitals in large print."""
    name = animal_name(animal.value, 2 if many else 1)
    name = name.upper() if large else name
    label = name if count is None else f"{count}x {name}"
    if pad:
        label = f" {label} "
    return Text(label, style=animal_style(animal))


class CardRows(Static):
    """The four face-up rows, drawn as cards; taller cards when there is room."""

    DEFAULT_CSS = """
    CardRows { height: auto; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rows: list[Cards | None] = [None] * len(ROW_SIZES)
        #: Card size in cells; the screen sets it from the terminal's size (``set_card_size``).
        self.card_width = CARD_WIDTH
        self.height_per_card = 2
        #: Wide cards spell the names in spaced capitals (large print; the screen sets it).
        self.letter_spacing = True

    @property
    def tall(self) -> bool:
        return self.height_per_card >= 3

    def set_card_size(self, width: int, height: int) -> None:
        if (width, height) != (self.card_width, self.height_per_card):
            self.card_width, self.height_per_card = width, height
            self.refresh(layout=True)

    def update_from(self, game: Game | None) -> None:
        rows: list[Cards | None] = list(game.rows) if game is not None else [None] * len(ROW_SIZES)
        if rows == self.rows:
            return  # nothing to repaint (most commands leave most rows alone)
        self.rows = rows
        self.refresh()  # same height whatever the cards: no new layout (a full-screen repaint)

    def card_height(self) -> int:
        return self.height_per_card

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return 4 * self.card_height() + 3

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return row_label_width() + 4 * (self.card_width + 1)

    def render(self) -> Text:
        height = self.card_height()
        label_width = row_label_width()
        lines: list[tuple[str | None, Text]] = []  # (label, cards) a line; None: a gap
        for i, (k, cards) in enumerate(zip(ROW_SIZES, self.rows, strict=True)):
            animals: list[Animal | None] = list(cards) if cards is not None else [None] * k
            columns = [card_lines(a, height, self.card_width, self.letter_spacing) for a in animals]
            for line in range(height):
                label = row_label(k) if line == (height - 1) // 2 else ""
                body = Text()
                for column in columns:
                    body.append_text(column[line])
                    body.append(" ")
                lines.append((label, body))
            if i < len(ROW_SIZES) - 1:
                lines.append((None, Text()))
        # Every label as wide as the widest, in cells (a translated label is not six letters).
        return Text("\n").join(
            Text() if label is None else
            Text.assemble((padded(label, label_width), "bold" if label.strip() else ""), body)
            for label, body in lines)


def row_label(k: int) -> str:
    """A row's label beside its cards: ``Row 3``."""
    return format(_("Row {k}"), k=k)


def row_label_width() -> int:
    """The cells the rows' labels take, with the blank after them (6 in English)."""
    return max(Text(row_label(k)).cell_len for k in ROW_SIZES) + 1


def hearts(lives: int, total: int = 5, gap: str = " ") -> Text:
    """Lives as hearts: ``♥`` for each life left, a dim ``♡`` for each one lost."""
    text = Text()
    for i in range(total):
        if i < lives:
            text.append("♥" + gap, style="bold red")
        else:
            text.append("♡" + gap, style="dim")
    text.rstrip()
    return text


class PlayersPanel(Static):
    """The players in seating order: turn, lives, swapped/knocked/out, optionally known cards."""

    DEFAULT_CSS = """
    PlayersPanel { height: auto; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.game: Game | None = None
        self.show_known = False
        #: Large print: spaced capitals, wide hearts with the count in words, a blank line
        #: between players (the screen sets it from the terminal's size or the key).
        self.large = False
        #: The lines drawn last (None: nothing drawn yet), to repaint only when they change.
        self._lines: list[Text] | None = None
        #: The lines the screen has room for (None: any number); large print closes up to fit.
        self.budget: int | None = None
        #: Large print may give the names in big type (set by the screen's layout: only when
        #: the log keeps its lines beside them).
        self.big_names = False

    def update_from(self, game: Game | None, show_known: bool | None = None,
                    large: bool | None = None) -> None:
        self.game = game
        if show_known is not None:
            self.show_known = show_known
        if large is not None:
            self.large = large
        lines = self.lines()
        if lines == self._lines:
            return  # nothing to repaint
        # A new layout repaints the whole screen: only when the panel's height changes.
        self.refresh(layout=len(lines) != len(self._lines or ()))
        self._lines = lines

    def on_resize(self) -> None:
        self.update_from(self.game)  # the known cards wrap to the new width

    def lines(self) -> list[Text]:
        """Each player's lines. Large print closes up when they would not fit in ``budget``
        lines of the panel's width: first no blank line between players (the lives still in
        big type: five players at 100x30), then no big lives and no empty detail line, then
        name and hearts on one line (at 80x24 the fourth player, whose turn it was, was below
        the screen's edge), then the known cards without "swapped" and "in hand:", and only
        last the animals cut to their first letters (at 80x24 they were cut to three letters
        while whole names had the room). A line wider than the panel wraps, so it counts as
        not fitting (at 100x30 "B A R T H O L O M E W ◀ TURN" wrapped and pushed the last
        player's known cards off the panel)."""
        game = self.game
        if game is None:
            return [Text(_("No game yet."), style="dim")]
        out: list[Text] = []
        for tight, gaps in self._variants(game):
            out = self._all_lines(game, tight, gaps)
            if self.budget is None or self._fits(out) or self._turn_in_view(game, out):
                break
        if self.budget is not None and 2 <= self.budget < len(out):  # never cut with no cue
            out = [*out[: self.budget - 1], Text(self._more_below(), style="dim")]
        return out

    def _fits(self, out: list[Text]) -> bool:
        """``out`` takes at most ``budget`` lines, none wider than the panel (else it wraps)."""
        width = self.content_region.width
        return (self.budget is None or len(out) <= self.budget) and \
            (not width or all(line.cell_len <= width for line in out))

    def _variants(self, game: Game) -> tuple[tuple[int, bool], ...]:
        """The layouts ``lines`` tries, roomiest first, as (``tight``, ``gaps``)."""
        if not self.large:
            # normal print falls back to the short known cards (no "swapped", no "in hand:")
            # where the full ones would hide the player whose turn it is: German's "auf der
            # Hand:" wrapped at 80x24 and hid the fifth player, whose turn it was. A wide
            # panel first gives each player one line, in columns (``_wide_lines``).
            in_columns = ((WIDE_ROWS, True), (WIDE_ROWS, False)) if self._wide_fits(game) else ()
            return (*in_columns, (0, False), (5, False))
        # A tall screen (the screen's layout sets ``big_names``) first gives the names in big
        # type too, when the longest fits the panel's width.
        longest = max(big_width(title(p)) for p in game.players)
        fits = (self.big_names and longest + 12 <= (self.size.width or 0)
                # all or none: a name the font lacks (Hangul) stays in normal type, so big
                # names beside it would set the table's names in two sizes
                and all(in_font(title(p)) for p in game.players))
        wide = ((-1, True),) if fits else ()
        return (*wide, (0, True), (0, False), (1, False), (2, False), (3, False), (4, False), (5, False))

    def _turn_in_view(self, game: Game, out: list[Text]) -> bool:
        """Normal print only: the line of the player whose turn it is (``▶``) is above the
        "more below" cue (English's long known cards keep their words as before)."""
        if self.large or self.budget is None or game.turn is None:
            return False
        at = next((i for i, line in enumerate(out) if line.plain.startswith("▶")), None)
        return at is not None and at < self.budget - 1

    def _more_below(self) -> str:
        """The cue that players are cut off below; its part in brackets dropped where the
        panel is too narrow for the whole (German's cue is longer than the panel at 80x24)."""
        cue = _("… more below (F8 hides the known cards)")
        width = self.size.width or 0
        return cue if not width or cell_len(cue) <= width else cue.split(" (", 1)[0]

    def _all_lines(self, game: Game, tight: int, gaps: bool) -> list[Text]:
        """``tight`` 0: large print's lives in big type; -1: the names too; ``WIDE_ROWS``:
        normal print's line a player (``_wide_lines``); ``gaps``: a blank line between
        players."""
        if tight == WIDE_ROWS:
            return self._lines_in_columns(game, gaps)
        out: list[Text] = []
        ranked = dict(places(game))
        for p in game.players:
            big_lives = self.large and tight <= 0  # four cells of the width go to them
            block = (self._big_name_lines(game, p) if tight < 0
                     else self._name_lines(game, p, one_line=tight >= 2, taken=4 if big_lives else 0))
            details = self._detail_lines(game, p, player_marks(game, p, ranked), 4 if big_lives else 0,
                                         short=max(0, tight - 2))
            block.extend(d for d in details if tight <= 0 or d.plain.strip())
            if big_lives:
                block = self._with_big_lives(block, game.lives[p])
            out.extend(block)
            if gaps:
                out.append(Text())
        return out[:-1] if gaps and out else out

    @staticmethod
    def _with_big_lives(block: list[Text], lives: int) -> list[Text]:
        """A player's lines with the lives left beside them in big type, three lines high
        (large print: read from the other end of the table)."""
        digits = big(str(lives), style="bold red" if lives else "dim")
        block = block + [Text()] * (3 - len(block))
        return [Text.assemble(digits[i] if i < 3 else "   ", " ", line) for i, line in enumerate(block)]

    @staticmethod
    def _big_name_lines(game: Game, player: str) -> list[Text]:
        """Large print on a wide screen: the name in big type (the turn marked), then the
        name as written in spaced capitals (the big font has no Ö), the hearts and the lives
        in words."""
        lives = game.lives[player]
        is_turn = player == game.turn
        style = "bold reverse" if is_turn else ("dim" if lives == 0 else "bold")
        rows = big(title(player), style=style)
        lines = [Text.assemble(("▶ " if is_turn and i == 1 else "  ", "bold"), rows[i],
                               (turn_mark() if is_turn and i == 1 else "", "bold")) for i in range(3)]
        second = Text(f"  {spaced(title(player).upper())}   ", style="bold")
        second.append_text(hearts(lives, gap="  "))
        second.append(f"   {lives_words(lives)}", style="bold" if lives else "dim")
        return [*lines, second]

    def _name_lines(self, game: Game, player: str, one_line: bool = False, taken: int = 0) -> list[Text]:
        """The name (the turn marked) and the hearts: one line, or two in large print (one
        when ``one_line``: the screen is short); the name's letters spaced when they fit the
        width less the ``taken`` cells before them, with the turn's mark."""
        lives = game.lives[player]
        is_turn = player == game.turn
        name_style = "bold reverse" if is_turn else ("dim strike" if lives == 0 else "bold")
        line = Text("▶ " if is_turn else "  ", style="bold")
        if not self.large:
            line.append(padded(title(player), self._name_cells(game)), style=name_style)
            line.append(" ")
            line.append_text(hearts(lives))
            return [line]
        if one_line:  # a short screen: the name in capitals, not spaced, cut if need be
            shown = short_names(game.players, self._one_line_limit(game))
            line.append(f" {shown[player].upper()} ", style=name_style)
            line.append(" " * (max(cell_len(n) for n in shown.values()) - cell_len(shown[player])))
            line.append(" ")
            line.append_text(hearts(lives, gap=""))
            if is_turn:
                line.append(" ◀", style="bold")
            return [line]
        mark = turn_mark() if is_turn else ""
        name = spaced(title(player).upper())
        if cell_len(f"   {name} {mark}") > (self.size.width or 40) - taken:
            name = title(player).upper()  # spaced, it wrapped and pushed a line off
        line.append(f" {name} ", style=name_style)
        if is_turn:
            line.append(turn_mark(), style="bold")
        second = Text("   ")
        second.append_text(hearts(lives, gap="  "))
        second.append(f"   {lives_words(lives)}", style="bold" if lives else "dim")
        return [line, second]

    def _lines_in_columns(self, game: Game, gaps: bool) -> list[Text]:
        """Normal print on a wide panel: a line a player (``_wide_lines``), ``gaps`` a blank
        line between them."""
        ranked = dict(places(game))
        marks = {p: player_marks(game, p, ranked) for p in game.players}
        out: list[Text] = []
        for p in game.players:
            if gaps and out:
                out.append(Text())
            out.extend(self._wide_lines(game, p, marks))
        return out

    def _wide_columns(self, game: Game, marks: dict[str, list[str]]) -> tuple[int, int]:
        """The cells of the names' and the marks' columns in ``_wide_lines``."""
        names = max(8, *(cell_len(title(p)) for p in game.players))
        return names, max(cell_len(" · ".join(m)) for m in marks.values())

    def _wide_fits(self, game: Game) -> bool:
        """The panel is wide enough for a line a player (``_wide_lines``), the known cards
        (F8) whole beside the marks (wrapped in a narrow column they broke up mid-hand)."""
        ranked = dict(places(game))
        names, marks = self._wide_columns(game, {p: player_marks(game, p, ranked) for p in game.players})
        known = max((known_text(game.known[p]).cell_len for p in game.players if game.lives[p]),
                    default=0) if self.show_known else -3
        return 2 + names + 1 + 9 + WIDE_LIVES + marks + 3 + known <= (self.size.width or 0)

    def _wide_lines(self, game: Game, player: str, marks: dict[str, list[str]]) -> list[Text]:
        """Normal print on a wide panel: a player on one line, in columns (the turn, the name,
        the hearts, the lives in words, the marks and, with F8, the known cards): at 200
        columns the players took 40 of the panel's 150 cells, two lines each."""
        names, marks_cells = self._wide_columns(game, marks)
        lives = game.lives[player]
        is_turn = player == game.turn
        name_style = "bold reverse" if is_turn else ("dim strike" if lives == 0 else "bold")
        line = Text("▶ " if is_turn else "  ", style="bold")
        line.append(padded(title(player), names), style=name_style)
        line.append(" ")
        line.append_text(hearts(lives))
        line.append(padded(f"  {lives_words(lives)}", WIDE_LIVES), style="bold" if lives else "dim")
        line.append(padded(" · ".join(marks[player]), marks_cells), style="italic")
        if self.show_known and lives:
            line.append("   ")
            line.append_text(known_text(game.known[player]))
        line.rstrip()
        return [line]

    def _name_cells(self, game: Game) -> int:
        """The cells a name takes before the hearts: 8, or the longest name's when it is longer
        and the panel has room (the hearts in one column, "Bartholomew" beside "김민준")."""
        longest = max(8, *(cell_len(title(p)) for p in game.players))
        return longest if 2 + longest + 1 + 9 <= (self.size.width or 0) else 8

    def _one_line_limit(self, game: Game) -> int | None:
        """The names' limit on a one-line player (``name_limit``): whole names when the
        panel's width has room for them beside the turn marks and the hearts (12 cells)."""
        return name_limit(game.players, (self.size.width or 40) - 12)

    def _detail_lines(self, game: Game, player: str, marks: list[str], taken: int = 0,
                      short: int = 0) -> list[Text]:
        """The marks in words and, with F8, the known cards: beside them when they fit, else
        on lines of their own, whole names wrapped, so nothing is cut (in the width less the
        ``taken`` cells before them). ``short`` 1: "swapped" and "in hand:" left out, the
        whole animals after the other marks, wrapped (large print, five players on a small
        screen); 2: the animals by their first letters, wrapped; 3: so, on one line."""
        width = (self.size.width or 40) - taken
        detail = Text("   " if self.large else "    ")
        detail.append(" · ".join(marks), style="italic")
        if not (self.show_known and game.lives[player]):
            return [detail]
        out: list[Text] = []
        if short:  # "swapped" and "in hand:" left out: the cards need the room
            return self._short_details(marks, game.known[player], width, letters=short >= 2,
                                       wrap=short < 3)
        known = known_text(game.known[player])
        if detail.cell_len + 2 + known.cell_len <= width:
            if detail.plain.strip():
                detail.append("  ")
            detail.append_text(known)
        else:
            if detail.plain.strip():
                out.append(detail)
            out.extend(wrap_known(game.known[player], width, indent=4))
            detail = Text()
        if detail.plain.strip():
            out.append(detail)
        return out

    @staticmethod
    def _short_details(marks: list[str], cards: Cards, width: int, letters: bool,
                       wrap: bool) -> list[Text]:
        """The marks but "swapped", then the known ``cards`` without "in hand:" (by their
        first ``letters``, else whole): on as many lines of ``width`` as they need (``wrap``),
        else on one, cut at its end."""
        detail = Text("   ")
        detail.append(" · ".join(m for m in marks if m != _("swapped")), style="italic")
        if detail.plain.strip():
            detail.append("  ")
        known = known_text(cards, short=letters)
        prefix = in_hand_label() + " "
        if not wrap or not cards:
            detail.append_text(known[len(prefix):] if known.plain.startswith(prefix) else known)
            detail.truncate(width, overflow="ellipsis")
            return [detail]
        out = [detail]
        for animal, n in cards.counts().items():
            name = short_animal_names()[animal] if letters else animal_name(animal.value)
            chip = Text(name if n == 1 else f"{n}x {name}", style=animal_style(animal))
            line = out[-1]
            if line.plain.strip() and not line.plain.endswith("  "):
                if line.cell_len + 1 + chip.cell_len > width:
                    out.append(line := Text("     "))  # a line of its own, indented
                else:
                    line.append(" ")
            line.append_text(chip)
        return out

    def render(self) -> Text:
        return Text("\n").join(self.lines())


def player_marks(game: Game, player: str, ranked: dict[str, int]) -> list[str]:
    """What the players panel says of a player in words: out (with the place), starts,
    swapped, knocked, declared or to declare at the reveal, winner."""
    if game.lives[player] == 0:
        place = ranked.get(player)
        return [format(_("OUT · {place} place"), place=ordinal(place, place=True)) if place else _("OUT")]
    marks: list[str] = []
    if player == game.starter and game.phase is not Phase.GAME_OVER:
        marks.append(_("starts"))
    if player in game.swapped:
        marks.append(_("swapped"))
    if player == game.knocker:
        marks.append(_("KNOCKED"))
    if game.phase is Phase.REVEAL:
        marks.append(_("declared") if player in game.declared else _("to declare"))
    if player in game.winners:
        marks.append(_("WINNER"))
    return marks


def turn_mark() -> str:
    """Beside the name of the player whose turn it is, in large print."""
    return "  ◀ " + _("TURN")


def in_hand_label() -> str:
    return _("in hand:")


def lives_words(lives: int) -> str:
    return _("out") if not lives else format(ngettext("{n} life", "{n} lives", lives), n=lives)


def wrap_known(cards: Cards, width: int, indent: int = 4) -> list[Text]:
    """The cards known to be in a hand on as many lines of ``width`` cells as they need."""
    lines: list[Text] = []
    line = Text(" " * indent) + Text(in_hand_label(), style="dim")
    if not cards:
        return [line + Text(" " + _("nothing known"), style="dim")]
    for animal, n in cards.counts().items():
        name = animal_name(animal.value)
        chip = Text(name if n == 1 else f"{n}x {name}", style=animal_style(animal))
        if line.cell_len + 1 + chip.cell_len > width and line.plain.strip():
            lines.append(line)
            line = Text(" " * (indent + 2))
        else:
            line.append(" ")
        line.append_text(chip)
    lines.append(line)
    return lines


def known_text(cards: Cards, short: bool = False) -> Text:
    """``in hand: 2x pig cat``: the cards known to be in a hand, as coloured names.

    ``short`` uses the first three letters, which still tell the ten animals apart.
    """
    text = Text(in_hand_label() + " ", style="dim")
    if not cards:
        text.append(_("nothing known"), style="dim")
        return text
    for i, (animal, n) in enumerate(cards.counts().items()):
        if i:
            text.append(" ")
        name = short_animal_names()[animal] if short else animal_name(animal.value)
        label = name if n == 1 else f"{n}x {name}"
        text.append(label, style=animal_style(animal))
    return text


#: The fewest letters of an animal's name shown where space is short (``known_text``).
SHORT_ANIMAL = 3


def short_animal_names() -> dict[Animal, str]:
    """The animals' names cut to the fewest letters (at least ``SHORT_ANIMAL``) that still tell
    the ten apart in the table's language: three in English; German's Maulwurf and Maus, Schaf
    and Schwein need four."""
    names = {a: animal_name(a.value) for a in ANIMALS}
    longest = max(len(n) for n in names.values())
    for letters in range(SHORT_ANIMAL, longest + 1):
        short = {a: n[:letters] for a, n in names.items()}
        if len(set(short.values())) == len(short):
            return short
    return names


def ordinal(n: int, place: bool = False) -> str:
    """``1st``, ``2nd``, ... in the table's language; ``place``: a player's place (Korean says
    ``1위`` there, ``1번째`` for a seat)."""
    if place:
        forms = (pgettext("place", "{n}st"), pgettext("place", "{n}nd"), pgettext("place", "{n}rd"),
                 pgettext("place", "{n}th"))
    else:
        forms = (pgettext("ordinal", "{n}st"), pgettext("ordinal", "{n}nd"),
                 pgettext("ordinal", "{n}rd"), pgettext("ordinal", "{n}th"))
    return format(forms[max(1, min(n, 4)) - 1], n=n)


class TableLog(RichLog):
    """Commands and announcements, newest at the bottom; refused commands marked with the reason.

    ``plain`` keeps the same lines as text so tests (and people) can read them back. It never
    takes the focus (typing always goes to the command line; PageUp/PageDown there scroll it).
    """

    can_focus = False

    def __init__(self, **kwargs: Any) -> None:
        # min_width 1: lines wrap at the log's own width, not at RichLog's default of 78
        # columns (one column too many at 80x24, half the screen wasted at 200x50).
        super().__init__(wrap=True, markup=False, highlight=False, auto_scroll=True, min_width=1,
                         **kwargs)
        self.plain: list[str] = []
        #: Everything written, to wrap again at a new width (``on_resize``).
        self._written: list[RenderableType] = []
        self._width = 0  # the width the lines were wrapped at
        #: The line where the newest entry starts (None: not known, its write was deferred
        #: until the log's size is known), and whether it is read from there when it is taller
        #: than the log (a refusal): see ``_show_newest``.
        self._newest: int | None = 0
        self._newest_from_start = False

    def on_mount(self) -> None:
        """Anchored at its end: each layout keeps the newest lines in view (the scrolls that
        writes queue ran before the layout of a resumed table opening with lines typed, and the
        log showed lines short of its newest). ``scroll_to`` a refusal's start releases the
        anchor; the next write's ``scroll_end`` takes it up again."""
        self.anchor()

    def command(self, text: str, source: str = "", said: Sequence[str] = ()) -> None:
        """An accepted command and what the referee said, in one write (one relayout)."""
        prefix = {"heard": "🎤 ", "grid": "▦ "}.get(source, "› ")
        self.plain.append(prefix + text)
        self.plain.extend("  " + line for line in said)
        self._write(Group(Text.assemble((prefix, "bold"), (text, "bold")), *_indented(said)))

    def said(self, lines: Sequence[str]) -> None:
        """Sentences without a command (a greeting), in one write."""
        if not lines:
            return
        self.plain.extend("  " + line for line in lines)
        self._write(Group(*_indented(lines)))

    def _write(self, renderable: RenderableType, from_start: bool = False) -> None:
        self._written.append(renderable)
        self._newest_from_start = from_start
        if not self._size_known:  # kept by RichLog until its size is known
            self._newest = None
            self.write(renderable, expand=True)
            return
        self._newest = len(self.lines)
        self.write(renderable, expand=True, scroll_end=False)  # the log's whole width, however wide
        self._show_newest()

    def _show_newest(self) -> None:
        """The newest lines in view; a refusal (or a question, a note) taller than the log from
        its first line (at 80x24 the log has three lines, and a refused hand's first sentence
        scrolled out above them: the rest is a PageDown away, the scroll bar says so). A
        command's announcements keep their last line, what comes next, in view."""
        height = self.scrollable_content_region.height
        start = self._newest
        if (self._newest_from_start and start is not None and height
                and len(self.lines) - start > height):
            self.scroll_to(y=start, animate=False, immediate=False)
        else:
            self.scroll_end(animate=False, immediate=False, x_axis=False)

    def on_resize(self, event: Resize) -> None:
        """At a new width every line is wrapped again, and after any change of size (F8, F4, a
        resized terminal) the newest lines are in view: RichLog keeps lines as first wrapped,
        so a narrower log cut them at its edge, and a shorter one hid the last ones."""
        width = self.scrollable_content_region.width
        # lines: the size was known; _newest None: where the newest entry starts is not
        if self.lines and width and (width != self._width or self._newest is None):
            self.clear()
            for i, renderable in enumerate(self._written):
                if i == len(self._written) - 1:
                    self._newest = len(self.lines)
                self.write(renderable, expand=True, scroll_end=False)
        if width:
            self._width = width
        self._show_newest()

    def refused(self, text: str, reason: str) -> None:
        refused = " " + _("refused") + ": "
        line = Text.assemble(("✗ ", "bold red"), (text, "bold"), (refused, "bold red"), reason)
        self._add(line, f"✗ {text}{refused}{reason}")

    def question(self, text: str, question: str) -> None:
        """A command that waits for yes or no: a question, not a refusal."""
        line = Text.assemble(("? ", "bold"), (text, "bold"), (": ", "bold"), (question, "bold"))
        self._add(line, f"? {text}: {question}")

    def note(self, text: str) -> None:
        self._add(Text(text, style="italic dim"), text)

    def _add(self, rich: Text, plain: str) -> None:
        self.plain.append(plain)
        self._write(rich, from_start=True)


def _indented(lines: Sequence[str]) -> list[Padding]:
    """What the referee said, two columns in, a long sentence wrapped under its own start."""
    return [Padding(SaidLine(line), (0, 0, 0, 2)) for line in lines]


class SaidLine:
    """One line the referee said, wrapped at the ends of its sentences when that takes no more
    lines than wrapping at any word: at 80x24 in large print the log shows two lines, and a
    round's losses ("Bartholomew, Christopher and Dorothea lose 1 life each. Evangeline loses
    2 lives.") wrapped before its last word showed "lives." alone above the next round's line."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        by_words = Text(self.text).wrap(console, width)
        groups: list[str] = []
        for sentence in sentences(self.text):
            if groups and cell_len(groups[-1] + " " + sentence) <= width:
                groups[-1] += " " + sentence
            else:
                groups.append(sentence)
        by_sentences = Text("\n".join(groups)).wrap(console, width)
        yield from by_sentences if len(by_sentences) <= len(by_words) else by_words

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, Text(self.text))


def sentences(text: str) -> list[str]:
    """``text`` cut after each ``.``, ``!`` or ``?`` that a space and a word not in lower case
    follow ("Round 2. Bob starts." is two; "e.g. new game" one)."""
    out: list[str] = []
    start = 0
    for match in re.finditer(r"(?<=[.!?]) +(?=\S)", text):
        if not text[match.end()].islower():
            out.append(text[start:match.start()])
            start = match.end()
    out.append(text[start:])
    return out


class CommandSuggester(Suggester):
    """Completes the word being typed with what the game expects now (from the grammar data)."""

    def __init__(self, game: Callable[[], Game | None]) -> None:
        super().__init__(use_cache=False, case_sensitive=False)
        self.game = game

    async def get_suggestion(self, value: str) -> str | None:
        return suggest(value, self.game())


def command_hint(game: Game | None, question: str | None = None, width: int | None = None) -> str:
    """The command line's placeholder: what to type now, with the table's own names; while a
    ``question`` waits (a new game, a heard hand read back), the answer it waits for. Its parts
    (the table model's ``hint_parts``) go in whole, as many as fit in ``width`` (a long name
    cut the hint in the middle)."""
    return fitted_hint(hint_parts(game, question), width)


def fitted_hint(parts: Sequence[str], width: int | None = None) -> str:
    """The hint's ``parts`` (the table model's ``TableState.hint``) joined, each in whole, as
    many as fit in ``width``."""
    hint = parts[0]
    for part in parts[1:]:
        if width is None or cell_len(hint) + 3 + cell_len(part) <= width:
            hint += " · " + part
    return hint


def suggest(value: str, game: Game | None) -> str | None:
    """The completed line for ``value``, or None: pure, so it is tested directly. Only what the
    game allows now is offered (no 'X starts' once the round's first turn is played, no player
    who is out), the most likely first."""
    if not value or value.endswith(" "):
        return None
    words = value.split()
    prefix = words[-1].lower()
    candidates = _candidates([w.lower() for w in words[:-1]], game)
    if prefix in candidates:  # a whole word already: a plural is no help
        return None
    for word in candidates:
        if word.startswith(prefix) and word != prefix:
            return value + word[len(prefix):]
    return None


def _candidates(before: list[str], game: Game | None) -> list[str]:
    """The words that may come after the words ``before``, the most likely first."""
    alive = list(game.alive) if game is not None and not game.is_over else []
    if not before:
        return first_words(game)
    if len(before) == 1 and before[0] in alive:
        return expected_verbs(game, before[0])
    if before[0] == "new":
        return ["game"] if len(before) == 1 else []
    if before[0] in START_WORDS and before[0] != "row":
        return []
    names = {a.value for a in ANIMALS}
    return [a.value for a in ANIMALS] + sorted(w for w in ANIMAL_WORDS if w not in names)


class KeysInOrder:
    """A widget whose own keys (its bindings: Enter, Tab, Backspace, the arrows, a grid's digits)
    act in the order they were typed, among the letters.

    Textual runs a widget's bindings when the key has bubbled back up to the app, after the
    widget has handled the keys typed after it: with keys typed faster than the app answers (at
    start-up, while a command is stored), the command line took "grace passes", Enter, "dave
    knocks", then ran the Enter on "grace passesdave knocks", twice; and an Enter meant for the
    command line declared a hand when the reveal's grid had taken the focus meanwhile. Here a
    key bound on the widget runs as the widget takes it, on the widget it was typed into."""

    async def run_own_binding(self, event: Key) -> bool:
        """Run the widget's own (non-priority) binding for ``event``; True when one ran."""
        node: Any = self
        for binding in node._bindings.key_to_bindings.get(event.key, ()):
            if not binding.priority and await node.app.run_action(binding.action, node):
                event.stop()
                event.prevent_default()
                return True
        return False


class KeyCommand(Message):
    """Undo or redo by its key, sent up behind what was typed before it (``LifeguardApp.in_turn``).

    The app's keys are priority bindings: Ctrl+Z ran on the app as it arrived, while the line
    typed just before it was still on its way up from the command line through the screen, and
    undid the command before that line (session 19's tester). This message goes the line's way
    instead: posted on the widget the keys were typed into, it leaves after the line that
    widget sent, and waits at the screen while that line is applied. ``route`` are the widgets
    it passes through next (the command line, after the hand grid that sent it a line)."""

    def __init__(self, action: str, route: Sequence[Any] = ()) -> None:
        super().__init__()
        self.action = action
        self.route = tuple(route)


class OrderedInput(KeysInOrder, Input):
    """An input whose Enter, Backspace and arrows act in the order typed (``KeysInOrder``)."""

    #: The text's width, which Textual's ``Input`` sets at every change of its value: as a
    #: layout reactive (``Widget``'s) that laid the whole screen out again at every key typed
    #: (9 ms of CPU a key at the table). The input's own size never depends on it (its width is
    #: its container's, its height 3 lines): only its scrolling does, which reads it as it is.
    virtual_size: Reactive[Size] = Reactive(Size(0, 0))

    async def _on_key(self, event: Key) -> None:
        if not await self.run_own_binding(event):
            await super()._on_key(event)


class CommandInput(OrderedInput):
    """The command line: completion (Tab or right arrow takes it), history on up/down, and a
    refused command's suggestion (Tab or Enter takes it). Its keys act in the order typed
    (``KeysInOrder``), and Enter empties it at once, so what is typed after it starts afresh."""

    BINDINGS = [
        # An Enter typed before the table took the terminal (while it starts) arrives as a
        # newline, ctrl+j: the terminal was still turning Enter into one.
        Binding("ctrl+j", "submit", N_("Send"), show=False),
        Binding("up", "history(-1)", N_("Previous command"), show=False),
        Binding("down", "history(1)", N_("Next command"), show=False),
        Binding("tab", "complete", N_("Complete"), show=False),
        Binding("pageup", "scroll_log(-1)", N_("Scroll the log"), show=False),
        Binding("pagedown", "scroll_log(1)", N_("Scroll the log"), show=False),
    ]

    def __init__(self, game: Callable[[], Game | None], **kwargs: Any) -> None:
        # Not selected on focus: the focus comes back here with a letter typed elsewhere (the
        # hand grid, the game-over screen), and the next key typed over it.
        super().__init__(suggester=CommandSuggester(game), select_on_focus=False, **kwargs)
        self.game = game
        self.history: list[str] = []
        self._position = 0
        #: A refused line left in the input and the command the referee suggested for it:
        #: Tab or Enter takes the suggestion while the line is unchanged.
        self.refused: str | None = None
        self.offered: str | None = None
        #: Lines sent by Enter: a refused line comes back only if none was sent after it.
        self.sent = 0

    async def action_submit(self) -> None:
        self.send()

    def send(self) -> None:
        """Enter: the line (or a refused line's suggestion) goes up as ``Submitted``, and the
        line is emptied now, before the next key typed is taken."""
        text = (self.offer or self.value).strip()
        self.refused = self.offered = None
        self.value = ""
        self.sent += bool(text)
        self.post_message(self.Submitted(self, text))

    def _on_paste(self, event: Paste) -> None:
        """Pasted lines are taken as if typed one after another, each sent as its Enter would
        (Textual's input kept the first line, unsent, and dropped the rest). The first joins
        what is typed already; one line without a line break is only put in, as typed."""
        lines = event.text.splitlines()
        if len(lines) <= 1 and not event.text.endswith(("\n", "\r")):
            return  # Textual's own handler (``Input._on_paste``, dispatched after this) puts it in
        event.stop()
        event.prevent_default()
        for number, line in enumerate(lines):
            if number:
                self.value = line
            else:
                self.insert_text_at_cursor(line)
            if self.value.strip():
                self.send()
        self.value = ""

    def remember(self, text: str) -> None:
        if text and (not self.history or self.history[-1] != text):
            self.history.append(text)
        self._position = len(self.history)

    def keep_refused(self, text: str, suggestion: str | None) -> None:
        """A refused line stays, selected: an arrow key starts editing it, typing a new command
        replaces it, and Tab or Enter take the suggestion if there is one."""
        self.refused, self.offered = text, suggestion
        self.value = text
        self.selection = Selection(0, len(text))

    @property
    def offer(self) -> str | None:
        """The suggestion on offer: only while the refused line is still there, unchanged."""
        return self.offered if self.offered and self.value == self.refused else None

    def action_history(self, step: int) -> None:
        if not self.history:
            return
        self._position = max(0, min(len(self.history), self._position + step))
        self.value = self.history[self._position] if self._position < len(self.history) else ""
        self.cursor_position = len(self.value)

    def action_complete(self) -> None:
        """Tab: the suggestion of a refused line, else the word being typed, else the start of
        the command expected now. Never moves the focus (Shift+Tab does, at the reveal). With
        nothing to take, the line stays as it is, still selected if it was (a refused line:
        typing replaces it rather than being added to its end)."""
        if self.offer:
            self.value = self.offer
            self.refused = self.offered = None
        elif self._suggestion and self._suggestion != self.value:
            self.value = self._suggestion
        elif not self.value:
            self.value = expected_start(self.game())
        elif self._starts_expected():  # "chr" on Christopher's turn: "Christopher "
            self.value = expected_start(self.game())
        else:
            return
        self.cursor_position = len(self.value)

    def _starts_expected(self) -> bool:
        """The line typed so far is the start of the command expected now (any case)."""
        start = expected_start(self.game())
        return len(self.value) < len(start) and start.lower().startswith(self.value.lower())

    def action_scroll_log(self, step: int) -> None:
        for log in self.screen.query(TableLog):
            log.scroll_page_down() if step > 0 else log.scroll_page_up()


#: The states the voice's devices report (``assistant.voice``), in words for the status line.
DEVICE_STATES = {
    "off": N_("off"),
    "on": N_("on"),
    "loading": N_("loading"),
    "unavailable": N_("unavailable"),
    "listening": N_("listening"),
    "hearing": N_("hearing"),
    "speaking": N_("speaking"),
    "muted": N_("muted"),
}


def state_word(state: str) -> str:
    """A device's state in the table's language (one not listed as it came)."""
    return _(DEVICE_STATES[state]) if state in DEVICE_STATES else state


#: The status line's short reasons: how a device's reason begins as the voice layer writes it
#: (English), and the words the line says for it in the table's language.
SHORT_REASONS: tuple[tuple[str, str], ...] = (
    ("no audio device", N_("no audio device")),
    ("no audio player", N_("no audio player")),
    ("no microphone", N_("no microphone")),
    ("espeak-ng is not installed", N_("espeak-ng is not installed")),
    ("synthesis", N_("speech synthesis failed")),
    ("the speech engine failed", N_("speech synthesis failed")),
)


def short_reason(reason: str) -> str:
    """Why a device is unavailable in a few words of the table's language: a reason the voice
    layer writes in English said by ``SHORT_REASONS``; else the reason without its label and
    its details ("Spracheingabe: für Deutsch nur Tippen (Whisper ...)" is "für Deutsch nur
    Tippen": cut at the first colon, the line said "(Spracheingabe)", no reason at all)."""
    for prefix in ("speech off: ", "listening off: "):
        reason = reason.removeprefix(prefix)
    for start, words in SHORT_REASONS:
        if reason.startswith(start):
            return _(words)
    reason = reason.split("(")[0].strip()
    label, colon, rest = reason.partition(": ")
    return (rest if colon and rest else label).strip()


class StatusLine(Static):
    """Microphone, speech and the data file, in words (never colour alone)."""

    DEFAULT_CSS = """
    StatusLine { height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, data_label: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: (state, why) of the microphone and of the speech, as the voice bridge reports them.
        self.mic: tuple[str, str | None] = ("off", None)
        self.speech: tuple[str, str | None] = ("off", None)
        self.data_label = data_label
        #: Voice switched off on the setup screen: both are "off", whatever the devices say
        #: (a switched-off table said "mic: unavailable (no microphone)").
        self.switched_off = False

    def set_switched_off(self, off: bool) -> None:
        self.switched_off = off
        self.refresh()

    def set_mic(self, state: str, reason: str | None = None) -> None:
        self.mic = (state, reason)
        self.refresh()

    def set_speech(self, state: str, reason: str | None = None) -> None:
        self.speech = (state, reason)
        self.refresh()

    def text(self, width: int | None = None) -> str:
        """Each state once, with why it is unavailable beside it; when the line is too long
        for ``width``: the reasons shortened, then the data file by its name alone, then the
        short reason in place of "unavailable" ("Mikro: für Deutsch nur Tippen": at 80 to 120
        columns a German table never said why), then without the data file (F2 says it), then
        the reasons left to the help screen, so nothing is cut in the middle."""
        width = width or self.size.width or 200

        def part(label: str, state: str, reason: str | None, how: str) -> str:
            said = state_word(state)
            if not reason or state != "unavailable" or how == "none":
                return f"{label} {said}"
            if how == "reason":  # the reason says the state: "mic: no microphone"
                return f"{label} {short_reason(reason)}"
            if how == "short":
                reason = short_reason(reason)
            return f"{label} {said} ({reason})"

        label, name = self.data_label, _file_name(self.data_label)
        mic, speech = ((("off", None), ("off", None)) if self.switched_off
                       else (self.mic, self.speech))
        for how, data in (("full", label), ("short", label), ("short", name), ("reason", name),
                          ("reason", None), ("none", name)):
            parts = [part(_("mic:"), *mic, how), part(_("speech:"), *speech, how)]
            parts += [format(_("data: {file}"), file=data)] if data is not None else []
            text = " · ".join(parts)
            if cell_len(text) <= width:
                return text
        return text

    def render(self) -> Text:
        return Text(self.text(self.size.width or None), no_wrap=True, overflow="ellipsis")


def _file_name(label: str) -> str:
    """The data file's name without its folder (the help screen has the whole path)."""
    return label.rsplit("/", 1)[-1] if "/" in label and not label.startswith("not ") else label
