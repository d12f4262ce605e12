"""The table model's words in German and Korean: the score sheet's labels, lives and places, the
sentence of what is expected next and the command line's hint, through a real seeded game."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

from assistant import i18n
from assistant.commands import canonical
from assistant.referee import Referee
from assistant.table import (
    TableState,
    hint_parts,
    lives_left,
    place_word,
    sheet_labels,
    sudden_death_note,
)
from assistant.table.expect import command_starts, expecting
from assistant.table.sheet import SheetLine, SheetRound
from engine.deck import Animal
from engine.game import Game
from engine.simulate import simulate_game

LABELS = {
    "en": ("Score sheet", "round", "pts", "lives", "lost", "OUT", "place", "SD", "tie"),
    "de": ("Punkteblatt", "Runde", "Pkt", "Leben", "verloren", "AUS", "Platz", "PT", "Gleichstand"),
    "ko": ("점수표", "라운드", "점수", "목숨", "잃음", "탈락", "순위", "SD", "동점"),
}


@pytest.fixture
def language(request: pytest.FixtureRequest) -> Iterator[str]:
    code: str = request.param
    i18n.set_language(code)
    try:
        yield code
    finally:
        i18n.set_language("en")


@pytest.mark.parametrize("language", ["en", "de", "ko"], indirect=True)
def test_the_score_sheet_labels(language: str) -> None:
    labels = sheet_labels()
    said = (labels.title, labels.round, labels.points, labels.lives, labels.lost, labels.out,
            labels.place, labels.sudden_death, labels.tie)
    assert said == LABELS[language]
    out = SheetLine("bob", points=0, lost=1, penalty=2, lives=0, out=True)
    kept = SheetLine("ann", points=12, lost=0, penalty=0, lives=3, out=False)
    assert lives_left(out) == f"{LABELS[language][5]} (-2)" and lives_left(kept) == "3"
    places = [place_word(n) for n in range(1, 6)]
    assert places == {"en": ["1st", "2nd", "3rd", "4th", "5th"], "de": ["1.", "2.", "3.", "4.", "5."],
                      "ko": ["1위", "2위", "3위", "4위", "5위"]}[language]
    note = sudden_death_note(SheetRound(4, ("bob", Animal.PIG), (kept, out)))
    assert note is not None and "Bob" in note and "4" in note and i18n.animal_name("pig", 2) in note
    assert sudden_death_note(SheetRound(4, None, (kept,))) is None


def test_the_english_sudden_death_note_is_the_table_s() -> None:
    note = sudden_death_note(SheetRound(2, ("bob", Animal.CAT), ()))
    assert note == "SD: sudden death in round 2: Bob revealed all cats, every other player lost 1 life."


def seeded_states(seed: int) -> Iterator[tuple[Game | None, TableState]]:
    """Every table state of a seeded game, after each command."""
    lines = [canonical(a) for a in simulate_game(random.Random(seed))]
    lines = [lines[0], lines[1].replace(" by lot", "")] + lines[2:]
    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    yield None, TableState.of(None)
    for line in lines:
        assert referee.handle(line).ok
        yield referee.game, TableState.of(referee.game)


#: The command language's words the hints show as they are typed (the grammar's, translated by
#: its own templates), and the names of the seeded game's players.
COMMAND_WORDS = {"row", "swaps", "knocks", "passes", "has", "starts", "new", "game", "yes", "no",
                 "alice", "undo", "redo", "status", "all", "tab", "f"}


#: German words that are English words too ("in Sitzreihenfolge", "der Hand", "Giraffe").
SAME_IN_BOTH = {"in", "hand", "giraffe"}


@pytest.mark.parametrize("language", ["de", "ko"], indirect=True)
def test_expected_and_hint_in_the_language_through_a_whole_game(language: str) -> None:
    seen: set[str] = set()
    for game, table in seeded_states(2):
        names = {p.lower() for p in game.players} if game is not None else set()
        sentences = [table.expecting, *table.hint, *hint_parts(game, question="alice knocks"),
                     *(about for _, about in command_starts(game).values())]
        for sentence in sentences:
            assert "{" not in sentence and "}" not in sentence, sentence
            words = {w.lower() for w in re.findall(r"[A-Za-z]+", sentence)} - names - COMMAND_WORDS
            if language == "ko":
                assert not words, sentence
            seen.add(sentence)
        assert table.expecting == expecting(game)
    i18n.set_language("en")
    english = {w.lower() for w in re.findall(r"[A-Za-z]+", " ".join(_english_sentences()))}
    i18n.set_language(language)
    left = {w.lower() for w in re.findall(r"[A-Za-z]+", " ".join(seen))} & english
    assert left <= COMMAND_WORDS | SAME_IN_BOTH | _player_names(), sorted(left)


def _player_names() -> set[str]:
    return set(canonical(simulate_game(random.Random(2))[0]).split()[2:])


def _english_sentences() -> list[str]:
    said: list[str] = []
    for game, table in seeded_states(2):
        said += [table.expecting, *table.hint, *(about for _, about in command_starts(game).values())]
    return said
