"""The full-screen table: ``lifeguard`` with no arguments, in a terminal.

``LifeguardApp`` is the one factory used by the command line (``run``) and the tests. It is a
composition: it owns the referee session (``tui.session``: from the game store, which commits
every accepted command before the referee answers, so quitting never loses anything), the voice
(``tui.voice.TableVoice``: loaded in a background worker so the table is interactive at once),
the web server for phones (``tui.phones.PhoneServer``), the view-state file
(``tui.viewstate.ViewStateFile``) and the palette's entries (``tui.palette``), and says when
each starts and stops; what each does lives with it. Everything people do ends in ``submit`` (a typed line, a
hand from the grid) or ``apply_heard`` (a spoken command), both of which hand the command to the
``CommandDesk`` (the referee, with its disk writes, on a thread of its own) and await it. State
flows down, events go up: the app publishes the table the desk returned with each answer as the
reactive ``view``, which the screens watch; the screens post messages (``StartRequested``,
``CommandEntered``, ...) that the app answers, and never call into it.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from textual import events
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.command import CommandPalette
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget

from assistant.commands import Command, ParseError, names_to_come, new_game_command, parse, say
from assistant.commands.parser import without_polite_words
from assistant.commands.text import printable
from assistant.config import DEFAULT_KEYS, ConfigError, Settings, load_settings
from assistant.i18n import N_, SOURCE_LANGUAGE, _, current_language, format
from assistant.referee import Referee, Reply, heard_readback, quoted, reading_taken
from assistant.table import TableState
from assistant.table.expect import command_starts
from assistant.tui import palette
from assistant.tui.desk import CommandDesk, TableView
from assistant.tui.phones import PhoneServer
from assistant.tui.screens import (
    GameOverScreen,
    HelpScreen,
    Request,
    RulesScreen,
    ScoreSheetScreen,
    SetupScreen,
    TableScreen,
    is_question,
)
from assistant.tui.session import StartError, TableSession, open_table_session
from assistant.tui.viewstate import ViewState, ViewStateFile
from assistant.tui.voice import (
    HeardCommand,
    MicState,
    RejectedSpeech,
    SpeechState,
    TableVoice,
    VoiceBridge,
)
from assistant.tui.widgets import CommandInput, KeyCommand, StatusLine, TableLog
from engine.game import Game, Phase
from engine.rules import HouseRules

if TYPE_CHECKING:  # both load when first needed (their imports are slow)
    from assistant.voice.listener import ListenContext
    from assistant.web.server import TableServer

__all__ = ["LifeguardApp", "StartError", "TableSession", "command_starts", "open_table_session", "run"]

#: One of the app's screens, as ``get_screen_by_type`` is asked for it.
AnyScreen = TypeVar("AnyScreen", bound=Screen[Any])

#: What each bindable action does, for the footer, the help screen and the command palette
#: (``N_``: in the table's language where shown).
KEY_DESCRIPTIONS: dict[str, str] = {
    "push_to_talk": N_("Talk"),
    "mute": N_("Mute"),
    "undo": N_("Undo"),
    "redo": N_("Redo"),
    "repeat": N_("Repeat"),
    "toggle_known": N_("Known cards"),
    "score_sheet": N_("Score sheet"),
    "large_print": N_("Large print"),
    "rules": N_("Rules"),
    "help": N_("Help"),
    "serve": N_("Phones"),
    "quit": N_("Quit"),
}

#: The keys the footer shows, in short words so that they and the focused widget's keys fit in
#: 80 columns; every key is on the help screen (F2) and in the palette.
FOOTER_WORDS: dict[str, str] = {
    "push_to_talk": N_("Talk"),
    "undo": N_("Undo"),
    "toggle_known": N_("Known"),
    "score_sheet": N_("Scores"),
    "rules": N_("Rules"),
    "help": N_("Help"),
}


def echoed(command: str) -> str:
    """A canonical command (what the referee understood, what the store keeps) as the log
    echoes it: in the table's language as it is typed there ('anna tauscht Reihe 1 gegen Maus',
    'anna가 1번 줄을 쥐와 교환해요'); English, or a line that is no command, as it is."""
    language = current_language()
    if language == SOURCE_LANGUAGE:
        return command
    try:
        return say(parse(command), language)
    except ParseError:
        return command


class LifeguardApp(App[None]):
    """Lifeguard's table on screen. Build it with the settings; the tests pass a data dir."""

    CSS_PATH = "lifeguard.tcss"
    TITLE = "Lifeguard"
    #: The table as the last command left it, published whole (never changed in place): the
    #: screens watch it. The live referee belongs to the desk's thread. Every answer publishes
    #: it, even one that changed nothing (a refusal), so the screens settle after each.
    view: reactive[TableView] = reactive(TableView.empty, always_update=True, init=False)
    BINDINGS = [
        Binding(key, action, FOOTER_WORDS.get(action, KEY_DESCRIPTIONS[action]), id=action,
                priority=True, show=action in FOOTER_WORDS)
        for action, key in DEFAULT_KEYS.items()
    ]

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        data_dir: str | Path | None = None,
        seed: int | None = None,
        audio_input: Iterable[str] | None = None,
        voice: bool = True,
        session: TableSession | None = None,
        clock: Callable[[], float] = time.time,
        data_label: str | None = None,
    ) -> None:
        super().__init__()
        self.settings = settings or Settings()
        rng = random.Random(seed) if seed is not None else None
        self.session = session or open_table_session(self.settings, data_dir, rng)
        self.referee = self.session.referee
        self.set_reactive(LifeguardApp.view, replace(TableView.of(self.referee),
                                                     game_id=self.game_id))
        #: The game on show is over (``watch_view`` shows the game-over screen as it ends).
        self._game_over = self.view.game is not None and self.view.game.is_over
        #: Lines are being submitted as a batch (``submit_lines``): the view is kept, not
        #: published, until the batch ends.
        self._batch = False
        self.desk = CommandDesk(self.referee)
        self.data_label = data_label or self.session.data_label
        self.voices = TableVoice(self, self.settings.voice, list(audio_input or ()), voice,
                                 lambda: self.status_line, lambda: self.view)
        self.clock = clock
        self.game_started_at: float | None = None
        #: The game whose game-over screen asked "Press Enter again for a new game": a 'yes'
        #: typed then starts it, as the second Enter does.
        self._new_game_offered: int | None = None
        folder = self.session.folder()
        #: How the table was left (F8, F4, the grid's drafts), kept beside the store.
        self.view_file = ViewStateFile(folder)
        #: The groups of recent games and the last game's house rules, for the setup screen.
        self.recent_groups, self.last_rules = self.session.recent()
        #: The resumed game's log as the store has it, shown again on the table.
        self.resumed_log: list[tuple[str, list[str]]] = []
        if self.session.resumed:
            self.game_started_at = self.session.started_at()
            self.resumed_log = self.session.stored_log()
        #: The web server for phones (``assistant.web``), served from the store's folder.
        self.phones = PhoneServer(self, self.settings.serve, folder)

    # ------------------------------------------------------------------ life cycle
    async def on_mount(self) -> None:
        self.set_keymap(dict(self.settings.keys))
        await self.push_screen(TableScreen(self.data_label, self.view, self.view_state))
        table_log = self.table_log
        game = self.view.game
        if game is not None and not game.is_over:
            for command, said in self.resumed_log:  # the log as it was before the restart
                table_log.command(echoed(command), "", said)
            greeting = self.session.greeting or (await self.desk.run(Referee.describe_resume))[0]
            table_log.said(greeting)
        else:
            table_log.note(format(_("Lifeguard is ready. Set up a game, or type {example}."),
                                  example=quoted("new game alice bob carol")))  # as typed at the table
            await self.push_screen(self.setup_screen())
        self.voices.start()
        if self.settings.serve.start:
            self.phones.serve(show=False)

    def on_unmount(self) -> None:
        self.phones.stop(wait=True)
        self.voices.close()
        self.desk.close()
        self.session.close()

    # ------------------------------------------------------------------ what it owns, by name
    @property
    def voice(self) -> VoiceBridge | None:
        """The speaker and listener (None without voice, or before the table is mounted)."""
        return self.voices.bridge

    @property
    def web(self) -> TableServer | None:
        """The web server for phones while serving; it runs on its own thread."""
        return self.phones.server

    @property
    def view_state(self) -> ViewState:
        """How the table was left (F8, F4, the grid's drafts); the table screen changes it."""
        return self.view_file.state

    @property
    def game_id(self) -> int | None:
        """The stored game's id (None without a store): drafts belong to one game's round."""
        return getattr(self.session.stored, "game_id", None)

    def _listen_context(self) -> ListenContext:
        """What the listener may listen for now (``TableVoice.listen_context``)."""
        return self.voices.listen_context()

    def say(self, text: str) -> None:
        """Everything the table says aloud goes through here (the tests listen in)."""
        self.voices.say(text)

    # ------------------------------------------------------------------ widgets
    @property
    def table(self) -> TableScreen:
        return self.get_screen_by_type(TableScreen)

    def get_screen_by_type(self, kind: type[AnyScreen]) -> AnyScreen:
        for screen in self.screen_stack:
            if isinstance(screen, kind):
                return screen
        raise LookupError(kind.__name__)

    @property
    def table_log(self) -> TableLog:
        return self.table.query_one(TableLog)

    @property
    def status_line(self) -> StatusLine:
        return self.table.query_one(StatusLine)

    @property
    def command_input(self) -> CommandInput:
        return self.table.query_one(CommandInput)

    @property
    def table_gone(self) -> bool:
        """The app is closing: an answer arriving now is stored but has nowhere to be shown."""
        return not any(isinstance(screen, TableScreen) for screen in self.screen_stack)

    # ------------------------------------------------------------------ commands
    async def submit(self, text: str, source: str = "typed") -> Reply | None:
        """One line through the referee (already stored when it returns), then the screen."""
        text = text.strip()
        if not text:
            return None
        if text.lower() in ("quit", "exit") and source == "typed":
            self.exit()
            return None
        if source == "typed" and self._yes_to_new_game(text):
            await self.new_game_same_players()
            return None
        if source == "typed" and names_to_come(text, current_language()):
            self.open_setup()  # 'new game' alone: the names go in the setup, as Ctrl+P's New game
            return None
        if source == "typed":  # 'new game ann bob cy please': 'please' is no player
            text = without_polite_words(text, current_language())
        reply = await self._run(lambda referee: referee.handle(text))
        self._show_reply(text, reply, source)
        return reply

    def _yes_to_new_game(self, text: str) -> bool:
        """``text`` is 'yes' (in the table's language or English) after the game-over screen
        asked about a new game with the same players (it was refused: "Nothing to confirm.")."""
        game = self.view.game
        if game is None or not game.is_over or self._new_game_offered != self.view.game_id:
            return False
        for language in dict.fromkeys((current_language(), SOURCE_LANGUAGE)):
            try:
                return parse(text, game.players, language=language).intent == "yes"
            except ParseError:
                continue
        return False

    async def submit_lines(self, lines: Iterable[str], source: str = "typed") -> list[Reply | None]:
        """Several lines, each as ``submit`` takes it (stored, answered in the log, said), with
        the table's view published once, at the end, and the screen laid out and drawn once,
        then (Textual's ``batch_update``): the screens draw the table the last line left, not
        every table between (a whole game fed in draws once, not once a line)."""
        with self.batch_update():
            self._batch = True
            try:
                replies = [await self.submit(line, source) for line in lines]
            finally:
                self._batch = False
                self.view = self.view  # published (always_update): the screens draw it now
        return replies

    async def _run(self, work: Callable[[Referee], Reply]) -> Reply:
        """``work`` on the desk, then the table it left published as ``view`` (once the game is
        over, with its duration as the store counts it, read on the desk's thread too)."""
        reply, view = await self.desk.run(work)
        minutes = None
        if view.game is not None and view.game.is_over:
            minutes, _ = await self.desk.run(lambda _referee: self.session.duration_min())
            if minutes is None and self.game_started_at is not None:
                minutes = max(0, round((self.clock() - self.game_started_at) / 60))
        published = replace(view, game_id=self.game_id, minutes=minutes)
        if self._batch:  # kept as the view, drawn when the batch ends (``submit_lines``)
            self.set_reactive(LifeguardApp.view, published)
        else:
            self.view = published
        return reply

    async def apply_heard(self, command: Command, text: str) -> Reply:
        """A spoken command: shown in the input for a moment, read back, applied."""
        self._flash_heard(command)
        reply = await self._run(lambda referee: referee.execute(command, heard=True))
        taken = reading_taken(command, reply)
        if taken is not command:  # a repeat taken as its other reading
            self._flash_heard(taken)
        self._show_reply(command.canonical, reply, "heard")
        return reply

    def _flash_heard(self, command: Command) -> None:
        """``command`` in the command line for a moment, as heard (``TableScreen.show_heard``)."""
        shown = format(_("heard: {command}"), command=say(command, current_language()))
        if not self.table_gone and self.table.show_heard(shown):
            self.set_timer(1.5, lambda: self._clear_heard(shown))

    def _clear_heard(self, shown: str) -> None:
        if not self.table_gone:
            self.table.clear_heard(shown)

    def _show_reply(self, text: str, reply: Reply, source: str) -> None:
        """The answer in the log, in full, and aloud as the ``speech`` setting says (``spoken``);
        the screens drew the table when it was published. A heard command's read-back is
        written before the answer, so the log shows what was heard."""
        if self.table_gone:
            return
        log = self.table_log
        heard = source == "heard"
        if is_question(reply):  # nothing changed: waiting for yes or no
            log.question(echoed(reply.command or text), " ".join(reply.said) or reply.error or "")
        elif reply.ok:
            log.command(echoed(reply.command or text), source, [*heard_readback(reply, heard), *reply.said])
        else:
            self._show_refusal(text, reply, source)
        self.say(self.voices.words(reply, heard))
        if _starts_a_game(reply, self.view.game):
            self.game_started_at = self.clock()

    def _show_refusal(self, text: str, reply: Reply, source: str) -> None:
        """The refusal in the log (aloud as ``spoken`` says: for a heard command, what was
        heard and then why not)."""
        log = self.table_log
        log.refused(text, reply.error or _("not understood"))
        if reply.suggestion and source == "typed":  # the refusal names it ("Did you mean ...?")
            log.note("  " + _("Tab or Enter takes it."))

    def watch_view(self, view: TableView) -> None:
        """The game-over screen comes with the game's end and goes with an undo or a new game
        (the screens draw the rest themselves: they watch ``view`` too). It comes once, when the
        game ends: put back at every later update, it covered the table after each command
        typed at game over (and the setup screen after a refused start), and the next Enter,
        meant for the table, started a game with the old players behind it."""
        if self.table_gone:
            return
        game = view.game
        over = game is not None and game.phase is Phase.GAME_OVER
        ended_now, self._game_over = over and not self._game_over, over
        on_top = self.screen
        if ended_now and not isinstance(on_top, GameOverScreen):
            self.push_screen(GameOverScreen(view))
        elif not over and isinstance(on_top, GameOverScreen):
            self.pop_screen()

    # ------------------------------------------------------------------ what the screens ask
    def answer(self, request: Request, work: Awaitable[object]) -> None:
        """``work``'s result as ``request``'s answer, awaited in a worker: the app's own queue
        (keys, timers) goes on meanwhile; the desk keeps the commands in the order given."""

        async def run() -> None:
            try:
                request.answer.set_result(await work)
            except BaseException as err:
                if not request.answer.done():
                    request.answer.set_exception(err)
                raise

        self.run_worker(run(), group="answers")

    def on_table_screen_command_entered(self, request: TableScreen.CommandEntered) -> None:
        self.answer(request, self.submit(request.text, source=request.source))

    def on_table_screen_view_state_changed(self) -> None:
        if self.view_file.kept:  # a disk write, however small: never on the UI's event loop
            self.run_worker(self.view_file.write, thread=True, group="view-state")

    def on_setup_screen_start_requested(self, request: SetupScreen.StartRequested) -> None:
        self.answer(request, self.start_game(request.names, request.rules, request.voice_on))

    def on_game_over_screen_new_game_requested(self, request: GameOverScreen.NewGameRequested) -> None:
        self.answer(request, self.new_game_same_players())

    def on_game_over_screen_new_game_offered(self) -> None:
        self._new_game_offered = self.view.game_id

    def on_game_over_screen_setup_requested(self) -> None:
        self.open_setup()

    def on_game_over_screen_typed_ahead(self, message: GameOverScreen.TypedAhead) -> None:
        """Typing on the game-over screen or the score sheet: on to the table's command line."""
        while isinstance(self.screen, GameOverScreen | ScoreSheetScreen):
            self.pop_screen()
        if not self.table_gone:
            self.table.take_key(message.key, message.character)

    def on_paste(self, event: events.Paste) -> None:
        """A paste on the game-over screen or the score sheet (which take no text): on to the
        table's command line, as typing there goes (it was dropped)."""
        if isinstance(self.screen, GameOverScreen | ScoreSheetScreen) and event.text:
            while isinstance(self.screen, GameOverScreen | ScoreSheetScreen):
                self.pop_screen()
            if not self.table_gone:
                field = self.command_input
                field.focus()
                field.post_message(events.Paste(event.text))

    def on_setup_screen_language_changed(self) -> None:
        """The setup screen's choice of language (``set_language`` done): everything on show is
        drawn again in it (the log keeps what it said; the store stays canonical English)."""
        view = self.view
        self.view = replace(view, table=TableState.of(view.game, question=view.question))
        for screen in self.screen_stack:
            for widget in screen.query("*"):
                widget.refresh()
            screen.refresh_bindings()

    def on_phones_screen_stop_requested(self) -> None:
        self.phones.stop_requested()

    # ------------------------------------------------------------------ games
    async def start_game(self, names: list[str], rules: HouseRules, voice_on: bool) -> str | None:
        """From the setup screen: a new game with these players and house rules; an error or None."""
        if not names:
            return _("Enter 3 to 5 player names, in seating order.")
        reply = await self._run(partial(_start_with_rules, names=names, rules=rules))
        if not reply.ok or self.table_gone:
            return reply.error
        self.voices.set_voice(voice_on)
        while not isinstance(self.screen, TableScreen):
            self.pop_screen()
        self._show_reply(reply.command or "new game", reply, "typed")
        return None

    async def new_game_same_players(self) -> None:
        if self.view.players:
            await self.submit("new game " + " ".join(self.view.players))

    def open_setup(self) -> None:
        while isinstance(self.screen, GameOverScreen):
            self.pop_screen()
        self.push_screen(self.setup_screen())

    def setup_screen(self) -> SetupScreen:
        """The setup screen with the last group and house rules played (this run's game, else
        the store's latest), and the names of recent games to complete from."""
        game = self.view.game
        groups = list(self.recent_groups)
        if game is not None:
            groups = [game.players, *[g for g in groups if g != game.players]]
        rules = game.rules if game is not None else (self.last_rules or self.settings.rules)
        names = [p for group in groups for p in group]
        recent = list(dict.fromkeys(names))  # each name once, the latest games first
        return SetupScreen(groups[0] if groups else (), rules, self.voices.on_by_default, recent,
                           filled=game is not None)

    # ------------------------------------------------------------------ voice's messages
    def on_speech_state(self, message: SpeechState) -> None:
        # The voice's threads report until they are closed: one arriving as the app closes
        # (its table gone) has nothing to update (a test's app crashed on it in CI).
        if not self.table_gone:
            self.status_line.set_speech(message.state, message.reason)

    def on_mic_state(self, message: MicState) -> None:
        if not self.table_gone:
            self.status_line.set_mic(message.state, message.reason)

    async def on_heard_command(self, message: HeardCommand) -> None:
        try:
            await self.apply_heard(message.command, message.text)
        finally:
            # The table now shows the game this command left: the listener may hear the next
            # command against it (not against the game before this one).
            self.voices.settled()

    def on_rejected_speech(self, message: RejectedSpeech) -> None:
        if self.table_gone:
            return
        heard = format(_("heard '{text}': "), text=message.text) if message.text else ""
        self.table_log.note(f"🎤 {heard}{message.reason}")
        if message.addressed:  # talk is written down, not answered aloud
            self.say(self.voices.words(Reply(False, error=message.reason), heard=True))

    # ------------------------------------------------------------------ key actions
    def action_push_to_talk(self) -> None:
        self.voices.push_to_talk()

    def action_mute(self) -> None:
        self.voices.toggle_mute()

    async def action_undo(self) -> None:
        await self.in_turn("undo")

    async def action_redo(self) -> None:
        await self.in_turn("redo")

    async def in_turn(self, action: str) -> None:
        """Undo or redo after every line typed before its key (``KeyCommand``): sent through
        the focused widget and the command line, each behind what it was given before, then
        applied (``on_key_command``). Anywhere else (the palette over the table) at once."""
        if self.table_gone or not isinstance(self.screen, TableScreen | GameOverScreen):
            await self.submit(action, source="key")
            return
        route: list[Widget] = [self.command_input]
        if self.focused is not None and self.focused is not self.command_input:
            route.insert(0, self.focused)
        self._send_on(KeyCommand(action, route))

    @staticmethod
    def _send_on(message: KeyCommand) -> None:
        """``message`` posted on its route's next widget once that widget has taken what is
        queued for it already, from where it bubbles up to the app."""
        widget, *rest = message.route
        widget.call_later(widget.post_message, KeyCommand(message.action, rest))

    async def on_key_command(self, message: KeyCommand) -> None:
        if message.route and not self.table_gone:
            self._send_on(message)
        else:
            await self.submit(message.action, source="key")

    async def action_repeat(self) -> None:
        await self.submit("repeat", source="key")

    def action_toggle_known(self) -> None:
        self.table.toggle_known()

    def action_serve(self, show: bool = True) -> None:
        """Serve the table to phones (``PhoneServer``), then show its link as a QR code."""
        self.phones.serve(show)

    def action_score_sheet(self) -> None:
        if isinstance(self.screen, ScoreSheetScreen):
            self.pop_screen()
        else:
            self.push_screen(ScoreSheetScreen(self.view))

    def action_large_print(self) -> None:
        self.table.toggle_large()

    def action_rules(self) -> None:
        if not isinstance(self.screen, RulesScreen):
            view = self.view
            self.push_screen(RulesScreen(view.game.rules if view.game is not None else view.rules,
                                         view.players))

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            status = self.status_line
            voice = {N_("microphone"): status.mic, N_("speech"): status.speech}
            self.push_screen(HelpScreen(self.key_table(), self.view.players, voice, status.data_label))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """On the game-over and setup screens the table's view keys have nothing to show (game
        over has the score sheet itself; large print is the one it has a version for): they
        leave the footer to those screens' own keys.
        Undo and redo act where the game is on show, the table and game over: on the setup,
        help or rules screen Ctrl+Z took back the last game's last hand unseen (meant for the
        name being typed)."""
        if action in ("toggle_known", "score_sheet", "push_to_talk") \
                and isinstance(self.screen, GameOverScreen | SetupScreen):
            return False
        if action == "large_print" and isinstance(self.screen, SetupScreen):
            return False  # game over has a large version (F4 did nothing there)
        if action in ("undo", "redo") and not isinstance(self.screen, TableScreen | GameOverScreen):
            return False
        return True

    def key_table(self) -> dict[str, tuple[str, str]]:
        """Action -> (key as configured, description), for the help screen."""
        return {a: (self.settings.keys.get(a, k), KEY_DESCRIPTIONS[a]) for a, k in DEFAULT_KEYS.items()}

    def action_command_palette(self) -> None:
        """Textual's, its search box in the table's language (``palette.searching_commands``)."""
        if self.use_command_palette and not isinstance(self.screen, CommandPalette):
            self.push_screen(palette.searching_commands())

    def search_themes(self) -> None:
        """Textual's, its search box in the table's language (``palette.searching_themes``)."""
        self.push_screen(palette.searching_themes())

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The referee's commands (``assistant.tui.palette``), then Textual's theme and quit (not
        its Keys, Maximize or Screenshot, which are about the framework, not the game)."""
        yield from palette.table_commands(self)
        for command in super().get_system_commands(screen):
            if command.title in ("Theme", "Quit"):
                yield palette.translated(command)
        yield from palette.typing_commands(self, command_starts(self.view.game))


def _starts_a_game(reply: Reply, game: Game | None) -> bool:
    """``reply`` began a game (its first round, nothing played yet): its clock starts."""
    return (reply.ok and not reply.question and reply.intent in ("new_game", "yes")
            and game is not None and game.round == 1 and not game.rounds)


def _start_with_rules(referee: Referee, names: list[str], rules: HouseRules) -> Reply:
    """A new game under ``rules``; with a game under way the referee asks first, as it does for
    'new game' typed (the yes starts it under these rules). When it cannot start, the referee
    keeps its rules."""
    previous_rules = referee.rules
    try:
        command = new_game_command(names)
    except ParseError as err:
        return Reply(False, error=err.message, intent="new_game")
    referee.rules = rules
    reply = referee.execute(command)  # asks first while a game is unfinished, as typed
    if not reply.ok:
        referee.rules = previous_rules
    return reply


def run(args: argparse.Namespace) -> int:
    """``lifeguard`` in a terminal: settings, the stored session, then the app."""
    try:
        settings = load_settings(getattr(args, "config", None))
    except ConfigError as err:
        print(f"lifeguard: {printable(str(err), 500)}", file=sys.stderr)  # names a path as given
        return 2
    audio_input = getattr(args, "audio_input", None) or list(settings.voice.audio_input)
    if audio_input:
        settings = replace(settings, voice=replace(settings.voice, audio_input=tuple(audio_input)))
    try:
        app = LifeguardApp(settings, seed=getattr(args, "seed", None), audio_input=audio_input)
    except StartError as err:
        print(f"lifeguard: {printable(str(err), 1000)}", file=sys.stderr)
        return 2
    app.run()
    return 0
