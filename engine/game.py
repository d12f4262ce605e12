"""The state of one game of Life is Life and the rules that move it.

``Game.apply(action)`` validates an action completely before changing anything: a refused action
raises a ``RuleError`` whose message a player understands, and leaves the game as it was. An
accepted action returns the events it caused. The referee only knows what is public: the four
face-up rows and, per player, the cards known to be in hand (taken from the rows and not put
down again); declared hands are checked against that knowledge.

This module is the state machine (``Game``: phases, turns, rounds) and what is legal now
(``Expected``). The rest of the rules live beside it, each once: players' names in
``engine.names``, what the referee can know of the cards in ``engine.knowledge``, scoring and
places in ``engine.scoring``; their names used elsewhere are importable from here as before.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import assert_never

from engine.actions import (
    Action,
    DeclareHand,
    Knock,
    NewGame,
    Pass,
    SetRow,
    SetStarter,
    SuddenDeath,
    Swap,
)
from engine.deck import COPIES, HAND_SIZE, ROW_SIZES, SUDDEN_DEATH_ANIMALS, Animal, Cards
from engine.errors import (
    N_,
    AnimalWord,
    BadCards,
    BadClaim,
    BadHand,
    BadRow,
    Commands,
    Counted,
    NotYourTurn,
    Phrase,
    Player,
    Players,
    RowList,
    RuleError,
    UnknownPlayer,
    WrongPhase,
)
from engine.events import (
    Event,
    GameStarted,
    GameWon,
    HandDeclared,
    Knocked,
    Majority,
    Passed,
    RevealBegins,
    RoundEnded,
    RoundStarted,
    RowSet,
    StarterSet,
    Swapped,
    TurnsBegin,
)
from engine.knowledge import HandCheck, deck_overflow, known_after_swap, refuse_overflow
from engine.names import (
    MAX_NAME,
    MAX_PLAYERS,
    MIN_PLAYERS,
    check_players,
    name_key,
    valid_name,
)
from engine.rules import HouseRules
from engine.scoring import all_out_winners, life_losses, places, score_hands

START_LIVES = 5


class Phase(StrEnum):
    ROWS = "rows"  # the four face-up rows are being entered
    TURNS = "turns"  # players swap or knock in turn
    FINAL_TURNS = "final_turns"  # after a knock: one more turn each
    REVEAL = "reveal"  # hands are declared, then the round is scored
    GAME_OVER = "game_over"

    def __str__(self) -> str:
        return self.value


def draw_start_player(players: Sequence[str], rng: random.Random) -> str:
    """The first start player is chosen by lot, with the caller's seeded generator."""
    return rng.choice(list(players))


@dataclass(frozen=True)
class Expected:
    """What the game waits for now: the kinds of action that move it on (OpenSpiel's legal
    actions, by kind: the cards of a swap or a hand are open), who may give them, and while the
    rows are entered, the rows still missing. A sudden-death claim is possible at any moment of
    a round and is never listed; nor is a knock after a knock, which counts as a pass."""

    actions: tuple[type[Action], ...]
    players: tuple[str, ...] = ()
    rows: tuple[int, ...] = ()


