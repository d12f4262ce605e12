"""The announcements in German and Korean: whole seeded games through the real referee and
announcer say the same events as in English, sentence for sentence, with no English word left
but the players' names and no field left unfilled; plurals and counters (1 and 2 lives, 1 and 3
cards); English stays as it was (the house rules as the engine says them)."""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterator

import pytest

from assistant import announce, i18n
from assistant.commands import canonical, parse
from assistant.referee import Referee, Reply, spoken
from engine.actions import DeclareHand, SuddenDeath
from engine.deck import Animal, Cards
from engine.events import GameWon, HandDeclared, Majority, RoundEnded, RowSet, Swapped
from engine.rules import HouseRules
from engine.simulate import simulate_game

LANGS = ["de", "ko"]
SEEDS = range(4)


@pytest.fixture
def language(request: pytest.FixtureRequest) -> Iterator[str]:
    """The table's language for one test (``indirect`` parameter), English again after it."""
    code: str = request.param
    i18n.set_language(code)
    try:
        yield code
    finally:
        i18n.set_language("en")


def seeded_game(seed: int) -> list[str]:
    """A seeded simulated game as canonical lines, the start player typed (not drawn by lot)."""
    lines = [canonical(a) for a in simulate_game(random.Random(seed))]
    return [lines[0], lines[1].replace(" by lot", "")] + lines[2:]


def typed(lines: list[str]) -> list[Reply]:
    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    replies = [referee.handle(line) for line in lines]
    assert all(r.ok for r in replies), [r.error for r in replies if not r.ok]
    return replies


def heard(lines: list[str]) -> list[tuple[bool, Reply]]:
    """The game by voice: every line after the new game heard; a hand or sudden death is asked
    about ("right?") and a heard "yes" applies it."""
    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    replies = [(False, referee.handle(lines[0]))]
    for line in lines[1:]:
        command = parse(line, referee.players)
        replies.append((True, referee.execute(command, heard=True)))
        if isinstance(command.to_action(), DeclareHand | SuddenDeath):
            replies.append((True, referee.execute(parse("yes", referee.players), heard=True)))
    assert all(r.ok for _, r in replies), [r.error for _, r in replies if not r.ok]
    return replies


def latin_words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z]+", text)}


#: Words German shares with English: "Giraffe" is the German for giraffe.
SAME_IN_BOTH = {"giraffe"}


def english_left(sentences: list[str], english: set[str], players: set[str]) -> set[str]:
    """The words of ``sentences`` that are words of the English announcements (names aside)."""
    if not sentences:
        return set()
    return (set().union(*map(latin_words, sentences)) - players - SAME_IN_BOTH) & english


def assert_filled(sentence: str) -> None:
    """No field left as written ("{player}") nor a particle that could not be chosen."""
    assert "{" not in sentence and "}" not in sentence, sentence
    assert not re.search(r"\((가|는|를|와|로|야)\)", sentence), sentence


def said_aloud(replies: list[Reply], speech: str) -> list[str]:
    return [s for r in replies for s in spoken(r, False, speech)]


@pytest.mark.parametrize("language", LANGS, indirect=True)
@pytest.mark.parametrize("seed", SEEDS)
def test_a_whole_seeded_game_is_announced_in_the_language(language: str, seed: int) -> None:
    lines = seeded_game(seed)
    players = set(lines[0].split()[2:])
    i18n.set_language("en")
    english = typed(lines)
    vocabulary = set().union(*(latin_words(s) for r in english for s in r.said)) - players
    i18n.set_language(language)
    translated = typed(lines)
    for en, said in zip(english, translated, strict=True):
        assert said.events == en.events  # the same game: only the words differ
        assert len(said.said) == len(en.said)  # sentence for sentence
        assert said.said != en.said
        for sentence in said.said:
            assert_filled(sentence)
        assert not english_left(said.said, vocabulary, players), (said.command, said.said)
        if language == "ko":  # Hangul, digits and the players' names only
            assert set().union(*map(latin_words, said.said)) <= players, said.said
    for speech in ("brief", "results"):  # what is said aloud under each setting
        aloud = said_aloud(translated, speech)
        assert len(aloud) == len(said_aloud(english, speech))
        assert not english_left(aloud, vocabulary, players), aloud


