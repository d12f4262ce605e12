"""The app's screens: setup, the table (with its reveal and results views), game over, help and
rules.

Screens only show state and forward what people do to the app (``LifeguardApp.submit`` and
friends); the app owns the referee and the voice. They read the game through ``app.view``, the
copy of the table the last command left (``assistant.tui.desk``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.events import Key
from textual.screen import ModalScreen, Screen
from textual.suggester import SuggestFromList
from textual.widgets import (
    Button,
    ContentSwitcher,
    Footer,
    Input,
    Label,
    Select,
    Static,
    Switch,
)

from assistant import announce
from assistant.commands.grammar import EXAMPLES
from assistant.tui.reveal import HandGrid, ResultsView, ScoreSheet, last_round_hands
from assistant.tui.widgets import (
    CARD_WIDTH,
    PHASE_WORDS,
    CardRows,
    CommandInput,
    PlayersPanel,
    StatusLine,
    TableLog,
    command_hint,
    ordinal,
)
from engine.deck import ANIMALS, COPIES
from engine.game import MAX_PLAYERS, MIN_PLAYERS, Game, Phase, places, title
from engine.rules import HouseRules

if TYPE_CHECKING:
    from assistant.tui.app import LifeguardApp

RULES_FILE = Path(__file__).with_name("how_to_play.md")

#: From this many columns and lines the table is in large print (readable from two metres at
#: the end of a table), unless its key says otherwise.
LARGE_PRINT_FROM = (100, 30)
#: The lines the table's part of the screen needs for the hand grid and the results in large
#: print with a blank line under each row (ten animals, the totals, the headings).
ROOMY_LINES = 26

#: How each house rule is labelled on the setup screen, and the words for its choices.
RULE_LABELS: dict[str, str] = {
    "lowest_tie_loses": "Tied lowest totals lose",
    "all_equal": "Every total the same",
    "all_out": "Everyone left goes out together",
    "next_start": "Next round's start player",
    "knock_requires_swap": "Knock only after one's own first swap",
    "two_alive_majority_two": "2 alive: a majority needs 2 cards",
    "take_first": "Swap: take the row first, then put down",
}
CHOICE_WORDS: dict[object, str] = {
    2: "2 lives each",
    1: "1 life each",
    "nobody": "nobody loses a life",
    "everyone_loses_1": "everyone loses 1",
    "most_points": "most points that round wins",
    "shared": "a shared win",
    "most_lives_before": "most lives before the round wins",
    "clockwise": "next player clockwise",
    "most_lives_lost": "who lost most lives",
}


def is_question(reply: Any) -> bool:
    """A reply that changed nothing and waits for yes or no (``Reply.question``, e.g. a new game
    while one is under way): shown as a question, not as a command done or refused."""
    return bool(getattr(reply, "question", False))


def on_off(value: bool) -> str:
    return "on" if value else "off"


def _app(node: Any) -> LifeguardApp:
    return cast("LifeguardApp", node.app)


def next_line(game: Game | None) -> Text:
    """The big line at the top: round, phase and what the referee expects next."""
    if game is None:
        return Text(announce.expecting(None), style="bold")
    text = Text()
    expecting = announce.expecting(game)
    if game.phase is not Phase.GAME_OVER:
        text.append(f"Round {game.round} · {PHASE_WORDS[game.phase]}  ", style="bold")
        expecting = expecting.removeprefix(f"Round {game.round}: ")  # said once is enough
    text.append(expecting[:1].upper() + expecting[1:], style="bold")
    return text


# ============================================================================ setup
class SetupScreen(Screen):
    """Players in seating order, the house rules with their defaults, voice on/off."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Table"),
        Binding("ctrl+s", "start", "Start"),
        Binding("ctrl+g", "same_group", "Same group"),
    ]

    def __init__(self, names: tuple[str, ...] = (), rules: HouseRules | None = None,
                 voice_on: bool = True, recent: list[str] | None = None,
                 filled: bool = False) -> None:
        super().__init__(id="setup")
        #: The names are filled in already (the group at the table now, after a game over).
        self.filled = filled
        #: The group of the last game: ctrl+g starts a game with it (and the rules shown).
        self.names = names
        self.rules = rules or HouseRules()
        self.voice_on = voice_on
        #: Names from recent games, offered as each name is typed.
        self.recent = recent or []

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="setup-body"):
            yield Label("New game: 3 to 5 players, in seating order; Enter on an empty name starts",
                        classes="title")
            if self.names:
                yield Label(f"Same group as last time: {announce.names(self.names)} (ctrl+g starts)",
                            id="same-group")
            suggester = SuggestFromList(self.recent, case_sensitive=False) if self.recent else None
            with Horizontal(id="names"):
                for i in range(MAX_PLAYERS):
                    # short enough for 80 columns, where each name gets 14 cells
                    placeholder = f"{ordinal(i + 1)}" + (": optional" if i >= MIN_PLAYERS else " player")
                    value = self.names[i] if self.filled and i < len(self.names) else ""
                    yield Input(value=value, placeholder=placeholder, id=f"name-{i}",
                                suggester=suggester, classes="name", compact=True)
            if self.recent:
                yield Label("Recent players: " + ", ".join(self.recent[:8]) + " (→ completes)",
                            id="recent", classes="hint")
            yield Label("House rules (F1 explains the game)", classes="title")
            for name in HouseRules.field_names():
                value = getattr(self.rules, name)
                with Horizontal(classes="rule"):
                    yield Label(RULE_LABELS[name], classes="rule-label")
                    if isinstance(value, bool):
                        yield Switch(value=value, id=f"rule-{name}")
                        yield Label(on_off(value), id=f"rule-{name}-word", classes="switch-word")
                    else:
                        options = [(CHOICE_WORDS[c], c) for c in HouseRules.CHOICES[name]]
                        yield Select(options, value=value, allow_blank=False, id=f"rule-{name}",
                                     compact=True)
            with Horizontal(classes="rule"):
                yield Label("Voice (speak and listen)", classes="rule-label")
                yield Switch(value=self.voice_on, id="voice")
                yield Label(on_off(self.voice_on), id="voice-word", classes="switch-word")
            yield Static("", id="setup-error")
            yield Button("Start the game (ctrl+s)", variant="primary", id="start", compact=True)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#name-0", Input).focus()

    def names_entered(self) -> list[str]:
        """One field, one player: the names as typed (the referee checks and normalises them)."""
        return [
            value
            for i in range(MAX_PLAYERS)
            if (value := self.query_one(f"#name-{i}", Input).value.strip())
        ]

    def rules_chosen(self) -> HouseRules:
        values: dict[str, object] = {}
        for name in HouseRules.field_names():
            widget = self.query_one(f"#rule-{name}")
            values[name] = widget.value  # type: ignore[attr-defined]
        return HouseRules(**values)  # type: ignore[arg-type]

    @on(Switch.Changed)
    def _switch_word(self, event: Switch.Changed) -> None:
        """A switch's state in words beside it: colour never carries meaning alone."""
        self.query_one(f"#{event.switch.id}-word", Label).update(on_off(event.value))

    @on(Input.Submitted, ".name")
    async def _name_entered(self, event: Input.Submitted) -> None:
        """Enter on a name goes to the next one; Enter on an empty one (or the fifth) starts."""
        index = int((event.input.id or "name-0").split("-")[1])
        if event.value.strip() and index + 1 < MAX_PLAYERS:
            self.query_one(f"#name-{index + 1}", Input).focus()
        else:
            await self.action_start()

    async def action_same_group(self) -> None:
        """The last group, in its seating order, with the house rules on the screen: one key."""
        if not self.names:
            self.query_one("#setup-error", Static).update(
                Text("No earlier game to take the group from: type the names.", style="bold"))
            return
        for i in range(MAX_PLAYERS):
            self.query_one(f"#name-{i}", Input).value = self.names[i] if i < len(self.names) else ""
        await self.action_start()

    @on(Button.Pressed, "#start")
    async def action_start(self) -> None:
        voice_on = self.query_one("#voice", Switch).value
        error = await _app(self).start_game(self.names_entered(), self.rules_chosen(), voice_on)
        if error:
            self.query_one("#setup-error", Static).update(Text(error, style="bold red"))


