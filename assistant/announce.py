"""Turn the engine's events into the sentences the referee shows and speaks, in the table's language.

Sentences are short and spoken-friendly: names capitalised, numbers as digits (speech engines
read them), one fact per sentence. Every sentence is English in the code, wrapped for the
catalogs (``assistant.i18n``: ``_``, ``ngettext``, fields through ``i18n.format`` so that a
Korean translation can attach particles to a name); cards, counts and lists are said by
``assistant.i18n.words``. What is legal now it asks the game (``Game.expected``), never
restates; what is expected next is the table model's (``assistant.table.expect.expecting``).
"""

from __future__ import annotations

from collections.abc import Iterable

from assistant.commands.intents import INTENTS
from assistant.i18n import N_, _, animal_name, format, ngettext, pgettext
from assistant.i18n.words import describe, listed
from assistant.i18n.words import names as _listed_names
from assistant.table.expect import expecting
from engine.deck import Animal, Cards
from engine.events import (
    Event,
    GameStarted,
    GameWon,
    HandDeclared,
    Knocked,
    Passed,
    RevealBegins,
    RoundEnded,
    RoundStarted,
    RowSet,
    StarterSet,
    Swapped,
    TurnsBegin,
)
from engine.game import Game
from engine.rules import HouseRules
from engine.words import plural, plural_word, title

__all__ = ["APPLIED", "COMMANDS_ON_SCREEN", "announce", "applied", "brief", "brief_readback",
           "cards_list", "commands_on_screen", "describe", "expecting", "house_rules",
           "lives_word", "names", "plural", "readback", "results", "round_summary", "sentences",
           "status"]


def names(players: Iterable[str]) -> str:
    """``Alice, Bob and Carol`` in the table's language (``nobody`` for none)."""
    players = list(players)
    return _listed_names(players) if players else _("nobody")


#: The engine's animal words (``bear``), as canonical commands write them.
_ANIMAL_WORDS = frozenset(a.value for a in Animal)


def _animals(words: Iterable[str], n: int = 1) -> list[str]:
    """Canonical animal words (``bear``) as the table's language names ``n`` of each; a word
    that is no animal (a read-back of a command the parser never made) as it stands."""
    return [animal_name(w, n) if w in _ANIMAL_WORDS else w for w in words]


def cards_list(cards: Cards) -> str:
    """``bear and dog`` / ``pig, pig and cat``: the cards one by one, as a read-back."""
    return listed(_animals(a.value for a in cards))


def lives_word(n: int) -> str:
    """``1 life``, ``2 lives``; ``1 Leben``; ``목숨 2개``."""
    return format(ngettext("{n} life", "{n} lives", n), n=n)


def _next(player: str | None) -> str:
    """`` Bob's turn.``: the sentence said after an event when someone is to play (or nothing)."""
    return " " + format(_("{player}'s turn."), player=title(player)) if player else ""


def sentences(event: Event) -> list[str]:
    """What is said of one event (nothing for some)."""
    return _setting_up(event) or _turns(event) or _ending(event)


def house_rules(rules: HouseRules) -> list[str]:
    """One sentence per house rule, announced at game start: ``HouseRules.describe`` (the
    engine's English) in the table's language."""
    each = rules.lowest_tie_loses
    all_out = {
        "most_points": N_("If everyone left goes out together, most points that round wins."),
        "shared": N_("If everyone left goes out together, they share the win."),
        "most_lives_before": N_("If everyone left goes out together, most lives before that round wins."),
    }[rules.all_out]
    return [
        _("Tied highest totals lose no life."),
        format(ngettext("Tied lowest totals lose {n} life each.",
                        "Tied lowest totals lose {n} lives each.", each), n=each),
        _("If every total is the same, nobody loses a life.") if rules.all_equal == "nobody"
        else _("If every total is the same, everyone loses 1 life."),
        _(all_out),
        _("The next round starts with the next player clockwise.") if rules.next_start == "clockwise"
        else _("The next round starts with the player who lost most lives."),
        _("You may knock only after your first swap.") if rules.knock_requires_swap
        else _("You may knock before swapping."),
        _("With two players left, a majority needs two cards.") if rules.two_alive_majority_two
        else _("With two players left, one card can be a majority."),
        _("A swap takes the row first, then puts down: a card just taken may go straight back.")
        if rules.take_first else _("A swap puts down first, then takes the row."),
    ]


