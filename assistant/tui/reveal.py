"""The end of a round: the hand grid (entering hands as animal x player counts, with the checks
of RULES.md shown live) and the results view (majorities, points, lives lost, who is out).

The grid never changes the game itself: Enter on a player's column posts ``HandGrid.Submitted``
with the ordinary ``<name> has ...`` command, which the app sends through the referee like a
typed line, so a hand entered here is checked and stored exactly like one typed or spoken.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from rich import box
from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text
from textual.binding import Binding
from textual.coordinate import Coordinate
from textual.events import Key, Paste
from textual.message import Message
from textual.widget import Widget
from textual.widgets import DataTable, Static

from assistant.i18n import N_, _, animal_name, format, ngettext
from assistant.i18n.words import names
from assistant.table import SheetLine, SheetRound, TableState
from assistant.tui.bigtype import big, big_cut, big_width
from assistant.tui.cells import cell_len, padded
from assistant.tui.widgets import SHORT_NAME, KeysInOrder, animal_chip, ordinal, short_names
from engine.actions import Action, DeclareHand
from engine.deck import ANIMALS, COPIES, HAND_SIZE, Animal, Cards
from engine.events import Majority, RoundEnded
from engine.game import Game, Phase
from engine.words import title

ANIMAL_NAMES = {a.value for a in ANIMALS}
#: From these columns normal print spreads the hand grid and the results over the width, as
#: large print does (at 200 columns they took half of it, the rest empty).
NORMAL_WIDE_FROM = 120
#: From these columns normal print keeps the table's parts together in the middle: the rows and
#: the players centred, the results' columns at most ``NORMAL_COLUMN_WIDEST`` cells apart (at 200
#: columns the players ended at 115, the rest empty, and the results' columns were 29 apart).
NORMAL_CENTRED_FROM = 160
NORMAL_COLUMN_WIDEST = 16
#: Large print's results keep their columns at most this many cells wide (and their gaps)
#: at any size: spread over the width, two players at game over were 33 cells apart at 120x40.
LARGE_COLUMN_WIDEST = 18


def hand_command(player: str, counts: dict[Animal, int]) -> str:
    """The canonical ``<name> has ...`` line for a column of the grid."""
    parts = [f"{counts[a]} {a.value}" for a in ANIMALS if counts.get(a, 0)]
    return f"{player} has {' '.join(parts)}".rstrip()


def hand_checks(game: Game, counts: dict[str, dict[Animal, int]]) -> dict[str, list[str]]:
    """Per player, what is still wrong with the hand in the grid (empty: it can be declared).

    The checks of RULES.md: exactly 10 cards, every known card present, and no animal more often
    across the rows and all hands than the deck holds (reported under ``""``).
    """
    problems: dict[str, list[str]] = {}
    for p, hand in counts.items():
        check = game.check_hand(p, Cards(hand))
        lines: list[str] = []
        if check.size != HAND_SIZE:
            lines.append(format(_("{n} of 10 cards"), n=check.size))
        for animal in check.missing.counts():
            need = game.known[p].count(animal)
            lines.append(format(_("must hold {n} {animal} (taken from the rows)"), n=need,
                                animal=animal_name(animal.value, need)))
        problems[p] = lines
    overflow = game.overflowing(Cards(h) for h in counts.values())
    problems[""] = [
        format(_("{n} {animal} on the table and in hands, the deck holds {copies}"), n=n,
               animal=animal_name(a.value, n), copies=COPIES[a])
        for a, n in overflow.items()
    ]
    return problems


class HandGrid(KeysInOrder, DataTable[str | Text]):
    """Animal x player counts for the hands revealed this round.

    Digits set a count, + and - change it, Enter declares the column's player; a letter starts
    a command in the command line. The cursor follows the reveal: when it begins, and after
    each hand declared (here, typed or spoken), it goes to the first player the game still
    waits for (``Game.waiting_to_declare``), on the first animal's row, so the digits typed
    next land in the hand being read out, from its top.
    """

    BINDINGS = [
        Binding("enter", "declare", N_("Declare"), show=True),
        Binding("plus,equals_sign", "change(1)", "+1", show=False),
        Binding("minus", "change(-1)", "-1", show=False),
        *[Binding(str(d), f"set_count({d})", show=False) for d in range(10)],
    ]

    @dataclass
    class Submitted(Message):
        """A column to declare: the ``<name> has ...`` command."""

        command: str

    class Changed(Message):
        """A count changed: the drafts are worth keeping (``HandGrid.drafts``)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(cursor_type="cell", zebra_stripes=True, **kwargs)
        self.game: Game | None = None
        self.counts: dict[str, dict[Animal, int]] = {}
        self.players: tuple[str, ...] = ()
        self._round_key: tuple[int, tuple[str, ...]] | None = None
        #: A letter went to the command line: the keys that follow it go there too.
        self._typing_ahead = False
        #: The players seen declared at the last update: one more means the cursor moves on.
        self._declared_seen: frozenset[str] = frozenset()
        #: Large print (the screen sets it): names and animals in capitals, wider cells; when
        #: ``roomy`` (either print, the screen has the lines), a blank line under each row.
        self.large = False
        self.roomy = False
        #: Names in the headings cut to this many letters (None: whole), when space is short.
        self.name_limit: int | None = None
        #: The cells the grid may take (the screen sets it): the players' columns widen
        #: evenly to fill them. None: each column as wide as its widest cell.
        self.spread: int | None = None

    async def on_key(self, event: Key) -> None:
        """A letter goes to the command line, which takes what follows it: the hint offers
        "ann has" and the cards typed, and a whole hand typed on the grid set the counts under
        the cursor from its digits and declared "ann has 4 giraffe 1 bear" at its Enter. Keys
        typed faster than the focus moves follow the letter there, digits and Enter too
        (until the grid has the focus again).

        Each goes into the command line's own queue of keys, and the focus follows once this
        grid holds no more keys (``_hand_on_focus``): sent up by way of the screen, the keys
        typed after the focus moved reached the command line before them, and lines typed fast
        at the reveal were mixed ("alhiacse") or joined ("3 dogann starts")."""
        character = event.character
        if not (self._typing_ahead and (event.is_printable or event.key in ("enter", "ctrl+j"))) \
                and not (character and character.isalpha()):
            await self.run_own_binding(event)  # digits, Enter, arrows: in the order typed
            return
        event.stop()
        event.prevent_default()
        command = self.screen.query_one("#command")
        command._forward_event(Key(event.key, character))  # forwarded: it does not come back to the app
        if not self._typing_ahead:
            self._typing_ahead = True
            self.call_later(self._hand_on_focus, command)

    def _hand_on_focus(self, command: Widget) -> None:
        """The focus to the command line once this grid's queue holds no more keys typed
        before it moved (else after them)."""
        if not self._typing_ahead or not self.has_focus:
            return
        if self.message_queue_size:
            self.call_later(self._hand_on_focus, command)
        else:
            command.focus()

    def on_paste(self, event: Paste) -> None:
        """Pasted text is commands for the command line, not counts: the command line takes the
        whole paste, each line as typed there (only the first used to go on, the rest dropped)."""
        event.stop()
        if event.text:
            self._typing_ahead = True
            command = self.screen.query_one("#command")
            command.focus()
            command.post_message(Paste(event.text))

    def on_focus(self) -> None:
        self._typing_ahead = False

    def set_large(self, large: bool, roomy: bool = False) -> None:
        """Large print on or off (``roomy``: there are lines enough for a gap under each row,
        in either print)."""
        if (large, roomy) == (self.large, self.roomy):
            return
        self.large, self.roomy = large, roomy
        self.cell_padding = 2 if large else 1
        self._rebuild()

    def update_from(self, game: Game | None,
                    drafts: dict[str, dict[str, int]] | None = None) -> None:
        """Show ``game``'s reveal; at a new round the counts start from the known cards, or
        from ``drafts`` (counts typed before a restart, by player and animal name). At a new
        reveal, and when a hand has been declared since the last update, the cursor goes to the
        first player still to declare (an undo moves nothing)."""
        self.game = game
        if game is None:
            return
        players = game.alive
        key = (game.round, players)
        new_reveal = key != self._round_key
        if new_reveal:
            self._round_key = key
            self._declared_seen = frozenset()
            self.counts = {p: dict(game.known[p].counts()) for p in players}
            for p, counts in (drafts or {}).items():
                if p in self.counts:
                    draft = {Animal(a): n for a, n in counts.items() if a in ANIMAL_NAMES}
                    if all(draft.get(a, 0) >= n for a, n in self.counts[p].items()):
                        self.counts[p] = draft
        for p, hand in game.declared.items():
            if p in self.counts:
                self.counts[p] = dict(hand.counts())
        self.players = players
        declared = frozenset(game.declared)
        moved_on = new_reveal or not declared <= self._declared_seen
        self._declared_seen = declared
        self._rebuild()
        if moved_on:
            self._to_first_waiting()

    def _to_first_waiting(self) -> None:
        """The cursor on the first row of the first player the game waits for, if any: a hand
        is read out from its first animal (left on the mole row, the next hand's giraffes
        were typed as moles)."""
        waiting = self.game.waiting_to_declare() if self.game is not None else ()
        if waiting and waiting[0] in self.players:
            self.cursor_coordinate = Coordinate(0, self.players.index(waiting[0]) + 1)

    def _rebuild(self) -> None:
        game = self.game
        if game is None:
            return
        cursor = self.cursor_coordinate
        overflow = game.overflowing(Cards(h) for h in self.counts.values())
        rows = [[animal_chip(animal, large=self.large),
                 *[self._count_cell(p, animal, animal in overflow) for p in self.players]]
                for animal in ANIMALS]
        total = self._total_cells(game)
        headings = [(Text(_big(_("animal"), self.large)), "animal"),
                    *[(Text(self._label(p), justify="center" if self.large or self.spread else "left"), p)
                      for p in self.players]]
        self.clear(columns=True)
        # Each column as wide as its widest cell, measured here: left to the table's own
        # measuring (when idle), every rebuild (each digit typed) showed the columns as narrow
        # as their headings for a moment ("GIRAF/FE" in large print).
        widths = [max(heading.cell_len, total[i].cell_len, *(row[i].cell_len for row in rows))
                  for i, (heading, _) in enumerate(headings)]
        for i, extra in enumerate(self._spread_extra(widths), start=1):
            widths[i] += extra
        for (heading, key), width in zip(headings, widths, strict=True):
            self.add_column(heading, key=key, width=width)
        height = 2 if self.roomy else 1
        for animal, cells in zip(ANIMALS, rows, strict=True):
            self.add_row(*cells, key=animal.value, height=height)
        self.add_row(*total, key="total")
        if cursor.column == 0:
            cursor = Coordinate(cursor.row, 1)
        self.cursor_coordinate = cursor

    def _label(self, player: str, limit: int | None = -1) -> str:
        """A column's heading: the name (shortened to ``name_limit``, ``short_names``), in
        capitals in large print (spaced, five names took more than the screen)."""
        name = short_names(self.players, self.name_limit if limit == -1 else limit)[player]
        return name.upper() if self.large else name

    def width_for(self, game: Game, limit: int | None) -> int:
        """The cells the grid takes for ``game``'s reveal with the names shortened to
        ``limit``: each column as wide as its widest cell (``_rebuild``), its padding, and the
        scroll bar."""
        saved, self.players = self.players, game.alive
        try:
            labels = [self._label(p, limit) for p in game.alive]
        finally:
            self.players = saved
        pad = 2 * self.cell_padding
        animal = max(cell_len(_("animal").upper()),
                     *(animal_chip(a, large=self.large).cell_len for a in ANIMALS))
        total = cell_len("10/10 " + _("ok"))
        return animal + pad + sum(max(Text(label).cell_len, total) + pad for label in labels) + 2

    def _spread_extra(self, widths: list[int]) -> list[int]:
        """The cells each player's column gains to fill ``spread`` (the same for each, the
        remainder to the first ones): at 200 columns the grid took a quarter of the screen, its
        columns as narrow as at 100."""
        players = len(widths) - 1
        if not (self.spread and players):
            return [0] * players
        used = sum(widths) + 2 * self.cell_padding * len(widths) + 2  # the scroll bar's 2
        spare = max(0, self.spread - used)
        return [spare // players + (1 if i < spare % players else 0) for i in range(players)]

    def set_padding(self, padding: int) -> None:
        """The cells each side of a cell's text: large print's 2 where whole names still fit
        with them, else 1 (whole names read better than wide gaps: ``TableScreen``)."""
        if padding != self.cell_padding:
            self.cell_padding = padding
            self._rebuild()

    def set_spread(self, spread: int | None) -> None:
        if spread != self.spread:
            self.spread = spread
            self._rebuild()

    def set_name_limit(self, limit: int | None) -> None:
        if limit != self.name_limit:
            self.name_limit = limit
            self._rebuild()

    def _count_cell(self, player: str, animal: Animal, overflowing: bool) -> Text:
        """One count, starred when cards of it are known to be in the hand; marked when it is
        below the known cards or the deck holds fewer (``overflowing``)."""
        assert self.game is not None
        n = self.counts[player].get(animal, 0)
        known = self.game.known[player].count(animal)
        style = "bold" if n else "dim"
        if n < known or overflowing:
            style = "bold red reverse"
        # " 1*": centred, its digit in the column of the other counts' ("1*" stood one left).
        if known:
            return Text.assemble(" ", (f"{n}*", style), justify="center")
        return Text(f"{n}", style=style, justify="center")

    def _total_cells(self, game: Game) -> list[Text]:
        checks = hand_checks(game, self.counts)
        cells: list[Text] = [Text(_big(_("total"), self.large), style="bold")]
        for p in self.players:
            n = sum(self.counts[p].values())
            ok = not checks[p]
            # declared: a tick in the total, not in the heading (which then grew, and five
            # names that fitted no longer did once a hand was declared)
            mark = " ✓" if p in game.declared else (" " + _("ok") if ok else "")
            cells.append(Text(f"{n}/10{mark}", style="bold" if ok else "bold red", justify="center"))
        return cells

    # -------------------------------------------------------------------- editing
    def _cell(self) -> tuple[str, Animal] | None:
        row, column = self.cursor_coordinate
        if column < 1 or column > len(self.players) or row >= len(ANIMALS):
            return None
        return self.players[column - 1], ANIMALS[row]

    def set_count(self, player: str, animal: Animal, n: int) -> None:
        """``player``'s count of ``animal``, within what the deck holds.

        A declared hand keeps its counts, and the grid says so rather than ignoring the key:
        the cursor moves on by itself after each declaration, so on a declared column it was
        put there by hand, to that hand on purpose, and the way to change a declared hand is
        'undo'. Moving the cursor on and putting the digit in another hand would write a count
        nobody aimed at.
        """
        if self.game is None:
            return
        if player in self.game.declared:
            waiting = self.game.waiting_to_declare()
            still = " " + format(_("Still to declare: {players}."), players=names(waiting)) if waiting else ""
            self.notify(format(_("{player} has declared already, so the count stays; 'undo' "
                                 "takes the hand back to change it."), player=title(player)) + still,
                        severity="warning")
            return
        self.counts[player][animal] = max(0, min(COPIES[animal], n))
        self._rebuild()
        self.post_message(self.Changed())

    def drafts(self) -> dict[str, dict[str, int]]:
        """The counts of the players who have not declared yet, by animal name."""
        declared = self.game.declared if self.game is not None else {}
        return {p: {a.value: n for a, n in counts.items() if n}
                for p, counts in self.counts.items() if p not in declared}

    def action_set_count(self, n: int) -> None:
        cell = self._cell()
        if cell:
            self.set_count(cell[0], cell[1], n)

    def action_change(self, step: int) -> None:
        cell = self._cell()
        if cell:
            p, animal = cell
            self.set_count(p, animal, self.counts[p].get(animal, 0) + step)

    def action_declare(self) -> None:
        _row, column = self.cursor_coordinate
        if 1 <= column <= len(self.players):
            self.declare(self.players[column - 1])

    def declare(self, player: str) -> None:
        if self.game is not None and player in self.game.declared:
            self.notify(format(_("{player} has declared already; 'undo' takes it back to change it."),
                               player=title(player)), severity="warning")
            return
        self.post_message(self.Submitted(hand_command(player, self.counts[player])))

    def checks_text(self, compact: bool = False, width: int = 0, others: bool = True) -> Text:
        """The live checks beside the grid, one line per player with a problem; ``compact``
        (under a narrow grid, where lines are few): the player under the cursor in full, the
        others in one line, short (not with ``others`` False: large print at 80x24, where
        the line was the grid's totals again and pushed the totals off). Roomy large print with ``width`` cells for them: the hand
        under the cursor and its count in big type first (``CAROL 7/10``)."""
        if self.game is None:
            return Text()
        checks = hand_checks(self.game, self.counts)
        if compact:
            return self._compact_checks(checks, others)
        gap = "\n" if self.roomy else ""  # rows spaced: a blank line between players too
        out = self._big_count(width) if self.roomy else Text()
        for p in self.players:
            if p in self.game.declared:
                out.append(_check_line(p, None) + f"\n{gap}", style="dim")
            elif checks[p]:
                out.append(_check_line(p, checks[p]) + f"\n{gap}", style="bold")
            else:
                out.append(_check_line(p, []) + f"\n{gap}")
        for line in checks[""]:
            out.append(_deck_line(line) + f"\n{gap}", style="bold red")
        out.append(_("* known to be in hand"), style="dim")
        return out


    def _big_count(self, width: int) -> Text:
        """The hand under the cursor, its name and count in big type in ``width`` cells (on
        two big lines when one is too narrow, the name cut if need be), a blank line under."""
        cell = self._cell()
        if cell is None or width < big_width("10/10"):
            return Text()
        player = cell[0]
        count = f"{sum(self.counts[player].values())}/10"
        name = title(player).upper()
        style = "bold" if self.game is not None and player not in self.game.declared else "dim"
        words = [f"{name} {count}"] if big_width(f"{name} {count}") <= width else \
            [big_cut(name, width), count]
        lines = [line for w in words for line in big(w, style=style)]
        return Text("\n").join([*lines, Text(), Text()])

    def _compact_checks(self, checks: dict[str, list[str]], with_others: bool = True) -> Text:
        assert self.game is not None
        cell = self._cell()
        here = cell[0] if cell else (self.players[0] if self.players else "")
        out = Text()
        if here in self.game.declared:
            out.append(_check_line(here, None), style="dim")
        elif checks.get(here):
            out.append(_check_line(here, checks[here]), style="bold")
        elif here:
            out.append(_check_line(here, []))
        shown = short_names(self.players, self.name_limit)
        others = []
        for p in self.players:
            if p == here:
                continue
            n = sum(self.counts[p].values())
            state = "✓" if p in self.game.declared else (_("ready") if not checks[p] else f"{n}/10")
            others.append(f"{shown[p]} {state}")
        if others and with_others:
            out.append("\n" + " · ".join(others), style="dim")
        for line in checks[""]:
            out.append("\n" + _deck_line(line), style="bold red")
        return out


def _check_line(player: str, problems: list[str] | None) -> str:
    """A player's line among the grid's checks: declared (``problems`` None), what is wrong,
    or ready."""
    if problems is None:
        return format(_("{player}: declared."), player=title(player))
    if problems:
        return format(_("{player}: {problems}."), player=title(player), problems="; ".join(problems))
    return format(_("{player}: 10 cards, ready: Enter declares."), player=title(player))


def _deck_line(problem: str) -> str:
    return format(_("Deck: {problem}."), problem=problem)


def last_round_hands(actions: Sequence[Action]) -> dict[str, Cards]:
    """The hands declared in the last scored round, from the game log's actions (newest last).

    The log holds the round's ``DeclareHand`` actions just before the next round's rows; a player
    who declared twice counts with the later hand.
    """
    hands: dict[str, Cards] = {}
    seen_declaration = False
    for action in reversed(actions):
        if isinstance(action, DeclareHand):
            seen_declaration = True
            hands.setdefault(action.player, action.cards)
        elif seen_declaration:
            break
    return hands


class ResultsView(Static):
    """The last round's results: counts per animal with the majority, points, lives lost, out."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.ended: RoundEnded | None = None
        self.hands: dict[str, Cards] = {}
        self.players: tuple[str, ...] = ()
        #: Large print (the screen sets it): the table spread over the width, animals in
        #: capitals; when ``roomy`` (either print), a blank line between rows that fit.
        self.large = False
        self.roomy = False
        #: The lines the view may take (the screen sets it): a blank line between the rows
        #: only when they all still fit.
        self.budget: int | None = None
        #: A large screen: the losses in the biggest type when there are lines for them.
        self.huge = False
        #: The columns the view will have (the screen sets it), for a build before its first
        #: layout: built at a guessed width and rebuilt on its Resize, the results stayed the
        #: guess's height under load (31 lines for 34, CAT and MOUSE cut off at 200x50).
        self.room: int | None = None
        #: The width the shown content was built for (``on_resize`` rebuilds at another).
        self._built_width = 0
        #: Large print on a short screen (80x24): the losers are in big type over the view
        #: (``losers_in_big``), so the view is the table alone, its title in its first
        #: heading ("Round 1" over the animals): the ten animals, points and lives in 13 lines.
        self.short = False

    def show(self, ended: RoundEnded | None, hands: dict[str, Cards], players: tuple[str, ...]) -> None:
        self.ended, self.hands, self.players = ended, hands, players
        self.update(self.build())

    def set_large(self, large: bool, roomy: bool = False, budget: int | None = None,
                  huge: bool = False, room: int | None = None, short: bool = False) -> None:
        """``huge``: a large screen (``HUGE_FROM``), where the losses may take the biggest type;
        ``room``: the columns the view will have; ``short``: see ``self.short``."""
        self.huge = large and huge
        wanted = (large, roomy, budget, room, large and short)
        if wanted != (self.large, self.roomy, self.budget, self.room, self.short):
            self.large, self.roomy, self.budget, self.room, self.short = wanted
            self.set_class(large, "large")
            self.update(self.build())

    def _width(self) -> int:
        """The view's columns: as laid out, else as the screen expects them."""
        return self.size.width or self.room or 200

    def build(self) -> Table | Text | Group:
        self._built_width = self._width()
        ended = self.ended
        if ended is None:
            return Text(_("No round has ended yet."), style="dim")
        players = tuple(p for p in self.players if p in ended.losses)  # alive in that round
        if self.large and not self.short:  # who lost lives, in big type above the details
            losses = self._big_losses(ended, players)
            return Group(*losses, self._details(ended, players, len(losses)))
        return self._details(ended, players)

    def losses_in_big(self) -> bool:
        """The view shows the round's losers in big type itself (a tall large screen with the
        lines for them); else the screen's big line says them (``losers_in_big``)."""
        if not self.large or self.short or self.ended is None:
            return False
        players = tuple(p for p in self.players if p in self.ended.losses)
        return len(self._big_losses(self.ended, players)) > 1

    def _big_losses(self, ended: RoundEnded, players: tuple[str, ...]) -> list[Text]:
        """The round's losers and their lost lives in big type (``NAME -2``), as many a line
        as fit the width, the names cut alike if need be; nobody: ``NOBODY LOSES``. When those
        lines would push the points and lives rows off (five losers at 80x24), the losses in
        normal type and only who is out in big type (``ANNE-MARIE OUT``), or nothing big."""
        width = self._width() - 2
        losers = losers_out_first(ended, players)
        lines = _big_lines(ended, players, losers, width)
        scale = self._losses_scale(ended, players, losers, width)
        if scale > 1:
            lines = _big_lines(ended, players, losers, width, scale=scale)
        title = Text(format(_("Round {round}: lives lost"), round=ended.round), style="bold")
        # Every row of the table (its title, headings, points, lives and an animal a line)
        # comes first: at 100x30 four losers in big type left one animal row, a tie.
        table = 3 + len(players) if ended.sudden_death else 4 + len(ended.majorities)
        if self.budget is not None and 1 + 4 * len(lines) + table > self.budget:
            gone = [p for p in losers if p in ended.out]
            lines = _big_lines(ended, players, gone, width, what=_("OUT")) if gone else []
            title = self._title_saying(ended, players, losers)  # the out too: a summary
            if -(-title.cell_len // max(1, width)) + 4 * len(lines) + table > self.budget:
                lines, title = [], self._title_saying(ended, players, losers)
        out = [title]
        for line in lines:
            out.extend(big(line, style="bold red", scale=scale))
            out.append(Text())
        return out

    def _losses_scale(self, ended: RoundEnded, players: tuple[str, ...], losers: list[str],
                      width: int) -> int:
        """2: the losses in the biggest type (five lines), when the names go in whole and the
        results' rows keep their blank lines under them (a large screen); else 1."""
        if not (self.huge and self.roomy and self.budget):
            return 1
        lines = _big_lines(ended, players, losers, width, scale=2)
        whole = _big_lines(ended, players, losers, 10**6, scale=2)
        rows = 2 + len(ended.majorities)  # the table's: points, lives, one a majority
        fits = 1 + 6 * len(lines) + 2 + 2 * rows - 1 <= self.budget
        return 2 if fits and sorted(" ".join(lines).split()) == sorted(" ".join(whole).split()) else 1

    @staticmethod
    def _title_saying(ended: RoundEnded, players: tuple[str, ...], losers: list[str]) -> Text:
        """The big losses' title with ``losers``' lost lives in normal type."""
        whole = short_names(players, None)
        title = Text(format(_("Round {round}: lives lost"), round=ended.round), style="bold")
        said = " · ".join(f"{whole[p]} -{ended.losses[p]}" for p in losers)
        if said or not ended.out:
            title.append(": " + (said or _("nobody loses")), style="bold red")
        return title

    def _details(self, ended: RoundEnded, players: tuple[str, ...], above: int = 0) -> Table | Text:
        """The results' table; ``above``: the lines already taken above it (the big losses)."""
        if ended.sudden_death:
            return self._sudden_death(ended, players)
        shown, wins, padding = self._names(players, ended)
        table = self._table(ended, players, (shown, wins), padding)
        # The two rows that matter first: below the animals they ran off a small screen.
        rows: list[list[Text | str]] = [
            [Text(_("points"), style="bold"), *[Text(str(ended.points.get(p, 0)), style="bold") for p in players], ""],
            [Text(_("lives (lost)"), style="bold"), *[lives_left(ended, p) for p in players], ""],
        ]
        majorities = {m.animal: m for m in ended.majorities}
        for animal in ANIMALS:
            m = majorities.get(animal)
            if m is not None:
                rows.append([animal_chip(animal, large=self.large),
                             *[self._count(m, p) for p in players], _majority_cell(m, wins)])
        # Lines to spare (either print): a blank line between rows (the table's own
        # ``leading`` draws nothing without a box). Its title and headings take 2 lines.
        spaced = self.roomy and above + 2 + 2 * len(rows) - 1 <= (self.budget or 0)
        for i, row in enumerate(rows):
            if spaced and i:
                table.add_row()
            table.add_row(*row)
        return table

    def _names(self, players: tuple[str, ...],
               ended: RoundEnded) -> tuple[dict[str, str], dict[str, str], int]:
        """The players' names as the table has room for them in its headings and in its
        majority column, and the padding on each side of a cell (0: one cell between columns,
        none at the edges): whole, else cut alike (``short_names``), so that no cell wraps
        (five long names wrapped the majorities). Large print gives up its wider gaps before
        it cuts a name (at 80x24 five Korean names of six cells were cut to "김…"). Each column
        as wide as its widest cell (measured at eight cells and the majority a name and four,
        "Alexandra" was cut to "Alexa…" at 80x24 where it fitted). The majority column's names
        are cut first, then the gaps narrowed, and the headings' names only as far as the
        room asks ("Christopher +7" in the majority column cut all five names to six cells
        at 80x24, "Alexandra" and "Evangeline" too)."""
        width = self._width()
        for shown, wins, pad in self._layouts(players):
            first, columns, majority = self._columns(ended, players, (shown, wins))
            if first + sum(columns) + majority + _gaps(pad, len(players) + 2) <= width:
                return shown, wins, pad
        return shown, wins, pad

    def _layouts(self, players: tuple[str, ...]) -> Iterator[tuple[dict[str, str], dict[str, str], int]]:
        """The names in the headings and the majority column and the padding, the best first."""
        whole, short = short_names(players, None), short_names(players, SHORT_NAME)
        loose = (2, 1) if self.large else (1,)
        for pad in loose:
            yield whole, whole, pad
        longest = max((cell_len(name) for name in whole.values()), default=0)
        for limit in (None, *range(longest - 1, SHORT_NAME - 1, -1)):
            for pad in (*loose, 0):
                yield short_names(players, limit), short, pad
        tiny = short_names(players, 4)
        yield tiny, tiny, 0

    def _columns(self, ended: RoundEnded, players: tuple[str, ...],
                 names: tuple[dict[str, str], dict[str, str]]) -> tuple[int, list[int], int]:
        """The cells the table's first column, each player's and the majority's widest cell
        takes (without padding); ``names``: the headings' and the majority column's."""
        shown, wins = names
        first = max(cell_len(_("lives (lost)")), cell_len(_("animal")),
                    *(animal_chip(m.animal, large=self.large).cell_len for m in ended.majorities))
        columns = [max(cell_len(shown[p]), lives_left(ended, p).cell_len, len("[10]"),
                       len(str(ended.points.get(p, 0)))) for p in players]
        majority = max(cell_len(_("majority")), cell_len(_("tie")),
                       *(_majority_cell(m, wins).cell_len for m in ended.majorities))
        return first, columns, majority

    def _table(self, ended: RoundEnded, players: tuple[str, ...],
               names: tuple[dict[str, str], dict[str, str]], padding: int = 1) -> Table:
        """The results' empty table with its columns: spread evenly over the width in large print,
        and in normal print on a wide screen (``NORMAL_WIDE_FROM``); ``padding`` 0: one cell
        between columns, none at the edges (``_names``)."""
        shown = names[0]
        spread = self.large or self._width() + 2 >= NORMAL_WIDE_FROM  # the screen's 2 cells of padding
        title = format(_("Round {round} results"), round=ended.round)
        widths = self._columns(ended, players, names)
        table = Table(
            title=None if self.short else title, box=None, expand=spread,
            width=self._kept_together(widths, padding),
            padding=(0, padding) if padding else (0, 0, 0, 1), pad_edge=bool(padding),
            title_style="bold", title_justify="left", header_style="bold underline",
        )
        ratio = 1 if spread else None
        first = format(_("Round {round}"), round=ended.round) if self.short else _("animal")
        table.add_column(first, no_wrap=True)  # as wide as "lives (lost)", the rest spread
        for p in players:
            table.add_column(shown[p], justify="center", ratio=ratio, no_wrap=True)
        table.add_column(_("majority"), ratio=ratio, no_wrap=True)
        # Rich's ratios give each column its share whatever its cells (they ignore min_width):
        # spread evenly with the players' columns, "Bartholomew +7" was cut at 120x40; then
        # the majority as wide as its widest cell, and the players spread over the rest, or,
        # a player's column wider than its share ("Alexa…" at 80x24), all as wide as their
        # cells and the room left shared in proportion.
        first_cells, columns, majority = widths
        share = (self._width() - first_cells - 2 * padding) // (len(players) + 1)
        if majority + 2 * padding > share:
            table.columns[-1].ratio = None
            share = (self._width() - first_cells - majority - 4 * padding) // max(1, len(players))
        if max(columns, default=0) + 2 * padding > share or not padding:
            for column in table.columns:
                column.ratio = None
        return table

    def _kept_together(self, widths: tuple[int, list[int], int], padding: int) -> int | None:
        """The results' width with each player's column at most ``LARGE_COLUMN_WIDEST`` cells
        in large print, ``NORMAL_COLUMN_WIDEST`` in normal print on a very wide screen; else
        None (the view's width). ``widths``: the columns' cells (``_columns``)."""
        if self.large:
            widest = LARGE_COLUMN_WIDEST
        elif self._width() + 2 >= NORMAL_CENTRED_FROM:
            widest = NORMAL_COLUMN_WIDEST
        else:
            return None
        first, columns, majority = widths
        return min(self._width(), first + sum(max(widest, c) for c in columns)
                   + majority + _gaps(padding, len(columns) + 2))

    def on_resize(self) -> None:
        if self.size.width != self._built_width:
            self.update(self.build())  # the names as the new width has room for them

    def _count(self, majority: Majority, player: str) -> Text:
        """How many of the animal ``player`` held: ``[n]`` for the majority, ``?`` unknown."""
        n = self.hands.get(player, Cards()).count(majority.animal) if self.hands else None
        if majority.winner == player:
            return Text(f"[{n if n is not None else majority.count}]", style="bold reverse")
        if n is None:
            return Text("?", style="dim")
        return Text(str(n) if n else "·", style="" if n else "dim")

    def _sudden_death(self, ended: RoundEnded, players: tuple[str, ...]) -> Text:
        assert ended.sudden_death is not None
        claimant, animal = ended.sudden_death
        text = Text()
        text.append(format(_("Round {round}: sudden death!"), round=ended.round) + "\n", style="bold")
        # the chip's padding spaces it
        text.append(format(_("{player} revealed all {n}"), player=title(claimant), n=COPIES[animal]))
        text.append_text(animal_chip(animal, large=self.large, many=True))
        text.append("\n\n")
        for p in players:
            text.append(padded(title(p), 8) + " " + _("lives:") + " ")
            text.append_text(lives_left(ended, p))
            text.append("\n")
        return text


def _gaps(padding: int, columns: int) -> int:
    """The cells a table of ``columns`` gives its cells' padding (``ResultsView._names``)."""
    return 2 * padding * columns if padding else columns - 1


def _majority_cell(majority: Majority, shown: dict[str, str] | None = None) -> Text:
    if majority.winner:
        name = (shown or {}).get(majority.winner) or title(majority.winner)
        return Text(f"{name} +{majority.animal.points}", style="bold")
    if majority.tied:
        return Text(_("tie"), style="italic")
    return Text(_("1 card: none"), style="italic")


def lives_left(ended: RoundEnded, player: str) -> Text:
    """Lives left after the round and, in brackets, lost in it: ``3 (-2)``, ``OUT (-1)``."""
    lost = ended.losses.get(player, 0)
    left = _("OUT") if player in ended.out else str(ended.lives[player])
    return Text(f"{left} (-{lost})" if lost else left,
                style="bold red" if player in ended.out else "bold")


def score_sheet(table: TableState, large: bool = False, roomy: bool = False,
                big_rows: bool = False) -> Table | Text | Group:
    """The game as a paper score sheet: per round and player the points and the lives left with
    the lives lost in brackets (``12 3 (-2)``), one column a player, as narrow as that (five
    players with 11-letter names fit in 80 columns; a column a name wide for the points and
    another for the lives cut the fourth and fifth off); sudden deaths marked ``SD``; the places
    once the game is over. Drawn from the table model (``TableState.sheet``), as the phone
    page's is.

    ``large`` (large print, read from two metres): the sheet spread over the width, and under
    the rounds every player's lives left (the places once the game is over) in big type;
    ``roomy``: a blank line between the rounds; ``big_rows`` (a large screen with the room,
    ``big_sheet_fits``): every round's points and lives in big type too."""
    sheet = table.sheet
    if not sheet:
        return Text(_("No round has been scored yet."), style="dim")
    players = tuple(p.name for p in table.players)
    grid = _sheet_grid(players, large, roomy)
    _add_rounds(grid, sheet, players, big_rows)
    if large and table.phase is not Phase.GAME_OVER:
        grid.add_section()
        grid.add_row(*_big_sheet_row(table, players))
    elif table.phase is Phase.GAME_OVER:
        ranked = {place.name: place.place for place in table.places}
        cells = [Text(_("place"), style="bold", justify="left")]  # at the edge: a wide round column
        for p in players:
            cells.append(Text(f"   {ordinal(ranked[p], place=True)}", style="bold reverse" if ranked[p] == 1 else "bold"))
        grid.add_section()
        grid.add_row(*cells)
        if large:  # and the places again in big type under their row
            grid.add_row(*_big_sheet_row(table, players))
    notes = [
        format(_("{sd}: sudden death in round {round}: {player} revealed all {animals}, every other "
                 "player lost 1 life."), sd=_("SD"), round=r.round, player=title(r.sudden_death[0]),
               animals=animal_name(r.sudden_death[1].value, 2))
        for r in sheet if r.sudden_death
    ]
    if not notes:
        return grid
    return Group(grid, Text("\n".join(notes), style="italic"))


def _add_rounds(grid: Table, sheet: Sequence[SheetRound], players: tuple[str, ...],
                big_rows: bool) -> None:
    """The rounds' rows of the score sheet, in big type with ``big_rows`` (then the players'
    columns alike, the round's as narrow as its numbers)."""
    if big_rows:
        for column in grid.columns[1:]:
            column.ratio = 1
    for ended in sheet:
        grid.add_row(*(_big_sheet_cells(ended, players) if big_rows else _sheet_row(ended, players)))


class KeptTogether(Table):
    """A table spread over the width (``expand``) with each column after the first at most
    ``LARGE_COLUMN_WIDEST`` cells (or as wide as its cells need), as large print's results
    are: spread over 120x40, game over's German score sheet put four players 27 cells apart."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.expand:
            self.width = min(options.max_width, self.kept_width(console, options))
        yield from super().__rich_console__(console, options)

    def kept_width(self, console: Console, options: ConsoleOptions) -> int:
        """The table's width with its columns kept together."""
        padding = self.padding[1] + self.padding[3]
        total = self._extra_width
        for i, column in enumerate(self.columns):
            cells = [column.header, *column.cells]
            natural = max(Measurement.get(console, options, cell).maximum for cell in cells)
            edges = (self.padding[3] if i else 0) if not self.pad_edge else padding
            total += edges + (natural if i == 0 else max(LARGE_COLUMN_WIDEST, natural))
        return total


def _sheet_grid(players: tuple[str, ...], large: bool, roomy: bool) -> Table:
    """The score sheet's empty table: the round, then a column a player; in large print kept
    together (``KeptTogether``)."""
    # Large print: no right padding (the box draws a blank between columns already), so
    # that five long names and their big places fit in 74 cells.
    grid = (KeptTogether if large else Table)(box=box.SIMPLE_HEAD, expand=large, padding=(0, 0, 0, 1) if large else (0, 1),
                 pad_edge=False, title=_big(_("Score sheet"), large), title_style="bold",
                 title_justify="left", header_style="bold", show_edge=False,
                 leading=1 if large and roomy else 0)
    grid.add_column(_big(_("round"), large), justify="right", no_wrap=True)
    shown = short_names(players, SHEET_NAME)
    for p in players:
        grid.add_column(shown[p] + "\n" + _big(_("pts lives"), large), justify="left",
                        no_wrap=True)
    return grid


def _big_sheet_row(table: TableState, players: tuple[str, ...]) -> list[Text]:
    """Large print's last row of the score sheet, in big type: every player's lives left, or
    once the game is over their places (the winner's in reverse)."""
    if table.phase is Phase.GAME_OVER:
        ranked = {place.name: place.place for place in table.places}
        label = ""  # under the row of places
        words = {p: (ordinal(ranked[p], place=True).upper(), "bold reverse" if ranked[p] == 1 else "bold")
                 for p in players}
    else:
        last = {line.name: line for ended in table.sheet for line in ended.lines}
        label = _("lives").upper()
        words = {p: (_("OUT"), "bold red") if last[p].out else (str(last[p].lives), "bold")
                 for p in players if p in last}
    cells = [Text(f"\n{label}", style="bold")]
    for p in players:
        word, style = words.get(p, ("", "bold"))
        cells.append(Text("\n").join(big(word, style=style)))
    return cells


def _big(word: str, large: bool) -> str:
    """A heading in capitals in large print."""
    return word.upper() if large else word


#: The letters a name keeps on the score sheet: its columns are that wide for the points and
#: the lives (``12 OUT (-2)``) anyway.
SHEET_NAME = 12


def _sheet_row(ended: SheetRound, players: tuple[str, ...]) -> list[Text]:
    """One round on the score sheet: its number (``SD`` marked), then per player the points and
    the lives (blank for a player out before the round)."""
    label = Text(str(ended.round))
    if ended.sudden_death:
        label.append(" " + _("SD"), style="bold red")
    cells: list[Text] = [label]
    for p in players:
        line = ended.line(p)
        if line is None:  # out before this round
            cells.append(Text(""))
            continue
        if ended.sudden_death:
            claimant = p == ended.sudden_death[0]
            points = Text(_("SD"), style="bold") if claimant else Text(" -", style="dim")
        else:
            points = Text(f"{line.points or 0:>2}")  # at most 60 in a round
        cells.append(Text.assemble(points, " ", _lives_cell(line)))
    return cells


def _lives_cell(line: SheetLine) -> Text:
    """``lives_left`` for a line of the score sheet: ``3 (-2)``, ``OUT (-1)``."""
    left = _("OUT") if line.out else str(line.lives)
    return Text(f"{left} (-{line.penalty})" if line.penalty else left,
                style="bold red" if line.out else "bold")


def big_sheet_fits(table: TableState, width: int, height: int) -> bool:
    """The score sheet has room for its rounds in big type on a ``width`` x ``height`` screen:
    a column a player as wide as the widest big round (measured as drawn, in cells, whatever
    the language), and four lines a round (three and a blank) with the headings, the big
    lives row, the notes and the frame (12 lines)."""
    players = tuple(p.name for p in table.players)
    rounds = [_big_sheet_cells(ended, players) for ended in table.sheet]
    if not rounds or 4 * len(rounds) + 12 + sum(1 for r in table.sheet if r.sudden_death) > height - 2:
        return False

    def cells(text: Text) -> int:
        return max(cell_len(line) for line in text.plain.split("\n"))

    widest = max(cells(cell) for row in rounds for cell in row[1:])
    return max(cells(row[0]) for row in rounds) + 1 + len(players) * (widest + 1) <= width - 8


def _big_sheet_cells(ended: SheetRound, players: tuple[str, ...]) -> list[Text]:
    """One round on the score sheet in big type: its number, then per player the points and
    the lives left (``12 3``), the lives lost beside them in normal type (`` (-2)``)."""
    label = big(str(ended.round))
    width = big_width("10") - label[0].cell_len  # numbers right-aligned, as in normal type
    cells = [_beside([Text(" " * width) + line for line in label], " " + _("SD") if ended.sudden_death else "",
                     "bold red")]
    for p in players:
        line = ended.line(p)
        if line is None:  # out before this round
            cells.append(Text(""))
            continue
        if ended.sudden_death:
            points = _("SD") if p == ended.sudden_death[0] else "-"
        else:
            points = str(line.points or 0)
        style = "bold red" if line.out else "bold"
        left = _("OUT") if line.out else str(line.lives)
        cells.append(_beside(big(f"{points:>2} {left}", style=style),
                             f" (-{line.penalty})" if line.penalty else "", style))
    return cells


def _beside(lines: list[Text], note: str, style: str) -> Text:
    """Big type's lines as one Text, ``note`` in normal type beside the middle one (the others
    padded as wide: a right-justified column justifies each line on its own)."""
    middle = len(lines) // 2
    if note:
        lines = [Text.assemble(line, (note, style) if i == middle else " " * cell_len(note))
                 for i, line in enumerate(lines)]
    # left, whatever the column's justification: justified right, each line was stripped of
    # its trailing blanks and moved on its own ("3 SD" fell apart)
    return Text("\n", justify="left").join(lines)


class ScoreSheet(Static):
    """The score sheet of ``score_sheet``, for the score-sheet key and the game-over screen."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        #: What is shown, as a Rich renderable (tests print it to read it back).
        self.sheet: Table | Text | Group = score_sheet(TableState.of(None))

    def show(self, table: TableState, large: bool = False, roomy: bool = False,
             big_rows: bool = False) -> None:
        """``large``, ``roomy``, ``big_rows``: large print (``score_sheet``)."""
        self.sheet = score_sheet(table, large, roomy, big_rows)
        self.update(self.sheet)


def losers_in_big(ended: RoundEnded | None, players: tuple[str, ...], width: int) -> str | None:
    """A round's losers for one line of big type in ``width`` cells: who is out first (``OUT``:
    the most important news of a round), then those who lost most (``DOROTHEA -2``), as many
    as fit with their names whole, and how many more lost lives in words (``ANNE-MARIE OUT  AND
    3 MORE LOST LIVES``, ``DOROTHEA -2  AND 3 MORE``: "+3 MORE" read like a score); the names
    cut alike (to four cells at most) only when not even one fits whole; else None (the lives
    row says who lost what). Large print where the results have no big type of their own
    (80x24, 100x30)."""
    if ended is None or ended.sudden_death:
        return None
    players = tuple(p for p in players if p in ended.losses)
    losers = losers_out_first(ended, players)
    if not losers:
        nobody = _("nobody loses").upper()
        return nobody if big_width(nobody) <= width else None
    for limit in (None, SHORT_NAME, 4):  # whole names, fewer of them, before cut ones
        shown = short_names(players, limit)
        for count in range(len(losers), 0, -1):
            rest = len(losers) - count
            words = [f"{shown[p].upper()} {_lost(ended, p)}" for p in losers[:count]]
            if rest:
                words.append(_more(rest, losers[0] in ended.out))  # OUT come first
            if big_width("  ".join(words)) <= width:
                return "  ".join(words)
        first = f"{shown[losers[0]].upper()} {_lost(ended, losers[0])}"
        if big_width(first) <= width:  # the first alone, whole if it can be: the lives row says the rest
            return first
    return None


def losers_out_first(ended: RoundEnded, players: tuple[str, ...]) -> list[str]:
    """Those of ``players`` who lost lives in a round, who is out first (the most important
    news of a round), then those who lost most."""
    return sorted((p for p in players if ended.losses.get(p)),
                  key=lambda p: (p not in ended.out, -ended.losses[p]))


def _more(rest: int, after_out: bool) -> str:
    """How many more lost lives, for big type: ``AND 3 MORE``; after someone ``OUT``, ``AND 3
    MORE LOST LIVES`` (session 19's tester read "EMILIA OUT  AND 3 MORE" as three more out)."""
    if after_out:
        return format(ngettext("and {n} more lost lives", "and {n} more lost lives", rest), n=rest).upper()
    return format(ngettext("and {n} more", "and {n} more", rest), n=rest).upper()


def _lost(ended: RoundEnded, player: str) -> str:
    """What ``player`` lost in a round, for big type: ``OUT`` if they are out, else ``-2``."""
    return _("OUT") if player in ended.out else f"-{ended.losses[player]}"


def _big_lines(ended: RoundEnded, players: tuple[str, ...], losers: list[str], width: int,
               what: str | None = None, scale: int = 1) -> list[str]:
    """The losers' ``NAME -2`` words (``NAME OUT`` with ``what`` "OUT") for big type, the
    names cut alike until each fits in ``width`` cells, as many a line as fit; nobody:
    ``NOBODY LOSES``."""
    for limit in (None, SHORT_NAME, 3):
        shown = short_names(players, limit)
        words = [f"{shown[p].upper()} {what or _lost(ended, p)}" for p in losers] or [_("nobody loses").upper()]
        if all(big_width(w, scale) <= width for w in words):
            break
    lines: list[str] = []
    for word in words:
        if lines and big_width(lines[-1] + "  " + word, scale) <= width:
            lines[-1] += "  " + word
        else:
            lines.append(word)
    return lines
