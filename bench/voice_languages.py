"""Speech in for German and Korean: Whisper base (multilingual) held to each language's commands,
measured on synthetic speech (issue 39, item 5).

Run: ``.venv/bin/python bench/voice_languages.py [--commands 40] [--talk 12] [--langs de ko]
[--splits tune test]`` (4 to 8 minutes on 2 busy cores at the defaults: the test split, 2 x (40 +
12) utterances, each clean and in pink noise; ``tune`` first sweeps the bars on the tune voices).

Each command is a moment of a simulated (seeded) game: the canonical command of its next action,
said in the language by a random template of its spoken tables (``assistant.voice.languages``),
with the language's own player names; the game so far is the recogniser's context, as in
``bench/voice_run.py``. Table talk in the language must be rejected. espeak-ng speaks everything
(Debian's mirror has no MBROLA voices: ``apt-cache search mbrola`` finds nothing, so espeak-ng's
``mb-de*`` voices cannot be used). The tune split's voices chose the prompt and the bars; the
test split's voices (the figures that decide, ``assistant.voice.languages.MEASURED``) were never
tuned on. Each file is written clean and with pink
noise at 10 dB SNR (sox, as ``bench/voice_corpus.py`` does), under a git-ignored folder.

Printed per language: exact commands (clean, noise), talk rejected (clean and noise together) and
the decoding time per command (median, 95th percentile).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from figures import percentile
from voice_corpus import PAD, RATE, background, espeak, pink_noise, write_wav

from assistant.commands import Command, command_for
from assistant.commands.parser import expand
from assistant.i18n import LANGUAGES
from assistant.referee import Referee
from assistant.voice.languages import read_command, spoken_language, spoken_words
from assistant.voice.pcm import audioop
from assistant.voice.recognizer import RecognizerUnavailable, read_wav
from assistant.voice.whisper import WhisperRecognizer
from assistant.voice.whisper.grammar import SpokenLanguage, SpokenWords
from assistant.voice.whisper.recognizer import (
    DEFAULT_MIN_GAME_LOG_PROB,
    DEFAULT_MIN_LOG_PROB,
    DEFAULT_MIN_WORD_LOG_PROB,
)
from engine.actions import Action, NewGame, SetStarter
from engine.deck import Animal
from engine.simulate import simulate_game

ROOT = Path(__file__).resolve().parents[1]

#: The voices (espeak-ng variants) of each split: the language's bars (``SpokenLanguage.bars``) and
#: prompt were chosen on the tune split's; the figures that decide are the test split's.
VOICES = {
    "de": {"tune": ["de", "de+m3"], "test": ["de+f2", "de+m7", "de+f4", "de+m1"]},
    "ko": {"tune": ["ko", "ko+m3"], "test": ["ko+f2", "ko+m7", "ko+f4", "ko+m1"]},
}
SPEEDS = (130, 175)
PITCHES = (35, 65)
#: Each language's player names, in place of the simulated game's.
PLAYERS = {"de": ("anna", "jonas", "lea", "felix", "mia"), "ko": ("민준", "서연", "지호", "하은", "도윤")}
#: Table talk in each language: none of it is a command.
TALK = {
    "de": ["gib mir mal das salz", "wer will noch was trinken", "ich glaube du bist dran",
           "das war ein guter zug", "warte mal kurz", "lass mich kurz nachdenken",
           "wo ist meine brille", "du schummelst schon wieder", "der bär ist so süß auf der karte",
           "kannst du die karten mischen", "wie spät ist es", "ich hole mir noch ein bier",
           "das glaube ich dir nicht", "oh nein nicht schon wieder", "noch eine runde danach"],
    "ko": ["소금 좀 건네줄래요", "누가 음료수 더 마실래요", "이제 네 차례인 것 같아",
           "정말 좋은 수였어", "잠깐만 기다려", "생각 좀 해볼게", "내 안경 어디 있지",
           "또 속임수 쓰는 거야", "이 카드의 곰 정말 귀엽다", "카드 좀 섞어 줄래",
           "지금 몇 시예요", "맥주 한 잔 더 가져올게", "그건 못 믿겠어", "아 또 졌네",
           "이거 끝나고 한 판 더 하자"],
}
#: German's "one" before each animal (its gender, nominative): "eine Katze", "ein Bär".
ARTICLES = {Animal.GIRAFFE: "eine", Animal.GOAT: "eine", Animal.CAT: "eine", Animal.MOUSE: "eine"}
#: The share of commands that are no game action ("help", "yes", ...).
META_SHARE = 0.15


@dataclass
class Sample:
    text: str
    expected: str | None  # the canonical command; None for talk
    context: list[str]
    players: tuple[str, ...]
    voice: str
    speed: int
    pitch: int


def _renamed(text: str, names: dict[str, str]) -> str:
    return " ".join(names.get(word, word) for word in text.split())


def say(command: Command, words: SpokenWords, rng: random.Random) -> str:
    """``command`` said in ``words``' language by one of its templates, picked at random; the
    reader must take it back to the same canonical command."""
    pattern = rng.choice(expand(rng.choice(words.templates[command.intent])))
    said: list[str] = []
    for k, element in enumerate(pattern):
        if isinstance(element, tuple):
            said.extend(element)
        elif element == "player":
            said.append(command.player or "")
        elif element == "row":
            said.append(row_word(command.row or 0, words, pattern[k + 1:k + 2]))
        elif element == "sd_animal":
            said.append(next(w for w, a in words.sudden_death.items() if a == command.animal))
        elif element == "cards":
            said.extend(say_cards(command, words, rng))
    return " ".join(said)


#: The row words said: German's cardinals, Korean's Sino-Korean before 번 and native before 번째.
ROW_WORDS = {"eins": 1, "zwei": 2, "drei": 3, "vier": 4, "일": 1, "이": 2, "삼": 3, "사": 4}
ORDINAL_ROW_WORDS = {"첫": 1, "두": 2, "세": 3, "네": 4}


def row_word(row: int, words: SpokenWords, following: tuple[tuple[str, ...] | str, ...]) -> str:
    """How row ``row`` is said before ``following`` ("삼 번", "세 번째", "reihe drei")."""
    ordinal = bool(following) and isinstance(following[0], tuple) and following[0][:1] == ("번째",)
    table = ORDINAL_ROW_WORDS if ordinal else ROW_WORDS
    return next(w for w, n in table.items() if n == row and w in words.rows)


def say_cards(command: Command, words: SpokenWords, rng: random.Random) -> list[str]:
    """The cards one by one ("schwein schwein katze") or counted ("zwei schweine und eine katze",
    "돼지 두마리 고양이"); a hand always counted."""
    one = {a: w for w, a in words.one.items()}
    if command.intent != "hand" and rng.random() < 0.5:
        return [one[a] for a in command.cards]
    said: list[str] = []
    for i, (animal, n) in enumerate(command.cards.counts().items()):
        if i and rng.random() < 0.3:
            said.append(rng.choice(sorted(words.separators)))
        said += say_counted(animal, n, words, rng)
    return said


def say_counted(animal: Animal, n: int, words: SpokenWords, rng: random.Random) -> list[str]:
    """``n`` of ``animal`` counted: "zwei schweine", "eine katze" or "katze"; "돼지 두마리"."""
    one = next(w for w, a in words.one.items() if a == animal)
    if words.counts_after:  # "돼지 두 장", "고양이 한 마리", "쥐"
        count = [next(w for w, m in words.counts_after.items() if m == n)]
        return [one, *count, rng.choice(sorted(words.counters))] if n > 1 or rng.random() < 0.5 else [one]
    if n == 1:
        return [ARTICLES.get(animal, "ein"), one] if rng.random() < 0.6 else [one]
    many = next(w for w, a in words.many.items() if a == animal)
    return [next(w for w, m in words.counts.items() if m == n), many]


def samples(code: str, split: str, commands: int, talk: int, seed: int) -> list[Sample]:
    """``commands`` commands and ``talk`` pieces of table talk in language ``code``, said by the
    ``split``'s voices (the talk: the first half of the list for tune, the second for test)."""
    rng = random.Random(f"{seed}-{split}")
    half = len(TALK[code]) // 2
    talk_said = TALK[code][:half] if split == "tune" else TALK[code][half:]
    words = spoken_words(code)
    meta = [i for i in words.templates if i not in GAME_INTENTS]
    out: list[Sample] = []
    while len(out) < commands + talk:
        actions = simulate_game(rng)
        assert isinstance(actions[0], NewGame)
        names = dict(zip(actions[0].players, rng.sample(PLAYERS[code], len(actions[0].players)), strict=True))
        players = tuple(names[p] for p in actions[0].players)
        i = rng.randrange(2, len(actions))
        if isinstance(actions[i], SetStarter):
            continue
        context = [_renamed(command_for(a).canonical, names) for a in actions[:i]]
        voice = (rng.choice(VOICES[code][split]), rng.randint(*SPEEDS), rng.randint(*PITCHES))
        if talk_next(out, commands, talk, rng):
            out.append(Sample(rng.choice(talk_said), None, context, players, *voice))
            continue
        text = command_text(actions[i], names, words, code, rng) if rng.random() >= META_SHARE else \
            " ".join(w for element in rng.choice(expand(rng.choice(words.templates[rng.choice(meta)])))
                     for w in element)
        out.append(Sample(text, read_command(text.split(), code, players).canonical, context, players, *voice))
    return out