def _round_started(n: int, starter: str | None) -> list[str]:
    if n == 1:
        return []
    if starter:
        return [format(_("Round {n}. {player} starts. Enter the four rows."), n=n, player=title(starter))]
    return [format(_("Round {n}. Enter the four rows."), n=n)]


def _row_set(k: int, cards: Cards, missing: tuple[int, ...]) -> str:
    said = format(_("Row {row}: {cards}."), row=k, cards=cards_list(cards))
    if missing:
        said += " " + format(ngettext("Still missing: row {rows}.", "Still missing: row {rows}.",
                                      len(missing)), rows=", ".join(map(str, missing)))
    return said


def _setting_up(event: Event) -> list[str]:
    """A game, a round, its start player and its rows."""
    match event:
        case GameStarted(players=players, rules=rules):
            return [format(_("New game: {players}, 5 lives each."), players=names(players)),
                    *house_rules(rules)]
        case RoundStarted(round=n, starter=starter):
            return _round_started(n, starter)
        case StarterSet(player=p, by_lot=by_lot):
            starts = _("By lot, {player} starts.") if by_lot else _("{player} starts.")
            return [format(starts, player=title(p))]
        case RowSet(row=k, cards=cards, missing_rows=missing):
            return [_row_set(k, cards, missing)]
        case TurnsBegin(player=p):
            return [_("Rows are set.") + _next(p) if p else _("Rows are set. Who starts?")]
    return []


def _turns(event: Event) -> list[str]:
    """A swap, a knock, a pass."""
    match event:
        case Swapped(player=p, row=k, taken=taken, put_down=put, next_player=nxt, take_first=first):
            if first:  # the house rule's order: the row comes into the hand first
                said = _("{player} took row {row}: {taken}, and put down {put}.")
            else:
                said = _("{player} put down {put} for row {row}: {taken}.")
            return [format(said, player=title(p), row=k, taken=cards_list(taken),
                           put=cards_list(put)) + _next(nxt)]
        case Knocked(player=p, next_player=nxt, last_turns=last):
            if len(last) == 1:  # two players left: one last turn, not "each"
                return [format(_("{player} knocks! {last} has one last turn."), player=title(p),
                               last=title(last[0]))]
            return [format(_("{player} knocks! One last turn each."), player=title(p)) + _next(nxt)]
        case Passed(player=p, next_player=nxt):
            return [format(_("{player} passes."), player=title(p)) + _next(nxt)]
    return []


def _has(player: str, cards: Cards) -> str:
    """``Judy has 2 giraffes, a bear and a dog.``"""
    return format(_("{player} has {cards}."), player=title(player), cards=describe(cards, held=True))


def _game_won(winners: tuple[str, ...]) -> str:
    if len(winners) == 1:
        return format(_("{player} wins the game!"), player=title(winners[0]))
    return format(_("{players} share the win!"), players=names(winners))


def _ending(event: Event) -> list[str]:
    """The reveal, the hands, the round's result and the game's."""
    match event:
        case RevealBegins():
            return [_("Turns are over. Reveal your hands.")]
        case HandDeclared(player=p, cards=cards, waiting_for=waiting):
            return [_has(p, cards) + _waiting(waiting, " ")]
        case RoundEnded():
            return round_summary(event)
        case GameWon(winners=winners, how=how):
            why = {
                "most_points": N_("Everyone left is out: most points this round decides."),
                "most_lives_before": N_("Everyone left is out: most lives before this round decides."),
                "shared": N_("Everyone left is out together."),
            }.get(how)
            return [f"{_(why)} {_game_won(winners)}" if why else _game_won(winners)]
    return []


def _majorities(event: RoundEnded) -> list[str]:
    """Each scorer's points with the animals that gave them ("Frank 18 points: bears, rabbits and
    pigs."), most points first, then the ties and who scored nothing. Said animal by animal
    ("Bears: Frank, 8 points. ...") and then the points again, a 5-player round's result took
    up to 40 s of speech that the table waits through."""
    won: dict[str, list[str]] = {}
    tied: list[str] = []
    lone: list[str] = []  # one card, two players: no majority
    for m in event.majorities:
        if m.winner:
            won.setdefault(m.winner, []).append(animal_name(m.animal.value, 2))
        elif m.tied:
            tied.append(animal_name(m.animal.value, 2))
        else:
            lone.append(animal_name(m.animal.value, 2))
    said = [format(ngettext("{player} {n} point: {animals}.", "{player} {n} points: {animals}.", n),
                   player=title(p), n=n, animals=listed(won.get(p, [])))
            for p, n in sorted(event.points.items(), key=lambda kv: -kv[1]) if n]
    if tied:
        said.append(format(_("Tied, nobody scores: {animals}."), animals=listed(tied)))
    if lone:
        said.append(format(_("One card is not a majority with two players: {animals}."),
                           animals=listed(lone)))
    nothing = [p for p, n in event.points.items() if not n]
    if nothing:
        said.append(format(_("No points: {players}."), players=names(nothing)))
    return said


