"""How text is read (issue 10, items 1, 4 and 5): one normalisation, names of any script kept as
typed, numbers refused as typed. Tables: input -> what the parser makes of it."""

from __future__ import annotations

import json
import random

import pytest

from assistant.commands import ParseError, parse
from assistant.commands.parser import tokenize
from assistant.commands.text import normalize, printable
from assistant.referee import Referee

PLAYERS = ("alice", "bob", "carol")


@pytest.mark.parametrize(("text", "normal"), [
    ("row 2 ³ cat", "row 2 3 cat"),
    ("row ３ pig", "row 3 pig"),
    ("row ٣ pig", "row 3 pig"),
    ("row ३ pig", "row 3 pig"),
    ("row ③ pig", "row 3 pig"),
    ("Zoe\u0308", "Zoë"),
    ("O’Brien", "O'Brien"),
    ("Ŀlorenç", "Ŀlorenç"),  # NFKC would write 'L·lorenç', splitting the name
    ("ｒｏｗ 1 ｐｉｇ", "row 1 pig"),
])
def test_normalize(text: str, normal: str) -> None:
    assert normalize(text) == normal


@pytest.mark.parametrize(("text", "canonical"), [
    ("row 2 ³ cat", "row 2 cat cat cat"),
    ("row ٣ pig", "row 3 pig"),
    ("new game anne-marie bob carol", "new game anne-marie bob carol"),
    ("new game O'Brien bob carol", "new game O'Brien bob carol"),
    ("new game O’Brien bob carol", "new game O'Brien bob carol"),
    ("new game प्रिया bob carol", "new game प्रिया bob carol"),
    ("new game İbrahim bob carol", "new game İbrahim bob carol"),
    ("new game Zoe\u0308 bob carol", "new game Zoë bob carol"),
    ("new game McDonald bob carol", "new game McDonald bob carol"),
    ("new game alice,bob;carol", "new game alice bob carol"),
    ("row2 bear dog", "row 2 bear dog"),  # a number glued to a word is read, never dropped
])
def test_names_and_digits(text: str, canonical: str) -> None:
    assert parse(text, PLAYERS if not text.startswith("new") else None).canonical == canonical


@pytest.mark.parametrize(("text", "error"), [
    ("alice swaps -3 -2 dog 1 sheep", "There is no row -3"),
    ("row 99999999999999999999 pig", "There is no row 99999999999999999999"),
    ("row 2 -2 pig", "-2 cards of one animal?"),
    ("row 2 2.5 pig", "2.5 cards of one animal?"),
    ("new game a-very-long-name-indeed-yes bob carol", "at most 24 letters"),
    ("new game 3po bob carol", "'3po' is not a name"),
    ("new game 3 po bob", "'3' is not a name"),
    # words glued by what separates no names are one name, refused (as separate words they
    # made more players than were named)
    ("new game anne_marie carol", "'anne_marie' is not a name"),
    ("new game bob1 carol dan", "'bob1' is not a name"),
    ("new game o.brien carol dan", "'o.brien' is not a name"),
    ("new game jo/ann carol dan", "'jo/ann' is not a name"),
    ("new game mary--jane carol dan", "'mary--jane' is not a name"),
    ("new game zoë ZOË carol", "Two players have the same name, 'ZOË': give each a different name."),
    ("x" * 1001, "longer than 1,000 characters"),
])
def test_refused_as_typed(text: str, error: str) -> None:
    with pytest.raises(ParseError) as refused:
        parse(text, PLAYERS)
    assert error in refused.value.message


def test_a_name_is_matched_in_any_form_and_kept_as_typed() -> None:
    referee = Referee(rng=random.Random(0), confirm_new_game=False)
    assert referee.handle("new game Zoë Anne-Marie O'Brien").ok
    assert referee.players == ("Zoë", "Anne-Marie", "O'Brien")
    reply = referee.handle("ZOE\u0308 starts")  # NFD and another case: the same player
    assert reply.ok and reply.command == "Zoë starts" and reply.said == ["Zoë starts."]
    assert referee.handle("anne-marie starts").command == "Anne-Marie starts"
    assert referee.handle("o’brien starts").command == "O'Brien starts"
    state = json.loads(json.dumps(referee.state()))
    assert [p["name"] for p in state["players"]] == ["Zoë", "Anne-Marie", "O'Brien"]
    resumed = Referee.resume(referee.history())
    assert resumed.players == referee.players and resumed.history() == referee.history()


def test_tokens_keep_words_of_any_script_whole() -> None:
    tokens = tokenize("new game प्रिया, Anne-Marie and O'Brien")
    assert [t.typed for t in tokens] == ["new", "game", "प्रिया", "Anne-Marie", "and", "O'Brien"]
    assert tokens[3] == "anne-marie"  # compared casefolded


def test_printable_escapes_control_characters() -> None:
    assert printable("a\x1b[31mb\x07c\x9b") == "a\\x1b[31mb\\x07c\\x9b"
    assert printable("Zoë प्रिया") == "Zoë प्रिया"
    assert printable("x" * 100, 10) == "x" * 10 + "..."
