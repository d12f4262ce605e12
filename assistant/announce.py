"""Turn the engine's events into the sentences the referee shows and speaks.

Sentences are short and spoken-friendly: names capitalised, numbers as digits (speech engines
read them), one fact per sentence. This module holds the assistant's English helpers (``names``,
``cards_list``, ``lives_word``, and ``plural``/``describe``, which the engine's refusals need too
and so are written once in ``engine.words``); what is legal now it asks the game
(``Game.expected``), never restates; what is expected next is the table model's
(``assistant.table.expect.expecting``).
"""

from __future__ import annotations

from collections.abc import Iterable

from assistant.commands.intents import INTENTS
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
from engine.words import describe, listed, names, plural, title

__all__ = ["APPLIED", "COMMANDS_ON_SCREEN", "announce", "brief", "brief_readback", "cards_list",
           "describe", "expecting", "lives_word", "names", "plural", "readback", "results",
           "round_summary", "sentences", "status"]


def cards_list(cards: Cards) -> str:
    """``bear and dog`` / ``pig, pig and cat``: the cards one by one, as a read-back."""
    return listed([a.value for a in cards])


def lives_word(n: int) -> str:
    return f"{n} {'life' if n == 1 else 'lives'}"


def _next(player: str | None) -> str:
    return f" {title(player)}'s turn." if player else ""


def sentences(event: Event) -> list[str]:
    """What is said of one event (nothing for some)."""
    return _setting_up(event) or _turns(event) or _ending(event)


def _setting_up(event: Event) -> list[str]:
    """A game, a round, its start player and its rows."""
    match event:
        case GameStarted(players=players, rules=rules):
            return [f"New game: {names(players)}, 5 lives each.", *rules.describe()]
        case RoundStarted(round=n, starter=starter):
            if n == 1:
                return []
            return [f"Round {n}." + (f" {title(starter)} starts." if starter else "")
                    + " Enter the four rows."]
        case StarterSet(player=p, by_lot=by_lot):
            return [f"{'By lot, ' if by_lot else ''}{title(p)} starts."]
        case RowSet(row=k, cards=cards, missing_rows=missing):
            tail = "" if not missing else f" Still missing: row {', '.join(map(str, missing))}."
            return [f"Row {k}: {cards_list(cards)}.{tail}"]
        case TurnsBegin(player=p):
            return [f"Rows are set.{_next(p)}" if p else "Rows are set. Who starts?"]
    return []


def _turns(event: Event) -> list[str]:
    """A swap, a knock, a pass."""
    match event:
        case Swapped(player=p, row=k, taken=taken, put_down=put, next_player=nxt, take_first=first):
            if first:  # the house rule's order: the row comes into the hand first
                return [f"{title(p)} took row {k}: {cards_list(taken)}, and put down "
                        f"{cards_list(put)}.{_next(nxt)}"]
            return [f"{title(p)} put down {cards_list(put)} for row {k}: {cards_list(taken)}.{_next(nxt)}"]
        case Knocked(player=p, next_player=nxt, last_turns=last):
            if len(last) == 1:  # two players left: one last turn, not "each"
                return [f"{title(p)} knocks! {title(last[0])} has one last turn."]
            return [f"{title(p)} knocks! One last turn each.{_next(nxt)}"]
        case Passed(player=p, next_player=nxt):
            return [f"{title(p)} passes.{_next(nxt)}"]
    return []


def _ending(event: Event) -> list[str]:
    """The reveal, the hands, the round's result and the game's."""
    match event:
        case RevealBegins():
            return ["Turns are over. Reveal your hands."]
        case HandDeclared(player=p, cards=cards, waiting_for=waiting):
            return [f"{title(p)} has {describe(cards)}.{_waiting(waiting, ' ')}"]
        case RoundEnded():
            return round_summary(event)
        case GameWon(winners=winners, how=how):
            why = {
                "most_points": "Everyone left is out: most points this round decides. ",
                "most_lives_before": "Everyone left is out: most lives before this round decides. ",
                "shared": "Everyone left is out together. ",
            }.get(how, "")
            if len(winners) == 1:
                return [f"{why}{title(winners[0])} wins the game!"]
            return [f"{why}{names(winners)} share the win!"]
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
            won.setdefault(m.winner, []).append(plural(m.animal, 2))
        elif m.tied:
            tied.append(plural(m.animal, 2))
        else:
            lone.append(plural(m.animal, 2))
    said = [f"{title(p)} {n} points: {listed(won.get(p, []))}."
            for p, n in sorted(event.points.items(), key=lambda kv: -kv[1]) if n]
    if tied:
        said.append(f"Tied, nobody scores: {listed(tied)}.")
    if lone:
        said.append(f"One card is not a majority with two players: {listed(lone)}.")
    nothing = [p for p, n in event.points.items() if not n]
    if nothing:
        said.append(f"No points: {names(nothing)}.")
    return said


def round_summary(event: RoundEnded) -> list[str]:
    said: list[str] = []
    if event.sudden_death:
        player, animal = event.sudden_death
        said.append(f"Sudden death! {title(player)} has all {plural(animal, 2)}.")
    else:
        said.extend(_majorities(event))
    losses = _losses(event)
    said.append(" ".join(f"{clause}." for clause in losses) if losses else "Nobody loses a life.")
    for p in event.out:
        said.append(f"{title(p)} is out.")
    return said