def round_summary(event: RoundEnded) -> list[str]:
    said: list[str] = []
    if event.sudden_death:
        player, animal = event.sudden_death
        said.append(format(_("Sudden death! {player} has all {animals}."), player=title(player),
                           animals=animal_name(animal.value, 2)))
    else:
        said.extend(_majorities(event))
    losses = _losses(event)
    said.append(" ".join(f"{clause}." for clause in losses) if losses else _("Nobody loses a life."))
    for p in event.out:
        said.append(format(_("{player} is out."), player=title(p)))
    return said


def _losses(event: RoundEnded, out: Iterable[str] = ()) -> list[str]:
    """``Bob loses 2 lives`` / ``Alice and Carol lose 1 life each``: one clause per number of
    lives lost, in the order the round lists the players (those ``out`` left out)."""
    losing: dict[int, list[str]] = {}  # lives lost -> who
    for p, n in event.losses.items():
        if n and p not in out:
            losing.setdefault(n, []).append(p)
    return [format(ngettext("{player} loses {n} life", "{player} loses {n} lives", n),
                   player=title(ps[0]), n=n) if len(ps) == 1
            else format(ngettext("{players} lose {n} life each", "{players} lose {n} lives each", n),
                        players=names(ps), n=n)
            for n, ps in losing.items()]


def announce(events: Iterable[Event]) -> list[str]:
    said: list[str] = []
    for event in events:
        said.extend(sentences(event))
    return said


def confirmed(events: Iterable[Event]) -> list[str]:
    """What is said of a read-back command once "yes" applies it: its events, but a declared
    hand only says who is still to reveal. The question has just read the hand out (each card);
    said again after "yes" it cost about 4.5 s a hand, while the table does not listen."""
    said: list[str] = []
    for event in events:
        if isinstance(event, HandDeclared):
            said.extend([_waiting(event.waiting_for)] if event.waiting_for else [])
        else:
            said.extend(sentences(event))
    return said


def _waiting(players: Iterable[str], before: str = "") -> str:
    players = list(players)
    return before + format(_("Waiting for {players}."), players=names(players)) if players else ""


#: Commands whose answer, once applied, says the command again ("Row 2: bear and dog.", "Bob put
#: down bear and dog for row 2: ...", "Bob knocks!", "Undone: ...") or is what was asked for
#: ("status", "help"): that answer is their read-back. Said before it as well, the read-back
#: doubled what the table says after a swap (about 8 s instead of 6), and the table does not
#: listen while it speaks.
ANSWER_READS_BACK = frozenset(i.name for i in INTENTS if i.answer_reads_back)


def heard_readback(command_text: str, intent: str, applied: bool, asked: bool) -> list[str]:
    """What is said of a heard command before the referee's answer to it: its read-back, unless
    the answer reads it back itself (a question, or ``ANSWER_READS_BACK`` applied). A refused
    command is read back, so that the table knows what was heard before it hears why not."""
    if asked or (applied and intent in ANSWER_READS_BACK):
        return []
    return [readback(command_text, intent)]


def _hand(words: list[str]) -> Cards | None:
    """The cards of a canonical hand's counted list (``2 giraffe 1 bear``), or None."""
    try:
        return Cards({Animal(a): int(n) for n, a in zip(words[::2], words[1::2], strict=True)})
    except ValueError:
        return None


#: The animals of a sudden death as the canonical command says them (``cats``).
_PLURAL_ANIMALS = {plural_word(a): a for a in Animal}

def _meta_readback(intent: str) -> str | None:
    """A meta command read back (``Undo``), by intent, in the table's language."""
    return {
        "undo": pgettext("read back", "Undo"), "redo": pgettext("read back", "Redo"),
        "yes": pgettext("read back", "Yes"), "no": pgettext("read back", "No"),
        "status": pgettext("read back", "Status"), "repeat": pgettext("read back", "Repeat"),
        "help": pgettext("read back", "Help"),
    }.get(intent)


