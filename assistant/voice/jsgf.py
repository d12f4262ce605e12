"""The speech grammar (JSGF), generated from the command language's tables.

Called by ``assistant.voice.recognizer`` whenever what the referee knows changes. Nothing here
is written by hand: the sentence shapes come from ``grammar.TREES``, the command templates parsed
once (``templates.to_jsgf`` writes them with JSGF's own brackets; each ``{slot}`` becomes a rule), the words from ``NUMBERS``,
``ROW_WORDS``, ``ANIMAL_WORDS``, ``SUDDEN_DEATH_WORDS`` and ``LIST_SEPARATORS``. So a spoken
command can never say something the typed parser does not understand.

What the referee knows narrows the grammar, which is most of what makes recognition reliable:
  * ``{player}`` is one of the current players, each name one word written as the game spells
    it (lower-cased), in any alphabet: Zoë, Anne-Marie, प्रिया. The decoder takes such words as
    they are; ``pronounce`` finds how they sound (folded to English letters, or read by
    espeak-ng in their own script). A name no pronunciation can be found for is left out of the
    grammar (``SpeechGrammar.unheard``) rather than given a made-up one;
  * a swap of row k and a row k both name exactly k cards, counted by the grammar itself ("two
    pigs and a cat" is 3 cards); a hand names exactly 10, checked after decoding (see
    ``_slot_rules`` for why);
  * the phase and whose turn it is weight the alternatives (JSGF ``/weight/``): in the turns
    phase "<turn player> swaps/knocks" is far likelier than a row or a hand (the weights are
    the table model's, ``assistant.table.expect.intent_weights``).
Digits are not speakable, so the speech grammar only uses number words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from assistant.commands.grammar import (
    ANIMAL_WORDS,
    LIST_SEPARATORS,
    NUMBERS,
    ROW_WORDS,
    SUDDEN_DEATH_WORDS,
    TEMPLATES,
    TREES,
    UNSPOKEN_WORDS,
)
from assistant.commands.intents import INTENTS
from assistant.commands.templates import Sentence, Slot, to_jsgf
from assistant.table.expect import intent_weights
from engine.deck import ANIMALS, HAND_SIZE, ROW_SIZES, SUDDEN_DEATH_ANIMALS, Animal
from engine.game import Game, Phase, valid_name
from engine.words import plural_word

#: Intents whose first slot is the player acting in turn (their weight follows the turn).
TURN_INTENTS = frozenset(i.name for i in INTENTS if i.turn_move)
@dataclass(frozen=True)
class SpeechGrammar:
    """A JSGF grammar and the words it uses (every one must be in the decoder's dictionary)."""

    jsgf: str
    words: frozenset[str]
    intents: tuple[str, ...]
    #: Players left out because they cannot be pronounced (``hearable``), as given.
    unheard: tuple[str, ...] = ()


#: The filler model's "words": one per CMU phone, so a loop of them matches any speech at all.
GARBAGE_PHONES = (
    "AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH UH UW "
    "V W Y Z ZH"
).split()
GARBAGE_PREFIX = "gb_"
#: The filler model's price per phone (a probability): the mildest that rejects 90% of the tune
#: split's table talk (figures and what else was tried: bench/NOTES.md).
GARBAGE_PHONE_PENALTY = 3e-7
#: The fewest phones the filler model takes (raising it lost more short commands than it saved:
#: bench/NOTES.md).
GARBAGE_MIN_PHONES = 1


def garbage_words() -> dict[str, str]:
    """Filler word -> its one phone (added to the decoder's dictionary)."""
    return {GARBAGE_PREFIX + p.lower(): p for p in GARBAGE_PHONES}


def build_grammar(
    players: Sequence[str], game: Game | None = None, garbage_weight: float = 0.0
) -> SpeechGrammar:
    """The JSGF grammar for ``players`` (lower-case names) in the state of ``game``.

    ``garbage_weight`` > 0 adds the filler model as one more alternative: any sequence of
    phones. Talk that is not a command fits it better than any command, and is rejected.
    A player whose name is no name (``valid_name``: nothing else can break the grammar's
    syntax) or cannot be pronounced (``pronounce.hearable``) is left out, and listed in
    ``unheard``.
    """
    from assistant.voice.pronounce import hearable

    unheard = tuple(p for p in players if not (valid_name(p.lower()) and hearable(p.lower())))
    players = tuple(p.lower() for p in players if p not in unheard)
    weights = _hearable_weights(players, game)
    rules: dict[str, str] = {}
    top = _intent_rules(rules, weights, game)
    _slot_rules(rules, players, game)
    _add_garbage(rules, top, garbage_weight)
    # Only keep the rules that are reachable, so the grammar stays small.
    used = _reachable(rules, [ref for _, ref in top])
    lines = ["#JSGF V1.0;", "grammar lifeguard;"]
    lines.append("public <command> = " + " | ".join(f"/{w:g}/ {ref}" for w, ref in top) + ";")
    for name in sorted(used):
        lines.append(f"<{name}> = {rules[name]};")
    jsgf = "\n".join(lines) + "\n"
    words = frozenset(w for w in _words_of(used, rules) if not w.startswith(GARBAGE_PREFIX))
    return SpeechGrammar(jsgf, words, tuple(i for i, w in weights.items() if w > 0), unheard)


def _hearable_weights(players: tuple[str, ...], game: Game | None) -> dict[str, float]:
    """The table model's intent weights; with no player that can be heard, no intent that
    names a player."""
    weights = intent_weights(players, game)
    if not players:
        for intent in ("starts", "swap", "knock", "pass", "hand", "sudden_death", "new_game"):
            weights[intent] = 0.0
    return weights


def _add_garbage(rules: dict[str, str], top: list[tuple[float, str]], garbage_weight: float) -> None:
    """With ``garbage_weight`` > 0, the filler model as one more alternative of ``top``."""
    if garbage_weight <= 0:
        return
    # A phone loop whose every further phone costs a factor GARBAGE_PHONE_PENALTY: a free
    # loop fits any speech better than any command, so it must pay per phone.
    rules["gphone"] = _alt(garbage_words())
    rules["garbage"] = " ".join(["<gphone>"] * GARBAGE_MIN_PHONES) + " <garbage_more>"
    rules["garbage_more"] = f"/{GARBAGE_PHONE_PENALTY:g}/ <gphone> <garbage_more> | /1/ <NULL>"
    top.append((garbage_weight, "<garbage>"))


def _intent_rules(rules: dict[str, str], weights: dict[str, float],
                  game: Game | None) -> list[tuple[float, str]]:
    """One rule per intent of weight > 0 (its templates as alternatives); the weighted
    references to them, for the top rule."""
    top: list[tuple[float, str]] = []
    for intent in TEMPLATES:
        weight = weights.get(intent, 0.0)
        if weight <= 0:
            continue
        bodies = [_template_body(intent, t, rules, row_weights(intent, game)) for t in TREES[intent]]
        rules[f"i_{intent}"] = " | ".join(f"( {b} )" for b in bodies)
        top.append((weight, f"<i_{intent}>"))
    return top


def _strip_rules(jsgf: str) -> str:
    return re.sub(r"<[^>]*>|/[^/]*/", " ", jsgf)


#: A word of a rule body: anything between JSGF's own marks (a name may be "zoë", "anne-marie").
_WORD = re.compile(r"[^\s()\[\]|*+;=<>/{}\"]+")


def _words_of(used: Iterable[str], rules: dict[str, str]) -> frozenset[str]:
    words: set[str] = set()
    for name in used:
        words.update(_WORD.findall(_strip_rules(rules[name])))
    return frozenset(words)


def _reachable(rules: dict[str, str], roots: Sequence[str]) -> set[str]:
    seen: set[str] = set()
    todo = [r.strip("<>") for r in roots]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(n for n in re.findall(r"<(\w+)>", rules[name]) if n not in ("NULL", "VOID"))
    return seen


def row_weights(intent: str, game: Game | None) -> dict[int, float]:
    """How likely each row number is in a ``row`` command: while the rows are being entered, a
    row still missing is far likelier than one already entered (naming that is a correction)."""
    weights = dict.fromkeys(ROW_SIZES, 1.0)
    if intent != "row" or game is None or game.phase is not Phase.ROWS:
        return weights
    missing = game.missing_rows()
    for k in ROW_SIZES:
        weights[k] = ROW_MISSING if k in missing else 1.0
    return weights


#: Weight of a row still missing against a row already entered.
ROW_MISSING = 6.0
#: Weight of a player whose hand is still to be revealed against one who has revealed it.
REVEAL_WAITING = 6.0


def _template_body(
    intent: str, tree: Sentence, rules: dict[str, str], rows: dict[int, float] | None = None
) -> str:
    """A template tree in JSGF: the same brackets; slots become rules (row and cards coupled)."""
    if intent == "hand":
        player_rule = "<reveal_player>"
    else:
        player_rule = "<turn_player>" if intent in TURN_INTENTS else "<player>"
    cards_rule = "<cards_hand>" if intent == "hand" else "<cards_any>"
    names = {"player": player_rule, "cards": cards_rule, "sd_animal": "<sd_animal>", "names": "<names>"}
    items = tree.items
    if Slot("row") in items and Slot("cards") in items:
        # A row k holds k cards and a swap of row k puts down k: one branch per row after the
        # shared words before the row number (sharing them keeps the decoder's search small).
        split = items.index(Slot("row"))
        prefix = to_jsgf(Sentence(items[:split]), names.__getitem__)
        branches = []
        for k in ROW_SIZES:
            coupled = {**names, "row": f"<row_{k}>", "cards": f"<cards_{k}>"}
            weight = f"/{rows[k]:g}/ " if rows else ""
            branches.append(weight + "( " + to_jsgf(Sentence(items[split:]), coupled.__getitem__) + " )")
        return f"{prefix} ( {' | '.join(branches)} )"
    return to_jsgf(tree, names.__getitem__)


def _alt(words: Iterable[str]) -> str:
    return "( " + " | ".join(dict.fromkeys(words)) + " )"


def _slot_rules(rules: dict[str, str], players: tuple[str, ...], game: Game | None) -> None:
    """The slot rules: players (turn-weighted), rows, counted card lists, animals, names."""
    if players:
        _player_rules(rules, players, game)
    for k in ROW_SIZES:
        rules[f"row_{k}"] = _alt(w for w, n in ROW_WORDS.items() if n == k)
    # "all the pigs": plurals only (the typed parser also takes "all the pig").
    rules["sd_animal"] = _alt(
        w for w, a in SUDDEN_DEATH_WORDS.items()
        if a in SUDDEN_DEATH_ANIMALS and w not in UNSPOKEN_WORDS and _is_plural(w, a)
    )
    _animal_rules(rules)
    _card_rules(rules)


def _player_rules(rules: dict[str, str], players: tuple[str, ...], game: Game | None) -> None:
    """Any player; the player in turn (likelier); a player still to reveal (likelier); all."""
    rules["player"] = _alt(players)
    # The game spells names as typed ("Zoë"); the grammar's words are lower-cased.
    turn = game.turn.lower() if game is not None and game.turn else None
    if turn in players:
        others = [f"/1/ {p}" for p in players if p != turn]
        rules["turn_player"] = " | ".join([f"/6/ {turn}", *others])
    else:
        rules["turn_player"] = rules["player"]
    waiting = tuple(p.lower() for p in game.waiting_to_declare()) \
        if game is not None and game.phase is Phase.REVEAL else ()
    if waiting:
        rules["reveal_player"] = " | ".join(
            f"/{REVEAL_WAITING if p in waiting else 1:g}/ {p}" for p in players)
    else:
        rules["reveal_player"] = rules["player"]
    rules["names"] = " ".join(players)


def _is_plural(word: str, animal: Animal) -> bool:
    """Whether ``word`` names several of ``animal`` ("pigs", not "pig")."""
    return word == plural_word(animal) or word.endswith("s") and word != animal.value


def _spoken_animals() -> tuple[dict[Animal, list[str]], dict[Animal, list[str]]]:
    """The spoken words for each animal: for one of it, and for several."""
    spoken = {w: a for w, a in ANIMAL_WORDS.items() if w not in UNSPOKEN_WORDS}
    plural = {a: [w for w, b in spoken.items() if b is a and _is_plural(w, a)] for a in ANIMALS}
    singular = {
        a: [w for w, b in spoken.items() if b is a and (w == a.value or w not in plural[a])]
        for a in ANIMALS
    }
    return singular, plural


def _one_words(singular: dict[Animal, list[str]]) -> list[str]:
    """The words for one card before an animal: "a", "one" (and "an" where it fits).

    "an" only where a spoken animal word starts with a vowel (none does today): the typed
    parser takes "an pig", but in speech a free "an" mostly got inserted before animals that
    were never preceded by one ("row four shows giraffe an goat")."""
    one_words = [w for w, n in NUMBERS.items() if n == 1]
    if not any(w[0] in "aeiou" for a in ANIMALS for w in singular[a]):
        one_words = [w for w in one_words if w != "an"]
    return one_words


def _animal_rules(rules: dict[str, str]) -> None:
    """One card: "pig", "a pig", "one pig" (``item_1``). m cards: "two pigs" (``item_m``)."""
    singular, plural = _spoken_animals()
    one_words = _one_words(singular)
    rules["animal_one"] = _alt(w for a in ANIMALS for w in singular[a])
    rules["animal_many"] = _alt(w for a in ANIMALS for w in plural[a])
    rules["item_1"] = f"[ {_alt(one_words)} ] <animal_one>"
    for m in range(2, HAND_SIZE + 1):
        count_words = [w for w, n in NUMBERS.items() if n == m]
        rules[f"item_{m}"] = f"{_alt(count_words)} <animal_many>"


def _card_rules(rules: dict[str, str]) -> None:
    """cards_n: exactly n cards, as items whose counts add up to n. (Counting up to a hand's 10
    this way multiplies out to ~1 s of FSG building in pocketsphinx, so a hand is a free list
    of items and its 10 cards are checked after decoding.)"""
    separators = _alt(sorted(LIST_SEPARATORS))
    rules["item_any"] = " | ".join(f"<item_{m}>" for m in range(1, HAND_SIZE + 1))
    rules["cards_hand"] = f"<item_any> ( [ {separators} ] <item_any> )*"
    for n in ROW_SIZES:
        alternatives = [f"<item_{n}>"]
        for m in range(1, n):
            alternatives.append(f"<item_{m}> [ {separators} ] <cards_{n - m}>")
        rules[f"cards_{n}"] = " | ".join(f"( {a} )" for a in alternatives)
    rules["cards_any"] = " | ".join(f"<cards_{n}>" for n in ROW_SIZES)
