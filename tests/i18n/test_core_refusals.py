"""The engine's refusals in the table's language: a German and a Korean table refusing an
out-of-turn move, a wrong hand size and an unknown player, through the real referee and the real
engine; ``str(error)`` stays the engine's English sentence, and the English table is unchanged."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from assistant import i18n
from assistant.i18n.refusals import refusal
from assistant.referee import Referee
from engine.actions import NewGame, SetRow, SetStarter, Swap
from engine.deck import Animal, Cards
from engine.errors import Counted, Phrase, Player, Players, RuleError, UnknownPlayer
from engine.game import Game
from engine.rules import HouseRules

SETUP = ["new game alice bob carol", "alice starts", "row 1 giraffe", "row 2 bear bear",
         "row 3 mole mole mole", "row 4 goat goat goat goat"]


@pytest.fixture
def table() -> Iterator[Referee]:
    """A game of Alice, Bob and Carol, rows set, Alice's turn (the referee in English)."""
    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    for line in SETUP:
        assert referee.handle(line).ok, line
    yield referee
    i18n.set_language("en")


def _refused(referee: Referee, line: str, language: str) -> str:
    i18n.set_language(language)
    try:
        reply = referee.handle(line)
    finally:
        i18n.set_language("en")
    assert not reply.ok and reply.error, reply
    return reply.error


def _reveal(referee: Referee) -> None:
    for line in ["alice swaps 1 dog", "bob swaps 1 cat", "carol swaps 1 pig", "alice knocks",
                 "bob passes", "carol passes"]:
        assert referee.handle(line).ok, line


@pytest.mark.parametrize(("language", "said"), [
    ("en", "It's Alice's turn, not Bob's: expected 'alice swaps'."),
    ("de", "Alice ist dran, nicht Bob: erwartet wird 'alice tauscht'."),
    ("ko", "Bob의 차례가 아니라 Alice의 차례입니다. 가능한 명령: 'alice가 … 교환해요'."),
])
def test_an_out_of_turn_move_is_refused_in_the_table_language(table: Referee, language: str, said: str) -> None:
    before = table.history()
    assert _refused(table, "bob swaps 2 dog dog", language) == said
    assert table.history() == before  # a refusal changes nothing, in any language


@pytest.mark.parametrize(("language", "said"), [
    ("en", "A hand holds exactly 10 cards; Alice's has 3. Alice took a giraffe from the rows: count it in."),
    ("de", "Eine Hand hat genau 10 Karten; die von Alice hat 3. Alice hat aus den Reihen genommen: "
           "eine Giraffe. Zählt diese Karte mit."),
    ("ko", "손패는 정확히 10장입니다. Alice의 손패는 3장입니다. Alice는 줄에서 기린 1장을 가져갔습니다. "
           "그것도 세어 넣으세요."),
])
def test_a_wrong_hand_size_is_refused_in_the_table_language(table: Referee, language: str, said: str) -> None:
    _reveal(table)
    assert _refused(table, "alice has 3 dog", language) == said


@pytest.mark.parametrize(("language", "said"), [
    ("en", "There is no player called Zed: the players are Alice, Bob, Carol."),
    ("de", "Es gibt keinen Spieler namens Zed: Es spielen Alice, Bob und Carol."),
    ("ko", "이름이 Zed인 플레이어는 없습니다. 플레이어는 Alice, Bob, Carol입니다."),
])
def test_an_unknown_player_is_refused_in_the_table_language(language: str, said: str) -> None:
    game, _ = Game.new(NewGame(("alice", "bob", "carol")), HouseRules())
    with pytest.raises(UnknownPlayer) as caught:
        game.apply(SetStarter("zed"))
    i18n.set_language(language)
    try:
        assert refusal(caught.value) == said
    finally:
        i18n.set_language("en")
    assert str(caught.value) == "There is no player called Zed: the players are Alice, Bob, Carol."


def test_a_refusal_carries_its_template_and_typed_fields() -> None:
    game, _ = Game.new(NewGame(("alice", "bob", "carol")), HouseRules())
    with pytest.raises(UnknownPlayer) as caught:
        game.apply(SetStarter("zed"))
    phrase = caught.value.phrase
    assert phrase.template == "There is no player called {player}: the players are {players}."
    assert phrase.fields == {"player": Player("zed"), "players": Players(("alice", "bob", "carol"))}


def _rows_missing(rows: int) -> RuleError:
    """The refusal of a swap with only the first ``rows`` rows set."""
    game, _ = Game.new(NewGame(("alice", "bob", "carol")), HouseRules())
    game.apply(SetStarter("alice"))
    for k in range(1, rows + 1):
        game.apply(SetRow(k, Cards.of(*[Animal.BEAR] * k)))
    with pytest.raises(RuleError) as caught:
        game.apply(Swap("alice", 1, Cards.of(Animal.DOG)))
    return caught.value


@pytest.mark.parametrize(("rows", "language", "said"), [
    (3, "en", "Enter the rows first: row 4 is missing."),
    (0, "en", "Enter the rows first: row 1 and row 2 and row 3 and row 4 are missing."),
    (3, "de", "Zuerst die Reihen eingeben: Reihe 4 fehlt."),
    (0, "de", "Zuerst die Reihen eingeben: Reihe 1, Reihe 2, Reihe 3 und Reihe 4 fehlen."),
    (2, "ko", "먼저 줄을 입력하세요. 3번 줄, 4번 줄이 없습니다."),
])
def test_english_grammar_is_a_message_of_its_own_not_computed_inside_the_sentence(
        rows: int, language: str, said: str) -> None:
    # "is"/"are" were chosen inside an f-string; now each is a whole message to translate.
    error = _rows_missing(rows)
    i18n.set_language(language)
    try:
        assert refusal(error) == said
    finally:
        i18n.set_language("en")


@pytest.mark.parametrize(("language", "said"), [
    ("en", "A bear"), ("de", "Ein Bär"), ("ko", "곰 1장"),
])
def test_counted_cards_follow_the_table_language(language: str, said: str) -> None:
    error = RuleError(Phrase("{card}", card=Counted(Animal.BEAR, 1, capital=True)))
    i18n.set_language(language)
    try:
        assert refusal(error) == said
    finally:
        i18n.set_language("en")