def _said_command(words: list[str], intent: str) -> str | None:
    """A short canonical command as a sentence says it, without its end ("Alice knocks"), in the
    table's language; None when it is not one of these."""
    if not words:
        return None
    player = title(words[0])
    match intent:
        case "starts" if len(words) == 2:
            return format(_("{player} starts"), player=player)
        case "knock" if len(words) == 2:
            return format(_("{player} knocks"), player=player)
        case "pass" if len(words) == 2:
            return format(_("{player} passes"), player=player)
        case "sudden_death" if len(words) == 4 and words[3] in _PLURAL_ANIMALS:
            return format(_("{player} has all {animals}"), player=player,
                          animals=animal_name(_PLURAL_ANIMALS[words[3]].value, 2))
    return _meta_readback(intent) if len(words) == 1 else None


def readback(command_text: str, intent: str) -> str:
    """How a heard command is read back before it is applied, e.g. ``Alice swaps 2: bear and dog``.
    A hand is said as a person would say it ("a bear, 2 moles"), not as counted words ("1 bear 2
    mole"), so that whoever holds it can check it by ear."""
    words = command_text.split()
    if intent == "swap" and len(words) > 3:
        return format(_("{player} swaps {row}: {cards}."), player=title(words[0]), row=words[2],
                      cards=listed(_animals(words[3:])))
    if intent == "row" and len(words) > 2:
        return format(_("Row {row}: {cards}."), row=words[1], cards=listed(_animals(words[2:])))
    if intent == "new_game" and len(words) > 2:
        return _new_game(words[2:]) + "."
    if intent == "hand" and len(words) > 3:
        hand = _hand(words[2:])
        if hand is not None:  # "Judy has 2 giraffes, a bear, 2 moles, 3 goats, a sheep and a dog."
            return _has(words[0], hand)
    said = _said_command(words, intent)
    if said is not None:
        return said + "."
    if words and intent in ("starts", "knock", "pass", "hand", "sudden_death"):
        return title(command_text) + "."
    return command_text[:1].upper() + command_text[1:] + "."


def _new_game(players: Iterable[str]) -> str:
    return format(_("New game: {players}"), players=names(players))


def status(game: Game | None) -> list[str]:
    if game is None:
        return [format(_("No game yet. Start one with '{command}' and 3 to 5 names."), command="new game")]
    lives = pgettext("list", ", ").join(
        format(ngettext("{player} {n} life", "{player} {n} lives", game.lives[p]),
               player=title(p), n=game.lives[p]) if game.lives[p]
        else format(_("{player} out"), player=title(p))
        for p in game.players
    )
    return [format(_("Round {n}. {lives}."), n=game.round, lives=lives), expecting(game)]


# ---------------------------------------------------------------------------- brief speech
#: Said aloud in brief when a heard "yes" applies the command asked about and no result follows
#: (the question read it back already); also the first sentence of that answer on screen.
#: English, as a catalog key: ``applied()`` says it in the table's language.
APPLIED = N_("Applied.")
#: Said aloud in brief for a heard "help": the list of commands is read, not listened to.
#: English, as a catalog key: ``commands_on_screen()`` says it in the table's language.
COMMANDS_ON_SCREEN = N_("The commands are on the screen.")


def applied() -> str:
    """``APPLIED`` in the table's language."""
    return _(APPLIED)


def commands_on_screen() -> str:
    """``COMMANDS_ON_SCREEN`` in the table's language."""
    return _(COMMANDS_ON_SCREEN)


#: Events that say the command again (its read-back, when it was heard) and events that are a
#: result the table needs aloud whoever gave the command; the others (a new round, rows set,
#: the reveal begun, a start player drawn by lot) are on screen only.
_ECHOES = (GameStarted, StarterSet, RowSet, Swapped, Knocked, Passed, HandDeclared)
_RESULTS = (RoundEnded, GameWon)


def _card_words(words: Iterable[str]) -> str:
    """``bear dog``: cards one by one, as a quick read-back. No commas: espeak-ng pauses about
    0.3 s at each, which made a 4-card row's read-back a third longer (bench/talk_time.py)."""
    return " ".join(_animals(words))


def _brief_row(row: int, cards: Iterable[str], asked: bool = False) -> str:
    return format(_("Row {row}: {cards}"), row=row, cards=_card_words(cards)) + _right(asked)


def _brief_swap(player: str, row: int, put_down: Iterable[str], asked: bool = False) -> str:
    """``Alice: mole goat for row 3.``; asked (a swap the recogniser was unsure of, read back
    before it is applied), ``..., right?``."""
    return format(_("{player}: {cards} for row {row}"), player=title(player), row=row,
                  cards=_card_words(put_down)) + _right(asked)