# ============================================================================ table
class TableScreen(Screen):
    """The table as the referee knows it; the command input always has the focus."""

    BINDINGS = [
        Binding("escape", "dismiss_results", "Rows"),
    ]

    def __init__(self, data_label: str, show_known: bool = False,
                 large_choice: bool | None = None) -> None:
        super().__init__(id="table")
        self.data_label = data_label
        #: F8 and F4 as they were left (``assistant.tui.viewstate``).
        self.show_known = show_known
        #: Large print chosen with its key (None: it follows the terminal's size).
        self.large_choice: bool | None = large_choice
        #: Rounds whose results people have put away (escape) before entering new rows.
        self.results_dismissed: set[int] = set()

    def compose(self) -> ComposeResult:
        yield Static(id="next")
        with Horizontal(id="main"):
            with ContentSwitcher(initial="play", id="view"):
                yield CardRows(id="play")
                with Horizontal(id="reveal"):
                    yield HandGrid(id="grid")
                    yield Static(id="checks")
                yield ResultsView(id="results")
            yield PlayersPanel(id="players")
        yield TableLog(id="log")
        yield CommandInput(lambda: _app(self).view.game, id="command",
                           placeholder=command_hint(_app(self).view.game))
        yield StatusLine(self.data_label, id="status")
        yield Footer(compact=True)  # the focused widget's keys and the table's fit in 80 columns

    def on_mount(self) -> None:
        self.query_one("#command", CommandInput).focus()
        self.update_table()

    def on_resize(self) -> None:
        self.apply_size()

    @property
    def large(self) -> bool:
        """Large print: the key's choice, else on from ``LARGE_PRINT_FROM`` (columns, lines)."""
        if self.large_choice is not None:
            return self.large_choice
        width, height = self.size
        return width >= LARGE_PRINT_FROM[0] and height >= LARGE_PRINT_FROM[1]

    def apply_size(self) -> None:
        """Cards, players and the top line sized for the terminal (and large print)."""
        width, height = self.size
        large = self.large
        self.set_class(large, "large")
        # The log, the input and the lines around them always stay on screen.
        self.query_one("#main").styles.max_height = max(8, height - (11 if large else 9))
        rows = self.query_one(CardRows)
        if large:
            # The rows take about three fifths of the width, the players the rest.
            card_width = max(CARD_WIDTH, min(20, (width * 3 // 5 - 6) // 4 - 1))
            card_height = max(2, min(5, (height - 11 - 3 - 6) // 4))
            rows.set_card_size(card_width, card_height)
        else:
            rows.set_card_size(CARD_WIDTH, 3 if height >= 34 else 2)
        # The grid and the results in large print too, a blank line under each of their rows
        # when the table's part of the screen has room for it.
        roomy = height - 11 >= ROOMY_LINES
        self.query_one(HandGrid).set_large(large, roomy)
        self.query_one(ResultsView).set_large(large, roomy)
        self.query_one(PlayersPanel).update_from(_app(self).view.game, large=large)
        self.update_table()

    # -------------------------------------------------------------------- state -> widgets
    def current_view(self, game: Game | None) -> str:
        if game is None:
            return "play"
        if game.phase is Phase.REVEAL:
            return "reveal"
        if (
            game.rounds
            and game.phase is Phase.ROWS
            and len(game.missing_rows()) == 4
            and game.rounds[-1].round not in self.results_dismissed
        ):
            return "results"
        return "play"

    def update_table(self) -> None:
        app = _app(self)
        game = app.view.game
        line = next_line(game)
        if self.large:  # capitals read better from across the table
            line = Text(line.plain.upper(), style="bold")
        self.query_one("#next", Static).update(line, layout=line.cell_len > self.size.width - 2
                                               or getattr(self, "_next_long", True))
        self._next_long = line.cell_len > self.size.width - 2
        self.query_one(CardRows).update_from(game)
        self.query_one(PlayersPanel).update_from(game, self.show_known)
        field = self.query_one("#command", CommandInput)
        field.placeholder = command_hint(game)
        view = self.current_view(game)
        switcher = self.query_one("#view", ContentSwitcher)
        if switcher.current != view:
            switcher.current = view
            self.query_one("#players").display = view == "play"
            # Each view focuses what it needs: the grid at the reveal, the command line else
            # (a hidden grid keeping the focus would swallow typing).
            if view == "reveal":
                self.query_one(HandGrid).focus()
            else:
                field.focus()
            self.refresh_bindings()
        if view == "reveal" and game is not None:
            grid = self.query_one(HandGrid)
            grid.update_from(game, app.view_state.draft_for(app.game_id, game.round))
            self.query_one("#checks", Static).update(grid.checks_text())
        elif view == "results" and game is not None:
            self.show_results(game)

    def show_results(self, game: Game) -> None:
        ended = game.rounds[-1] if game.rounds else None
        hands = last_round_hands(_app(self).view.actions) if ended and not ended.sudden_death else {}
        self.query_one(ResultsView).show(ended, hands, game.players)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer offers 'back to the rows' only while the results are shown."""
        if action == "dismiss_results":
            return self.query_one("#view", ContentSwitcher).current == "results"
        return True

    def action_dismiss_results(self) -> None:
        game = _app(self).view.game
        if game is not None and game.rounds:
            self.results_dismissed.add(game.rounds[-1].round)
            self.update_table()
            self.query_one("#command", CommandInput).focus()

    def toggle_known(self) -> bool:
        self.show_known = not self.show_known
        self.update_table()
        _app(self).view_state.show_known = self.show_known
        _app(self).save_view_state()
        return self.show_known

    def toggle_large(self) -> bool:
        """Large print on or off; switched back to what the terminal's size gives, it follows
        the size again (so a choice made on a small screen does not stick to a large one)."""
        wanted = not self.large
        width, height = self.size
        by_size = width >= LARGE_PRINT_FROM[0] and height >= LARGE_PRINT_FROM[1]
        self.large_choice = None if wanted == by_size else wanted
        self.apply_size()
        _app(self).view_state.large_print = self.large_choice
        _app(self).save_view_state()
        return self.large

    # -------------------------------------------------------------------- input
    @on(Input.Submitted, "#command")
    async def _command_entered(self, event: Input.Submitted) -> None:
        field = self.query_one("#command", CommandInput)
        text = (field.offer or event.value).strip()  # Enter takes a refused line's suggestion
        field.refused = field.offered = None
        field.value = ""
        if not text:
            self.action_dismiss_results()
            return
        if text == _app(self).last_heard:  # the heard command on show: it is applied already
            return
        field.remember(text)
        reply = await _app(self).submit(text)
        if reply is not None and not reply.ok and not is_question(reply) and not field.value:
            field.keep_refused(text, reply.suggestion)  # to be edited, or its suggestion taken

    @on(HandGrid.Submitted)
    async def _hand_from_grid(self, event: HandGrid.Submitted) -> None:
        await _app(self).submit(event.command, source="grid")

    @on(HandGrid.Changed)
    def _grid_changed(self) -> None:
        app = _app(self)
        game = app.view.game
        if game is not None:
            state = app.view_state
            state.draft_game, state.draft_round = app.game_id, game.round
            state.drafts = self.query_one(HandGrid).drafts()
            app.save_view_state()

    @on(HandGrid.CellHighlighted)
    def _grid_moved(self) -> None:
        self.query_one("#checks", Static).update(self.query_one(HandGrid).checks_text())


# ============================================================================ game over
class GameOverScreen(Screen):
    """The winner, the places, the score sheet, the duration; a new game in one key. Typing
    anything else goes back to the table's command line (nothing typed is swallowed)."""

    BINDINGS = [
        Binding("n", "new_game", "Same players"),
        Binding("s", "setup", "Set up"),
        Binding("escape", "app.pop_screen", "Table"),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="over-body"):
            yield Static(id="winner")
            yield Static(id="out-order")
            yield ScoreSheet(id="final-sheet")
            yield ResultsView(id="final-results")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.update_view()

    def update_view(self) -> None:
        app = _app(self)
        game = app.view.game
        if game is None:
            return
        winners = announce.names(game.winners)
        verb = "wins" if len(game.winners) == 1 else "share the win"
        banner = Text(f"★ {winners} {verb}! ★", style="bold", justify="center")
        self.query_one("#winner", Static).update(banner)
        out = Text()
        out_round = {p: r.round for r in game.rounds for p in r.out}
        for p, place in places(game):
            how = "winner" if p in game.winners else f"out in round {out_round.get(p, '?')}"
            out.append(f"{place}. {title(p)}", style="bold")
            out.append(f" · {how}\n")
        out.append(f"\nRounds played: {len(game.rounds)} · duration: {app.game_duration()}",
                   style="bold")
        self.query_one("#out-order", Static).update(out)
        self.query_one(ScoreSheet).show(game)
        ended = game.rounds[-1] if game.rounds else None
        hands = last_round_hands(app.view.actions) if ended and not ended.sudden_death else {}
        self.query_one(ResultsView).show(ended, hands, game.players)

    def on_key(self, event: Key) -> None:
        """A printable key that is not one of this screen's keys: back to the table, where the
        command line takes it."""
        if event.is_printable and event.character and event.key not in ("n", "s"):
            event.stop()
            event.prevent_default()
            character = event.character
            app = _app(self)
            app.pop_screen()
            field = app.command_input
            field.value += character
            field.cursor_position = len(field.value)
            field.focus()

    async def action_new_game(self) -> None:
        await _app(self).new_game_same_players()

    def action_setup(self) -> None:
        _app(self).open_setup()


class ScoreSheetScreen(ModalScreen):
    """The score sheet on its own (its key, or the palette), over the table."""

    BINDINGS = [Binding("escape,q", "app.pop_screen", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="sheet-body"):
            yield ScoreSheet(id="sheet")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one(ScoreSheet).show(_app(self).view.game)


# ============================================================================ help and rules
class HelpScreen(ModalScreen):
    """The keys (as configured) and the command language, with one example each."""

    BINDINGS = [Binding("escape,q", "app.pop_screen", "Close")]

    def compose(self) -> ComposeResult:
        app = _app(self)
        text = Text()
        text.append("Keys\n", style="bold underline")
        for _action, (key, description) in app.key_table().items():
            text.append(f"  {key:<10}", style="bold")
            text.append(f"{description}\n")
        text.append("  ctrl+p    command palette (every command)\n")
        text.append("\nCommands (typed or spoken)\n", style="bold underline")
        player = app.view.players[0] if app.view.players else "alice"
        for example in EXAMPLES.values():
            text.append(f"  {example.format(p=player)}\n")
        text.append("\nVoice\n", style="bold underline")
        status = app.status_line
        for label, (state, reason) in (("microphone", status.mic), ("speech", status.speech)):
            text.append(f"  {label}: {state}" + (f" ({reason})" if reason else "") + "\n")
        text.append(f"  data file: {status.data_label}\n")
        text.append("\nHand grid (end of round): digits set a count, + and - change it, "
                    "Enter declares the column's hand.", style="italic")
        with VerticalScroll(id="help-body"):
            yield Static(text)
        yield Footer(compact=True)


class RulesScreen(Screen):
    """How to play, for players: the rules in plain words, the deck from the engine and the
    house rules this game is played with, as sentences (not a table squeezed into columns)."""

    BINDINGS = [Binding("escape,q", "app.pop_screen", "Close")]

    def compose(self) -> ComposeResult:
        # Imported only when the rules are opened, so start-up stays fast.
        from textual.widgets import MarkdownViewer

        view = _app(self).view
        rules = view.game.rules if view.game is not None else view.rules
        yield MarkdownViewer(rules_for_players(rules, view.players),
                             show_table_of_contents=False, id="rules")
        yield Footer(compact=True)


def rules_for_players(rules: HouseRules, players: tuple[str, ...] = ()) -> str:
    """``how_to_play.md`` with the deck, an example name from the table and the house rules."""
    try:
        markdown = RULES_FILE.read_text(encoding="utf-8")
    except OSError:
        return "# Rules\n\nThe rules file is missing from this installation."
    deck = "\n".join(f"- {a.value}: {COPIES[a]} cards, {COPIES[a]} points" for a in ANIMALS)
    house = "\n".join(f"- {line}" for line in rules.describe())
    return markdown.format(deck=deck, house_rules=house, p=players[0] if players else "ann")