def _losses(event: RoundEnded, out: Iterable[str] = ()) -> list[str]:
    """``Bob loses 2 lives`` / ``Alice and Carol lose 1 life each``: one clause per number of
    lives lost, in the order the round lists the players (those ``out`` left out)."""
    losing: dict[int, list[str]] = {}  # lives lost -> who
    for p, n in event.losses.items():
        if n and p not in out:
            losing.setdefault(n, []).append(p)
    return [f"{title(ps[0])} loses {lives_word(n)}" if len(ps) == 1
            else f"{names(ps)} lose {lives_word(n)} each" for n, ps in losing.items()]


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
    return f"{before}Waiting for {names(players)}." if players else ""


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


def readback(command_text: str, intent: str) -> str:
    """How a heard command is read back before it is applied, e.g. ``Alice swaps 2: bear and dog``.
    A hand is said as a person would say it ("a bear, 2 moles"), not as counted words ("1 bear 2
    mole"), so that whoever holds it can check it by ear."""
    words = command_text.split()
    if intent == "swap":
        return f"{title(words[0])} swaps {words[2]}: {listed(words[3:])}."
    if intent == "row":
        return f"Row {words[1]}: {listed(words[2:])}."
    if intent == "new_game" and len(words) > 2:
        return f"New game: {names(words[2:])}."
    if intent == "hand" and len(words) > 3:
        hand = _hand(words[2:])
        if hand is not None:  # "Judy has 2 giraffes, a bear, 2 moles, 3 goats, a sheep and a dog."
            return f"{title(words[0])} has {describe(hand)}."
    if words and intent in ("starts", "knock", "pass", "hand", "sudden_death"):
        return title(command_text) + "."
    return command_text[:1].upper() + command_text[1:] + "."


def status(game: Game | None) -> list[str]:
    if game is None:
        return ["No game yet. Start one with 'new game' and 3 to 5 names."]
    lives = ", ".join(
        f"{title(p)} {lives_word(game.lives[p])}" if game.lives[p] else f"{title(p)} out"
        for p in game.players
    )
    return [f"Round {game.round}. {lives}.", expecting(game)]


# ---------------------------------------------------------------------------- brief speech
#: Said aloud in brief when a heard "yes" applies the command asked about and no result follows
#: (the question read it back already); also the first sentence of that answer on screen.
APPLIED = "Applied."
#: Said aloud in brief for a heard "help": the list of commands is read, not listened to.
COMMANDS_ON_SCREEN = "The commands are on the screen."
#: Events that say the command again (its read-back, when it was heard) and events that are a
#: result the table needs aloud whoever gave the command; the others (a new round, rows set,
#: the reveal begun, a start player drawn by lot) are on screen only.
_ECHOES = (GameStarted, StarterSet, RowSet, Swapped, Knocked, Passed, HandDeclared)
_RESULTS = (RoundEnded, GameWon)


def _card_words(words: Iterable[str]) -> str:
    """``bear dog``: cards one by one, as a quick read-back. No commas: espeak-ng pauses about
    0.3 s at each, which made a 4-card row's read-back a third longer (bench/talk_time.py)."""
    return " ".join(words)


def _brief_row(row: int, cards: Iterable[str]) -> str:
    return f"Row {row}: {_card_words(cards)}."


def _brief_swap(player: str, row: int, put_down: Iterable[str]) -> str:
    return f"{title(player)}: {_card_words(put_down)} for row {row}."


def _brief_hand(player: str, cards: Cards, asked: bool) -> str:
    """``Carol: 2 bears a dog and 3 pigs, right?``: the cards as a person says them, without
    the pause at every comma (1.7 s of a 10-card hand's 6 s)."""
    return f"{title(player)}: {describe(cards).replace(',', '')}{', right?' if asked else '.'}"


def brief(event: Event) -> list[str]:
    """What ``speech = "brief"`` says aloud of one event, when it says anything of it (see
    ``spoken_kind``): a command's events read it back as far as it could have been misheard
    ("Row 2: bear dog.", "Bob: pig sheep for row 2.", "Bob knocks."), a round's result is who
    loses how many lives and who is out, the game's end who wins. Events the screen shows well
    enough (a new round, rows set, a start player drawn by lot, the reveal begun) say nothing."""
    match event:
        case GameStarted(players=players):
            return [f"New game: {names(players)}."]
        case StarterSet(player=p, by_lot=False):
            return [f"{title(p)} starts."]
        case RowSet(row=k, cards=cards):
            return [_brief_row(k, (a.value for a in cards))]
        case Swapped(player=p, row=k, put_down=put):
            return [_brief_swap(p, k, (a.value for a in put))]
        case Knocked(player=p):
            return [f"{title(p)} knocks."]
        case Passed(player=p):
            return [f"{title(p)} passes."]
        case HandDeclared(player=p, cards=cards):
            return [_brief_hand(p, cards, asked=False)]
        case RoundEnded():
            return _brief_round(event)
        case GameWon(winners=winners):
            return [f"{title(winners[0])} wins the game!" if len(winners) == 1
                    else f"{names(winners)} share the win!"]
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
        said.append(f"Sudden death: {title(player)} has all {plural(animal, 2)}.")
    losses = _losses(event, out=event.out)
    if losses:
        said.append(", ".join(losses) + ".")
    if event.out:
        said.append(f"{names(event.out)} {'is' if len(event.out) == 1 else 'are'} out.")
    return said or ["Nobody loses a life."]


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
    end = ", right?" if asked else "."
    match intent:
        case "row" if len(words) > 2:
            return _brief_row(int(words[1]), words[2:])
        case "swap" if len(words) > 3:
            return _brief_swap(words[0], int(words[2]), words[3:])
        case "hand" if len(words) > 3 and (hand := _hand(words[2:])) is not None:
            return _brief_hand(words[0], hand, asked)
        case "new_game" if len(words) > 2:
            return f"New game: {names(words[2:])}{end}"
        case "starts" | "knock" | "pass" | "hand" | "sudden_death" if words:
            return title(command_text) + end
    return None
