"""The template syntax of the command language, read once into a small typed tree.

``grammar.TEMPLATES`` are strings (``"{player} (knocks|knock) [now]"``); ``grammar.TREES`` holds
them parsed by ``parse_template`` into ``Sentence``s of ``Word``, ``Slot`` and ``Choice`` nodes.
Every reader of the language walks these trees instead of reading the syntax itself: the typed
parser (``expand``: every word pattern), the PocketSphinx grammar (``to_jsgf``), Whisper's
constraint (through ``expand``), the table's completion (``first_required_word``) and the list
of reserved words (``words``).

Syntax: ``word``; ``(a|b c)`` one of the alternatives, each a sequence; ``[a|b]`` optional;
``{slot}`` a slot filled from the slot tables (``grammar`` documents them).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class Word:
    text: str


@dataclass(frozen=True)
class Slot:
    name: str


@dataclass(frozen=True)
class Choice:
    """One of ``options``; or none of them when ``optional``."""

    options: tuple[Sentence, ...]
    optional: bool


@dataclass(frozen=True)
class Sentence:
    items: tuple[Word | Slot | Choice, ...]


Node = Word | Slot | Choice
#: One multiplied-out pattern element: a run of literal words, or a slot's name.
Element = tuple[str, ...] | str

_TOKEN = re.compile(r"\(|\)|\[|\]|\||\{\w+\}|[^\s()\[\]|{}]+")


class TemplateError(ValueError):
    """A template that does not follow the syntax (a developer's mistake in ``grammar``)."""


@cache
def parse_template(template: str) -> Sentence:
    tokens = _TOKEN.findall(template)
    pos = 0

    def sentence() -> Sentence:
        nonlocal pos
        items: list[Node] = []
        while pos < len(tokens) and tokens[pos] not in (")", "]", "|"):
            token = tokens[pos]
            pos += 1
            if token in ("(", "["):
                options = [sentence()]
                while pos < len(tokens) and tokens[pos] == "|":
                    pos += 1
                    options.append(sentence())
                closing = ")" if token == "(" else "]"
                if pos >= len(tokens) or tokens[pos] != closing:
                    raise TemplateError(f"unbalanced brackets in {template!r}")
                pos += 1
                items.append(Choice(tuple(options), optional=token == "["))
            elif token.startswith("{"):
                items.append(Slot(token[1:-1]))
            else:
                items.append(Word(token))
        return Sentence(tuple(items))

    tree = sentence()
    if pos != len(tokens):
        raise TemplateError(f"unexpected {tokens[pos]!r} in {template!r}")
    return tree


def expand(tree: Sentence) -> tuple[tuple[Element, ...], ...]:
    """Every pattern of a tree (alternatives and optionals multiplied out), each word its own
    element, longest first so that optional words are consumed when present."""

    def patterns(sentence: Sentence) -> list[list[Element]]:
        results: list[list[Element]] = [[]]
        for item in sentence.items:
            if isinstance(item, Word):
                results = [[*r, (item.text,)] for r in results]
            elif isinstance(item, Slot):
                results = [[*r, item.name] for r in results]
            else:
                alternatives = [p for option in item.options for p in patterns(option)]
                if item.optional:
                    alternatives = [[], *alternatives]
                results = [r + a for r in results for a in alternatives]
        return results

    unique = dict.fromkeys(tuple(p) for p in patterns(tree))
    return tuple(sorted(unique, key=lambda p: -len(p)))


def words(tree: Sentence) -> set[str]:
    """The literal words of a tree."""
    found: set[str] = set()
    for item in tree.items:
        if isinstance(item, Word):
            found.add(item.text)
        elif isinstance(item, Choice):
            for option in item.options:
                found |= words(option)
    return found


def first_required_word(tree: Sentence, after_slot: str | None = None) -> str | None:
    """The first word a sentence cannot leave out (its first alternative where there is a
    choice); with ``after_slot``, the first such word after that slot (a verb after {player})."""
    items = tree.items
    if after_slot is not None:
        index = next((i for i, it in enumerate(items) if it == Slot(after_slot)), None)
        if index is None:
            return None
        items = items[index + 1 :]
    for item in items:
        if isinstance(item, Word):
            return item.text
        if isinstance(item, Slot):
            return None
        if not item.optional:
            return first_required_word(item.options[0])
    return None


def to_jsgf(tree: Sentence, slot: Callable[[str], str]) -> str:
    """A tree in JSGF (the same brackets); ``slot(name)`` gives each slot's rule reference."""

    def render(sentence: Sentence) -> str:
        parts = []
        for item in sentence.items:
            if isinstance(item, Word):
                parts.append(item.text)
            elif isinstance(item, Slot):
                parts.append(slot(item.name))
            else:
                inner = " | ".join(render(option) for option in item.options)
                parts.append(f"[ {inner} ]" if item.optional else f"( {inner} )")
        return " ".join(parts)

    return render(tree)
