"""What a tester playing at a Korean and a German table typed (issue 39): sentence -> the exact
canonical command, each a line the tables misread or refused before; the spoken grammar reading
Korean counters as the typed parser does; and the chat's words (help, leaving) in the table's
language."""

from __future__ import annotations

import io
import random

import pytest

from assistant import i18n
from assistant.cli.chat import run_chat
from assistant.commands import ParseError, parse
from assistant.referee import Referee
from assistant.voice.languages import read_command, spoken_words
from assistant.voice.whisper.grammar import WordGrammar
from engine.rules import HouseRules

KO_PLAYERS = ("김민준", "이서연", "박지호")
DE_PLAYERS = ("Anna", "Ben", "Uwe", "Grete")

KOREAN: list[tuple[str, str]] = [
    # 개 right after a number is a counter (like 장, 마리), not the dog: these recorded dogs.
    ("김민준 기린 여섯 개, 곰 두 개", "김민준 has 6 giraffe 2 bear"),
    ("이서연이 3번 줄을 토끼 두 개와 교환", "이서연 swaps 3 rabbit rabbit"),
    ("이서연이 3번 줄을 토끼 두개와 교환", "이서연 swaps 3 rabbit rabbit"),
    ("이서연이 3번 줄을 토끼 2개와 교환", "이서연 swaps 3 rabbit rabbit"),
    ("김민준 기린 6개 곰 2개 개 2개", "김민준 has 6 giraffe 2 bear 2 dog"),
    ("김민준 기린 여섯개, 곰 두개, 개 두개", "김민준 has 6 giraffe 2 bear 2 dog"),
    # 개 elsewhere is the dog.
    ("김민준 기린 여섯 개 곰 두 개 개 두 개", "김민준 has 6 giraffe 2 bear 2 dog"),
    ("이서연이 2번 줄을 개 개와 교환", "이서연 swaps 2 dog dog"),
    ("이서연이 3번 줄을 개 두 개, 곰과 교환", "이서연 swaps 3 bear dog dog"),
    ("김민준 기린 세 마리, 곰 두마리, 개 다섯 마리", "김민준 has 3 giraffe 2 bear 5 dog"),
    # A swap said as a promise or done (바꿀게요, 바꿀게, 바꿨어요).
    ("이서연 1번 줄 돼지랑 바꿀게요", "이서연 swaps 1 pig"),
    ("이서연 1번 줄 돼지랑 바꿀게", "이서연 swaps 1 pig"),
    ("이서연 1번 줄 돼지랑 바꿨어요", "이서연 swaps 1 pig"),
    # Sino-Korean row numbers glued to 번; 이번에는 ("this time") is no row.
    ("김민준 일번 줄 돼지랑 교환", "김민준 swaps 1 pig"),
    ("김민준 이번 줄을 돼지, 곰과 교환할게요", "김민준 swaps 2 bear pig"),
    ("김민준 삼번 줄을 돼지 곰 개와 교환", "김민준 swaps 3 bear dog pig"),
    ("김민준 사번 줄 돼지 곰 개 쥐랑 교환", "김민준 swaps 4 bear dog pig mouse"),
    ("이서연 이번에는 노크", "이서연 knocks"),
    ("이서연은 이번엔 패스할게요", "이서연 passes"),
    # Take the row, put down the cards (in either order).
    ("이서연은 1번 줄을 가져가고 돼지를 내려놨어요", "이서연 swaps 1 pig"),
    ("이서연은 돼지를 내려놓고 1번 줄을 가져갔어요", "이서연 swaps 1 pig"),
    # The last row is row 4.
    ("이서연 마지막 줄 돼지 곰 개 쥐랑 교환", "이서연 swaps 4 bear dog pig mouse"),
    ("이서연이 마지막 줄을 가져가고 돼지 네 마리를 내려놨어요", "이서연 swaps 4 pig pig pig pig"),
]


@pytest.mark.parametrize(("sentence", "canonical"), KOREAN, ids=[s for s, _ in KOREAN])
def test_korean_table(sentence: str, canonical: str) -> None:
    assert parse(sentence, KO_PLAYERS, language="ko").canonical == canonical


GERMAN: list[tuple[str, str]] = [
    # Take the row and put the cards down ("legt ... ab/hin"), or give the cards for the row.
    ("Ben nimmt Reihe 2 und legt zwei Katzen ab", "Ben swaps 2 cat cat"),
    ("Uwe nimmt die 3. Reihe und legt Katze, Katze, Maus hin", "Uwe swaps 3 cat cat mouse"),
    ("Grete tauscht zwei Bären gegen Reihe 2", "Grete swaps 2 bear bear"),
    ("Grete tauscht zwei Baeren gegen die zweite Reihe", "Grete swaps 2 bear bear"),
    # The last row is row 4.
    ("Anna tauscht die letzte Reihe gegen Bär Hund Katze Maus", "Anna swaps 4 bear dog cat mouse"),
    ("Anna nimmt die letzte Reihe und legt vier Mäuse ab", "Anna swaps 4 mouse mouse mouse mouse"),
    # Counted with x at the reveal.
    ("Anna hat 6x Giraffe, 3x Bär, 1x Hase", "Anna has 6 giraffe 3 bear 1 rabbit"),
    ("Anna hat 6 x Giraffe, 3 x Bär, 1 x Hase", "Anna has 6 giraffe 3 bear 1 rabbit"),
    ("Anna hat 6 mal Giraffe, 3 mal Bär und 1 mal Hase", "Anna has 6 giraffe 3 bear 1 rabbit"),
    # At a German table "wiederholen" is "say that again"; redo is "wiederherstellen".
    ("wiederholen", "repeat"),
    ("Bitte wiederholen", "repeat"),
    ("kannst du das wiederholen?", "repeat"),
    ("nochmal", "repeat"),
    ("wiederherstellen", "redo"),
    ("Rückgängig aufheben", "redo"),
    # What the table read before stays as it was.
    ("Anna tauscht Reihe 3 gegen Maus, Hase und Hund", "Anna swaps 3 dog rabbit mouse"),
    ("Ben nimmt 1 und legt einen Bären", "Ben swaps 1 bear"),
]


