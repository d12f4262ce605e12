"""The commands possible now, as Whisper may write them: the grammar the beam search is held to.

Used by ``assistant.voice.whisper.recognizer.WhisperRecognizer``. ``WordGrammar`` is a machine
over spoken words built from the typed parser's own templates (``parser.expand``) for the intents
and players of the moment: a row k and a swap of row k name exactly k cards, a hand names 10.
``TokenGrammar`` spells its words in Whisper's tokens: "Bob" or "bob", "3" or "three", a comma
after a word, a full stop at the end, end-of-text only where a command is complete, and a few
homophones ("4" for "for", ``HOMOPHONES``). Both read a language's words from one
``SpokenWords`` record: ``ENGLISH`` (the default, from ``assistant.commands.grammar``) or another
language's (``assistant.voice.languages``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from assistant.commands.grammar import (
    ANIMAL_WORDS,
    LIST_SEPARATORS,
    NUMBERS,
    ROW_WORDS,
    SUDDEN_DEATH_WORDS,
    TEMPLATES,
    UNSPOKEN_WORDS,
)
from assistant.commands.parser import Command, expand, parse
from engine.deck import HAND_SIZE, SUDDEN_DEATH_ANIMALS, Animal
from engine.words import plural_word

if TYPE_CHECKING:
    from tokenizers import Tokenizer


# --------------------------------------------------------------------------- a language's words
@dataclass(frozen=True)
class SpokenWords:
    """The tables a language's spoken commands are built from: what ``WordGrammar`` and
    ``TokenGrammar`` read, and nothing else. ``ENGLISH`` is read from
    ``assistant.commands.grammar``; another language's comes from its own tables
    (``assistant.voice.languages``). Every word is lower case, as spoken; a word may be several
    written words ("두 마리"): the tokenizer spells it whole."""

    #: Intent name -> sentence templates (``parser.expand``'s syntax).
    templates: Mapping[str, tuple[str, ...]]
    #: Count words said before an animal ("two" pigs, "zwei" Schweine), with their numbers.
    counts: Mapping[str, int]
    #: Words for ``{row}``, with the row's number.
    rows: Mapping[str, int]
    #: An animal's words said for one card ("pig") and after a count above one ("pigs").
    one: Mapping[str, Animal]
    many: Mapping[str, Animal]
    #: Words for ``{sd_animal}`` (a sudden death's animal).
    sudden_death: Mapping[str, Animal]
    #: Words that may separate two items of a list ("and").
    separators: frozenset[str]
    #: Other ways Whisper writes a word that are the word itself ("three": "3"; "세 마리": "3마리").
    written: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Words Whisper writes as another word that sounds the same (``HOMOPHONES``).
    homophones: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Count words said after the animal they count, as Korean does ("돼지 두 마리": two pigs);
    #: such a count names the animal's cards in all, the animal word among them.
    counts_after: Mapping[str, int] = field(default_factory=dict)
    #: Words that may follow a count said after its animal and mean nothing else ("장", "마리").
    counters: frozenset[str] = frozenset()
    #: Words Whisper may write glued to the word before, with no space ("3번", "노크해요").
    glued: frozenset[str] = frozenset()
    #: Suffixes a word may carry as written, dropped from the word read (Korean particles:
    #: "민준이" is "민준").
    particles: tuple[str, ...] = ()
    #: Whisper's prompt: the players' label, the cards' label, the moves' sentence and what is
    #: written when no player is known (``WhisperRecognizer._prompt``).
    prompt_players: str = "Players"
    prompt_cards: str = "Cards"
    prompt_moves: str = " Moves: swap, knock, pass."
    prompt_commands: str = " Commands."
    #: The animals as the prompt names them (the ten, in the deck's order).
    prompt_animals: tuple[str, ...] = ()


def _english() -> SpokenWords:
    """English's tables, as ``assistant.commands.grammar`` keeps them (what the grammar read
    before it took a language)."""
    spoken = {w: a for w, a in ANIMAL_WORDS.items() if w not in UNSPOKEN_WORDS}
    many = {w: a for w, a in spoken.items() if w == plural_word(a)}
    return SpokenWords(
        templates=TEMPLATES,
        counts={w: n for w, n in NUMBERS.items() if w != "an"},
        rows=ROW_WORDS,
        one={w: a for w, a in spoken.items() if w == a.value},
        many=many,
        sudden_death={w: a for w, a in many.items() if a in SUDDEN_DEATH_ANIMALS and w in SUDDEN_DEATH_WORDS},
        separators=LIST_SEPARATORS,
        written={w: (str(n),) for w, n in NUMBERS.items() if w not in ("a", "an")},
        homophones=HOMOPHONES,
        prompt_animals=tuple(animal.value for animal in Animal),
    )


#: Words Whisper writes as another word that sounds the same, with those spellings. After "row
#: four", tiny.en writes the "for" of "took row four and for mole one sheep two pigs" as "4"; held
#: to "for" the decoder took "and 4, mole." (four moles) and dropped the rest (a whole game by
#: voice). The words a command's tokens stand for are read back by ``TokenGrammar.words_of``.
HOMOPHONES: dict[str, tuple[str, ...]] = {"for": ("4", "four")}

#: The English commands (the default).
ENGLISH = _english()


@dataclass(frozen=True)
class SpokenLanguage:
    """A language Whisper listens for: its code (Whisper's language token, ``<|de|>``), its
    spoken words (``SpokenWords``) and the parser that turns the words heard into the canonical
    command (``parse(text, players)``; what is stored stays the canonical English form)."""

    code: str
    words: SpokenWords
    parse: Callable[[str, Sequence[str] | None], Command]
    #: The least mean log-probability per token taken for the awaited answer, a game action and
    #: any other command (``WhisperRecognizer``'s ``min_log_prob``, ``min_game_log_prob``,
    #: ``min_word_log_prob``), tuned for this language's model; None: the English defaults.
    bars: tuple[float, float, float] | None = None


#: English: tiny.en, the English tables and the typed parser (the default).
ENGLISH_SPEECH = SpokenLanguage("en", ENGLISH, parse)


# --------------------------------------------------------------------------- the word grammar
@dataclass(frozen=True)
class _Position:
    """Where a partial command stands in one template pattern."""

    pattern: int
    element: int
    word: int = 0  # inside a literal element: words matched so far
    target: int = 0  # cards the {cards} slot must name (0: not known yet)
    cards: int = 0  # cards named so far
    pending: int = 0  # a number said, its animal still to come
    separated: bool = False  # a list separator was just said
    animal: bool = False  # an animal was just said alone: a count after it may follow (Korean)
    counter: bool = False  # a count after an animal was just said: a counter word may follow


@dataclass(frozen=True)
class _Pattern:
    intent: str
    elements: tuple[tuple[str, ...] | str, ...]


class WordGrammar:
    """The commands possible now, as a machine over spoken words (lower case).

    A state is a frozenset of ``_Position``s; ``next_words`` maps each possible next word to the
    state after it, ``is_final`` says whether a command is complete."""

    def __init__(self, players: Sequence[str], intents: Sequence[str],
                 words: SpokenWords = ENGLISH) -> None:
        self.players = tuple(players)
        #: The language's tables the grammar is made of.
        self.tables = words
        patterns: list[_Pattern] = []
        for intent in intents:
            for template in words.templates.get(intent, ()):
                for elements in expand(template):
                    patterns.append(_Pattern(intent, elements))
        self.patterns = tuple(patterns)
        self.start = self._closure({_Position(i, 0) for i in range(len(patterns))})
        self._next: dict[frozenset[_Position], dict[str, frozenset[_Position]]] = {}
        self._live: dict[frozenset[_Position], bool] = {}

    def intents_of(self, words: Sequence[str]) -> tuple[str, ...]:
        """The intents whose templates ``words`` complete, in the templates' order (the first
        is the one the parser takes, first match winning); () when they complete none."""
        state = self.start
        for word in words:
            after = self.next_words(state).get(word)
            if after is None:
                return ()
            state = after
        done = {p.pattern for p in state if p.element == len(self.patterns[p.pattern].elements)}
        return tuple(dict.fromkeys(self.patterns[i].intent for i in sorted(done)))

    def is_final(self, state: frozenset[_Position]) -> bool:
        return any(p.element == len(self.patterns[p.pattern].elements) for p in state)

    def leads_to_command(self, state: frozenset[_Position]) -> bool:
        """Whether some words from ``state`` on complete a command."""
        known = self._live.get(state)
        if known is None:
            self._live[state] = False  # a loop back here completes nothing new
            known = self.is_final(state) or any(self.leads_to_command(after)
                                                for after in self.next_words(state).values())
            self._live[state] = known
        return known

    def next_words(self, state: frozenset[_Position]) -> dict[str, frozenset[_Position]]:
        cached = self._next.get(state)
        if cached is not None:
            return cached
        moves: dict[str, set[_Position]] = {}
        for position in state:
            for word, after in self._moves(position):
                moves.setdefault(word, set()).update(after)
        result = {w: self._closure(ps) for w, ps in moves.items()}
        self._next[state] = result
        return result

    def _moves(self, p: _Position) -> list[tuple[str, list[_Position]]]:
        elements = self.patterns[p.pattern].elements
        if p.element >= len(elements):
            return []
        element = elements[p.element]
        if isinstance(element, tuple):
            done = p.word + 1 == len(element)
            after = _Position(p.pattern, p.element + 1, 0, p.target) if done else _Position(
                p.pattern, p.element, p.word + 1, p.target)
            return [(element[p.word], [after])]
        return self._slot_moves(p, element)

    def _slot_moves(self, p: _Position, slot: str) -> list[tuple[str, list[_Position]]]:
        """The words that may fill ``slot`` at ``p``, each with where it leads."""
        nxt = _Position(p.pattern, p.element + 1, 0, p.target)
        match slot:
            case "player":
                return [(name, [nxt]) for name in self.players]
            case "names":  # the current players again, in seating order ("a, b and c")
                return self._name_moves(p, nxt)
            case "row":  # after its cards (``_closure``), only the row that holds as many
                return [(w, [_Position(p.pattern, p.element + 1, 0, n)]) for w, n in self.tables.rows.items()
                        if not p.target or n == p.target]
            case "sd_animal":
                return [(w, [nxt]) for w in self.tables.sudden_death]
            case "cards":
                return self._card_moves(p)
        raise AssertionError(f"unknown slot {slot}")  # pragma: no cover - grammar and parser disagree

    def _name_moves(self, p: _Position, nxt: _Position) -> list[tuple[str, list[_Position]]]:
        """The next player's name in seating order, or a separator between two names."""
        name = self.players[p.word]
        moves = [(name, [nxt if p.word + 1 == len(self.players)
                         else _Position(p.pattern, p.element, p.word + 1)])]
        if p.word and not p.separated:
            moves += [(w, [_Position(p.pattern, p.element, p.word, separated=True)])
                      for w in self.tables.separators]
        return moves

    def _card_moves(self, p: _Position) -> list[tuple[str, list[_Position]]]:
        target = p.target or HAND_SIZE
        moves: list[tuple[str, list[_Position]]] = []
        tables = self.tables
        if p.pending:  # "two pigs", and "two pig" as the canonical form writes it
            counted = p.cards + p.pending
            words = dict(tables.one)
            if p.pending > 1:
                words = {**words, **tables.many}
            for word in words:
                moves.append((word, [_card_position(p, counted)]))
            return moves
        left = target - p.cards
        for word, n in tables.counts.items():
            if n <= left:
                moves.append((word, [_Position(p.pattern, p.element, 0, target, p.cards, n)]))
        moves += self._counted_after(p, left)
        if left >= 1:
            after_animal = bool(tables.counts_after)
            # Right after a count, a counter that is also an animal is the counter ("토끼 두
            # 개": two rabbits, no dog), as the reader and the typed parser read it.
            skipped = tables.counters if p.counter else frozenset()
            moves += [(word, [_card_position(p, p.cards + 1, after_animal)])
                      for word in tables.one if word not in skipped]
        if p.cards and not p.separated:
            for word in tables.separators:
                moves.append((word, [_Position(p.pattern, p.element, 0, target, p.cards, 0, True)]))
        return moves

    def _counted_after(self, p: _Position, left: int) -> list[tuple[str, list[_Position]]]:
        """A count after the animal just said ("돼지 두": the pig is one of the two), and a
        counter word after such a count ("두 장")."""
        moves: list[tuple[str, list[_Position]]] = []
        if p.animal:
            for word, n in self.tables.counts_after.items():
                if n <= left + 1:
                    moves.append((word, [replace(_card_position(p, p.cards - 1 + n), counter=True)]))
        if p.counter:
            moves += [(word, [replace(p, counter=False)]) for word in self.tables.counters]
        return moves

    def _closure(self, positions: set[_Position] | frozenset[_Position]) -> frozenset[_Position]:
        """Positions whose {cards} slot is complete also stand at the element after it. Cards
        said before their row (Korean: "민준 곰 개 2번 줄 교환") are complete at one to four,
        and the row then named must hold as many (``_slot_moves``)."""
        out = set(positions)
        for p in positions:
            elements = self.patterns[p.pattern].elements
            if (p.element >= len(elements) or elements[p.element] != "cards" or p.pending
                    or p.separated or not p.cards):
                continue
            if "row" in elements[p.element + 1:]:  # no row before: the count is open
                if p.cards <= max(self.tables.rows.values(), default=0):
                    out.add(_Position(p.pattern, p.element + 1, target=p.cards))
            elif p.cards == (p.target or HAND_SIZE):
                out.add(_Position(p.pattern, p.element + 1))
        return frozenset(out)