@pytest.mark.parametrize("language", LANGS, indirect=True)
def test_heard_commands_are_read_back_in_the_language(language: str) -> None:
    lines = seeded_game(1)
    players = set(lines[0].split()[2:])
    i18n.set_language("en")
    english = heard(lines)
    vocabulary = set().union(*(latin_words(s) for h, r in english for s in spoken(r, h, "brief")))
    vocabulary -= players
    i18n.set_language(language)
    asked = 0
    for (was_heard, en), (_, reply) in zip(english, heard(lines), strict=True):
        aloud = spoken(reply, was_heard, "brief")
        # "Applied." after a heard "yes" is the referee's own word (announce.applied() says it
        # in the language): the read-backs and results around it are this module's.
        aloud = [s for s in aloud if s != announce.APPLIED]
        assert len(aloud) == len([s for s in spoken(en, was_heard, "brief") if s != announce.APPLIED])
        for sentence in aloud:
            assert_filled(sentence)
        assert not english_left(aloud, vocabulary, players), (reply.command, aloud)
        asked += reply.question
    assert asked  # the hands were asked about ("right?" in the language)


@pytest.mark.parametrize(
    ("language", "one", "two"),
    [("de", "Bob verliert 1 Leben.", "Alice und Carol verlieren je 2 Leben."),
     ("ko", "Bob이 목숨 1개를 잃습니다.", "Alice, Carol이 각각 목숨 2개를 잃습니다.")],
    indirect=["language"])
def test_lives_lost_are_counted_in_the_language(language: str, one: str, two: str) -> None:
    ended = RoundEnded(round=2, sudden_death=None, majorities=(Majority(Animal.BEAR, "dave", 3),),
                       points={"alice": 0, "bob": 0, "carol": 0, "dave": 8},
                       losses={"alice": 2, "bob": 1, "carol": 2, "dave": 0},
                       lives={"alice": 3, "bob": 4, "carol": 3, "dave": 5}, out=())
    summary = announce.round_summary(ended)
    assert f"{two} {one}" in summary or f"{one} {two}" in summary, summary
    assert announce.brief(ended) == [f"{one[:-1]}{i18n.pgettext('clauses', ', ')}{two}"] or \
        announce.brief(ended) == [f"{two[:-1]}{i18n.pgettext('clauses', ', ')}{one}"]
    assert announce.lives_word(1) == ("1 Leben" if language == "de" else "목숨 1개")


@pytest.mark.parametrize(
    ("language", "expected"),
    [("de", ["einen Bären", "3 Bären", "eine Maus", "3 Mäuse", "Es fehlt noch Reihe 4.",
             "Es fehlen noch die Reihen 2, 4.", "Carol ist ausgeschieden.",
             "Alice und Carol sind ausgeschieden.", "Bob legt Maus ab und nimmt Reihe 2: Bär."]),
     ("ko", ["곰 1장", "곰 3장", "쥐 1장", "쥐 3장", "아직 4번 줄이 남았습니다.",
             "아직 2, 4번 줄이 남았습니다.", "Carol이 탈락했습니다.", "Alice, Carol이 탈락했습니다.",
             "Bob이 쥐를 내려놓고 2번 줄을 가져갔습니다: 곰."])],
    indirect=["language"])