def _right(asked: bool) -> str:
    """The end of a read-back: a question (``, right?``) or a statement."""
    return _(", right?") if asked else "."


def _brief_hand(player: str, cards: Cards, asked: bool) -> str:
    """``Carol: 2 bears a dog and 3 pigs, right?``: the cards as a person says them, without
    the pause at every comma (1.7 s of a 10-card hand's 6 s)."""
    return format(_("{player}: {cards}"), player=title(player),
                  cards=describe(cards).replace(",", "")) + _right(asked)


def brief(event: Event) -> list[str]:
    """What ``speech = "brief"`` says aloud of one event, when it says anything of it (see
    ``spoken_kind``): a command's events read it back as far as it could have been misheard
    ("Row 2: bear dog.", "Bob: pig sheep for row 2.", "Bob knocks."), a round's result is who
    loses how many lives and who is out, the game's end who wins. Events the screen shows well
    enough (a new round, rows set, a start player drawn by lot, the reveal begun) say nothing."""
    match event:
        case GameStarted(players=players):
            return [_new_game(players) + "."]
        case StarterSet(player=p, by_lot=False):
            return [format(_("{player} starts."), player=title(p))]
        case RowSet(row=k, cards=cards):
            return [_brief_row(k, (a.value for a in cards))]
        case Swapped(player=p, row=k, put_down=put):
            return [_brief_swap(p, k, (a.value for a in put))]
        case Knocked(player=p):
            return [format(_("{player} knocks."), player=title(p))]
        case Passed(player=p):
            return [format(_("{player} passes."), player=title(p))]
        case HandDeclared(player=p, cards=cards):
            return [_brief_hand(p, cards, asked=False)]
        case RoundEnded():
            return _brief_round(event)
        case GameWon(winners=winners):
            return [_game_won(winners)]
    return []


def spoken_kind(event: Event) -> str:
    """"echo" (says the command again: aloud in brief only when it was heard), "result" (aloud in
    every setting) or "quiet" (aloud in full only)."""
    if isinstance(event, _RESULTS):
        return "result"
    if isinstance(event, StarterSet) and event.by_lot:
        return "quiet"
    return "echo" if isinstance(event, _ECHOES) else "quiet"


def _brief_round(event: RoundEnded) -> list[str]:
    """A round's result in one or two short sentences: who loses how many lives, who is out
    (a player out is only said to be out: "Heidi loses 2 lives. Heidi is out." said the one
    thing twice). The points and the animals won are on screen, and 'repeat' says them."""
    said: list[str] = []
    if event.sudden_death:
        player, animal = event.sudden_death
        said.append(format(_("Sudden death: {player} has all {animals}."), player=title(player),
                           animals=animal_name(animal.value, 2)))
    losses = _losses(event, out=event.out)
    if losses:
        # Translators: joins the clauses of who loses how many lives in one sentence.
        said.append(pgettext("clauses", ", ").join(losses) + ".")
    if event.out:
        said.append(format(ngettext("{players} is out.", "{players} are out.", len(event.out)),
                           players=names(event.out)))
    return said or [_("Nobody loses a life.")]


def results(events: Iterable[Event], short: bool) -> list[str]:
    """The round results and the game's end among ``events``: in full (as on screen), or
    ``short`` (``brief``)."""
    said: list[str] = []
    for event in events:
        if isinstance(event, _RESULTS):
            said.extend(brief(event) if short else sentences(event))
    return said


def brief_readback(command_text: str, intent: str, asked: bool = False) -> str | None:
    """A heard game command's brief read-back from its canonical text, for when it has no
    events to say it (refused, or asked about: ``asked`` ends it in "right?"); the same words
    as ``brief`` says of its events. None for a meta command (its answer says what it did)."""
    words = command_text.split()
    match intent:
        case "row" if len(words) > 2:
            return _brief_row(int(words[1]), words[2:], asked)
        case "swap" if len(words) > 3:
            return _brief_swap(words[0], int(words[2]), words[3:], asked)
        case "hand" if len(words) > 3 and (hand := _hand(words[2:])) is not None:
            return _brief_hand(words[0], hand, asked)
        case "new_game" if len(words) > 2:
            return _new_game(words[2:]) + _right(asked)
        case "starts" | "knock" | "pass" | "hand" | "sudden_death" if words:
            said = _said_command(words, intent)
            return (said if said is not None else title(command_text)) + _right(asked)
    return None