def _card_position(p: _Position, counted: int, animal: bool = False) -> _Position:
    return _Position(p.pattern, p.element, 0, p.target or HAND_SIZE, counted, 0, False, animal)


# --------------------------------------------------------------------------- tokens
@dataclass(frozen=True)
class _Spelling:
    word: str
    tokens: tuple[int, ...]
    #: Written as the word sounds, not as it is spelt (``HOMOPHONES``): "4" for the "for" of
    #: "takes row four for pig ...".
    homophone: bool = False


#: What a token written only as a homophone costs (nats, taken from its log-probability): where
#: the word itself may be said ("took row three and for bear"), Whisper's liking for digits after
#: digits must not turn it into a number ("and 4, 2, rabbit"); where the same token is also a word's
#: own spelling ("4" after "row four and": four cards, or "for"), it costs nothing.
HOMOPHONE_COST = 1.0


@dataclass(frozen=True)
class TokenState:
    """A hypothesis' place: a grammar state, and a word being spelt (or at a word boundary)."""

    words: frozenset[_Position]
    spelling: tuple[_Spelling, ...] = ()  # the candidates being spelt; () at a boundary
    at: int = 0  # tokens of the spelling already written
    spoken: int = 0  # words so far
    comma: bool = False  # a comma or colon may follow (a word was just completed)
    stopped: bool = False  # a full stop (! or ?) was written: only end-of-text may follow