class Game:
    """One game, from ``NewGame`` to a winner. Build it with ``Game.new`` or ``GameLog``."""

    def __init__(self, players: Sequence[str], rules: HouseRules | None = None) -> None:
        self.players: tuple[str, ...] = tuple(players)
        self.rules = rules or HouseRules()
        self.lives: dict[str, int] = {p: START_LIVES for p in self.players}
        self.round = 1
        self.phase = Phase.ROWS
        self.starter: str | None = None
        self.rows: list[Cards | None] = [None] * len(ROW_SIZES)
        self.known: dict[str, Cards] = {p: Cards() for p in self.players}
        self.swapped: set[str] = set()
        self.turn: str | None = None
        self.turns_played = 0
        self.knocker: str | None = None
        self.final_turns_left: list[str] = []
        self.declared: dict[str, Cards] = {}
        self.out_order: list[str] = []
        self.winners: tuple[str, ...] = ()
        self.rounds: list[RoundEnded] = []
        self.lives_lost_last_round: dict[str, int] = {}

    # ----------------------------------------------------------------- construction
    @classmethod
    def new(cls, action: NewGame, rules: HouseRules | None = None) -> tuple[Game, list[Event]]:
        players = tuple(action.players)  # as typed: shown so, matched casefolded
        check_players(players)
        game = cls(players, rules)
        return game, [GameStarted(players, game.rules), RoundStarted(1, None)]

    # ----------------------------------------------------------------- queries
    @property
    def alive(self) -> tuple[str, ...]:
        return tuple(p for p in self.players if self.lives[p] > 0)

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.GAME_OVER

    def missing_rows(self) -> tuple[int, ...]:
        return tuple(k for k, cards in zip(ROW_SIZES, self.rows, strict=True) if cards is None)

    def row(self, k: int) -> Cards | None:
        return self.rows[k - 1]

    def waiting_to_declare(self) -> tuple[str, ...]:
        return tuple(p for p in self.alive if p not in self.declared)

    def next_alive_after(self, player: str) -> str:
        """The next living player clockwise after ``player`` (who may be out)."""
        i = self.players.index(player)
        n = len(self.players)
        for step in range(1, n + 1):
            candidate = self.players[(i + step) % n]
            if self.lives[candidate] > 0:
                return candidate
        raise AssertionError("no living player")  # unreachable: a game over has no next round

    # ----------------------------------------------------------------- what is legal now
    # The one judge of legality: the announcements, the table, the voice grammar's weights and
    # the simulated table ask these instead of restating the rules.
    def expected(self) -> Expected:
        """What the game waits for now (see ``Expected``)."""
        match self.phase:
            case Phase.ROWS:
                return Expected((SetRow,), rows=self.missing_rows())
            case Phase.TURNS | Phase.FINAL_TURNS if self.starter is None:
                return Expected((SetStarter,), players=self.alive)
            case Phase.TURNS | Phase.FINAL_TURNS:
                return Expected(self._turn_actions(), players=(self.turn or "",))
            case Phase.REVEAL:
                return Expected((DeclareHand,), players=self.waiting_to_declare())
            case Phase.GAME_OVER:
                return Expected((NewGame,))
            case _:
                assert_never(self.phase)

    def may_knock(self, player: str) -> bool:
        """Whether ``apply(Knock(player))`` would be accepted now: it is ``player``'s turn and,
        under the house rule ``knock_requires_swap``, they have swapped this round. After a knock
        the turn player may knock again: it counts as a pass."""
        if self.phase not in (Phase.TURNS, Phase.FINAL_TURNS) or self.starter is None:
            return False
        name = self._player_named(player)
        if name is None or self.lives[name] == 0 or name != self.turn:
            return False
        return self.phase is Phase.FINAL_TURNS or self._knock_earned(name)

    def check_hand(self, player: str, hand: Cards) -> HandCheck:
        """What is wrong with ``hand`` as ``player``'s declared hand, against what is known now:
        the rows, the cards known to be in ``player``'s hand, and the other living players' hands
        (declared, or else the cards known to be in them). In the reveal, ``apply`` refuses a
        ``DeclareHand`` of a living player exactly when this is not ``ok``. Raises
        ``UnknownPlayer`` for a name that is no player's."""
        player = self._player_named(player) or self._living(player)
        hands = {p: self.declared.get(p, self.known[p]) for p in self.alive}
        hands[player] = hand
        return HandCheck(len(hand), hand.missing_from(self.known[player]),
                         self.overflowing(hands.values()))

    def overflowing(
        self, hands: Iterable[Cards], rows: Sequence[Cards | None] | None = None
    ) -> dict[Animal, int]:
        """The animals that ``rows`` (by default the face-up rows) and ``hands`` together hold more
        often than the deck does, with how many they hold, in deck order."""
        return deck_overflow((*(self.rows if rows is None else rows), *hands))

    def _knock_earned(self, player: str) -> bool:
        """The knock rule, written once: a player may end the round by knocking only after their
        first swap of the round (house rule ``knock_requires_swap``; off: at any turn)."""
        return player in self.swapped or not self.rules.knock_requires_swap

    def _turn_actions(self) -> tuple[type[Action], ...]:
        """What the turn player may do: swap or knock, swap or pass after a knock."""
        if self.phase is Phase.FINAL_TURNS:
            return (Swap, Pass)
        return (Swap, Knock) if self._knock_earned(self.turn or "") else (Swap,)

    # ----------------------------------------------------------------- applying actions
    def apply(self, action: Action) -> list[Event]:
        """Validate ``action`` and, only if it is allowed, apply it; returns what happened."""
        if isinstance(action, NewGame):
            raise WrongPhase(N_("A game is already under way."))
        if self.phase is Phase.GAME_OVER:
            if len(self.winners) == 1:
                raise WrongPhase(N_("The game is over: {winner} won. Say 'new game' and the names "
                                    "to play again."), winner=Player(self.winners[0]))
            raise WrongPhase(N_("The game is over: {winners} won. Say 'new game' and the names to "
                                "play again."), winners=Players(self.winners, "and"))
        match action:
            case SetStarter():
                return self._set_starter(action)
            case SetRow():
                return self._set_row(action)
            case Swap():
                return self._swap(action)
            case Knock():
                return self._knock(action)
            case Pass():
                return self._pass(action)
            case DeclareHand():
                return self._declare_hand(action)
            case SuddenDeath():
                return self._sudden_death(action)
            case _:
                assert_never(action)

    def check(self, action: Action) -> None:
        """Raise the ``RuleError`` that ``apply`` would raise, without changing anything.

        ``apply`` refuses before it changes anything, but an action it accepts changes the game
        (and may end the round), so the action is tried on a ``copy``, which is cheap."""
        self.copy().apply(action)

    def copy(self) -> Game:
        """An independent game in the same state: each container of the state is a new one;
        what they hold (names, ``Cards``, events, the house rules) is immutable and shared.
        Written out field by field, which is fastest (``check`` copies once per try);
        tests/engine/test_game_copy.py fails if a new container field is left out here."""
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other.lives = dict(self.lives)
        other.rows = list(self.rows)
        other.known = dict(self.known)
        other.swapped = set(self.swapped)
        other.final_turns_left = list(self.final_turns_left)
        other.declared = dict(self.declared)
        other.out_order = list(self.out_order)
        other.rounds = list(self.rounds)
        other.lives_lost_last_round = dict(self.lives_lost_last_round)
        return other

    # -- start player
    def _set_starter(self, action: SetStarter) -> list[Event]:
        player = self._living(action.player)
        if self.phase not in (Phase.ROWS, Phase.TURNS) or self.turns_played:
            raise WrongPhase(
                N_("The start player can only change before the first turn; {player} started "
                   "this round."), player=Player(self.starter or player))
        self.starter = player
        events: list[Event] = [StarterSet(player, action.by_lot)]
        if self.phase is Phase.TURNS:
            self.turn = player
            events.append(TurnsBegin(player))
        return events

    # -- rows
    def _set_row(self, action: SetRow) -> list[Event]:
        k = action.row
        if k not in ROW_SIZES:
            raise BadRow(N_("There is no row {k}: the rows are 1, 2, 3 and 4."), k=k)
        if self.phase is Phase.REVEAL:
            # Not "changes only by a swap": the swaps are over too. Say what is wanted now.
            waiting = self.waiting_to_declare()
            raise WrongPhase(
                N_("The rows are set at a round's start, and this round's turns are over: reveal "
                   "the hands now, e.g. '{example} has 3 giraffe 2 bear 5 dog'. Waiting for "
                   "{waiting}."), example=waiting[0], waiting=Players(waiting))
        if self.phase not in (Phase.ROWS, Phase.TURNS) or self.turns_played:
            raise WrongPhase(
                N_("The rows are set once a round starts; row {k} changes only by a swap."), k=k)
        if len(action.cards) != k:
            raise BadRow(N_("Row {k} holds exactly {k} cards, you named {n}.") if k > 1 else
                         N_("Row {k} holds exactly {k} card, you named {n}."), k=k, n=len(action.cards))
        rows = list(self.rows)
        rows[k - 1] = action.cards
        self._check_deck_limits(rows, self.known, what=Phrase(N_("the rows")))
        self.rows = rows
        missing = self.missing_rows()
        events: list[Event] = [RowSet(k, action.cards, missing)]
        if not missing and self.phase is Phase.ROWS:
            self.phase = Phase.TURNS
            self.turn = self.starter
            events.append(TurnsBegin(self.starter))
        return events

    # -- turns
    def _check_turn(self, player: str) -> str:
        if self.phase is Phase.ROWS:
            missing = self.missing_rows()
            raise WrongPhase(N_("Enter the rows first: {rows} is missing.") if len(missing) == 1 else
                             N_("Enter the rows first: {rows} are missing."), rows=RowList(missing))
        if self.phase is Phase.REVEAL:
            raise WrongPhase(
                N_("The turns are over: reveal the hands now, e.g. 'alice has 3 giraffe 2 bear 5 dog'. "
                   "Waiting for {waiting}."), waiting=Players(self.waiting_to_declare()))
        player = self._living(player)
        if self.starter is None:
            raise WrongPhase(N_("Nobody has been named to start this round: say who starts, e.g. "
                                "'{example} starts'."), example=self.alive[0])
        if self.turn != player:
            if self.phase is Phase.FINAL_TURNS and player == self.knocker:
                raise NotYourTurn(
                    N_("{player} knocked and does not play again this round; it's {turn}'s turn: "
                       "expected {commands}."),
                    player=Player(player), turn=Player(self.turn or ""), commands=self._turn_commands())
            raise NotYourTurn(N_("It's {turn}'s turn, not {player}'s: expected {commands}."),
                              turn=Player(self.turn or ""), player=Player(player), commands=self._turn_commands())
        return player

    def _turn_commands(self) -> Commands:
        """The commands the turn player may give now, named so that a table hears at once which
        command went missing (``'bob swaps' or 'bob knocks'``)."""
        turn = self.turn or ""
        return Commands(tuple(f"{turn} {_VERBS[kind]}" for kind in self._turn_actions()))

    def _swap(self, action: Swap) -> list[Event]:
        player = self._check_turn(action.player)
        k = action.row
        if k not in ROW_SIZES:
            raise BadRow(N_("There is no row {k}: the rows are 1, 2, 3 and 4."), k=k)
        taken = self.rows[k - 1]
        assert taken is not None  # all rows are set outside the ROWS phase
        put_down = action.cards
        if len(put_down) != k:
            raise BadCards(
                N_("Row {k} holds {k} cards, you put down {n}: a swap puts down as many cards as it "
                   "takes, {k} for row {k}.") if k > 1 else
                N_("Row {k} holds {k} card, you put down {n}: a swap puts down as many cards as it "
                   "takes, {k} for row {k}."), k=k, n=len(put_down))
        if put_down == taken:
            raise BadCards(
                N_("Row {k} already holds {cards}: putting down the same animals is not a swap. "
                   "Put down at least one different card."), k=k, cards=taken)
        known = self.known[player]
        # Rules' order: the cards put down come from the hand as it was; house rule take_first:
        # from the hand with the row already in it, so a card just taken may go straight back.
        before = known + taken if self.rules.take_first else known
        from_unknown = put_down - before
        room = HAND_SIZE - len(known)
        if len(from_unknown) > room:
            raise BadCards(
                N_("{player} cannot put down {cards}: {n} of {player}'s 10 cards are known "
                   "({known}), so at most {room} other card can come from the hand.") if room == 1 else
                N_("{player} cannot put down {cards}: {n} of {player}'s 10 cards are known "
                   "({known}), so at most {room} other cards can come from the hand."),
                player=Player(player), cards=put_down, n=len(known), known=known, room=room)
        rows = list(self.rows)
        rows[k - 1] = put_down
        hands = dict(self.known)
        hands[player] = known_after_swap(known, taken, put_down, self.rules.take_first)
        self._check_deck_limits(rows, hands, what=Phrase(N_("the rows and the known hands")))
        self.rows = rows
        self.known = hands
        self.swapped.add(player)
        self.turns_played += 1
        next_player = self._advance()
        return [Swapped(player, k, taken, put_down, next_player, self.rules.take_first),
                *self._maybe_reveal()]

    def _knock(self, action: Knock) -> list[Event]:
        player = self._check_turn(action.player)
        if self.phase is Phase.FINAL_TURNS:
            # Knocking again after a knock counts as a pass.
            return self._pass(Pass(player))
        if not self._knock_earned(player):
            raise BadCards(
                N_("{player} cannot knock yet: a player may knock only after their first swap "
                   "this round. Swap a row instead."), player=Player(player))
        self.knocker = player
        self.turns_played += 1
        self.phase = Phase.FINAL_TURNS
        order: list[str] = []
        nxt = self.next_alive_after(player)
        while nxt != player:
            order.append(nxt)
            nxt = self.next_alive_after(nxt)
        self.final_turns_left = order
        self.turn = order[0]
        return [Knocked(player, self.turn, tuple(order))]

    def _pass(self, action: Pass) -> list[Event]:
        player = self._check_turn(action.player)
        if self.phase is not Phase.FINAL_TURNS:
            raise WrongPhase(
                N_("Passing is allowed only after a knock: {player}, swap a row or knock."),
                player=Player(player))
        self.turns_played += 1
        next_player = self._advance()
        return [Passed(player, next_player), *self._maybe_reveal()]

    def _advance(self) -> str | None:
        assert self.turn is not None
        if self.phase is Phase.TURNS:
            self.turn = self.next_alive_after(self.turn)
        else:
            self.final_turns_left.pop(0)
            self.turn = self.final_turns_left[0] if self.final_turns_left else None
        return self.turn

    def _maybe_reveal(self) -> list[Event]:
        if self.phase is Phase.FINAL_TURNS and not self.final_turns_left:
            self.phase = Phase.REVEAL
            self.turn = None
            return [RevealBegins(self.alive)]
        return []

    # -- end of round
    def _declare_hand(self, action: DeclareHand) -> list[Event]:
        if self.phase is not Phase.REVEAL:
            if self.phase is Phase.ROWS:
                raise WrongPhase(N_("Hands are revealed at the end of the round; enter the rows first."))
            raise WrongPhase(
                N_("Hands are revealed after a knock and the final turns: it's {turn}'s turn: "
                   "expected {commands}."), turn=Player(self.turn or ""), commands=self._turn_commands())
        player = self._living(action.player)
        hand = action.cards
        check = self.check_hand(player, hand)
        if check.size != HAND_SIZE:
            raise BadHand(self._short_hand(player, check))
        if check.missing:
            raise BadHand(self._missing_from_hand(player, check))
        refuse_overflow(check.overflow, what=self._counted_for_hand(player, check.overflow))
        self.declared[player] = hand
        events: list[Event] = [HandDeclared(player, hand, self.waiting_to_declare())]
        if not self.waiting_to_declare():
            events.extend(self._score_round())
        return events

    @staticmethod
    def _short_hand(player: str, check: HandCheck) -> Phrase:
        """A hand of the wrong size; one typed without the cards taken from the rows is short by
        just those, and the refusal says so."""
        size = Phrase(N_("A hand holds exactly 10 cards; {player}'s has {size}."),
                      player=Player(player), size=check.size)
        if not check.missing:
            return size
        also = Phrase(N_("{player} took {cards} from the rows: count them in.") if len(check.missing) > 1
                      else N_("{player} took {cards} from the rows: count it in."),
                      player=Player(player), cards=check.missing)
        return Phrase(N_("{refusal} {reason}"), refusal=size, reason=also)

    def _missing_from_hand(self, player: str, check: HandCheck) -> Phrase:
        """A hand without the cards known to be in it (and, in the rules' order, why)."""
        must = Phrase(N_("{player} took {cards} from the rows, so {player}'s hand must hold them.")
                      if len(check.missing) > 1 else
                      N_("{player} took {cards} from the rows, so {player}'s hand must hold one."),
                      player=Player(player), cards=check.missing)
        if self.rules.take_first:
            return must
        why = Phrase(N_("A swap puts down first, then takes the row, so a card taken stays in hand "
                        "until a later swap puts it down (house rule take_first allows the other order)."))
        return Phrase(N_("{refusal} {reason}"), refusal=must, reason=why)

    def _counted_for_hand(self, player: str, overflow: Mapping[Animal, int]) -> Phrase:
        """What ``check_hand`` counted for the first animal of ``overflow``, in words: the rows,
        the declared hands and, when they hold some of it, the cards known to be in the hands
        still to be declared (named, so that the count in the refusal adds up)."""
        counted = Phrase(N_("the rows and the declared hands"))
        animal = next(iter(overflow), None)
        if animal is None:
            return counted
        holders = {p: self.known[p].count(animal) for p in self.waiting_to_declare()
                   if p != player and self.known[p].count(animal)}
        if not holders:
            return counted
        n = sum(holders.values())
        whose = Players(tuple(holders), "possessive")
        if n == 1:
            return Phrase(N_("the rows, the declared hands and the {animal} known to be in {whose} hand"),
                          animal=AnimalWord(animal), whose=whose)
        if len(holders) == 1:
            return Phrase(N_("the rows, the declared hands and the {cards} known to be in {whose} hand"),
                          cards=Counted(animal, n), whose=whose)
        return Phrase(N_("the rows, the declared hands and the {cards} known to be in {whose} hands"),
                      cards=Counted(animal, n), whose=whose)

    def _sudden_death(self, action: SuddenDeath) -> list[Event]:
        animal = action.animal
        if animal not in SUDDEN_DEATH_ANIMALS:
            raise BadClaim(N_("Sudden death needs all cats, all rabbits or all pigs, not {animals}."),
                           animals=AnimalWord(animal, 2))
        player = self._living(action.player)
        self._check_claim_against_table(player, animal)
        self._check_claim_against_own_hand(player, animal)
        losses = {p: (1 if p != player else 0) for p in self.alive}
        return self._end_round(losses, points={}, majorities=(), sudden_death=(player, animal))

    def _check_claim_against_table(self, player: str, animal: Animal) -> None:
        """A claim is impossible while a card of ``animal`` lies face up or another player is
        known to hold one."""
        copies = COPIES[animal]
        for k, cards in zip(ROW_SIZES, self.rows, strict=True):
            if cards is not None and cards.count(animal):
                raise BadClaim(
                    N_("{card} lies face up in row {k}, so nobody can hold all {copies} {animals}."),
                    card=Counted(animal, 1, capital=True), k=k, copies=copies, animals=AnimalWord(animal, 2))
        for other in self.alive:
            held = self.declared.get(other, self.known[other]).count(animal)
            if other != player and held:
                raise BadClaim(
                    N_("{other} is known to hold {cards}, so {player} cannot hold all {copies}."),
                    other=Player(other), cards=Counted(animal, held), player=Player(player), copies=copies)

    def _check_claim_against_own_hand(self, player: str, animal: Animal) -> None:
        """A claim must fit the claimant's own revealed hand and known cards."""
        copies = COPIES[animal]
        revealed = self.declared.get(player)
        if revealed is not None and revealed.count(animal) != copies:
            # A claim contradicting the claimant's own revealed hand: the hand comes back first.
            held = revealed.count(animal)
            if not held:
                raise BadClaim(N_("{player}'s revealed hand holds no {animals}, not all {copies}: say "
                                  "'undo' first if that hand was wrong."),
                               player=Player(player), animals=AnimalWord(animal, 2), copies=copies)
            raise BadClaim(N_("{player}'s revealed hand holds {cards}, not all {copies}: say 'undo' "
                              "first if that hand was wrong."),
                           player=Player(player), cards=Counted(animal, held), copies=copies)
        others = Cards({a: n for a, n in self.known[player].counts().items() if a is not animal})
        if len(others) + copies > HAND_SIZE:
            raise BadClaim(
                N_("{player} is known to hold {cards}; with all {copies} {animals} that is more than "
                   "10 cards."), player=Player(player), cards=others, copies=copies, animals=AnimalWord(animal, 2))

    def _score_round(self) -> list[Event]:
        points, majorities = score_hands(self.declared, self.alive, self.rules)
        return self._end_round(life_losses(points, self.rules), points, majorities, None)

    def _end_round(
        self,
        losses: dict[str, int],
        points: dict[str, int],
        majorities: tuple[Majority, ...],
        sudden_death: tuple[str, Animal] | None,
    ) -> list[Event]:
        lives_before = dict(self.lives)
        alive_before = self.alive
        for p, n in losses.items():
            self.lives[p] = max(0, self.lives[p] - n)
        out = tuple(p for p in alive_before if self.lives[p] == 0)
        self.out_order.extend(out)
        self.lives_lost_last_round = {p: lives_before[p] - self.lives[p] for p in alive_before}
        ended = RoundEnded(
            self.round, sudden_death, majorities, points, dict(losses), dict(self.lives), out
        )
        self.rounds.append(ended)
        events: list[Event] = [ended]
        alive = self.alive
        if len(alive) <= 1:
            if alive:
                winners, how = alive, "last_alive"
            else:
                winners, how = self._all_out_winners(alive_before, points, lives_before), self.rules.all_out
            self.winners = tuple(winners)
            self.phase = Phase.GAME_OVER
            self.turn = None
            events.append(GameWon(self.winners, how, tuple(self.out_order)))
            return events
        previous_starter = self.starter or alive[0]
        self._start_round(self._next_starter(previous_starter))
        events.append(RoundStarted(self.round, self.starter))
        return events

    def _all_out_winners(
        self, players: tuple[str, ...], points: dict[str, int], lives_before: dict[str, int]
    ) -> tuple[str, ...]:
        return all_out_winners(players, points, lives_before, self.rules)

    def _next_starter(self, previous: str) -> str:
        clockwise = self.next_alive_after(previous)
        if self.rules.next_start == "clockwise":
            return clockwise
        lost = self.lives_lost_last_round
        most = max(lost.get(p, 0) for p in self.alive)
        candidate = clockwise
        for _ in self.players:
            if lost.get(candidate, 0) == most:
                return candidate
            candidate = self.next_alive_after(candidate)
        return clockwise

    def _start_round(self, starter: str) -> None:
        self.round += 1
        self.phase = Phase.ROWS
        self.starter = starter
        self.rows = [None] * len(ROW_SIZES)
        self.known = {p: Cards() for p in self.players}
        self.swapped = set()
        self.turn = None
        self.turns_played = 0
        self.knocker = None
        self.final_turns_left = []
        self.declared = {}

    # ----------------------------------------------------------------- checks
    def _living(self, player: str) -> str:
        player = self._player_named(player) or player
        if player not in self.lives:
            raise UnknownPlayer(N_("There is no player called {player}: the players are {players}."),
                                player=Player(player), players=Players(self.players))
        if self.lives[player] == 0:
            raise UnknownPlayer(N_("{player} is out of the game."), player=Player(player))
        return player

    def _player_named(self, name: str) -> str | None:
        """The player ``name`` means, in any case or form (``name_key``), or None."""
        if name in self.lives:
            return name
        keys = {name_key(p): p for p in self.players}
        return keys.get(name_key(name))

    def _check_deck_limits(
        self, rows: Sequence[Cards | None], hands: dict[str, Cards], what: Phrase
    ) -> None:
        refuse_overflow(self.overflowing(hands.values(), rows), what)


#: How the refusals name the turn commands (``'bob swaps' or 'bob knocks'``).
_VERBS: dict[type[Action], str] = {Swap: "swaps", Knock: "knocks", Pass: "passes"}


__all__ = ["MAX_NAME", "MAX_PLAYERS", "MIN_PLAYERS", "START_LIVES", "Expected", "Game",
           "HandCheck", "Phase", "RuleError", "check_players", "draw_start_player",
           "known_after_swap", "life_losses", "name_key", "places", "valid_name"]
