"""Commands typed in German and Korean (issue 39 item 3): sentence -> intent and exact slots,
one table a language, every intent; what is refused is refused in the table's language; the
language records read from their data files."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from assistant import i18n
from assistant.commands import Command, ParseError, parse
from assistant.commands.intents import IntentName
from assistant.commands.language import CODES, ENGLISH_LANGUAGE, LANGUAGE_BY_CODE, languages
from assistant.commands.parser import name_problem
from assistant.commands.templates import Slot, Word
from engine.deck import Animal, Cards

N = IntentName
A = Animal
PLAYERS = ("alice", "bob", "carol")
KO_PLAYERS = ("앨리스", "밥", "캐럴", "보가")


def hand(**counts: int) -> Cards:
    return Cards({Animal(name): n for name, n in counts.items()})


GERMAN: list[tuple[str, Command]] = [
    ("neues Spiel mit Anna Ben Cem", Command(N.NEW_GAME, names=("Anna", "Ben", "Cem"))),
    ("Neues Spiel mit Anna, Ben und Cem", Command(N.NEW_GAME, names=("Anna", "Ben", "Cem"))),
    ("eine neue Partie für Jörg Zoë Ute Max", Command(N.NEW_GAME, names=("Jörg", "Zoë", "Ute", "Max"))),
    ("Alice hat alle Katzen", Command(N.SUDDEN_DEATH, player="alice", animal=A.CAT)),
    ("Bob zeigt alle fünf Hasen", Command(N.SUDDEN_DEATH, player="bob", animal=A.RABBIT)),
    ("bob hat alle fuenf Schweine", Command(N.SUDDEN_DEATH, player="bob", animal=A.PIG)),
    ("Bob fängt an", Command(N.STARTS, player="bob")),
    ("Bob beginnt", Command(N.STARTS, player="bob")),
    ("Carol faengt an", Command(N.STARTS, player="carol")),
    ("Reihe 2 Bär Hund Katze Maus", Command(N.ROW, row=2, cards=hand(bear=1, dog=1, cat=1, mouse=1))),
    ("Reihe drei zwei Bären und eine Maus", Command(N.ROW, row=3, cards=hand(bear=2, mouse=1))),
    ("die dritte Reihe ist Schaf, Schaf, Hund", Command(N.ROW, row=3, cards=hand(sheep=2, dog=1))),
    ("Reihe 1: Giraffe", Command(N.ROW, row=1, cards=hand(giraffe=1))),
    ("Reihe vier Baer Maeuse Maulwurf", Command(N.ROW, row=4, cards=hand(bear=1, mouse=1, mole=1))),
    ("Alice tauscht Reihe 3 gegen Maus, Hase und Hund",
     Command(N.SWAP, player="alice", row=3, cards=hand(mouse=1, rabbit=1, dog=1))),
    ("Bob tauscht die zweite Reihe gegen Ziege und Schwein",
     Command(N.SWAP, player="bob", row=2, cards=hand(goat=1, pig=1))),
    ("carol nimmt 1 und legt einen Bären", Command(N.SWAP, player="carol", row=1, cards=hand(bear=1))),
    ("Alice klopft", Command(N.KNOCK, player="alice")),
    ("Alice passt", Command(N.PASS, player="alice")),
    ("Alice hat drei Schafe, zwei Bären, einen Hund und vier Mäuse",
     Command(N.HAND, player="alice", cards=hand(sheep=3, bear=2, dog=1, mouse=4))),
    ("bob hat 3 Giraffen 2 Baeren 5 Hunde", Command(N.HAND, player="bob", cards=hand(giraffe=3, bear=2, dog=5))),
    ("rückgängig", Command(N.UNDO)),
    ("Rueckgaengig machen", Command(N.UNDO)),
    ("wiederherstellen", Command(N.REDO)),
    ("wiederholen", Command(N.REPEAT)),
    ("nein", Command(N.NO)),
    ("ja", Command(N.YES)),
    ("Stand", Command(N.STATUS)),
    ("Wer ist dran?", Command(N.STATUS)),
    ("Wie steht's?", Command(N.STATUS)),
    ("noch mal", Command(N.REPEAT)),
    ("zurücknehmen", Command(N.UNDO)),
    ("nochmal", Command(N.REPEAT)),
    ("Hilfe", Command(N.HELP)),
    # Canonical English always works at a German table.
    ("alice swaps 2 bear dog", Command(N.SWAP, player="alice", row=2, cards=hand(bear=1, dog=1))),
    ("new game anna ben cem", Command(N.NEW_GAME, names=("anna", "ben", "cem"))),
]

KOREAN: list[tuple[str, Command]] = [
    ("새 게임 앨리스 밥 캐럴", Command(N.NEW_GAME, names=("앨리스", "밥", "캐럴"))),
    ("새 게임 앨리스와 밥과 캐럴", Command(N.NEW_GAME, names=("앨리스", "밥", "캐럴"))),
    ("앨리스, 밥, 캐럴로 새 게임 시작", Command(N.NEW_GAME, names=("앨리스", "밥", "캐럴"))),
    ("새 판 Alice Bob Carol", Command(N.NEW_GAME, names=("Alice", "Bob", "Carol"))),
    ("앨리스는 고양이를 전부 가졌어요", Command(N.SUDDEN_DEATH, player="앨리스", animal=A.CAT)),
    ("밥이 모든 돼지 가졌어요", Command(N.SUDDEN_DEATH, player="밥", animal=A.PIG)),
    ("캐럴 토끼 다섯 장 전부", Command(N.SUDDEN_DEATH, player="캐럴", animal=A.RABBIT)),
    ("밥이 먼저 시작해요", Command(N.STARTS, player="밥")),
    ("밥부터 시작", Command(N.STARTS, player="밥")),
    ("앨리스가 시작합니다", Command(N.STARTS, player="앨리스")),
    ("2번 줄 곰 개", Command(N.ROW, row=2, cards=hand(bear=1, dog=1))),
    ("2번 줄은 곰, 개예요", Command(N.ROW, row=2, cards=hand(bear=1, dog=1))),
    ("3번째 줄 쥐 두 장 고양이", Command(N.ROW, row=3, cards=hand(mouse=2, cat=1))),
    ("줄 3 쥐 2장 고양이", Command(N.ROW, row=3, cards=hand(mouse=2, cat=1))),
    ("세번째 줄 돼지 돼지 고양이", Command(N.ROW, row=3, cards=hand(pig=2, cat=1))),
    ("4번 줄: 기린과 염소와 양과 두더지", Command(N.ROW, row=4, cards=hand(giraffe=1, goat=1, sheep=1, mole=1))),
    ("앨리스가 3번 줄을 쥐, 토끼, 개와 교환", Command(N.SWAP, player="앨리스", row=3,
                                            cards=hand(mouse=1, rabbit=1, dog=1))),
    ("앨리스가 3번 줄을 쥐 토끼 개로 바꿔요", Command(N.SWAP, player="앨리스", row=3,
                                             cards=hand(mouse=1, rabbit=1, dog=1))),
    ("앨리스는 쥐, 토끼, 개를 3번 줄과 교환했어요", Command(N.SWAP, player="앨리스", row=3,
                                                 cards=hand(mouse=1, rabbit=1, dog=1))),
    ("밥이 1번 줄을 곰 한 장과 교환합니다", Command(N.SWAP, player="밥", row=1, cards=hand(bear=1))),
    ("앨리스가 노크했어요", Command(N.KNOCK, player="앨리스")),
    ("앨리스 노크 합니다", Command(N.KNOCK, player="앨리스")),
    ("Alice가 노크", Command(N.KNOCK, player="alice")),
    ("보가 노크", Command(N.KNOCK, player="보가")),
    ("보가가 패스", Command(N.PASS, player="보가")),
    ("밥이 패스할게요", Command(N.PASS, player="밥")),
    ("캐럴은 기린 세 장, 곰 두 장, 개 다섯 장이 있어요",
     Command(N.HAND, player="캐럴", cards=hand(giraffe=3, bear=2, dog=5))),
    ("캐럴 기린 3장 곰 2장 개 5장", Command(N.HAND, player="캐럴", cards=hand(giraffe=3, bear=2, dog=5))),
    ("취소", Command(N.UNDO)),
    ("되돌리기", Command(N.UNDO)),
    ("다시 실행", Command(N.REDO)),
    ("아니요", Command(N.NO)),
    ("네", Command(N.YES)),
    ("응", Command(N.YES)),
    ("현황", Command(N.STATUS)),
    ("누구 차례예요?", Command(N.STATUS)),
    ("점수 알려줘", Command(N.STATUS)),
    ("취소해 주세요", Command(N.UNDO)),
    ("밥이 선이에요", Command(N.STARTS, player="밥")),
    ("앨리스가 곰이랑 개를 2번 줄과 바꿨어요", Command(N.SWAP, player="앨리스", row=2, cards=hand(bear=1, dog=1))),
    ("앨리스는 기린 3장 곰 2장 개 5장이에요", Command(N.HAND, player="앨리스", cards=hand(giraffe=3, bear=2, dog=5))),
    ("다시 말해 주세요", Command(N.REPEAT)),
    ("도움말", Command(N.HELP)),
    ("bob knocks", Command(N.KNOCK, player="bob")),
]
KO_LATIN = ("alice", "bob", "carol")


@pytest.mark.parametrize(("sentence", "expected"), GERMAN, ids=[s for s, _ in GERMAN])
def test_german_sentence(sentence: str, expected: Command) -> None:
    players = None if expected.intent is N.NEW_GAME else PLAYERS
    assert parse(sentence, players, language="de") == expected


@pytest.mark.parametrize(("sentence", "expected"), KOREAN, ids=[s for s, _ in KOREAN])
def test_korean_sentence(sentence: str, expected: Command) -> None:
    players = None if expected.intent is N.NEW_GAME else KO_PLAYERS + KO_LATIN
    assert parse(sentence, players, language="ko") == expected


def test_every_intent_has_german_and_korean_sentences_in_the_tables() -> None:
    assert {c.intent for _, c in GERMAN} == set(IntentName)
    assert {c.intent for _, c in KOREAN} == set(IntentName)


def test_a_korean_name_before_any_game_keeps_its_particle_off() -> None:
    assert parse("앨리스가 노크", None, language="ko") == Command(N.KNOCK, player="앨리스")
    assert parse("밥이 패스", None, language="ko") == Command(N.PASS, player="밥")


def test_english_stays_english_and_german_words_are_not_english() -> None:
    with pytest.raises(ParseError):
        parse("Alice klopft", PLAYERS)
    assert parse("alice knocks", PLAYERS, language="de") == Command(N.KNOCK, player="alice")


@pytest.fixture
def german() -> Iterator[None]:
    i18n.set_language("de")
    try:
        yield
    finally:
        i18n.set_language("en")


@pytest.fixture
def korean() -> Iterator[None]:
    i18n.set_language("ko")
    try:
        yield
    finally:
        i18n.set_language("en")


def refusal(line: str, players: tuple[str, ...] | None, language: str) -> ParseError:
    with pytest.raises(ParseError) as caught:
        parse(line, players, language=language)
    return caught.value


@pytest.mark.usefixtures("german")
def test_german_refusals_are_german_sentences() -> None:
    error = refusal("Alice tauscht Reihe 2 gegen Tiger", PLAYERS, "de")
    assert error.message.startswith("Das Tier 'Tiger' kenne ich nicht. Meintest du Ziege?")
    assert "Bär, Maulwurf" in error.message
    typo = refusal("Alise klopft", PLAYERS, "de")
    assert typo.message == "Es gibt keinen Spieler 'Alise'. Meintest du 'alice klopft'?"
    assert typo.suggestion == "alice klopft"
    assert refusal("Dave klopft", PLAYERS, "de").message == \
        "Dave spielt nicht mit: die Spieler sind Alice, Bob und Carol."
    assert refusal("Reihe 7 Bär", PLAYERS, "de").message == \
        "Es gibt keine Reihe 7: die Reihen sind 1, 2, 3 und 4."
    assert refusal("Alice hat alle Hunde", PLAYERS, "de").message == \
        "Plötzlicher Tod braucht alle Katzen, alle Hasen oder alle Schweine, nicht alle Hunde."
    assert "z. B. 'alice tauscht Reihe 2 gegen Bär und Hund'" in refusal("Alice tauscht", PLAYERS, "de").message
    # English typed at a German table is corrected as English.
    assert refusal("alice knoks", PLAYERS, "de").suggestion == "alice knocks"


@pytest.mark.usefixtures("korean")
def test_korean_refusals_are_korean_sentences() -> None:
    players = KO_PLAYERS
    typo = refusal("앨리수가 노크", players, "ko")
    assert typo.message == "없는 플레이어입니다: '앨리수'. 혹시 '앨리스가 노크' 말씀인가요?"
    assert typo.suggestion == "앨리스가 노크"
    assert refusal("앨리스가 2번 줄을 호랑이와 교환", players, "ko").message.startswith(
        "모르는 동물입니다: '호랑이'. 동물은 기린, 곰, 두더지")
    assert refusal("데이브가 노크", players, "ko").message == \
        "데이브는 게임에 참가하지 않았습니다. 플레이어는 앨리스, 밥, 캐럴, 보가입니다."
    assert refusal("앨리스가 9번 줄을 곰과 교환", players, "ko").message == \
        "9번 줄은 없습니다. 줄은 1, 2, 3, 4번입니다."
    assert refusal("앨리스가 개 전부 가졌어요", players, "ko").message.endswith("개는 안 됩니다.")
    assert refusal("뭐야?", players, "ko").message.endswith("모든 명령은 '도움말'이라고 말해 주세요.")


def test_names_that_are_words_of_a_language_are_refused_at_its_table() -> None:
    assert name_problem("Hund", language=languages("de")) is not None
    assert name_problem("Hund") is None
    assert name_problem("노크", language=languages("ko")) is not None
    assert name_problem("row", language=languages("de")) is not None  # English is read there too


def test_the_records_are_read_once_and_walk_like_english() -> None:
    assert languages("de") is LANGUAGE_BY_CODE["de"] is languages("de")
    assert list(LANGUAGE_BY_CODE) == list(CODES) == ["en", "de", "ko"]
    assert languages("en") is ENGLISH_LANGUAGE
    for code in CODES:
        language = languages(code)
        assert set(language.trees) == set(IntentName) == set(language.say) == set(language.examples)
        for name, trees in language.trees.items():
            assert trees and all(isinstance(t.items[0], Word | Slot) or t.items for t in trees), name
        assert {a for a in language.animal_words.values()} == set(Animal)
        assert {a for a in language.sudden_death_words.values()} == {A.CAT, A.RABBIT, A.PIG}
        assert set(language.row_words.values()) == {1, 2, 3, 4}
    de = languages("de")
    assert de.animal_words["bären"] is de.animal_words["bär"] is A.BEAR
    assert de.spellings["baer"] == "bär" and de.spellings["rueckgaengig"] == "rückgängig"
    ko = languages("ko")
    assert ko.numbers["두"] == 2 and ko.row_words["이"] == 2 and "가" in ko.particles
    assert "장" in ko.counters and ko.count_after_animal


def test_english_record_is_todays_tables() -> None:
    from assistant.commands import grammar

    en = languages("en")
    assert dict(en.templates) == grammar.TEMPLATES and dict(en.trees) == grammar.TREES
    assert dict(en.numbers) == grammar.NUMBERS and dict(en.animal_words) == grammar.ANIMAL_WORDS
    assert en.reserved_words == grammar.RESERVED_WORDS
    assert en.list_separators == grammar.LIST_SEPARATORS


def test_completion_and_examples_follow_the_table_language() -> None:
    from assistant.table import expect
    from assistant.table.state import help_examples
    from engine.actions import NewGame
    from engine.game import Game

    game, _ = Game.new(NewGame(PLAYERS))
    try:
        i18n.set_language("de")
        assert expect.expected_start(game) == "Reihe 1 "
        assert expect.first_words(game)[:2] == ["reihe", "alice"]
        assert "hilfe" in expect.first_words(game)
        assert expect.expected_verbs(game, "alice") == ["fängt", "hat"]
        assert expect.command_starts(game)["swap"][0] == "alice tauscht Reihe "
        assert help_examples(["bob"])[:2] == ["neues Spiel mit anna ben cem", "bob fängt an"]
        for example in help_examples(["bob"]):
            parse(example, None if example.startswith("neues") else PLAYERS, language="de")
        i18n.set_language("ko")
        assert expect.expected_start(game) == "1번 줄 "
        assert expect.command_starts(game)["knock"][0] == "alice가 노크해요"
        assert expect.command_starts(None)["new_game"][0] == "새 게임 "
        for example in help_examples(["밥"]):
            parse(example, None if example.startswith("새") else KO_PLAYERS, language="ko")
    finally:
        i18n.set_language("en")
    assert expect.expected_start(game) == "row 1 "
    assert help_examples(["bob"])[1] == "bob starts"
