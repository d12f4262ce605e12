"""Generate the spoken-command corpus for the voice benchmark (``bench/voice_run.py``).

Run: ``.venv/bin/python bench/voice_corpus.py [--out bench/out/voice] [--per-split 200]``.

Each sample is a moment of a real (simulated, seeded) game: the commands so far are its context,
the next action is what a player says, phrased at random from the command templates ("bob swaps
two pigs and a cat", "bob took the row three for pig pig cat"), plus meta commands, plus table
talk that is not a command (some of it with players' names and animals in it). espeak-ng speaks
each one with a voice, speed and pitch drawn from the split's own set: the *tune* split's voices
are the only ones the recogniser's constants were tuned on; the *test* split uses other voices,
other random commands and other table talk. Every sample is written clean, with pink noise at 10 dB SNR, and with
background chatter (two other voices talking) at 10 dB SNR. Audio goes to a git-ignored folder.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import shutil
import subprocess
import sys
import warnings
import wave
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.commands import canonical, command_for, parse  # noqa: E402
from assistant.commands.grammar import NUMBERS, TEMPLATES, plural_word  # noqa: E402
from assistant.commands.parser import expand  # noqa: E402
from engine.actions import DeclareHand, SetStarter  # noqa: E402
from engine.simulate import simulate_game  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import audioop

RATE = 16000
PAD = 0.4  # seconds of silence (or background) before and after the speech

VOICES = {
    "tune": ["en-us", "en+m3", "en+f3"],
    "test": ["en-gb-x-rp", "en+f2", "en-us+m7", "en+m1", "en-gb-scotland", "en-us+f4"],
}
SPEEDS = {"tune": (140, 175), "test": (125, 195)}
PITCHES = {"tune": (40, 60), "test": (30, 75)}

META = {"undo": ["undo", "undo that", "take that back", "take it back"],
        "no": ["no", "wrong", "cancel"], "status": ["status", "where are we", "score"],
        "repeat": ["repeat", "say that again"], "help": ["help", "what can i say"],
        "redo": ["redo"], "yes": ["yes", "correct"]}

#: Table talk, not commands. The tune split draws from the first list, the test split from the
#: second, so the rejection figures come from sentences the filler model was not tuned on.
TABLE_TALK = {
    "tune": [
        "pass me the salt please", "who wants another drink", "i think it is your turn now",
        "that was a great move", "did you see the game last night", "hold on a second",
        "let me think about it", "where did i put my glasses", "you are cheating again",
        "the bear is so cute on this card", "two dogs and a cat walked into a bar",
        "can you shuffle the cards", "i need to go to the bathroom", "what time is it",
        "this is my favourite game", "oh no not the giraffes again", "how many lives do you have",
        "i am going to win this round", "nice try", "could you open the window",
        "my phone is ringing", "shall we order pizza", "the cat is sleeping on the sofa",
        "i forgot the rules", "wait what happened", "that is not fair at all",
        "do you want some crisps", "we should play again tomorrow", "your hands are shaking",
        "look at the time", "tell me a joke", "the dog needs a walk",
    ],
    "test": [
        "put the kettle on", "i love this music", "are you sure about that",
        "it is raining outside", "i have no idea what to do", "great game everyone",
        "wow what a hand", "let us take a short break", "who is winning",
        "i never get the good cards", "can somebody turn the music down", "is there any cake left",
        "my turn already", "stop looking at my cards", "that was close",
        "we need more chairs", "where is the remote", "i will get the door",
        "the pig card is my favourite", "how long have we been playing", "this table is wobbly",
        "good luck everyone", "pour me a glass of water", "one more round and then bed",
        "you always win", "did somebody hear that", "three games in a row",
        "i should have kept the sheep", "your go", "let me see the rules again",
        "the neighbours are loud tonight", "nobody move",
    ],
}
NAMED_TALK = {
    "tune": ["{p} you are cheating", "{p} wants more tea", "did {p} just knock on the table",
             "{p} is thinking too long"],
    "test": ["come on {p} hurry up", "{p} has a nice watch", "{p} is on a winning streak",
             "is it {p} or me"],
}
#: The background chatter of the chatter condition, in neither split.
CHATTER_TALK = [
    "the weather has been awful all week", "i saw a film about penguins yesterday",
    "my sister is moving to a new flat", "the train was late again this morning",
    "we are going to the coast in the summer", "the garden needs a lot of work",
    "have you tried the new bakery", "the traffic on the bridge was terrible",
]
#: The share of samples that are table talk.
TALK_SHARE = 0.3


# --------------------------------------------------------------------------- sentences
def phrase(command_text: str, players: tuple[str, ...], rng: random.Random) -> str:
    """A random spoken phrasing of a canonical command, from the command templates."""
    cmd = parse(command_text, players)
    templates = TEMPLATES[cmd.intent]
    pattern = rng.choice(expand(rng.choice(templates)))
    words: list[str] = []
    for element in pattern:
        if isinstance(element, tuple):
            words.extend(element)
        elif element == "player":
            words.append(cmd.player or "")
        elif element == "row":
            words.append(next(w for w, n in NUMBERS.items() if n == cmd.row and w not in ("a", "an")))
        elif element == "cards":
            words.extend(_say_cards(cmd, rng))
        elif element == "sd_animal":
            assert cmd.animal is not None
            words.append(plural_word(cmd.animal))
        elif element == "names":
            words.extend(cmd.names)
    text = " ".join(words)
    assert parse(text, players).canonical == cmd.canonical, (text, cmd.canonical)
    return text


def _say_cards(cmd, rng: random.Random) -> list[str]:
    counts = list(cmd.cards.counts().items())
    if cmd.intent != "hand" and rng.random() < 0.5:
        return [a.value for a in cmd.cards]  # "pig pig cat"
    words: list[str] = []
    for i, (animal, n) in enumerate(counts):
        if i and rng.random() < 0.4:
            words.append("and")
        if n == 1:
            words.extend([rng.choice(["a", "one"]), animal.value] if rng.random() < 0.6 else [animal.value])
        else:
            words.extend([next(w for w, m in NUMBERS.items() if m == n), plural_word(animal)])
    return words


def samples(split: str, count: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    out: list[dict] = []
    while len(out) < count:
        actions = simulate_game(rng)
        players = tuple(actions[0].players)
        for _ in range(6):
            if len(out) >= count:
                break
            i = rng.randrange(2, len(actions))
            target = actions[i]
            if isinstance(target, SetStarter):
                continue
            context = [canonical(a) for a in actions[:i]]
            roll = rng.random()
            if roll < TALK_SHARE:
                talk = rng.choice(TABLE_TALK[split] + NAMED_TALK[split]).format(p=rng.choice(players))
                out.append({"text": talk, "expected": None, "context": context, "players": players})
            elif roll < TALK_SHARE + 0.1:
                intent = rng.choice(list(META))
                text = rng.choice(META[intent])
                out.append({"text": text, "expected": parse(text).canonical, "context": context, "players": players})
            else:
                if isinstance(target, DeclareHand) and rng.random() < 0.5:
                    continue  # hands are long: keep them to a fair share
                cmd = command_for(target)
                text = phrase(cmd.canonical, players, rng)
                out.append({"text": text, "expected": cmd.canonical, "context": context, "players": players})
    for i, sample in enumerate(out):
        lo, hi = SPEEDS[split]
        plo, phi = PITCHES[split]
        sample.update(id=f"{split}{i:03d}", split=split, voice=rng.choice(VOICES[split]),
                      speed=rng.randint(lo, hi), pitch=rng.randint(plo, phi),
                      noise_offset=rng.random(), chatter_offset=rng.random())
    return out


# --------------------------------------------------------------------------- audio
def espeak(text: str, voice: str, speed: int, pitch: int) -> bytes:
    """16 kHz mono 16-bit samples of espeak-ng saying ``text`` (resampled by sox)."""
    wav = subprocess.run(
        ["espeak-ng", "-v", voice, "-s", str(speed), "-p", str(pitch), "--stdout", text],
        capture_output=True, check=True,
    ).stdout
    wav = subprocess.run(
        ["sox", "-t", "wav", "-", "-t", "wav", "-r", str(RATE), "-b", "16", "-c", "1", "-"],
        input=wav, capture_output=True, check=True,
    ).stdout
    with wave.open(io.BytesIO(wav)) as w:
        return w.readframes(w.getnframes())


def write_wav(path: Path, raw: bytes) -> None:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(raw)


def background(speech: bytes, n: int, track: bytes, offset: float, snr_db: float) -> bytes:
    """``n`` bytes of ``track`` (looped from ``offset``), ``snr_db`` below the speech's level."""
    start = int(offset * (len(track) // 2 - 1)) * 2
    looped = (track[start:] + track * (n // len(track) + 2))[:n]
    speech_rms = audioop.rms(speech, 2) or 1
    track_rms = audioop.rms(looped, 2) or 1
    gain = speech_rms / track_rms / (10 ** (snr_db / 20))
    return audioop.mul(looped, 2, gain)


def pink_noise(seconds: int, out_dir: Path) -> bytes:
    path = out_dir / "pink.wav"
    subprocess.run(["sox", "-n", "-r", str(RATE), "-b", "16", "-c", "1", str(path),
                    "synth", str(seconds), "pinknoise", "vol", "0.3"], check=True)
    with wave.open(str(path)) as w:
        return w.readframes(w.getnframes())


def chatter_track(rng: random.Random) -> bytes:
    """Two other voices talking over each other: table talk only, never commands."""
    voices = ["en-us+m2", "en+f4", "en-gb+m5", "en-us+f1"]
    tracks = []
    for v in range(2):
        parts = [espeak(rng.choice(CHATTER_TALK), voices[(v * 2 + i) % 4], rng.randint(140, 190), 50)
                 + bytes(int(RATE * rng.uniform(0.05, 0.4)) * 2) for i in range(20)]
        tracks.append(b"".join(parts))
    n = min(len(t) for t in tracks)
    return audioop.add(tracks[0][:n], tracks[1][:n], 2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).parent / "out" / "voice"))
    parser.add_argument("--per-split", type=int, default=200, help="utterances per split (x3 conditions)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    for tool in ("espeak-ng", "sox"):
        if shutil.which(tool) is None:
            print(f"voice_corpus: {tool} is not installed (make setup installs it).", file=sys.stderr)
            return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    pink = pink_noise(60, out)
    chatter = chatter_track(rng)
    manifest = []
    for split, seed in (("tune", args.seed), ("test", args.seed + 1000)):
        for sample in samples(split, args.per_split, seed):
            speech = espeak(sample["text"], sample["voice"], sample["speed"], sample["pitch"])
            pad = bytes(int(PAD * RATE) * 2)
            clean = pad + speech + pad
            conditions = {
                "clean": clean,
                "noise": audioop.add(
                    clean, background(speech, len(clean), pink, sample["noise_offset"], 10.0), 2),
                "chatter": audioop.add(
                    clean, background(speech, len(clean), chatter, sample["chatter_offset"], 10.0), 2),
            }
            for condition, raw in conditions.items():
                path = out / f"{sample['id']}_{condition}.wav"
                write_wav(path, raw)
                manifest.append({**sample, "players": list(sample["players"]), "condition": condition,
                                 "file": str(path), "speech_seconds": len(speech) / (2 * RATE),
                                 "pad_seconds": PAD})
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    talk = sum(1 for m in manifest if m["expected"] is None)
    print(f"{len(manifest)} files ({talk} of table talk) in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