@pytest.mark.parametrize(("sentence", "canonical"), GERMAN, ids=[s for s, _ in GERMAN])
def test_german_table(sentence: str, canonical: str) -> None:
    assert parse(sentence, DE_PLAYERS, language="de").canonical == canonical


SPOKEN_KO = ("민준", "서연", "지호")


@pytest.mark.parametrize(("said", "canonical"), [
    ("민준 기린 여섯 개 곰 네 개", "민준 has 6 giraffe 4 bear"),
    ("민준 기린 여섯 개 곰 두 개 개 두 개", "민준 has 6 giraffe 2 bear 2 dog"),
    ("서연 삼 번 줄 토끼 두 개 곰 교환", "서연 swaps 3 bear rabbit rabbit"),
])
def test_whisper_reads_the_counter_as_the_typed_parser_does(said: str, canonical: str) -> None:
    words = spoken_words("ko")
    grammar = WordGrammar(SPOKEN_KO, ["hand", "swap"], words)
    assert grammar.intents_of(said.split())
    assert read_command(said.split(), "ko", SPOKEN_KO).canonical == canonical
    assert parse(said, SPOKEN_KO, language="ko").canonical == canonical


def test_whisper_grammar_does_not_count_a_counter_as_a_dog() -> None:
    """'기린 여섯 개 곰 세 개' is nine cards: the grammar once took one 개 for a dog to make ten
    (a hand the reader then read as nine)."""
    grammar = WordGrammar(SPOKEN_KO, ["hand"], spoken_words("ko"))
    assert grammar.intents_of("민준 기린 여섯 개 곰 세 개".split()) == ()


def test_korean_table_talk_is_not_understood_not_a_stranger_playing() -> None:
    """'이거 누가 섞었어?' ("who shuffled this?") was refused as '이거 is not playing'."""
    i18n.set_language("ko")
    try:
        for line in ("이거 누가 섞었어?", "이거 누가 섞었어"):
            with pytest.raises(ParseError) as refused:
                parse(line, KO_PLAYERS, language="ko")
            assert refused.value.message.startswith("이해하지 못했습니다: '이거 누가 섞었어'.")
            assert "'현황'" in refused.value.message and refused.value.suggestion is None
        with pytest.raises(ParseError) as stranger:  # a stranger's command still names the players
            parse("정우 1번 줄 돼지랑 교환", KO_PLAYERS, language="ko")
        assert stranger.value.message.startswith("정우는 게임에 참가하지 않았습니다.")
    finally:
        i18n.set_language("en")


def _chat(code: str, lines: list[str]) -> list[str]:
    """The chat (``run_chat``, no store) at a table of language ``code`` reading ``lines``."""
    i18n.set_language(code)
    try:
        out = io.StringIO()
        stdin = io.TextIOWrapper(io.BytesIO(("\n".join(lines) + "\n").encode()), encoding="utf-8")
        assert run_chat(Referee(HouseRules(), random.Random(0)), False, stdin, out) == 0
        return out.getvalue().splitlines()
    finally:
        i18n.set_language("en")


@pytest.mark.parametrize(("code", "word"), [
    ("de", "beenden"), ("de", "Tschüss"), ("de", "ENDE"), ("de", "quit"),
    ("ko", "종료"), ("ko", "끝"), ("ko", "나가기"), ("ko", "exit"),
    ("en", "quit"), ("en", "EXIT"),
])
def test_the_tables_leave_words_end_the_chat(code: str, word: str) -> None:
    out = _chat(code, [word, "help"])  # help after the leave word is never answered
    assert len(out) == 1  # the greeting only


def test_a_leave_word_of_another_table_is_a_line_like_any_other() -> None:
    out = _chat("en", ["beenden", "quit", "help"])
    assert len(out) == 2 and out[1].startswith("! ")


@pytest.mark.parametrize(("code", "welcome", "leaving"), [
    ("en", "Lifeguard referee. Type 'help' for commands, Ctrl+D to leave.",
     "To leave the chat: quit, exit or Ctrl+D."),
    ("de", "Lifeguard-Schiedsrichter. Tippt 'Hilfe' für die Befehle, Ctrl+D zum Verlassen.",
     "Zum Verlassen des Chats: beenden, tschüss, Ende oder Ctrl+D."),
    ("ko", "Lifeguard 심판입니다. 명령을 보려면 '도움말', 끝내려면 Ctrl+D를 누르세요.",
     "채팅을 끝내려면: 종료, 끝, 나가기 또는 Ctrl+D."),
])
def test_the_chat_quotes_the_tables_words(code: str, welcome: str, leaving: str) -> None:
    help_word = {"en": "help", "de": "Hilfe", "ko": "도움말"}[code]
    out = _chat(code, [help_word])
    assert out[0] == welcome and out[-1] == leaving