def talk_next(out: list[Sample], commands: int, talk: int, rng: random.Random) -> bool:
    """Whether the next sample is table talk: at random in proportion, until each kind is full."""
    talks = sum(s.expected is None for s in out)
    return talks < talk and (len(out) - talks >= commands or rng.random() < talk / (commands + talk))


def command_text(action: Action, names: dict[str, str], words: SpokenWords, code: str,
                 rng: random.Random) -> str:
    """``action``'s command said in language ``code``, its player renamed by ``names``."""
    command = command_for(action)
    if command.player:
        command = replace(command, player=names[command.player])
    text = say(command, words, rng)
    assert read_command(text.split(), code, tuple(names.values())).canonical == command.canonical, text
    return text


GAME_INTENTS = ("row", "swap", "knock", "pass", "hand", "starts", "sudden_death", "new_game")


def write(sample: Sample, out: Path, name: str, pink: bytes, offset: float) -> dict[str, Path]:
    """The sample spoken, clean and in pink noise at 10 dB SNR, as WAV files."""
    speech = espeak(sample.text, sample.voice, sample.speed, sample.pitch)
    pad = bytes(int(PAD * RATE) * 2)
    clean = pad + speech + pad
    noisy = audioop.add(clean, background(speech, len(clean), pink, offset, 10.0), 2)
    paths = {"clean": out / f"{name}_clean.wav", "noise": out / f"{name}_noise.wav"}
    write_wav(paths["clean"], clean)
    write_wav(paths["noise"], noisy)
    return paths


