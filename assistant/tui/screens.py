"""The app's screens: setup, the table (with its reveal and results views), game over, help and
rules.

State flows down, events go up: the screens draw the ``TableView`` the app publishes after each
command (``LifeguardApp.view``, a reactive they watch; ``assistant.tui.desk``) and what the app
hands them when it opens them; what people do goes up as messages (``SetupScreen.StartRequested``,
``TableScreen.CommandEntered``, ...), which the app answers. No screen calls into the app.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, ScrollableContainer, VerticalScroll
from textual.events import Key
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.suggester import SuggestFromList
from textual.widgets import (
    Button,
    ContentSwitcher,
    Input,
    Label,
    Select,
    Static,
    Switch,
)

from assistant.commands import name_problem
from assistant.commands.parser import new_game_names
from assistant.i18n import N_, _, current_language, format, ngettext, set_language
from assistant.i18n.words import names as i18n_names
from assistant.table import TableState, help_examples
from assistant.tui.bigtype import big, big_cut, big_width, rows_of
from assistant.tui.cells import cell_len
from assistant.tui.desk import TableView
from assistant.tui.footer import KeysFooter
from assistant.tui.lang import TranslatedKeys, language_options, rules_markdown
from assistant.tui.reveal import (
    NORMAL_CENTRED_FROM,
    NORMAL_WIDE_FROM,
    HandGrid,
    ResultsView,
    ScoreSheet,
    big_sheet_fits,
    last_round_hands,
    losers_in_big,
)
from assistant.tui.viewstate import ViewState
from assistant.tui.widgets import (
    CARD_WIDTH,
    PHASE_WORDS,
    SHORT_NAME,
    CardRows,
    CommandInput,
    OrderedInput,
    PlayersPanel,
    StatusLine,
    TableLog,
    fitted_hint,
    ordinal,
    short_names,
    short_reason,
    state_word,
)
from engine.game import MAX_PLAYERS, MIN_PLAYERS, Game, Phase, places
from engine.rules import HouseRules
from engine.words import title

#: From this many columns and lines the table is in large print (readable from two metres at
#: the end of a table), unless its key says otherwise.
LARGE_PRINT_FROM = (100, 30)
#: The smallest screen large print drops nothing on (the four rows, every player's lives): on
#: a smaller one the table is in normal print whatever its key chose (at 70x20 large print cut
#: the fourth row off), and large print comes on once the terminal is that big.
LARGE_PRINT_SMALLEST = (80, 24)
#: The columns the hand grid's checks need beside it; with fewer they go under it.
CHECKS_WIDTH = 24
#: The lines the table's part of the screen needs for the hand grid and the results in large
#: print with a blank line under each row (ten animals, the totals, the headings).
ROOMY_LINES = 26
#: The widest cards in normal print (a wide screen): their names stay in one word.
NORMAL_CARD_WIDEST = 14
#: The log's lines that normal print keeps on a tall screen: beyond them the table's part
#: takes the lines, the cards taller and the grid's and results' rows spaced (at 200x50 the
#: log took 26 of 50 lines, the rows 15). At 120x40 the table's part needs no more.
NORMAL_LOG_LINES = 16
#: The lines around the table's part in normal print: the top line, the log's rule, the
#: command line's three, the status line and the footer.
NORMAL_AROUND = 7
#: From this many lines large print gives the players' names in big type too (at 100x30 they
#: squeezed the log to its last two lines).
BIG_NAMES_FROM = 40
#: From this many columns and lines large print's biggest type, five lines high (``big``'s
#: ``scale`` 2), says whose turn it is, and a round's losers when the results have the lines.
HUGE_FROM = (160, 48)

#: How each house rule is labelled on the setup screen, and the words for its choices.
#: (``N_``: translated where shown.)
RULE_LABELS: dict[str, str] = {
    "lowest_tie_loses": N_("Tied lowest totals lose"),
    "all_equal": N_("Every total the same"),
    "all_out": N_("Everyone left goes out together"),
    "next_start": N_("Next round's start player"),
    "knock_requires_swap": N_("Knock only after one's own first swap"),
    "two_alive_majority_two": N_("2 alive: a majority needs 2 cards"),
    "take_first": N_("Swap: take the row first, then put down"),
}
CHOICE_WORDS: dict[object, str] = {
    2: N_("2 lives each"),
    1: N_("1 life each"),
    "nobody": N_("nobody loses a life"),
    "everyone_loses_1": N_("everyone loses 1"),
    "most_points": N_("most points that round wins"),
    "shared": N_("a shared win"),
    "most_lives_before": N_("most lives before the round wins"),
    "clockwise": N_("next player clockwise"),
    "most_lives_lost": N_("who lost most lives"),
}


def large_print(choice: bool | None, width: int, height: int) -> bool:
    """Large print: the key's ``choice``, else on from ``LARGE_PRINT_FROM`` (columns, lines);
    never below ``LARGE_PRINT_SMALLEST``."""
    if width < LARGE_PRINT_SMALLEST[0] or height < LARGE_PRINT_SMALLEST[1]:
        return False
    if choice is not None:
        return choice
    return width >= LARGE_PRINT_FROM[0] and height >= LARGE_PRINT_FROM[1]


#: The lines the hand grid takes with a blank line under each animal's row (its headings, ten
#: rows, the totals).
SPACED_GRID_LINES = 22


def normal_room(height: int) -> int:
    """The lines normal print's table part may take on a screen ``height`` lines tall and leave
    the log ``NORMAL_LOG_LINES``."""
    return height - NORMAL_AROUND - NORMAL_LOG_LINES


def spaced_rows(large: bool, height: int) -> bool:
    """The grid's and the results' rows have a blank line under each on a screen ``height``
    lines tall: large print's from ``ROOMY_LINES`` in the table's part, normal print's when
    the grid so fits in ``normal_room``."""
    return height - 11 >= ROOMY_LINES if large else normal_room(height) >= SPACED_GRID_LINES


def normal_card_height(height: int) -> int:
    """A card's lines in normal print: 2, 3 from 34 lines, and on a taller screen up to 5, as
    many as the four rows (a gap between them, a line over them) take in ``normal_room``."""
    return max(3 if height >= 34 else 2, min(5, (normal_room(height) - 4) // 4))


def is_question(reply: Any) -> bool:
    """A reply that changed nothing and waits for yes or no (``Reply.question``, e.g. a new game
    while one is under way): shown as a question, not as a command done or refused."""
    return bool(getattr(reply, "question", False))


def on_off(value: bool) -> str:
    return _("on") if value else _("off")


def duration_words(minutes: int | None) -> str:
    """A game's duration as people say it: ``12 min``, ``1 h 05 min``."""
    if minutes is None:
        return _("unknown")
    if minutes < 60:
        return format(_("{minutes} min"), minutes=minutes)
    return format(_("{hours} h {minutes} min"), hours=minutes // 60, minutes=f"{minutes % 60:02d}")


def listed_names(players: tuple[str, ...]) -> str:
    """Players named in a sentence in the table's language ("Alice, Bob and Carol"; nobody)."""
    return i18n_names(players) if players else _("nobody")


def split_names(value: str) -> list[str]:
    """The names in one setup field: "Ann Ben Cy", "Ann, Ben and Cy" give three (a name is one
    word, so spaces and commas part names; a lone "and" or "&" joins them)."""
    joins = ("and", "&", _("and").lower())
    return [w for w in re.split(r"[\s,;]+", value.strip()) if w and w.lower() not in joins]


def _future() -> asyncio.Future[Any]:
    return asyncio.get_running_loop().create_future()


@dataclass
class Request(Message):
    """A message that wants an answer (a command's reply, why a game could not start). The
    screen that asks (``ask``) waits for it, so its own keys wait for the command as a person
    does; the app answers in a worker, so the app's queue (every key, every timer) never waits
    for the desk's disk."""

    answer: asyncio.Future[Any] = field(init=False, default_factory=_future)


def _seen(answer: asyncio.Future[Any]) -> None:
    """An answer nobody awaits, its error taken (the app's log shows it; asyncio need not)."""
    if not answer.cancelled():
        answer.exception()


async def ask(node: Any, request: Request) -> Any:
    """``request`` straight to the app (the asking screen's own queue waits for the answer,
    so the message cannot bubble through it), and the app's answer. Ask from a handler on the
    screen's own queue: a key's action runs on the app's queue, which must stay free to take
    the request, so an action hands over with ``call_later``."""
    node.app.post_message(request)
    return await request.answer


class ViewWatcher:
    """For screens that draw the table's view: ``view`` is the one they were opened with until
    ``follow_view`` (in ``on_mount``) makes them watch the app's, redrawing in ``show_view``."""

    view: TableView

    def follow_view(self: Any) -> None:
        self.watch(self.app, "view", self._view_published, init=False)

    def _view_published(self, view: TableView) -> None:
        self.view = view
        self.show_view()

    def show_view(self) -> None:
        raise NotImplementedError


def next_line(table: TableState, round_part: bool = True) -> Text:
    """The big line at the top: round, phase and what the referee expects next (the table
    model's ``expecting``); without ``round_part``, only what is expected (a narrow screen)."""
    if table.phase is None:
        return Text(table.expecting, style="bold")
    text = Text()
    expecting = table.expecting
    if table.phase is not Phase.GAME_OVER:
        if round_part:
            text.append(format(_("Round {round} · {phase}"), round=table.round,
                               phase=_(PHASE_WORDS[table.phase])) + "  ", style="bold")
        for prefix in (f"Round {table.round}: ", format(_("Round {round}: "), round=table.round)):
            expecting = expecting.removeprefix(prefix)  # said once is enough
    text.append(expecting[:1].upper() + expecting[1:], style="bold")
    return text


def big_words(game: Game | None, width: int, question: bool = False, scale: int = 1) -> str:
    """What large print says in big type at the top: whose turn it is (or whose hand, or the
    row to enter), as much of it as fits in ``width`` cells, the names cut alike if need be."""
    if game is None or game.phase is Phase.GAME_OVER:
        return _("NEW GAME")
    if question:
        return _("YES OR NO?")
    who = ""
    match game.phase:
        case Phase.ROWS:
            return format(_("ROW {k}"), k=game.missing_rows()[0])
        case Phase.TURNS if game.starter is None:
            return _("WHO STARTS?")
        case Phase.TURNS | Phase.FINAL_TURNS:
            who, what = game.turn or "", _("{name}'S TURN")
        case Phase.REVEAL:
            waiting = game.waiting_to_declare()
            who, what = (waiting[0] if waiting else ""), _("{name}'S HAND")
    for limit in (None, SHORT_NAME):
        name = short_names(game.players, limit).get(who, title(who)).upper()
        for words in (format(what, name=name), name):
            if big_width(words, scale) <= width:
                return words
    return big_cut(name, width, scale)


# ============================================================================ setup
class NameInput(OrderedInput):
    """A player's name on the setup form. Enter acts as it is taken (``KeysInOrder``) and says
    which field the keys typed after it go to: while this field still holds keys typed before the
    focus moved (typed faster than the table answers, as it opens), it hands them on to that
    field in order, and gives up the focus once it holds no more."""

    # An Enter typed before the table took the terminal arrives as a newline (``CommandInput``).
    BINDINGS = [Binding("ctrl+j", "submit", N_("Next"), show=False)]

    async def _on_key(self, event: Key) -> None:
        screen: Any = self.screen
        target = screen.redirect[1] if screen.redirect and screen.redirect[0] is self else self
        if target is self and isinstance(screen.focused, NameInput):
            target = screen.focused  # a key that reached this field as the focus left it
        if target is self:
            await super()._on_key(event)
        elif not await target.run_own_binding(event):
            await Input._on_key(target, event)
        screen.hand_focus(self)

    def keys_waiting(self) -> bool:
        """Keys taken from the terminal that this field has not handled yet."""
        waiting: list[Any] = list(self._message_queue.values)
        return any(isinstance(message, Key) for message in waiting)

    async def action_submit(self) -> None:
        screen: Any = self.screen
        screen.name_entered(self)


class SetupScreen(TranslatedKeys, Screen[None]):
    """Players in seating order, the house rules with their defaults, voice on/off."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", N_("Table")),
        Binding("ctrl+s", "start", N_("Start")),
        Binding("ctrl+g", "same_group", N_("Same group")),
    ]
    #: ``on_mount`` gives the focus to the first empty name. Left to Textual ("*"), the
    #: scrolling form took it first as it was composed and lost it at once, its 67 widgets
    #: restyled twice (a tenth of the CPU of opening the table) for a focus never drawn.
    AUTO_FOCUS = ""

    @dataclass
    class StartRequested(Request):
        """Start a game with these players, house rules and voice; the answer is why it could
        not start, or None."""

        names: list[str]
        rules: HouseRules
        voice_on: bool

    @dataclass
    class LanguageChanged(Message):
        """The table's language was chosen (``set_language`` done): everything on show is
        drawn again in it."""

        code: str

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
        #: (the focused field, the field its waiting keys go to): see ``NameInput``.
        self.redirect: tuple[NameInput, NameInput] | None = None
        #: The names as typed, kept while the screen is drawn again in another language.
        self.typed: list[str] | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="setup-body"):
            yield Label(_("New game: 3 to 5 players, in seating order; Enter on an empty name starts"),
                        classes="title")
            if self.names:
                yield Label(format(_("Same players as last time: {players} (ctrl+g starts)"),
                                   players=listed_names(self.names)), id="same-group")
            suggester = SuggestFromList(self.recent, case_sensitive=False) if self.recent else None
            with Horizontal(id="names"):
                for i in range(MAX_PLAYERS):
                    # short enough for 80 columns, where each name gets 14 cells
                    placeholder = format(_("{nth}: optional") if i >= MIN_PLAYERS else _("{nth} player"),
                                         nth=ordinal(i + 1))
                    value = self.names[i] if self.filled and i < len(self.names) else ""
                    value = self.typed[i] if self.typed is not None else value
                    yield NameInput(value=value, placeholder=placeholder, id=f"name-{i}",
                                       suggester=suggester, classes="name", compact=True)
            # Under the names it refuses most: at 80x24, below the rules, it was off the screen.
            yield Static("", id="setup-error")  # shown by ``_say``
            if self.recent:
                yield Label(format(_("Recent players: {players} (→ completes)"),
                                   players=", ".join(self.recent[:8])), id="recent", classes="hint")
            yield Label(_("House rules (F1 explains the game)"), classes="title")
            for name in HouseRules.field_names():
                value = getattr(self.rules, name)
                with Horizontal(classes="rule"):
                    yield Label(_(RULE_LABELS[name]), classes="rule-label")
                    if isinstance(value, bool):
                        yield Switch(value=value, id=f"rule-{name}")
                        yield Label(on_off(value), id=f"rule-{name}-word", classes="switch-word")
                    else:
                        options = [(_(CHOICE_WORDS[c]), c) for c in HouseRules.CHOICES[name]]
                        yield Select(options, value=value, allow_blank=False, id=f"rule-{name}",
                                     compact=True)
            with Horizontal(classes="rule"):
                yield Label(_("Voice (speak and listen)"), classes="rule-label")
                yield Switch(value=self.voice_on, id="voice")
                yield Label(on_off(self.voice_on), id="voice-word", classes="switch-word")
            with Horizontal(classes="rule"):
                yield Label(_("Language"), classes="rule-label")
                yield Select(language_options(), value=current_language(), allow_blank=False,
                             id="language", compact=True)
            yield Button(_("Start the game (ctrl+s)"), variant="primary", id="start", compact=True)
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        """The first empty name takes the focus: with the last group filled in (after a game
        over), typing at once adds a player rather than typing over the first one's name. Taken
        now, not after the keys already waiting (``focus`` waits its turn on the app's queue):
        names typed as the app opened went to the screen, which has no use for them."""
        fields = [self.query_one(f"#name-{i}", Input) for i in range(MAX_PLAYERS)]
        self.set_focus(next((f for f in fields if not f.value), fields[0]))

    def names_entered(self) -> list[str]:
        """One field, one player: the names as typed (the referee checks and normalises them).
        Several typed in one field are spread over the fields by Enter (``_spread``)."""
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

    @on(Select.Changed, "#language")
    async def _language_chosen(self, event: Select.Changed) -> None:
        """A language chosen: the table's language from now on, this screen drawn again in it
        with what was typed and chosen on it kept."""
        code = str(event.value)
        if code == current_language():
            return
        self.typed = [self.query_one(f"#name-{i}", Input).value for i in range(MAX_PLAYERS)]
        self.rules, self.voice_on = self.rules_chosen(), self.query_one("#voice", Switch).value
        set_language(code)
        self.post_message(self.LanguageChanged(code))
        await self.recompose()
        self.query_one("#language", Select).focus()

    def name_entered(self, field: Input) -> None:
        """Enter on a name goes to the next one; Enter on an empty one (or the fifth) starts. A
        name that can't be a player's is said at once and keeps the focus, selected to be typed
        over (told only at the start, it left people on the empty field after it). Run as the
        Enter is taken: the keys typed after it go to the field it names."""
        index = int((field.id or "name-0").split("-")[1])
        if self._spread(index):
            return
        problem = self._field_problem(index)
        self._say(problem)
        if problem is not None:
            self._type_into(field)
            field.select_all()  # typed over at once
            return
        if field.value.strip() and index + 1 < MAX_PLAYERS:
            self._type_into(self.query_one(f"#name-{index + 1}", Input))
        else:
            self.action_start()

    def _type_into(self, field: Input) -> None:
        """The keys typed from now on go to ``field``: it takes the focus now, or, while the
        focused field still holds keys typed before (``NameInput``), once it has handed them on."""
        holder = self.focused
        if isinstance(holder, NameInput) and holder is not field and holder.keys_waiting():
            self.redirect = (holder, field)  # type: ignore[assignment]
        else:
            self.redirect = None
            self.set_focus(field)

    def hand_focus(self, holder: NameInput) -> None:
        """``holder`` has handled a key: with none left waiting, the field they went to takes
        the focus."""
        if self.redirect and self.redirect[0] is holder and not holder.keys_waiting():
            field = self.redirect[1]
            self.redirect = None
            self.set_focus(field)

    def _spread(self, index: int) -> bool:
        """Several names typed in one field ("Ann Ben Cy", "Ann, Ben and Cy"): one a field
        from this one on, and the focus on the first empty field after them (Enter there
        starts). False when the field holds one name, or when the fields they would go to
        hold names already (then it is refused as one name with a space)."""
        field = self.query_one(f"#name-{index}", Input)
        named = new_game_names(field.value, current_language())
        if named == ():  # a new game's words alone ('neues Spiel bitte'): this is its setup
            field.value = ""
            self._say(_("This is the new game: type the players' names, one a box."))
            self._type_into(field)
            return True
        command = bool(named)  # a new game typed in full, in any of its forms: the names are the rest
        words = split_names(" ".join(named)) if named else split_names(field.value)
        later = [self.query_one(f"#name-{i}", Input).value.strip() for i in range(index + 1, MAX_PLAYERS)]
        if len(words) < (1 if command else 2) or any(later[:len(words) - 1]):
            return False  # one name, or names after it that would be typed over
        room = MAX_PLAYERS - index
        for offset, word in enumerate(words[:room]):
            self.query_one(f"#name-{index + offset}", Input).value = word
        left_out = words[room:]
        self._say(format(_("At most {n} players: {players} left out."), n=MAX_PLAYERS,
                         players=", ".join(left_out)) if left_out else None)
        self._type_after_spread(index)
        return True

    def _type_after_spread(self, index: int) -> None:
        """After names were spread from field ``index``: the first field whose name is refused
        takes the keys typed next, selected, its refusal said; else the first empty field from
        ``index`` on (the last field when none is empty)."""
        fields = [self.query_one(f"#name-{i}", Input) for i in range(MAX_PLAYERS)]
        at_fault = next((i for i in range(MAX_PLAYERS) if self._field_problem(i)), None)
        if at_fault is not None:
            self._say(self._field_problem(at_fault))
            self._type_into(fields[at_fault])
            fields[at_fault].select_all()
        else:
            self._type_into(next((f for f in fields[index:] if not f.value), fields[-1]))

    def _say(self, problem: str | None) -> None:
        """What is wrong, under the names; the line takes no room while nothing is."""
        error = self.query_one("#setup-error", Static)
        error.update(Text(problem or "", style="bold red"))
        error.display = bool(problem)

    def _field_problem(self, index: int) -> str | None:
        """What is wrong with the name in field ``index`` alone, or as a name typed before it."""
        name = self.query_one(f"#name-{index}", Input).value.strip()
        earlier = [self.query_one(f"#name-{i}", Input).value for i in range(index)]
        return name_problem(name, earlier) if name else None

    def _focus_field_at_fault(self) -> None:
        """The first name field whose name is refused takes the focus, its text selected."""
        for i in range(MAX_PLAYERS):
            if self._field_problem(i) is not None:
                field = self.query_one(f"#name-{i}", Input)
                field.focus()
                field.select_all()
                return

    def action_same_group(self) -> None:
        """The last group, in its seating order, with the house rules on the screen: one key."""
        if not self.names:
            self._say(_("No earlier game to take the players from: type the names."))
            return
        for i in range(MAX_PLAYERS):
            self.query_one(f"#name-{i}", Input).value = self.names[i] if i < len(self.names) else ""
        self.action_start()

    @on(Button.Pressed, "#start")
    def action_start(self) -> None:
        self.call_later(self._start)  # asked on this screen's queue (see ``ask``)

    async def _start(self) -> None:
        filled = [i for i in range(MAX_PLAYERS) if self.query_one(f"#name-{i}", Input).value.strip()]
        if len(filled) == 1 and self._spread(filled[0]):  # all the names typed in one field
            return
        voice_on = self.query_one("#voice", Switch).value
        error = await ask(self, self.StartRequested(self.names_entered(), self.rules_chosen(), voice_on))
        if error and self.is_attached:
            self._say(error)
            self._focus_field_at_fault()


# ============================================================================ table
class TableScreen(TranslatedKeys, ViewWatcher, Screen[None]):
    """The table as the referee knows it; typing lands in the command line, or in the hand grid
    at the reveal. Draws the app's ``view``; what is typed goes up as ``CommandEntered``, and
    how the table is viewed (F8, F4, the grid's drafts) as ``ViewStateChanged``."""

    BINDINGS = [
        Binding("escape", "dismiss_results", N_("Rows")),
    ]
    #: The command line has the focus from the first frame: left to Textual, the first
    #: focusable widget (the hand grid, not yet hidden) took it, and keys typed while the table
    #: opened went to the grid.
    AUTO_FOCUS = "#command"

    @dataclass
    class CommandEntered(Request):
        """A command typed (Enter) or from the hand grid: the answer is the referee's reply
        (None when nothing was run)."""

        text: str
        source: str = "typed"

    class ViewStateChanged(Message):
        """``TableScreen.state`` changed (a toggle, a count in the grid): worth saving."""

    def __init__(self, data_label: str, view: TableView, state: ViewState | None = None) -> None:
        super().__init__(id="table")
        self.data_label = data_label
        self.view = view
        #: How the table is viewed, kept between runs (``assistant.tui.viewstate``): F8, F4
        #: and the grid's drafts. The app loads it and saves it when told it changed.
        self.state = state or ViewState()
        #: Rounds whose results people have put away (escape) before entering new rows.
        self.results_dismissed: set[int] = set()
        #: The heard command on show in the command line (it is applied already).
        self.heard_shown: str | None = None
        #: The reveal began while a line was typed: the grid takes the focus after its Enter.
        self._grid_after_line = False
        #: Lines from the command line handled so far (matched with ``CommandInput.sent``).
        self._lines_taken = 0
        #: The lines the table's part of the screen has (``apply_size``).
        self._main_height = 15

    @property
    def show_known(self) -> bool:
        """F8: the cards known to be in each hand are shown."""
        return self.state.show_known

    @property
    def large_choice(self) -> bool | None:
        """Large print chosen with its key (None: it follows the terminal's size)."""
        return self.state.large_print

    def compose(self) -> ComposeResult:
        yield Static(id="next")
        yield Static(id="big")  # large print on a tall screen: whose turn, in big type
        with Horizontal(id="main"):
            with ContentSwitcher(initial="play", id="view"):
                yield CardRows(id="play")
                with Horizontal(id="reveal"):
                    yield HandGrid(id="grid")
                    yield Static(id="checks")
                yield ResultsView(id="results")
            yield PlayersPanel(id="players")
        yield TableLog(id="log")
        yield CommandInput(lambda: self.view.game, id="command",
                           placeholder=fitted_hint(self.view.table.hint))
        yield StatusLine(self.data_label, id="status")
        yield KeysFooter(compact=True)  # the focused widget's keys and the table's fit in 80 columns

    def on_mount(self) -> None:
        self.query_one("#command", CommandInput).focus()
        self.update_table()
        self.follow_view()

    def on_resize(self) -> None:
        self.apply_size()

    def show_view(self) -> None:
        self.update_table()

    @property
    def large(self) -> bool:
        """Large print: the key's choice, else on from ``LARGE_PRINT_FROM`` (columns, lines)."""
        return large_print(self.large_choice, *self.size)

    def apply_size(self) -> None:
        """Cards, players and the top line sized for the terminal (and large print).

        What "large" means depends on the lines there are. From ``LARGE_PRINT_FROM`` (100x30):
        whose turn it is in big type under the top line, the lives in big digits, the rows,
        grid and results spread over the width; from ``BIG_NAMES_FROM`` lines the names too,
        from ``HUGE_FROM`` the biggest type. At 80x24 (large print by its key) there is no
        line to spare, so large print takes none and drops nothing normal print shows: whose
        turn or hand it is (or the round's losers, when they fit one line) in big type in the
        three lines the padded top line took, the top line's words moved onto the rule over
        the log; capitals and bold in the rows, grid and results, their cells wider only where
        the names stay whole (else closer, names whole, before any name is cut alike); the
        results without their title line (in the first heading) so every animal's row, the
        points and the lives fit; the players one line each, the known cards whole before they
        are cut to their first letters, wrapped rather than cut."""
        width, height = self.size
        large = self.large
        self.set_class(large, "large")
        # Big type for whose turn it is when there are lines for it (three, the top line
        # giving up its padding).
        tall = large and height >= LARGE_PRINT_FROM[1]
        self.set_class(tall, "big")
        # A short screen (80x24, large print by its key) has no line to spare for both: the
        # big type takes the top line's three, its words go on the rule over the log.
        self.set_class(large and not tall, "big-short")
        huge = tall and width >= HUGE_FROM[0] and height >= HUGE_FROM[1]
        self.query_one("#big").styles.height = rows_of(2 if huge else 1)
        # The log, the input and the lines around them always stay on screen.
        main_height = max(8, height - (12 if tall else 11 if large else 9) - (2 if huge else 0))
        self.query_one("#main").styles.max_height = self._main_height = main_height
        rows = self.query_one(CardRows)
        rows.letter_spacing = large
        if large:
            # The rows take about three fifths of the width, the players the rest.
            card_width = max(CARD_WIDTH, min(20, (width * 3 // 5 - 6) // 4 - 1))
            card_height = max(2, min(5, (height - 11 - 3 - 6) // 4))
            rows.set_card_size(card_width, card_height)
        else:
            # Normal print on a wide screen: wider cards, the rows taking up to two fifths of
            # the width (at 200 columns they took a quarter, the right half of the screen empty);
            # on a tall one taller cards, as tall as leave the log its lines.
            rows.set_card_size(min(NORMAL_CARD_WIDEST, max(CARD_WIDTH, (width * 2 // 5 - 6) // 4 - 1)),
                               normal_card_height(height))
        # The grid and the results in large print too, a blank line under each of their rows
        # when the table's part of the screen has room for it (in normal print, room beside
        # the log's lines: ``NORMAL_LOG_LINES``).
        roomy = spaced_rows(large, height)
        self.set_class(roomy and not large, "spaced")
        self.set_class(not large and width >= NORMAL_CENTRED_FROM, "centred")
        self.query_one(HandGrid).set_large(large, roomy)
        self.query_one(ResultsView).set_large(large, roomy, main_height if large else normal_room(height),
                                              huge, room=width - 2, short=large and not tall)
        players = self.query_one(PlayersPanel)
        players.budget = main_height - 1  # under the panel's top padding
        players.big_names = large and height >= BIG_NAMES_FROM
        players.update_from(self.view.game, large=large)
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
        game = self.view.game
        # A round's end taken back (Ctrl+Z on its last hand) is no longer dismissed: declared
        # again, its results come back as they did the first time.
        self.results_dismissed &= {ended.round for ended in game.rounds} if game else set()
        self.query_one("#next", Static).update(self._fit_line(game))
        self._top_line_on_log(game)
        self.query_one(CardRows).update_from(game)
        self.query_one(PlayersPanel).update_from(game, self.show_known)
        field = self.query_one("#command", CommandInput)
        field.placeholder = fitted_hint(self.view.table.hint, self._hint_width())
        view = self.current_view(game)
        switcher = self.query_one("#view", ContentSwitcher)
        if switcher.current != view:
            switcher.current = view
            self.query_one("#players").display = view == "play"
            # Each view focuses what it needs: the grid at the reveal, the command line else
            # (a hidden grid keeping the focus would swallow typing).
            # A line being typed keeps it, though: the grid takes it after that line's Enter.
            if view == "reveal":
                field.call_later(self._focus_grid)  # after the keys the line has been given
            else:
                field.focus()
            self.refresh_bindings()
        if view == "reveal" and game is not None:
            grid = self.query_one(HandGrid)
            self._arrange_reveal(game)
            grid.update_from(game, self.state.draft_for(self.view.game_id, game.round))
            self._show_checks()
        elif view == "results" and game is not None:
            self.show_results(game)
        if self.has_class("big") or self.has_class("big-short"):  # after the results (``_big_line``)
            self.query_one("#big", Static).update(self._big_line(game))

    def _big_line(self, game: Game | None) -> Text:
        """Whose turn it is in big type, five lines high when the screen is huge and the words
        fit as whole at that size as at the smaller one (else three, a blank line around)."""
        width, asked = self.size.width - 4, self.view.question is not None
        words = big_words(game, width, asked)
        if game is not None and not asked and self.current_view(game) == "results" \
                and not self.query_one(ResultsView).losses_in_big():  # the round's losers, not "ROW 1"
            words = losers_in_big(game.rounds[-1], game.players, width) or words
        rows = self.query_one("#big").styles.height
        if rows is not None and rows.value >= rows_of(2) and big_words(game, width, asked, 2) == words:
            return Text("\n").join(big(words, scale=2))
        return Text("\n").join([Text(), *big(words), Text()] if rows and rows.value > 3 else big(words))

    def _top_line_on_log(self, game: Game | None) -> None:
        """Large print on a short screen: the top line's words on the rule over the log (the
        big type took their line); else nothing there."""
        log = self.query_one(TableLog)
        if self.has_class("big-short"):
            fitted = self._fit_line(game, self.size.width - 6)
            log.border_title = Text(fitted.plain, style="bold")
        elif log.border_title:
            log.border_title = None

    def _fit_line(self, game: Game | None, room: int | None = None) -> Text:
        """The top line (``next_line``) on one line of ``room`` cells (the screen's by default;
        wrapped, it pushed the status line off at 80x24): the names cut short (``short_names``)
        when it is too long, then without the round and phase (at the reveal at 80x24 the fifth
        name was cut off: the grid shows the phase, and the names are what people look for),
        then its end. Whole names before the round and phase ("ANNAB… HAT DEN LETZTEN ZUG"
        kept "RUNDE 1 · LETZTE RUNDE"), and cut only as far as they must."""
        room = room or self.size.width - (6 if self.large else 2)
        line = Text()
        longest = max((cell_len(title(p)) for p in game.players), default=0) if game else 0
        tries = [(True, None), *((False, limit) for limit in (None, *range(longest - 1, SHORT_NAME - 1, -1)))]
        for round_part, limit in tries:
            line = self._top_line(game, round_part, limit)
            if line.cell_len <= room or game is None:
                break
        line.no_wrap, line.overflow = True, "ellipsis"
        return line

    def _top_line(self, game: Game | None, round_part: bool, limit: int | None) -> Text:
        """``next_line`` with the names cut to ``limit`` (``short_names``), in capitals in large
        print (they read better from across the table)."""
        line = next_line(self.view.table, round_part)
        if game is not None and limit is not None:
            plain = line.plain
            for player, short in short_names(game.players, limit).items():
                plain = plain.replace(title(player), short)
            line = Text(plain, style="bold")
        return Text(line.plain.upper(), style="bold") if self.large else line

    def _hint_width(self) -> int:
        """The cells the command line's hint has (its width less the border and padding)."""
        return max(20, self.size.width - 6)

    def _typing_in_line(self) -> bool:
        """The command line holds a line being typed (not a refused one kept, nor a heard one)."""
        field = self.query_one("#command", CommandInput)
        return bool(field.value.strip()) and field.value not in (field.refused, self.heard_shown)

    def _focus_grid(self) -> None:
        """The reveal's grid takes the focus, unless a line is being typed (then after it)."""
        if self.query_one("#view", ContentSwitcher).current != "reveal":
            return
        self._grid_after_line = self._typing_in_line()
        if not self._grid_after_line:
            self.query_one(HandGrid).focus()

    def _arrange_reveal(self, game: Game) -> None:
        """The checks beside the grid when both fit, the names cut short (``short_names``) if
        that makes them fit; else under it, in a few lines (at 80 columns with five long
        names the checks were a strip three letters wide)."""
        grid = self.query_one(HandGrid)
        room = self.size.width - 2  # inside the table's padding
        # Large print's wide cells, unless they cut names that closer cells keep whole
        # (at 80x24 "ANNE-MA…" where normal print had "Anne-Marie").
        for padding in (2, 1) if self.large else (1,):
            grid.set_padding(padding)
            limit, stacked = self._grid_names(game, room - CHECKS_WIDTH), False
            if grid.width_for(game, limit) + CHECKS_WIDTH > room:
                limit, stacked = self._grid_names(game, room), True
            if limit is None:
                break
        grid.set_name_limit(limit)
        # Beside the checks the grid takes three fifths of the width in large print, as the
        # rows do, and the checks (a line a player) the rest; normal print on a wide screen
        # half of it (at 200 columns the grid took 70, the checks 30, half the screen empty).
        natural = grid.width_for(game, limit)
        if stacked or not (self.large or self.size.width >= NORMAL_WIDE_FROM):
            grid.set_spread(None)
        else:
            grid.set_spread(max(natural, room * 3 // 5 if self.large else room // 2))
        self.query_one("#reveal").set_class(stacked, "stacked")
        # Under the grid, the checks take the lines they need; the grid scrolls to its cursor.
        if stacked:
            short = self.has_class("big-short")  # the others' line is the totals again
            checks = grid.checks_text(compact=True, others=not short).wrap(self.app.console, max(10, room))
            grid.styles.max_height = max(4, self._main_height - max(1 if short else 2, len(checks)))
        else:
            grid.styles.max_height = None

    def _grid_names(self, game: Game, room: int) -> int | None:
        """The names' limit in the grid's headings (``short_names``) for a grid in ``room``
        cells: whole names, else cut as little as makes it fit (a column is as wide as its
        total, "10/10 ok", anyway: cut to six, "ANNE-…" gained nothing over "ANNE-MA…"), else
        ``SHORT_NAME``."""
        grid = self.query_one(HandGrid)
        longest = max((cell_len(title(p)) for p in game.alive), default=0)
        limits: list[int | None] = [None, *range(longest - 1, SHORT_NAME, -1)]
        for limit in limits:
            if grid.width_for(game, limit) <= room:
                return limit
        return SHORT_NAME

    def _show_checks(self) -> None:
        stacked = self.query_one("#reveal").has_class("stacked")
        grid, checks = self.query_one(HandGrid), self.query_one("#checks", Static)
        # On a huge screen the hand under the cursor in big type above the checks, in the cells
        # beside the grid (known before the checks are laid out: from the grid's spread).
        huge = self.has_class("big") and self.size.width >= HUGE_FROM[0] and self.size.height >= HUGE_FROM[1]
        width = self.size.width - 4 - (grid.spread or grid.outer_size.width) if huge else 0
        checks.update(grid.checks_text(compact=stacked, width=width, others=not self.has_class("big-short")))

    def show_results(self, game: Game) -> None:
        ended = game.rounds[-1] if game.rounds else None
        hands = last_round_hands(self.view.actions) if ended and not ended.sudden_death else {}
        self.query_one(ResultsView).show(ended, hands, game.players)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer offers 'back to the rows' only while the results are shown."""
        if action == "dismiss_results":
            return self.query_one("#view", ContentSwitcher).current == "results"
        return True

    def action_dismiss_results(self) -> None:
        game = self.view.game
        if game is not None and game.rounds:
            self.results_dismissed.add(game.rounds[-1].round)
            self.update_table()
            self.query_one("#command", CommandInput).focus()

    def toggle_known(self) -> bool:
        self.state.show_known = not self.state.show_known
        self.update_table()
        self.post_message(self.ViewStateChanged())
        return self.show_known

    def toggle_large(self) -> bool:
        """Large print on or off; switched back to what the terminal's size gives, it follows
        the size again (so a choice made on a small screen does not stick to a large one)."""
        wanted = not self.large
        width, height = self.size
        by_size = width >= LARGE_PRINT_FROM[0] and height >= LARGE_PRINT_FROM[1]
        self.state.large_print = None if wanted == by_size else wanted
        self.apply_size()
        if wanted and not self.large:
            self.query_one(TableLog).note(format(
                _("Large print needs a terminal of at least {columns} columns and {lines} lines; this "
                  "one has {width} and {height}. It comes on once the terminal is that big."),
                columns=LARGE_PRINT_SMALLEST[0], lines=LARGE_PRINT_SMALLEST[1], width=width, height=height))
        for screen in self.app.screen_stack:  # the score sheet over the table follows it
            if isinstance(screen, LargePrintFollower):
                screen.show_view()
        self.post_message(self.ViewStateChanged())
        return self.large

    # -------------------------------------------------------------------- the command line
    @on(Input.Submitted, "#command")
    async def _command_entered(self, event: Input.Submitted) -> None:
        field = self.query_one("#command", CommandInput)
        text = event.value  # the line, or the refused line's suggestion (``action_submit``)
        if not text:
            self.action_dismiss_results()
            return
        self._lines_taken += 1
        if text == self.heard_shown:  # the heard command on show: it is applied already
            return
        field.remember(text)
        reply = await ask(self, self.CommandEntered(text))
        last = field.sent == self._lines_taken  # no line was sent after this one meanwhile
        if reply is not None and not reply.ok and not is_question(reply) and not field.value and last:
            field.keep_refused(text, reply.suggestion)  # to be edited, or its suggestion taken
        if self._grid_after_line and not field.value:  # typed as the reveal began: its turn now
            self._focus_grid()

    def show_heard(self, shown: str) -> bool:
        """A heard command in the command line for a moment; never over what someone types.
        True when it is shown (``clear_heard`` takes it away)."""
        field = self.query_one("#command", CommandInput)
        if field.value and field.value != self.heard_shown:
            return False
        field.value = self.heard_shown = shown
        return True

    def clear_heard(self, shown: str) -> None:
        field = self.query_one("#command", CommandInput)
        if field.value == shown:
            field.value = ""

    def take_key(self, key: str, character: str | None) -> None:
        """A key typed on a screen over the table, into the command line's own queue, which
        takes the focus: in the order typed, and Enter sends the line (it was set straight into
        the line, and an Enter behind it was lost)."""
        field = self.query_one("#command", CommandInput)
        self.set_focus(field)
        field._forward_event(Key(key, character))

    def prefill(self, text: str) -> None:
        """The command line holds ``text`` (a palette entry), to be completed and sent."""
        field = self.query_one("#command", CommandInput)
        field.value = text
        field.cursor_position = len(field.value)
        field.focus()

    # -------------------------------------------------------------------- the hand grid
    @on(HandGrid.Submitted)
    async def _hand_from_grid(self, event: HandGrid.Submitted) -> None:
        """A hand from the grid; but an Enter that reaches the grid while a line is typed in
        the command line (the grid took the focus as it was typed) sends that line."""
        event.stop()
        if self._typing_in_line():
            await self.query_one("#command", CommandInput).action_submit()
            return
        await ask(self, self.CommandEntered(event.command, source="grid"))

    @on(HandGrid.Changed)
    def _grid_changed(self) -> None:
        game = self.view.game
        if game is not None:
            state = self.state
            state.draft_game, state.draft_round = self.view.game_id, game.round
            state.drafts = self.query_one(HandGrid).drafts()
            self.post_message(self.ViewStateChanged())

    @on(HandGrid.CellHighlighted)
    def _grid_moved(self) -> None:
        self._show_checks()


# ============================================================================ game over
class TypingGoesOn:
    """For a screen over the table: a printable key goes back to the table's command line
    (``GameOverScreen.TypedAhead``; nothing typed is swallowed), and every key after it. Until
    then the screen keeps its ``KEPT_KEYS`` (the score sheet's "q" that closes it)."""

    KEPT_KEYS: frozenset[str] = frozenset()
    #: A key went back to the table already: every later key follows it there.
    leaving = False

    def on_key(self, event: Key) -> None:
        """Every key once one went back, Enter too: "status" and Enter arriving together
        started the game-over screen's new game behind the letters, which waited for the app
        while the app closed the screen for the letters (a hang for good); and "status" was left
        unsent under the Enter that asked for a new game."""
        if self.leaving or (event.is_printable and event.character and event.key not in self.KEPT_KEYS):
            event.stop()
            event.prevent_default()
            self.leaving = True
            self.post_message(GameOverScreen.TypedAhead(event.key, event.character))  # type: ignore[attr-defined]


class MoreBelow:
    """For a screen whose body scrolls: a line under it says when more is below or to the
    right, and how to get there (the game-over screen's places and notes were below the fold
    with no sign of them). The body is ``#…-body``; the line is ``#more``."""

    BODY = ""

    def follow_scrolling(self: Any) -> None:
        body = self.query_one(self.BODY)
        self.watch(body, "scroll_y", lambda _old, _new: self.show_more(), init=False)
        self.watch(body, "scroll_x", lambda _old, _new: self.show_more(), init=False)
        self.call_after_refresh(self.show_more)

    def on_resize(self: Any) -> None:
        self.call_after_refresh(self.show_more)

    def show_more(self: Any) -> None:
        if not self.is_attached:
            return
        body = self.query_one(self.BODY)
        parts = []
        if body.max_scroll_y - body.scroll_y >= 1:
            parts.append(_("↓ more below: PageDown or ↓"))
        if body.max_scroll_x - body.scroll_x >= 1:
            parts.append(_("→ more to the right: →"))
        more = self.query_one("#more", Static)
        more.update(Text(" · ".join(parts), style="bold"))
        more.display = bool(parts)


class LargePrintFollower:
    """For a screen over the table: in large print when the table is (its key's choice, else
    the terminal's size), so the score sheet and the game over read from two metres too."""

    def show_view(self) -> None:
        raise NotImplementedError

    @property
    def large(self) -> bool:
        screen: Any = self
        table = next((s for s in screen.app.screen_stack if isinstance(s, TableScreen)), None)
        return large_print(table.large_choice if table is not None else None, *screen.size)


class GameOverScreen(TranslatedKeys, LargePrintFollower, MoreBelow, TypingGoesOn, ViewWatcher, Screen[None]):
    """The winner, the places, the score sheet, the duration; a new game in one key. Typing
    goes back to the table's command line (nothing typed is swallowed): the keys of this screen
    are no letters, since "new game ann ben cy" typed here once began with the "n" that started
    a game with the old group."""

    BINDINGS = [
        Binding("enter", "new_game", N_("Same players")),
        Binding("ctrl+n", "setup", N_("New players")),
        Binding("escape", "app.pop_screen", N_("Table")),
    ]
    #: Seconds after the screen appears in which Enter starts nothing: the Enter that declared
    #: the last hand, pressed twice or held, must not start the next game.
    ENTER_GUARD_SECONDS = 0.8
    #: Enter asks first ("Press Enter again ..."), and the second Enter counts only after this
    #: pause since the one before: a held key repeats faster. An Enter pressed out of habit lost
    #: the final screen, and the new game cannot be undone back into the finished one.
    ENTER_AGAIN_AFTER_SECONDS = 0.4

    @dataclass
    class NewGameRequested(Request):
        """A new game with the same players (Enter); answered once it is on the table."""

    class SetupRequested(Message):
        """The setup screen, for other players or house rules (Ctrl+N)."""

    class NewGameOffered(Message):
        """The first Enter asked about a new game with the same players: 'yes' typed starts it."""

    @dataclass
    class TypedAhead(Message):
        """A key typed that belongs on the table's command line: the app goes back there with
        it (``TableScreen.take_key``)."""

        key: str
        character: str | None

    def __init__(self, view: TableView) -> None:
        super().__init__()
        self.view = view
        self._shown_at = time.monotonic()
        #: When Enter was last pressed here, once it asked to be pressed again (else None).
        self._asked_at: float | None = None
        #: The new game was asked for (a third Enter asks for no other).
        self._requested = False
        #: When the key being handled arrived (``on_key``), for ``action_new_game``.
        self._key_at: float | None = None

    BODY = "#over-body"

    def compose(self) -> ComposeResult:
        with ScrollableContainer(id="over-body"):
            yield Static(id="winner")
            yield Static(id="out-order")
            yield ScoreSheet(id="final-sheet")
            yield ResultsView(id="final-results")
        yield Static(id="more", classes="more")
        yield Static(id="again", classes="more")
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        self.call_after_refresh(self._start_guard)  # the guard counts from the screen on show
        self.show_view()
        self.follow_view()
        self.follow_scrolling()

    def _start_guard(self) -> None:
        self._shown_at = time.monotonic()

    def on_resize(self) -> None:
        self.show_view()  # the banner in big type from large print's size
        super().on_resize()

    def show_view(self) -> None:
        game = self.view.game
        if game is None:
            return
        large = self.large
        self.set_class(large, "large")
        self.query_one("#winner", Static).update(self._banner(game, large))
        self.query_one("#out-order", Static).update(self._places(game, large))
        table = self.view.table
        self.query_one(ScoreSheet).show(table, large, large and 2 * len(table.sheet) + 30 <= self.size.height)
        ended = game.rounds[-1] if game.rounds else None
        hands = last_round_hands(self.view.actions) if ended and not ended.sudden_death else {}
        results = self.query_one(ResultsView)
        results.set_large(large)
        results.show(ended, hands, game.players)

    def _banner(self, game: Game, large: bool) -> Text:
        """Who won; in large print in big type too, the words cut to what fits."""
        winners = listed_names(game.winners)
        said = format(ngettext("{players} wins!", "{players} share the win!", len(game.winners)),
                      players=winners)
        banner = Text(f"★ {said} ★", style="bold", justify="center")
        if large:
            for words in (said, winners, *(title(p) for p in game.winners[:1])):
                if big_width(words) <= self.size.width - 8:
                    return Text("\n", justify="center").join([banner, *big(words.upper())])
        return banner

    def _places(self, game: Game, large: bool) -> Text:
        """The places, best first, and how long the game took. Large print on a tall screen
        (40 lines, and the lines for them): in big type (``2 CHRISTOPHER``)."""
        out = Text()
        out_round = {p: r.round for r in game.rounds for p in r.out}
        ranked = places(game)
        width, height = self.size
        in_big = large and height >= max(40, 16 + 4 * len(ranked)) and all(
            big_width(f"{place} {title(p)}") <= width - 30 for p, place in ranked)
        for p, place in ranked:
            how = _("winner") if p in game.winners else format(_("out in round {round}"),
                                                               round=out_round.get(p, "?"))
            if in_big:
                lines = big(f"{place} {title(p)}", style="bold reverse" if place == 1 else "bold")
                # assembled: appended to the big line, the words took its reverse style too
                lines[1] = Text.assemble(lines[1], (f"   {how.upper()}", "bold"))
                out.append_text(Text("\n").join([*lines, Text("\n")]))
                continue
            out.append(f"{place}. {title(p)}", style="bold")
            out.append(f" · {how}\n")
        out.append("\n" + format(_("Rounds played: {rounds} · duration: {duration}"), rounds=len(game.rounds),
                                 duration=duration_words(self.view.minutes)), style="bold")
        return out

    def on_key(self, event: Key) -> None:
        """Note when the key arrived (before its binding runs): the pause between two Enters is
        the keys' own, not how late a busy machine handled them (a held Enter's repeat handled
        half a second late started a new game)."""
        self._key_at = event.time

    def action_new_game(self) -> None:
        """The first Enter asks for a second (``ENTER_AGAIN_AFTER_SECONDS``, between the keys'
        arrivals); that one starts a new game with the same players."""
        now, self._key_at = self._key_at if self._key_at is not None else time.monotonic(), None
        if now - self._shown_at < self.ENTER_GUARD_SECONDS:
            return
        asked, self._asked_at = self._asked_at, now
        if asked is None:
            game = self.view.game
            again = self.query_one("#again", Static)
            again.update(Text(format(_("Press Enter again, or type yes, for a new game with {players} "
                                       "(Ctrl+N: other players)."), players=listed_names(game.players if game else ())),
                              style="bold"))
            again.display = True
            self.post_message(self.NewGameOffered())
        elif now - asked >= self.ENTER_AGAIN_AFTER_SECONDS and not self._requested:
            self._requested = True
            self.request_new_game()

    def request_new_game(self) -> None:
        """The new game asked of the app, its answer not awaited: this screen's queue waiting
        for it, as ``ask`` does, hung the app for good when a letter typed with the Enter made
        the app close this screen (waiting for its queue) before answering."""
        request = self.NewGameRequested()
        request.answer.add_done_callback(_seen)
        self.app.post_message(request)

    def action_setup(self) -> None:
        self.post_message(self.SetupRequested())


class ScoreSheetScreen(TranslatedKeys, LargePrintFollower, MoreBelow, TypingGoesOn, ViewWatcher,
                       ModalScreen[None]):
    """The score sheet on its own (its key, or the palette), over the table. Typing (but the
    "q" that closes it) closes it and goes on in the command line, as on the game-over screen:
    a command begun here was lost."""

    BINDINGS = [Binding("escape,q", "app.pop_screen", N_("Close"))]

    KEPT_KEYS = frozenset({"q"})

    def __init__(self, view: TableView) -> None:
        super().__init__()
        self.view = view

    BODY = "#sheet-body"

    def compose(self) -> ComposeResult:
        with ScrollableContainer(id="sheet-body"):
            yield ScoreSheet(id="sheet")
        yield Static(id="more", classes="more")
        yield KeysFooter(compact=True)

    def on_mount(self) -> None:
        self.show_view()
        self.follow_view()
        self.follow_scrolling()

    def on_resize(self) -> None:
        self.show_view()
        super().on_resize()

    def show_view(self) -> None:
        large = self.large
        self.set_class(large, "large")
        table = self.view.table
        # A blank line between the rounds when they all still fit (the border, the title,
        # the headings, the big row and the lines under the body: 13).
        roomy = large and 2 * len(table.sheet) + 13 <= self.size.height
        # On a huge screen every round in big type too (200x50 left the lower half empty).
        width, height = self.size
        huge = width >= HUGE_FROM[0] and height >= HUGE_FROM[1]
        big_rows = large and huge and big_sheet_fits(table, width, height)
        self.query_one(ScoreSheet).show(table, large, roomy or big_rows, big_rows)


# ============================================================================ help and rules
class HelpScreen(TranslatedKeys, ModalScreen[None]):
    """The keys (as configured) and the command language, with one example each."""

    BINDINGS = [Binding("escape,q", "app.pop_screen", N_("Close"))]

    def __init__(self, keys: dict[str, tuple[str, str]], players: tuple[str, ...],
                 voice: dict[str, tuple[str, str | None]], data_label: str) -> None:
        super().__init__()
        #: Action -> (key as configured, what it does).
        self.keys = keys
        self.players = players
        #: Device ("microphone", "speech") -> (state, why), as the status line shows them.
        self.voice = voice
        self.data_label = data_label

    def compose(self) -> ComposeResult:
        text = Text()
        text.append(_("Keys") + "\n", style="bold underline")
        for _action, (key, description) in self.keys.items():
            text.append(f"  {key:<10}", style="bold")
            text.append(f"{_(description)}\n")
        text.append(f"  {'ctrl+p':<10}" + _("command palette (every command)") + "\n")
        text.append("\n" + _("Commands (typed or spoken)") + "\n", style="bold underline")
        for example in help_examples(self.players):
            text.append(f"  {example}\n")
        text.append("\n" + _("Voice") + "\n", style="bold underline")
        for label, (state, reason) in self.voice.items():
            # why in the table's words, as the status line says it (a German table's help
            # said "(no audio device (aplay: ...))")
            said = short_reason(reason) if reason and state == "unavailable" else reason
            text.append(f"  {_(label)}: {state_word(state)}" + (f" ({said})" if said else "") + "\n")
        text.append("  " + format(_("data file: {file}"), file=self.data_label) + "\n")
        text.append("\n" + _("Hand grid (end of round): digits set a count, + and - change it, "
                             "Enter declares the column's hand; Shift+Tab goes to it from the "
                             "command line at the reveal."), style="italic")
        with VerticalScroll(id="help-body"):
            yield Static(text)
        yield KeysFooter(compact=True)


class RulesScreen(TranslatedKeys, Screen[None]):
    """How to play, for players: the rules in plain words, the deck from the engine and the
    house rules this game is played with, as sentences (not a table squeezed into columns)."""

    BINDINGS = [Binding("escape,q", "app.pop_screen", N_("Close"))]

    def __init__(self, rules: HouseRules, players: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.rules = rules
        self.players = players

    def compose(self) -> ComposeResult:
        # Imported only when the rules are opened, so start-up stays fast.
        from textual.widgets import MarkdownViewer

        yield MarkdownViewer(rules_for_players(self.rules, self.players),
                             show_table_of_contents=False, id="rules")
        yield KeysFooter(compact=True)


def rules_for_players(rules: HouseRules, players: tuple[str, ...] = ()) -> str:
    """``how_to_play.md`` (in the table's language: ``tui.lang.rules_markdown``) with the deck,
    an example name from the table and the house rules."""
    return rules_markdown(rules, players)