class TokenGrammar:
    """The word grammar spelt in Whisper's tokens; states are frozensets of ``TokenState``."""

    def __init__(self, words: WordGrammar, tokenizer: Tokenizer, specials: dict[str, int]) -> None:
        self.words = words
        self.tokenizer = tokenizer
        self.end = specials["eot"]
        self.pauses = (specials[","], specials[":"])  # written after a word: "Row 3: pig, cat"
        self.stops = (specials["."], specials["!"], specials["?"])
        self.start = frozenset({TokenState(words.start)})
        self._allowed: dict[frozenset[TokenState], dict[int, frozenset[TokenState]]] = {}
        self._spellings: dict[str, tuple[_Spelling, ...]] = {}
        self._sounds: dict[frozenset[TokenState], frozenset[int]] = {}

    def spellings(self, word: str) -> tuple[_Spelling, ...]:
        cached = self._spellings.get(word)
        if cached is None:
            tables = self.words.tables
            forms = {word, word[:1].upper() + word[1:], *tables.written.get(word, ())}
            forms |= {form + particle for form in forms for particle in tables.particles}
            sounds = {form for sound in tables.homophones.get(word, ())
                      for form in (sound, sound.capitalize())}
            spaces = ("", " ") if word in tables.glued else (" ",)
            cached = tuple(_Spelling(word, tuple(self.tokenizer.encode(space + form, add_special_tokens=False).ids),
                                     form in sounds)
                           for form in sorted(forms | sounds) for space in spaces)
            self._spellings[word] = cached
        return cached

    def allowed(self, state: frozenset[TokenState]) -> dict[int, frozenset[TokenState]]:
        """Token -> the state after it, for every token allowed after ``state``."""
        cached = self._allowed.get(state)
        if cached is not None:
            return cached
        moves: dict[int, set[TokenState]] = {}
        spelt: set[int] = set()  # tokens some move takes as a word's own spelling
        for ts in state:
            for token, after, spelling in self._token_moves(ts):
                moves.setdefault(token, set()).add(after)
                if not _sounded(after, spelling):
                    spelt.add(token)
        result = {t: frozenset(s) for t, s in moves.items()}
        self._allowed[state] = result
        self._sounds[state] = frozenset(moves) - spelt
        return result

    def sounds(self, state: frozenset[TokenState]) -> frozenset[int]:
        """The tokens allowed after ``state`` only as a homophone (``HOMOPHONE_COST``)."""
        if state not in self._sounds:
            self.allowed(state)
        return self._sounds[state]

    def words_of(self, tokens: Sequence[int]) -> list[str] | None:
        """The words a complete command's tokens stand for, as the grammar read them ("for"
        where Whisper wrote "4", ``HOMOPHONES``), or None if they are no complete command. Of two
        readings, the one with fewer homophones ("and 4 mole" for row four is four moles)."""
        readings: dict[TokenState, tuple[tuple[str, ...], int]] = {ts: ((), 0) for ts in self.start}
        for token in tokens:
            after_token: dict[TokenState, tuple[tuple[str, ...], int]] = {}
            for ts, (said, sounds) in readings.items():
                for move, after, spelling in self._token_moves(ts):
                    if move != token:
                        continue
                    reading = (said, sounds) if spelling is None else (
                        (*said, spelling.word), sounds + spelling.homophone)
                    if after not in after_token or reading[1] < after_token[after][1]:
                        after_token[after] = reading
            readings = after_token
        complete = [reading for ts, reading in readings.items() if self.is_complete(frozenset({ts}))]
        return list(min(complete, key=lambda r: r[1])[0]) if complete else None

    def _token_moves(self, ts: TokenState) -> list[tuple[int, TokenState, _Spelling | None]]:
        """Each token allowed after ``ts``, the state after it, and the spelling it completes."""
        if ts.stopped:
            return [(self.end, ts, None)]
        if ts.spelling:
            return self._continue(ts.words, ts.spelling, ts.at, ts.spoken)
        moves: list[tuple[int, TokenState, _Spelling | None]] = []
        following = self.words.next_words(ts.words)
        candidates = tuple(s for word in following for s in self.spellings(word))
        moves.extend(self._continue(ts.words, candidates, 0, ts.spoken))
        if ts.comma:
            moves.extend((pause, TokenState(ts.words, spoken=ts.spoken), None) for pause in self.pauses)
        if ts.spoken and self.words.is_final(ts.words):
            moves.extend((stop, TokenState(ts.words, spoken=ts.spoken, stopped=True), None) for stop in self.stops)
            moves.append((self.end, ts, None))
        return moves

    def _continue(self, words: frozenset[_Position], candidates: tuple[_Spelling, ...], at: int,
                  spoken: int) -> list[tuple[int, TokenState, _Spelling | None]]:
        by_token: dict[int, list[_Spelling]] = {}
        for s in candidates:
            by_token.setdefault(s.tokens[at], []).append(s)
        moves: list[tuple[int, TokenState, _Spelling | None]] = []
        for token, group in by_token.items():
            complete = [s for s in group if len(s.tokens) == at + 1]
            longer = tuple(s for s in group if len(s.tokens) > at + 1)
            if longer:
                moves.append((token, TokenState(words, longer, at + 1, spoken), None))
            following = self.words.next_words(words)
            # One move per word; a word's own spelling wins over a homophone written alike.
            for spelling in {s.word: s for s in sorted(complete, key=lambda s: -s.homophone)}.values():
                moves.append((token, TokenState(following[spelling.word], spoken=spoken + 1, comma=True), spelling))
        return moves

    def is_complete(self, state: frozenset[TokenState]) -> bool:
        return any(not ts.spelling and ts.spoken and self.words.is_final(ts.words) for ts in state)

    def could_go_on(self, state: frozenset[TokenState]) -> bool:
        """Whether more words may follow that still make a command, whether or not Whisper wrote a
        full stop ("Undo." may still be "undo that"; an "and" after a row's last card leads
        nowhere)."""
        return any(ts.spelling or any(self.words.leads_to_command(after)
                                      for after in self.words.next_words(ts.words).values())
                   for ts in state)


def _sounded(after: TokenState, spelling: _Spelling | None) -> bool:
    """Whether a move writes a homophone: it completes one, or is inside words only homophones
    spell."""
    if spelling is not None:
        return spelling.homophone
    return bool(after.spelling) and all(s.homophone for s in after.spelling)