@dataclass
class Result:
    sample: Sample
    condition: str
    got: str | None  # the command taken whatever its log-probability (the bars are applied after)
    heard: str
    seconds: float
    reason: str | None
    mean_log_prob: float
    game_action: bool

    def taken(self, bars: tuple[float, float]) -> str | None:
        """The command taken under the bars (game action, other command)."""
        bar = bars[0] if self.game_action else bars[1]
        return self.got if self.got is not None and self.mean_log_prob >= bar else None


def measure(language: SpokenLanguage, items: list[tuple[Sample, dict[str, Path]]]) -> list[Result]:
    """Each file decoded by Whisper base held to ``language``'s commands, in its game's moment,
    with no bar on the log-probability (``Result.taken`` applies one)."""
    recognizer = WhisperRecognizer(language=language, min_log_prob=-99.0, min_game_log_prob=-99.0,
                                   min_word_log_prob=-99.0)
    results = []
    for sample, paths in items:
        referee = Referee.resume(sample.context)
        for condition, path in paths.items():
            recognizer.set_context(sample.players, referee.game)
            decoded = recognizer.decode(read_wav(str(path)).get_raw_data())
            got = decoded.command.canonical if decoded.command else None
            mean = math.log(decoded.confidence) if decoded.confidence > 0 else -math.inf
            game_action = decoded.command is not None and decoded.command.is_game_action
            results.append(Result(sample, condition, got, decoded.text, decoded.seconds, decoded.reason,
                                  mean, game_action))
    return results