def test_cards_and_rows_are_counted_in_the_language(language: str, expected: list[str]) -> None:
    one = announce.sentences(HandDeclared("bob", Cards({Animal.BEAR: 1, Animal.MOUSE: 1}), ()))
    three = announce.sentences(HandDeclared("bob", Cards({Animal.BEAR: 3, Animal.MOUSE: 3}), ()))
    rows = [announce.sentences(RowSet(1, Cards.of("bear"), missing))[0] for missing in ((4,), (2, 4))]
    out = [announce.brief(RoundEnded(2, None, (), {}, {p: 5 for p in gone}, {p: 0 for p in gone}, gone))[-1]
           for gone in (("carol",), ("alice", "carol"))]
    swap = announce.sentences(Swapped("bob", 2, Cards.of("bear"), Cards.of("mouse"), None))
    said = " ".join([*one, *three, *rows, *out, *swap])
    for words in expected:
        assert words in said, (words, said)


def game_end_sentences() -> list[str]:
    """A shared win, a sudden death in full and in brief, its read-back and its question."""
    won = announce.sentences(GameWon(("alice", "bob"), how="shared"))
    sudden = RoundEnded(3, ("bob", Animal.CAT), (), {}, {"alice": 1, "bob": 0}, {"alice": 0, "bob": 4},
                        ("alice",))
    return [*won, *announce.round_summary(sudden), *announce.brief(sudden),
            announce.readback("bob has all cats", "sudden_death"),
            announce.brief_readback("bob has all cats", "sudden_death", asked=True) or ""]


@pytest.mark.parametrize("language", LANGS, indirect=True)
def test_the_game_s_end_and_a_sudden_death_in_the_language(language: str) -> None:
    said = game_end_sentences()
    i18n.set_language("en")
    english = game_end_sentences()
    i18n.set_language(language)
    cat = i18n.animal_name("cat", 2)
    assert all(cat in s for s in said[-2:]) and cat in " ".join(said[1:3])
    for sentence in said:
        assert_filled(sentence)
    vocabulary = set().union(*map(latin_words, english)) - {"alice", "bob"}
    assert not english_left(said, vocabulary, {"alice", "bob"}), said


def every_house_rule() -> list[HouseRules]:
    """Every combination of the house rules' choices (``HouseRules.CHOICES``)."""
    names = list(HouseRules.CHOICES)
    return [HouseRules(**dict(zip(names, values, strict=True)))  # type: ignore[arg-type]
            for values in itertools.product(*HouseRules.CHOICES.values())]


def test_the_house_rules_in_english_are_the_engine_s_sentences() -> None:
    for rules in every_house_rule():
        assert announce.house_rules(rules) == rules.describe()


@pytest.mark.parametrize("language", LANGS, indirect=True)
def test_the_house_rules_in_the_language(language: str) -> None:
    english: set[str] = set()
    for rules in every_house_rule():
        english |= set().union(*map(latin_words, rules.describe()))
    for rules in every_house_rule():
        said = announce.house_rules(rules)
        assert len(said) == len(rules.describe())
        assert not set().union(*map(latin_words, said)) & english, said
    lose_two = announce.house_rules(HouseRules(lowest_tie_loses=2))[1]
    assert ("2 Leben" if language == "de" else "목숨 2개") in lose_two


@pytest.mark.parametrize(
    ("language", "lives", "out"),
    [("de", "Alice 5 Leben", "Runde 1."), ("ko", "Alice 목숨 5개", "1라운드.")], indirect=["language"])
def test_status_in_the_language(language: str, lives: str, out: str) -> None:
    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    assert referee.handle("new game alice bob carol").ok
    said = announce.status(referee.game)
    assert said[0].startswith(out) and lives in said[0]
    none = announce.status(None)[0]
    i18n.set_language("en")
    english = latin_words(announce.status(None)[0])
    i18n.set_language(language)
    # only the command to type stays as the command language writes it ('new game')
    assert latin_words(none) & english == {"new", "game"}, none


@pytest.mark.parametrize("language", LANGS, indirect=True)
def test_a_read_back_of_words_that_are_no_animals_keeps_them(language: str) -> None:
    assert "zebra" in announce.readback("row 2 zebra bear", "row")
    assert i18n.animal_name("bear") in (announce.brief_readback("row 2 zebra bear", "row") or "")
