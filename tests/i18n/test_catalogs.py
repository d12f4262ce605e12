"""The message catalogs against the code: every message translated, every translation usable."""

from __future__ import annotations

import io
import re
import string

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from assistant import i18n
from assistant.i18n.catalogs import catalog_path, code_messages, untranslated

LANGS = ["de", "ko"]


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


@pytest.mark.parametrize("code", LANGS)
def test_every_message_in_the_code_has_a_translation(code: str) -> None:
    missing = untranslated(code)
    assert not missing, f"{len(missing)} messages lack a {code} translation " + "; ".join(
        f"{m.where}: {m.msgid!r}" for m in missing[:20]
    )


@pytest.mark.parametrize("code", LANGS)
def test_translations_keep_the_placeholders_and_compile(code: str) -> None:
    with catalog_path(code).open("rb") as po:
        catalog = read_po(po, locale=code)
    for message in catalog:
        if not message.id:
            continue
        ids = message.id if isinstance(message.id, tuple) else (message.id,)
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        wanted = set().union(*(_fields(i) for i in ids))
        for text in strings:
            if text:
                assert _fields(text) <= wanted, (message.id, text)
    write_mo(io.BytesIO(), catalog)


#: A command quoted in English ('new game', 'undo', 'yes', 'no', 'help').
ENGLISH_COMMAND = re.compile(r"'(new game|undo|yes|no|help)( [^']*)?'")


@pytest.mark.parametrize("code", LANGS)
def test_the_table_is_told_its_own_words_for_the_commands_it_suggests(code: str) -> None:
    """A German or Korean table is told 'neues Spiel', 'rückgängig', '새 게임', '취소' ... (its
    language's commands, which it reads), not the English ones; only messages about files and
    the command line (replay files, ``--jsonl``), whose commands are English, quote those."""
    with catalog_path(code).open("rb") as po:
        catalog = read_po(po, locale=code)
    told_english = [
        message.string for message in catalog
        if isinstance(message.id, str) and isinstance(message.string, str)
        and not re.search(r"file|--|lifeguard ", message.id) and ENGLISH_COMMAND.search(message.string)]
    assert not told_english, told_english


def test_the_extractor_finds_the_animals_with_their_plurals() -> None:
    animals = {m.msgid: m.plural for m in code_messages() if m.context == "animal"}
    assert animals["mouse"] == "mice" and len(animals) == 10


def test_an_unknown_language_is_refused_with_a_sentence() -> None:
    with pytest.raises(i18n.LanguageUnavailable, match="the languages are en"):
        i18n.set_language("fr")
    assert i18n.current_language() == "en"


@pytest.mark.parametrize(("code", "bear", "mice"), [("en", "bear", "mice"), ("de", "Bär", "Mäuse"), ("ko", "곰", "쥐")])
def test_animal_names_in_each_language(code: str, bear: str, mice: str) -> None:
    i18n.set_language(code)
    try:
        assert (i18n.animal_name("bear"), i18n.animal_name("mouse", 3)) == (bear, mice)
    finally:
        i18n.set_language("en")


@pytest.mark.parametrize(
    ("name", "spec", "said"),
    [("앨리스", "이/가", "앨리스가"), ("민준", "이/가", "민준이"), ("Bob", "은/는", "Bob은"),
     ("Alice", "을/를", "Alice를"), ("서울", "으로/로", "서울로"), ("3", "이/가", "3이"), ("2", "이/가", "2가")],
)
def test_korean_particles_follow_the_word(name: str, spec: str, said: str) -> None:
    assert i18n.format("{p:" + spec + "} 노크", p=name) == said + " 노크"


def test_format_without_particles_is_str_format() -> None:
    assert i18n.format("{a} and {b:>3}", a="x", b=7) == "x and   7"


@pytest.mark.parametrize(
    ("code", "said"),
    [("en", "2 bears, a dog and 3 mice"), ("de", "2 Bären, ein Hund und 3 Mäuse"), ("ko", "곰 2장, 개 1장, 쥐 3장")],
)
def test_cards_are_described_in_each_language(code: str, said: str) -> None:
    from assistant.i18n.words import describe
    from engine.deck import Animal, Cards

    i18n.set_language(code)
    try:
        assert describe(Cards.of(Animal.BEAR, Animal.BEAR, Animal.DOG, Animal.MOUSE, Animal.MOUSE, Animal.MOUSE)) == said
    finally:
        i18n.set_language("en")