def figures(results: list[Result], bars: tuple[float, float]) -> tuple[float, float, float]:
    """Exact commands clean, in noise, and talk rejected, under ``bars``."""
    def share(rows: list[Result], right: int) -> float:
        return right / len(rows) if rows else math.nan

    said = {c: [r for r in results if r.condition == c and r.sample.expected is not None] for c in ("clean", "noise")}
    talk = [r for r in results if r.sample.expected is None]
    clean, noise = (share(rows, sum(r.taken(bars) == r.sample.expected for r in rows)) for rows in said.values())
    return clean, noise, share(talk, sum(r.taken(bars) is None for r in talk))


def report(code: str, split: str, results: list[Result], bars: tuple[float, float], show: int) -> None:
    said = sum(r.sample.expected is not None for r in results) // 2
    clean, noise, talk = figures(results, bars)
    print(f"{code} ({LANGUAGES[code]}), {split} split ({', '.join(VOICES[code][split])}; {said} commands, "
          f"{len(results) // 2 - said} talk), bars {bars[0]} / {bars[1]}:")
    print(f"  exact commands: clean {clean:.1%}, noise 10 dB {noise:.1%}; talk rejected {talk:.1%}")
    times = sorted(r.seconds for r in results if r.sample.expected is not None)
    if times:
        print(f"  decoding per command: median {statistics.median(times) * 1000:.0f} ms, "
              f"p95 {percentile(times, 95) * 1000:.0f} ms")
    wrong = [r for r in results if r.taken(bars) != r.sample.expected]
    for r in wrong[:show]:
        print(f"    {r.condition:5} said {r.sample.text!r} ({r.sample.voice}) -> {r.taken(bars)!r} "
              f"(heard {r.heard!r}, {r.mean_log_prob:.2f}; {r.reason})")


def tune(results: list[Result]) -> tuple[float, float]:
    """The bars (game action, other command) that get most clean commands right with at least
    95% of the talk rejected (else the most talk rejected), printed with their neighbours'."""
    grid = [-2.0 - 0.25 * i for i in range(13)]
    scored = []
    for game in grid:
        for word in grid:
            clean, noise, talk = figures(results, (game, word))
            scored.append(((talk >= 0.95, clean + noise, talk), (game, word), (clean, noise, talk)))
    scored.sort(reverse=True)
    for _, bars, (clean, noise, talk) in scored[:6]:
        print(f"  tune: bars {bars[0]:.2f} / {bars[1]:.2f}: clean {clean:.1%}, noise {noise:.1%}, talk rejected {talk:.1%}")
    return scored[0][1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--langs", nargs="+", default=["de", "ko"], choices=sorted(PLAYERS))
    parser.add_argument("--splits", nargs="+", default=["test"], choices=["tune", "test"],
                        help="tune: choose the bars on the tune voices (printed), then measure")
    parser.add_argument("--commands", type=int, default=40, help="commands per language and split")
    parser.add_argument("--talk", type=int, default=12, help="pieces of table talk per language and split")
    parser.add_argument("--no-card-prompt", action="store_true", help="leave the animals out of Whisper's prompt")
    parser.add_argument("--seed", type=int, default=39)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out" / "voice_languages")
    parser.add_argument("--show", type=int, default=8, help="wrong decodings printed per language")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    pink = pink_noise(30, args.out)
    for code in args.langs:
        language = spoken_language(code)
        if args.no_card_prompt:
            language = replace(language, words=replace(language.words, prompt_animals=()))
        bars = (language.bars or (DEFAULT_MIN_LOG_PROB, DEFAULT_MIN_GAME_LOG_PROB, DEFAULT_MIN_WORD_LOG_PROB))[1:]
        for split in args.splits:
            started = time.perf_counter()
            rng = random.Random(args.seed)
            items = [(s, write(s, args.out, f"{code}-{split}{i:03d}", pink, rng.random()))
                     for i, s in enumerate(samples(code, split, args.commands, args.talk, args.seed))]
            made = time.perf_counter() - started
            try:
                results = measure(language, items)
            except RecognizerUnavailable as err:
                print(f"{code}: Whisper unavailable ({err})")
                return 1
            if split == "tune":
                bars = tune(results)
            report(code, split, results, bars, args.show)
            print(f"  ({len(items)} utterances x 2 conditions; synthesis {made:.0f} s, "
                  f"decoding {time.perf_counter() - started - made:.0f} s)")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
