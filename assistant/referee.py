"""The referee session: one line of text in, one ``Reply`` out.

Used by every front end (``replay``, ``chat``, the Textual app, voice). It parses the line,
applies it to the game log, and *commits it to the journal before answering*, so an answered
command is never lost. Meta commands (undo, redo, status, repeat, help, yes, no) live here too.

Questions: a command that needs a yes (a new game while one is under way; a hand, a sudden
death or a new game that was heard rather than typed) is not applied but kept as the pending
question, and the reply has ``question=True``. Only the very next command answers it: ``yes``
applies it, ``no`` drops it, and any other accepted command drops it first, saying so in its
reply. ``no`` right after a heard command that was applied takes exactly that command back;
otherwise ``no`` is refused and points at ``undo``. A refused command changes nothing: not the
log, not the question, not what ``no`` would take back.

A second chance (issue 38): ``no`` to a heard command's read-back (its question refused, or the
applied command taken back) offers the recogniser's next reading of the same utterance
(``Command.readings``) as a question, "Or: ...?", at most one per utterance; ``no`` to that says
"Say it again.". A command heard next that is a reading already refused is taken as its own best
reading that was not, if it has one (``SecondChance``); the readings refused (``Referee.refused``)
go to the listener, whose recogniser weighs such a repeat with the utterance refused. Typed
commands have no readings: nothing changes for them.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from assistant import announce
from assistant.commands import Command, ParseError, canonical, command_for, parse, say
from assistant.commands.intents import INTENTS
from assistant.commands.render import offered
from assistant.i18n import SOURCE_LANGUAGE, _, current_language, format
from assistant.i18n import language as i18n_language
from assistant.i18n.refusals import refusal
from assistant.table import TableState, help_examples
from engine.actions import NewGame, SetStarter
from engine.errors import N_, Commands, Phrase, RuleError
from engine.events import Event
from engine.game import Game, Phase, draw_start_player
from engine.log import GameLog
from engine.rules import HouseRules
from engine.words import title


@dataclass(frozen=True)
class Entry:
    """One accepted command as the journal stores it."""

    command: str
    joined: bool = False
    said: str = ""


class JournalError(Exception):
    """The journal could not record a command (disk full, read-only, another writer).

    Its message is for a person; the referee takes the command back and answers with it."""


class Journal(Protocol):
    """Where accepted commands go before the referee answers (the game store)."""

    def new_game(self, players: Sequence[str], rules: HouseRules) -> None: ...

    def append(self, entries: Sequence[Entry], cursor_before: int) -> None:
        """Drop undone entries from ``cursor_before`` on, then add ``entries`` after them."""

    def move_cursor(self, cursor: int) -> None: ...

    def finish(self, winners: Sequence[str]) -> None: ...


@dataclass
class Reply:
    ok: bool
    said: list[str] = field(default_factory=list)
    error: str | None = None
    command: str | None = None  # the canonical form of what was understood
    intent: str | None = None
    suggestion: str | None = None
    #: The command was not applied: it waits for 'yes' or 'no' (``said`` asks).
    question: bool = False
    #: What happened in the game with this answer (what ``said`` announces): ``spoken`` picks
    #: from it what is said aloud.
    events: tuple[Event, ...] = ()
    #: A 'yes' applied the question asked before: ``command`` and ``intent`` are the question's.
    confirmed: bool = False

    @property
    def text(self) -> str:
        return " ".join(self.said) if self.ok else (self.error or "")

    def to_json(self, speech: str | None = None) -> dict[str, Any]:
        """The JSON of ``chat --jsonl``; with ``speech`` (a typed command under that setting),
        ``spoken`` is what was said aloud when it is not what ``full`` says."""
        data: dict[str, Any] = {"ok": self.ok, "said": " ".join(self.said)}
        if speech is not None:
            aloud = spoken(self, False, speech)
            if aloud != spoken(self, False, "full"):
                data["spoken"] = " ".join(aloud)
        if self.command is not None:
            data["command"] = self.command
        if self.intent is not None:
            data["intent"] = self.intent
        if self.question:
            data["question"] = True
        if not self.ok:
            data["error"] = self.error
            if self.suggestion:
                data["suggestion"] = self.suggestion
        return data


#: Heard (not typed) commands that are only asked about: the ones a mishearing would make costly
#: (a whole hand, the end of a round by sudden death, a new game; ``Intent.asked_when_heard``).
QUESTIONED_WHEN_HEARD = frozenset(i.name for i in INTENTS if i.asked_when_heard)


#: Answers that are asked for: 'repeat' says the last announcement in full in every setting
#: (``Intent.said_in_full``).
SAID_IN_FULL = frozenset(i.name for i in INTENTS if i.said_in_full)


def spoken(reply: Reply, heard: bool, speech: str) -> list[str]:
    """What is said aloud of ``reply`` to a command that was ``heard`` (else typed, or a key)
    under the ``[voice] speech`` setting; every front end that speaks asks this. ``said`` is
    always shown in full; the sentences themselves are ``announce``'s.

    ``full``: every sentence, and a heard command's read-back first (``announce.heard_readback``).
    ``results``: only round results and the game's end. ``brief``: a typed command says only the
    results, in short; a heard one its brief read-back (what could have been misheard), then the
    short results; a refusal of a heard command says what was heard and why not."""
    if reply.intent in SAID_IN_FULL and reply.ok:
        return list(reply.said)
    if speech == "full":
        return [*heard_readback(reply, heard), *(reply.said if reply.ok else [reply.error or ""])]
    if speech == "results":
        return announce.results(reply.events, short=False) if reply.ok else []
    if not heard:
        return announce.results(reply.events, short=True) if reply.ok else []
    return _brief_heard(reply)


def reading_taken(heard: Command, reply: Reply) -> Command:
    """Which reading of the ``heard`` command ``reply`` took: itself, or, for a repeat of a
    reading 'no' refused, the next reading the referee took instead (``SecondChance``)."""
    return next((r for r in heard.readings if r.canonical == reply.command), heard)


def heard_readback(reply: Reply, heard: bool) -> list[str]:
    """The full read-back of a ``heard`` command, shown (and in ``full`` said) before its answer;
    none for a typed one, a question, a confirming 'yes', or an answer that says the command
    again (``announce.heard_readback``)."""
    if not heard or reply.confirmed or reply.command is None or reply.intent is None:
        return []
    return announce.heard_readback(reply.command, reply.intent, reply.ok, reply.question)


def _brief_heard(reply: Reply) -> list[str]:
    """``brief`` for a heard command (or a hearing the referee answers, ``reply.error``)."""
    text, intent = reply.command or "", reply.intent or ""
    if not reply.ok:
        readback = announce.brief_readback(text, intent)
        return [*([readback] if readback else []), reply.error or ""]
    if reply.question:
        readback = announce.brief_readback(text, intent, asked=True)
        return [readback] if readback else list(reply.said)
    if reply.confirmed:  # the question read the command back; a result says it was taken
        # announce's constants are English catalog keys: said in the table's language here.
        return announce.results(reply.events, short=True) or [_(announce.APPLIED)]
    match intent:
        case "status":
            return list(reply.said)
        case "help":
            return [_(announce.COMMANDS_ON_SCREEN)]
        case "undo" | "redo" | "no":  # what was undone, redone or not applied
            return [*reply.said[:1], *_asked_again(reply), *announce.results(reply.events, short=True)]
    said: list[str] = []
    for event in reply.events:
        if announce.spoken_kind(event) != "quiet":
            said.extend(announce.brief(event))
    return said


#: Said after 'no' refused the reading a heard command's 'no' offered (``Referee._second_chance``).
SAY_IT_AGAIN = N_("Say it again.")


def _asked_again(reply: Reply) -> list[str]:
    """"Say it again." when ``reply`` (to a 'no') asks for it: said in brief too."""
    again = _(SAY_IT_AGAIN)
    return [again] if again in reply.said[1:] else []


def in_table_language(error: RuleError) -> str:
    """``error``'s sentence in the table's language, the commands it offers as typed there."""
    language = current_language()
    return refusal(error, lambda command: offered(command, language))


def quoted(words: str) -> str:
    """Fixed command words a sentence quotes ('yes', 'new game') as the table types them, quoted."""
    return f"'{offered(words, current_language())}'"


def shown(command: Command) -> str:
    """``command`` as the table's language writes it, for a sentence that quotes it (what is
    stored stays the canonical form): the canonical form itself at an English table."""
    return say(command, current_language())


def _dropped(pending: Command, replaced: bool = False) -> str:
    """Said when another command cancels a pending question; ``replaced``: by a question about
    another new game, which follows (a German table read "Das neue Spiel wurde nicht begonnen."
    before it as a refusal of the new request)."""
    if pending.intent == "new_game":
        players = announce.names(pending.names)
        if replaced:
            return format(_("The question about the new game with {players} is replaced by this one:"),
                          players=players)
        return format(_("The question about the new game with {players} was dropped; it was not started."),
                      players=players)
    return format(_("Not applied: {command}."), command=shown(pending))


#: The refusal of a game command before any game (the referee's own, as the engine's are).
NO_GAME = Phrase(N_("No game yet: start one with {new_game} and 3 to 5 names, e.g. {example}."),
                 new_game=Commands(("new game",)), example=Commands(("new game alice bob carol",)))


@dataclass(frozen=True)
class SecondChance:
    """What ``no`` to a heard command may offer instead, and what a repeat may not be heard as."""

    #: The heard command ``no`` would refuse now (canonical), and its other readings, best first.
    of: str | None = None
    readings: tuple[Command, ...] = ()
    #: Readings ``no`` refused (canonical): the next heard game action is not taken as one.
    refused: frozenset[str] = frozenset()
    #: Whether the next heard game action is judged against ``refused`` (right after a ``no``).
    judging: bool = False
    #: The pending question is the offer already: ``no`` to it offers nothing more.
    offered: bool = False

    def after(self, cmd: Command, heard: bool) -> SecondChance:
        """The chance once ``cmd`` was accepted (``no`` sets its own)."""
        if heard and cmd.is_game_action:
            # The readings refused stay with the repeat only while 'no' may refuse it too.
            return SecondChance(cmd.canonical, cmd.readings, self.refused if self.judging else frozenset())
        if cmd.intent in ("repeat", "status", "help"):
            return self  # asking what was said changes nothing
        return SecondChance()

    def against_refused(self, cmd: Command) -> Command:
        """``cmd`` as judged against the readings refused: itself, or, when it is one of them,
        its best reading that is not. With no such reading it stays itself: said again, it is
        read back again (a person may say "no" and then change their mind)."""
        if not self.judging or cmd.canonical not in self.refused:
            return cmd
        left = [r for r in cmd.readings if r.canonical not in self.refused]
        return replace(left[0], readings=tuple(left[1:])) if left else cmd


def help_lines(players: Sequence[str] = ()) -> list[str]:
    return [_("Commands:")] + [f"  {example}" for example in help_examples(players)]


class Referee:
    def __init__(
        self,
        rules: HouseRules | None = None,
        rng: random.Random | None = None,
        journal: Journal | None = None,
        confirm_new_game: bool = True,
    ) -> None:
        self.rules = rules or HouseRules()
        self.rng = rng or random.Random()
        self.journal = journal
        self.confirm_new_game = confirm_new_game
        self.log = GameLog(self.rules)
        self.last_said: list[str] = []
        self._pending: Command | None = None  # the question waiting for yes or no
        self._last_heard: Command | None = None  # a heard command just applied: 'no' takes it back
        self._chance = SecondChance()  # what 'no' to a heard command offers instead (``SecondChance``)

    # ------------------------------------------------------------------ state
    @property
    def game(self) -> Game | None:
        return self.log.game

    @property
    def players(self) -> tuple[str, ...]:
        return self.game.players if self.game else ()

    def history(self) -> list[str]:
        """The canonical commands of the current game, oldest first."""
        return [canonical(a) for a in self.log.current]

    def state(self) -> dict[str, Any]:
        """The JSON shape of ``replay --json`` and ``status --json``: the table model's
        (``TableState.status_json``)."""
        return TableState.of(self.game).status_json()

    @classmethod
    def resume(
        cls,
        commands: Iterable[str],
        joined: Iterable[bool] = (),
        cursor: int | None = None,
        parse_command: Callable[[str, tuple[str, ...] | None], Command] = parse,
        **kwargs: Any,
    ) -> Referee:
        """Rebuild a session from stored canonical commands (undone ones after ``cursor``).

        ``parse_command``: how each command is parsed (``lifeguard serve``, which replays the
        game after every commit, passes one that remembers the commands it has parsed)."""
        referee = cls(**kwargs)
        actions = []
        players: tuple[str, ...] | None = None
        for text in commands:
            cmd = parse_command(text, players)
            action = cmd.to_action()
            if isinstance(action, NewGame):
                players = tuple(action.players)
            actions.append(action)
        referee.log = GameLog.replay(actions, referee.rules, joined)
        if cursor is not None and cursor < len(actions):
            referee.log.rewind(cursor)
        return referee

    # ------------------------------------------------------------------ input
    def handle(self, text: str) -> Reply:
        """Parse and apply one line. Never raises for anything a person can type."""
        try:
            cmd = parse(text, self.players or None, refusal=self.refusal, language=current_language())
        except ParseError as err:
            return Reply(False, error=err.message, suggestion=err.suggestion)
        return self.execute(cmd)

    def refusal(self, cmd: Command) -> str | None:
        """Why a command would be refused now, or None: how a correction ("Did you mean ...?")
        is tested before it is offered. Changes nothing."""
        if not cmd.is_game_action:
            return self._meta_refusal(cmd.intent)
        if cmd.intent == "new_game":
            return None
        if self.game is None:
            return format(_("No game yet: start one with {new_game} and 3 to 5 names."),
                          new_game=quoted("new game"))
        try:
            self.game.check(cmd.to_action())
        except RuleError as err:
            return in_table_language(err)
        return None

    def _meta_refusal(self, intent: str) -> str | None:
        """Why undo, redo, yes or no would be refused now (the others are always answered)."""
        refused = self._meta_refused(intent)
        return None if refused is None else in_table_language(RuleError(refused))

    def _meta_refused(self, intent: str) -> Phrase | None:
        """``_meta_refusal``'s sentence as a refusal's phrase (English, translated when said)."""
        if intent == "undo" and self.log.cursor <= self._floor():
            return Phrase(N_("Nothing to undo: the game has just started.") if self.game
                          else N_("Nothing to undo."))
        if intent == "redo" and not self.log.can_redo:
            return Phrase(N_("Nothing to redo."))
        if intent == "yes" and self._pending is None:
            return Phrase(N_("Nothing to confirm."))
        if intent == "no" and self._pending is None and self._last_heard is None:
            return Phrase(N_("There is no question to say no to."))
        return None

    def execute(self, cmd: Command, heard: bool = False) -> Reply:
        """Apply an already parsed command (the voice path parses with its own vocabulary).

        ``heard``: the command came from speech recognition. A heard hand, sudden death or new
        game, and a command the recogniser completed where the speaker seemed to stop
        (``Command.unsure``), is only asked about (applied on 'yes'); other heard game
        commands are applied and 'no' as the next command takes them back."""
        log, actions, joined, cursor = self.log, list(self.log.actions), list(self.log.joined), self.log.cursor
        pending, last_heard, chance = self._pending, self._last_heard, self._chance
        if heard:
            cmd = chance.against_refused(cmd)
        # Only the very next command answers a question or takes back a heard command.
        if not cmd.record.keeps_question:
            self._pending = None
        if cmd.intent != "no":
            self._last_heard = None
        try:
            reply = self._dispatch(cmd, heard)
        except RuleError as err:
            self._pending, self._last_heard, self._chance = pending, last_heard, chance
            return Reply(False, error=in_table_language(err), command=cmd.canonical, intent=cmd.intent)
        except JournalError as err:
            # Not saved, so not done: put the game back exactly as it was before this command.
            self.log, self._pending, self._last_heard, self._chance = log, pending, last_heard, chance
            if (log.actions, log.joined, log.cursor) != (actions, joined, cursor):
                log.actions[:], log.joined[:] = actions, joined
                log.rewind(cursor)
            return Reply(False, error=str(err), command=cmd.canonical, intent=cmd.intent)
        if pending is not None and not cmd.record.keeps_question:
            replaced = reply.question and pending.intent == cmd.intent == "new_game"
            reply.said = [_dropped(pending, replaced), *reply.said]
        self._remember(cmd, reply, heard)
        return reply

    def _dispatch(self, cmd: Command, heard: bool) -> Reply:
        """The command asked about, applied, or answered (a meta command)."""
        if heard and (cmd.intent in QUESTIONED_WHEN_HEARD or cmd.unsure):
            return self._ask(cmd, heard=True)
        if cmd.is_game_action:
            return self._game_action(cmd)
        reply: Reply = getattr(self, f"_meta_{cmd.intent}")(cmd)
        return reply

    def _remember(self, cmd: Command, reply: Reply, heard: bool) -> None:
        """What 'no' takes back (a heard game command) and what 'repeat' says again."""
        if heard and cmd.is_game_action and not reply.question:
            self._last_heard = cmd
        if cmd.intent != "no":
            self._chance = self._chance.after(cmd, heard)
        if reply.ok and reply.said and cmd.record.remembered:
            self.last_said = reply.said

    @property
    def question(self) -> str | None:
        """The canonical command waiting for yes or no, if any."""
        return self._pending.canonical if self._pending is not None else None

    @property
    def refused(self) -> frozenset[str]:
        """The readings of a heard command "no" just refused (canonical), while a heard game action
        is judged against them (``SecondChance``): the next utterance may be their repeat, which
        the recogniser hears together with the one refused (``ListenContext.refused``)."""
        return self._chance.refused if self._chance.judging else frozenset()

    def _ask(self, cmd: Command, heard: bool) -> Reply:
        """Keep ``cmd`` as the question, once it is sure it would be accepted now."""
        if cmd.intent != "new_game":
            if self.game is None:
                raise RuleError(NO_GAME)
            copy.deepcopy(self.log).apply(cmd.to_action())  # raises the refusal; changes nothing
        game = self.game
        under_way = game is not None and not game.is_over
        if heard:
            said = [format(_("Heard: {readback} Say yes to apply it, or no."),
                           readback=announce.readback(cmd.canonical, cmd.intent))]
            if cmd.intent == "new_game" and under_way:
                said.append(_("The current game would stay in the history."))
        else:
            assert game is not None
            said = [format(_("A game is under way (round {round}). Say {yes} to start the new game with "
                             "{players} (the current game stays in the history), or {no} to go on with "
                             "this one."), round=game.round, players=announce.names(cmd.names),
                           yes=quoted("yes"), no=quoted("no"))]
        self._pending = cmd
        return Reply(True, said, command=cmd.canonical, intent=cmd.intent, question=True)

    # ------------------------------------------------------------------ game actions
    def _game_action(self, cmd: Command, confirmed: bool = False) -> Reply:
        """Apply ``cmd`` (``confirmed``: a read-back answered "yes", whose answer does not say
        the command again: ``announce.confirmed``)."""
        action = cmd.to_action()
        if isinstance(action, NewGame):
            return self._new_game(cmd)
        if self.game is None:
            raise RuleError(NO_GAME)
        cursor_before = self.log.cursor
        events = self.log.apply(action)
        said = announce.announce(events)
        self._commit([Entry(cmd.canonical, False, " ".join(stored_words(events)))], cursor_before)
        if confirmed:
            said = [_(announce.APPLIED), *announce.confirmed(events)]
        return Reply(True, said, command=cmd.canonical, intent=cmd.intent, events=tuple(events))

    def _new_game(self, cmd: Command) -> Reply:
        game = self.game
        if game is not None and not game.is_over and self.confirm_new_game:
            return self._ask(cmd, heard=False)
        return self._start(cmd)

    def _start(self, cmd: Command) -> Reply:
        self._pending = None
        log = GameLog(self.rules)
        events = log.apply(NewGame(cmd.names))
        starter = draw_start_player(cmd.names, self.rng)
        lot = SetStarter(starter, by_lot=True)
        events += log.apply(lot, joined=True)
        said = announce.announce(events)
        said.append(announce.expecting(log.game))
        if self.journal is not None:
            self.journal.new_game(cmd.names, self.rules)
        self.log = log
        stored = stored_words(events)
        self._commit(
            [
                Entry(cmd.canonical, False, " ".join(stored[:-1])),
                Entry(canonical(lot), True, stored[-1]),
            ],
            0,
        )
        return Reply(True, said, command=cmd.canonical, intent=cmd.intent, events=tuple(events))

    def _commit(self, entries: list[Entry], cursor_before: int) -> None:
        if self.journal is None:
            return
        self.journal.append(entries, cursor_before)
        game = self.game
        if game is not None and game.phase is Phase.GAME_OVER:
            self.journal.finish(game.winners)

    # ------------------------------------------------------------------ meta commands
    def _floor(self) -> int:
        """The new game and its drawn start player: undo stops there (start another game instead)."""
        return 2 if self.log.joined[1:2] == [True] else 1

    def _meta_undo(self, cmd: Command) -> Reply:
        refused = self._meta_refused("undo")
        if refused:
            raise RuleError(refused)
        undone = self.log.undo()
        if self.journal is not None:
            self.journal.move_cursor(self.log.cursor)
        said = [format(_("Undone: {command}."), command=shown(command_for(undone[0]))), announce.expecting(self.game)]
        return Reply(True, said, command="undo", intent="undo")

    def _meta_no(self, cmd: Command) -> Reply:
        pending, heard = self._pending, self._last_heard
        if pending is not None:
            self._pending = None
            fine = (_("Fine, the new game was not started.") if pending.intent == "new_game"
                    else format(_("Fine, {command} was not applied."), command=shown(pending)))
            return self._second_chance(pending, Reply(True, [fine, announce.expecting(self.game)],
                                                      command="no", intent="no"))
        if heard is not None:
            self._last_heard = None
            reply = self._meta_undo(cmd)
            reply.said[0] = format(_("Taken back: {command}."), command=shown(heard))
            reply.command, reply.intent = "no", "no"
            return self._second_chance(heard, reply)
        current = self.log.current
        if current and not isinstance(current[-1], NewGame) and self.log.cursor > self._floor():
            raise RuleError(N_("There is no question to say no to. To take back '{command}', say {undo}."),
                            command=shown(command_for(current[-1])), undo=Commands(("undo",)))
        raise RuleError(N_("There is no question to say no to, and nothing to take back."))

    def _second_chance(self, refused: Command, reply: Reply) -> Reply:
        """``reply`` to the ``no`` that refused ``refused``, with the offer of its next reading
        that was not refused and the game would take now, kept as the question ("Or: ...?"); once
        an offer was refused, or with none, "Say it again." where a reading was refused."""
        chance, self._chance = self._chance, SecondChance()
        if chance.of != refused.canonical:
            return reply  # typed, or asked before any hearing: nothing heard to offer instead
        refused_now = chance.refused | {refused.canonical}
        if chance.offered:
            self._chance = SecondChance(refused=refused_now, judging=True)
            reply.said = [reply.said[0], _(SAY_IT_AGAIN)]
            return reply
        offer = next((r for r in chance.readings
                      if r.canonical not in refused_now and self.refusal(r) is None), None)
        self._chance = SecondChance(offer.canonical if offer else None, refused=refused_now, judging=True,
                                    offered=True)
        if offer is None:
            return reply
        self._pending = offer
        said = announce.readback(offer.canonical, offer.intent).rstrip(".")
        reply.said = [reply.said[0], format(_("Or: {command}?"), command=said)]
        reply.question = True
        return reply

    def _meta_redo(self, cmd: Command) -> Reply:
        redone, events = self.log.redo()
        if self.journal is not None:
            self.journal.move_cursor(self.log.cursor)
            game = self.game
            if game is not None and game.is_over:
                self.journal.finish(game.winners)
        said = [format(_("Redone: {command}."), command=shown(command_for(redone[0]))), *announce.announce(events)]
        return Reply(True, said, command="redo", intent="redo", events=tuple(events))

    def _meta_yes(self, cmd: Command) -> Reply:
        refused = self._meta_refused("yes")
        if refused:
            raise RuleError(refused)
        pending, self._pending = self._pending, None
        assert pending is not None  # _meta_refusal: there is a question
        reply = self._start(pending) if pending.intent == "new_game" else \
            self._game_action(pending, confirmed=True)
        reply.confirmed = True
        return reply

    def _meta_status(self, cmd: Command) -> Reply:
        return Reply(True, announce.status(self.game), command="status", intent="status")

    def _meta_repeat(self, cmd: Command) -> Reply:
        # Says the last announcement again; a pending question stays pending (it is what was
        # said last), so 'repeat' lets a person hear it again before answering.
        if not self.last_said:
            return Reply(True, [_("Nothing has been announced yet.")], command="repeat", intent="repeat")
        return Reply(True, list(self.last_said), command="repeat", intent="repeat")

    def _meta_help(self, cmd: Command) -> Reply:
        return Reply(True, help_lines(self.players), command="help", intent="help")

    def describe_resume(self) -> list[str]:
        """What a resumed session says: where the game stands."""
        game = self.game
        if game is None:
            return []
        return [format(_("Resuming the game of {players}."), players=announce.names(game.players)),
                *announce.status(game)]


__all__ = ["Entry", "Journal", "JournalError", "Referee", "Reply", "heard_readback", "help_lines", "spoken",
           "title"]


def stored_words(events: Sequence[Event]) -> list[str]:
    """What the store keeps as said of a command's ``events``: their announcement in English,
    whatever the table's language, so that the store stays language-neutral (its commands are
    canonical English too) and a reader in another language has it told again in theirs
    (``store.current.retold``)."""
    with i18n_language(SOURCE_LANGUAGE):
        return announce.announce(events)
