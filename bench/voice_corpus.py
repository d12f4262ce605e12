"""Generate the spoken-command corpus for the voice benchmark (``bench/voice_run.py``).

Run: ``.venv/bin/python bench/voice_corpus.py [--out bench/out/voice] [--per-split 200] [--held-out 100]``
(2,712 files in about a minute on 2 cores: 2,400 and the near-miss talk's 312).

Each sample is a moment of a real (simulated, seeded) game: the commands so far are its context,
the next action is what a player says, phrased at random from the command templates ("bob swaps
two pigs and a cat", "bob took the row three for pig pig cat"), plus meta commands, plus table
talk that is not a command (some of it with players' names and animals in it). espeak-ng speaks
each one with a voice, speed and pitch drawn from the split's own set: the *tune* split's voices
are the only ones the recognisers' constants were tuned on; the *test* split uses other voices,
other random commands and other table talk. The test split also has samples spoken by two other
synthesisers, test-only (never tuned on): Debian's ``flite`` (its built-in voices) and
``festival`` (its English diphone and HTS voices), at a random duration stretch. Each manifest
entry names its synthesiser (``synth``: espeak / flite / festival); the espeak-ng samples are
the same as before the other synthesisers came (their own seeds). Every sample is written clean,
with pink noise at 10 dB SNR, with background chatter (two other voices talking) at 10 dB SNR,
and in a reverberant room (RT60 0.5 s, the microphone 1-2 m away: ``room_response``). Audio goes
to a git-ignored folder; sox runs with ``-R`` so a run repeats exactly, and each room's response
is drawn from a generator seeded with the sample's id alone (so adding the reverberant files
changed none of the others).

Synthesis runs in ``--jobs`` threads (each one's subprocesses and temporary files its own); the
manifest is written last, whole, under a temporary name and then renamed.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import wave
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from assistant.commands import Command, canonical, command_for, parse
from assistant.commands.grammar import NUMBERS, TEMPLATES
from assistant.commands.parser import expand
from assistant.commands.templates import Element
from assistant.voice.pcm import audioop
from engine.actions import DeclareHand, NewGame, SetStarter
from engine.simulate import simulate_game
from engine.words import plural_word

RATE = 16000
PAD = 0.4  # seconds of silence (or background) before and after the speech
#: The reverberant condition's room (issue 38's target "reverberant room (RT60 0.5 s)"): its
#: reverberation time, its volume (a 5 x 4.5 x 2.7 m dining room), the talker's directivity
#: (a person facing the table, Q = 2) and the range the talker-microphone distance is drawn from
#: (a laptop at the end of the table).
RT60 = 0.5
ROOM_VOLUME = 60.0
TALKER_Q = 2.0
MIC_DISTANCE = (1.0, 2.0)

VOICES = {
    "tune": ["en-us", "en+m3", "en+f3"],
    "test": ["en-gb-x-rp", "en+f2", "en-us+m7", "en+m1", "en-gb-scotland", "en-us+f4"],
}
SPEEDS = {"tune": (140, 175), "test": (125, 195)}
#: Test-only voices of other synthesisers (Debian's ``flite`` and ``festival`` with its English
#: voices): never in the tune split, so nothing was tuned on how they sound.
HELD_OUT_VOICES = {
    "flite": ["kal16", "awb", "rms", "slt"],
    "festival": ["kal_diphone", "ked_diphone", "cmu_us_slt_arctic_hts"],
}
SYNTHESISERS = ("espeak", *HELD_OUT_VOICES)
#: The held-out voices' speed: a duration stretch drawn from this range (1.0: their own pace).
STRETCH = (0.85, 1.25)
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
#: Near-miss table talk (issue 38, item 3): talk that sounds like a command, a player's name
#: and a command's verb, an animal, a row or a meta word in it, but is none. Test split only,
#: spoken once by each synthesiser (``near_miss_samples``), reported apart from the other talk.
#: Written before anything was measured on it.
NEAR_MISS_TALK = [
    "who has the bear", "i knock on wood", "row row row your boat",
    "{p} has the best poker face", "{p} knocks over the drink", "{p} passes the crisps",
    "{p} takes ages every time", "{p} starts to look worried", "{p} has three dogs at home",
    "the bear went over the mountain", "two pigs and a cat would be lovely",
    "row two looks good to me", "i would swap the sheep if i were you", "pass the bread",
    "no no no not again", "yes please one more", "help yourself to the cake",
    "what can i say i love mice", "undo your top button", "three sheep in a row",
    "knock knock who is there", "a mouse in the house", "where are we going for dinner",
    "i pass on dessert", "the score is on the fridge", "who is next to the window",
]
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
    return " ".join(" ".join(group) for group in phrase_groups(command_text, players, rng))


def phrase_groups(command_text: str, players: tuple[str, ...], rng: random.Random) -> list[list[str]]:
    """``phrase`` as groups of words: one group per card named ("pig", "two pigs", "and a cat"),
    one for each run of other words, so a speaker can pause between the cards of a list."""
    cmd = parse(command_text, players)
    templates = TEMPLATES[cmd.intent]
    pattern = rng.choice(expand(rng.choice(templates)))
    groups: list[list[str]] = [[]]
    for element in pattern:
        if element == "cards":
            groups.extend(_say_cards(cmd, rng))
            groups.append([])
        else:
            groups[-1].extend(_element_words(element, cmd))
    groups = [g for g in groups if g]
    text = " ".join(" ".join(g) for g in groups)
    assert parse(text, players).canonical == cmd.canonical, (text, cmd.canonical)
    return groups


def _element_words(element: Element, cmd: Command) -> list[str]:
    """The words of one element of a template's pattern other than its cards."""
    if isinstance(element, tuple):
        return list(element)
    if element == "player":
        return [cmd.player or ""]
    if element == "row":
        return [next(w for w, n in NUMBERS.items() if n == cmd.row and w not in ("a", "an"))]
    if element == "sd_animal":
        assert cmd.animal is not None
        return [plural_word(cmd.animal)]
    if element == "names":
        return list(cmd.names)
    return []


def _say_cards(cmd: Command, rng: random.Random) -> list[list[str]]:
    """The cards of ``cmd`` as spoken, one group of words per card or run of equal cards."""
    counts = list(cmd.cards.counts().items())
    if cmd.intent != "hand" and rng.random() < 0.5:
        return [[a.value] for a in cmd.cards]  # "pig pig cat"
    groups: list[list[str]] = []
    for i, (animal, n) in enumerate(counts):
        words: list[str] = []
        if i and rng.random() < 0.4:
            words.append("and")
        if n == 1:
            words.extend([rng.choice(["a", "one"]), animal.value] if rng.random() < 0.6 else [animal.value])
        else:
            words.extend([next(w for w, m in NUMBERS.items() if m == n), plural_word(animal)])
        groups.append(words)
    return groups


def samples(split: str, count: int, seed: int, synth: str = "espeak") -> list[dict[str, Any]]:
    """``count`` samples of ``split``, spoken by ``synth``'s voices for that split. The held-out
    synthesisers (flite, festival) speak in the test split only, with its table talk."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    while len(out) < count:
        actions = simulate_game(rng)
        assert isinstance(actions[0], NewGame)
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
    prefix = split if synth == "espeak" else f"{split}-{synth}-"
    for i, sample in enumerate(out):
        if synth == "espeak":
            lo, hi = SPEEDS[split]
            plo, phi = PITCHES[split]
            sample.update(voice=rng.choice(VOICES[split]), speed=rng.randint(lo, hi), pitch=rng.randint(plo, phi))
        else:
            # speed: the synthesiser's duration stretch (above 1 is slower); pitch: its own.
            sample.update(voice=rng.choice(HELD_OUT_VOICES[synth]), speed=round(rng.uniform(*STRETCH), 2),
                          pitch=None)
        sample.update(id=f"{prefix}{i:03d}", split=split, synth=synth,
                      noise_offset=rng.random(), chatter_offset=rng.random())
    return out


def near_miss_samples(seed: int) -> list[dict[str, Any]]:
    """Each sentence of ``NEAR_MISS_TALK`` once per synthesiser (test voices), in the moment of a
    simulated game like the other samples; ids ``test-near-<synth>-NNN``. Their own seed, after
    the other samples, so adding them changed none of those."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for synth in SYNTHESISERS:
        for i, text in enumerate(NEAR_MISS_TALK):
            actions = simulate_game(rng)
            assert isinstance(actions[0], NewGame)
            players = tuple(actions[0].players)
            cut = rng.randrange(2, len(actions))
            sample: dict[str, Any] = {"text": text.format(p=rng.choice(players)), "expected": None, "near_miss": True,
                      "context": [canonical(a) for a in actions[:cut]], "players": players,
                      "id": f"test-near-{synth}-{i:03d}", "split": "test", "synth": synth,
                      "noise_offset": rng.random(), "chatter_offset": rng.random()}
            if synth == "espeak":
                sample.update(voice=rng.choice(VOICES["test"]), speed=rng.randint(*SPEEDS["test"]),
                              pitch=rng.randint(*PITCHES["test"]))
            else:
                sample.update(voice=rng.choice(HELD_OUT_VOICES[synth]), speed=round(rng.uniform(*STRETCH), 2),
                              pitch=None)
            out.append(sample)
    return out


# --------------------------------------------------------------------------- audio
def espeak(text: str, voice: str, speed: int, pitch: int, ssml: bool = False) -> bytes:
    """16 kHz mono 16-bit samples of espeak-ng saying ``text`` (resampled by sox); ``ssml``:
    ``text`` is SSML (``<break time="400ms"/>`` between words)."""
    wav = subprocess.run(
        ["espeak-ng", *(["-m"] if ssml else []), "-v", voice, "-s", str(speed), "-p", str(pitch),
         "--stdout", text],
        capture_output=True, check=True,
    ).stdout
    return to_16k(wav)


def flite(text: str, voice: str, stretch: float) -> bytes:
    """flite saying ``text`` with one of its built-in voices, ``stretch`` times slower."""
    with tempfile.TemporaryDirectory(prefix="lifeguard-flite-") as tmp:
        path = Path(tmp) / "out.wav"
        subprocess.run(["flite", "-voice", voice, "--setf", f"duration_stretch={stretch}", "-t", text,
                        "-o", str(path)], capture_output=True, check=True)
        return to_16k(path.read_bytes())


def festival(items: list[tuple[str, str, float]]) -> list[bytes]:
    """Festival saying each ``(text, voice, stretch)``: one ``festival --batch`` process for all
    of them (starting Festival costs more than a sentence), writing into a private folder."""
    if not items:
        return []
    with tempfile.TemporaryDirectory(prefix="lifeguard-festival-") as tmp:
        lines = []
        for i, (text, voice, stretch) in enumerate(items):
            said = text.replace("\\", " ").replace('"', " ")
            lines += [f"(voice_{voice})", f"(Parameter.set 'Duration_Stretch {stretch})",
                      f'(utt.save.wave (utt.synth (Utterance Text "{said}")) "{tmp}/{i}.wav" \'riff)']
        script = Path(tmp) / "say.scm"
        script.write_text("\n".join(lines) + "\n")
        subprocess.run(["festival", "--batch", str(script)], capture_output=True, check=True)
        return [to_16k((Path(tmp) / f"{i}.wav").read_bytes()) for i in range(len(items))]


def to_16k(wav: bytes) -> bytes:
    """A WAV file's samples as 16 kHz mono 16-bit (sox converts, when needed)."""
    with wave.open(io.BytesIO(wav)) as w:
        if (w.getframerate(), w.getnchannels(), w.getsampwidth()) == (RATE, 1, 2):
            return bytes(w.readframes(w.getnframes()))
    wav = subprocess.run(
        ["sox", "-R", "-t", "wav", "-", "-t", "wav", "-r", str(RATE), "-b", "16", "-c", "1", "-"],
        input=wav, capture_output=True, check=True,
    ).stdout
    with wave.open(io.BytesIO(wav)) as w:
        return bytes(w.readframes(w.getnframes()))


def synthesise(batch: list[dict[str, Any]]) -> list[bytes]:
    """The speech of each sample of ``batch`` (any mix of synthesisers), in order."""
    out: list[bytes | None] = [None] * len(batch)
    by_festival = [i for i, s in enumerate(batch) if s["synth"] == "festival"]
    for i, speech in zip(by_festival, festival([(batch[i]["text"], batch[i]["voice"], batch[i]["speed"])
                                                for i in by_festival]), strict=True):
        out[i] = speech
    for i, sample in enumerate(batch):
        if sample["synth"] == "espeak":
            out[i] = espeak(sample["text"], sample["voice"], sample["speed"], sample["pitch"])
        elif sample["synth"] == "flite":
            out[i] = flite(sample["text"], sample["voice"], sample["speed"])
    assert all(speech is not None for speech in out)
    return out  # type: ignore[return-value]


def write_wav(path: Path, raw: bytes) -> None:
    """``raw`` as a WAV file at ``path``, written under another name and renamed into place:
    a run reading the file while another run writes it reads the whole of one or the other."""
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.stem}-", suffix=".wav", delete=False) as file:
        with wave.open(file, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(RATE)
            w.writeframes(raw)
    os.replace(file.name, path)


def background(speech: bytes, n: int, track: bytes, offset: float, snr_db: float) -> bytes:
    """``n`` bytes of ``track`` (looped from ``offset``), ``snr_db`` below the speech's level."""
    start = int(offset * (len(track) // 2 - 1)) * 2
    looped = (track[start:] + track * (n // len(track) + 2))[:n]
    speech_rms = audioop.rms(speech, 2) or 1
    track_rms = audioop.rms(looped, 2) or 1
    gain = speech_rms / track_rms / (10 ** (snr_db / 20))
    return audioop.mul(looped, 2, gain)


def pink_noise(seconds: int, out_dir: Path) -> bytes:
    """``seconds`` of sox's repeatable (``-R``) pink noise, also kept as ``out_dir/pink.wav``.
    Made and read back under a name of this run's own, then renamed into place: runs sharing
    ``out_dir`` that rewrote and read pink.wav itself read each other's file half written, a
    shorter noise and so another game's audio (bench/NOTES.md, session 20)."""
    with tempfile.NamedTemporaryFile(dir=out_dir, prefix=".pink-", suffix=".wav", delete=False) as file:
        made = Path(file.name)
    subprocess.run(["sox", "-R", "-n", "-r", str(RATE), "-b", "16", "-c", "1", str(made),
                    "synth", str(seconds), "pinknoise", "vol", "0.3"], check=True)
    with wave.open(str(made)) as w:
        noise = bytes(w.readframes(w.getnframes()))
    os.replace(made, out_dir / "pink.wav")
    return noise


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


def room_response(seed: str) -> tuple[np.ndarray, float]:
    """A synthetic room impulse response (statistical room acoustics) and the talker-microphone
    distance (m) it was drawn with: the direct sound (a unit impulse at 0), then, from 2 ms on,
    Gaussian noise decaying by 60 dB over ``RT60`` (the diffuse reverberation, 1.2 RT60 long),
    scaled to the direct-to-reverberant energy ratio of that distance, ``(r_c / r)**2`` with the
    critical distance ``r_c = 0.057 sqrt(Q V / RT60)`` (0.88 m here: -1 to -7 dB for 1-2 m).
    Flat in frequency (no air absorption). Seeded by ``seed`` alone (a string: Python's
    ``random`` hashes it the same in every process)."""
    rng = random.Random(seed)
    distance = rng.uniform(*MIC_DISTANCE)
    critical = 0.057 * (TALKER_Q * ROOM_VOLUME / RT60) ** 0.5
    n = int(1.2 * RT60 * RATE)
    t = np.arange(n) / RATE
    tail = np.random.default_rng(rng.getrandbits(64)).standard_normal(n) * 10 ** (-3 * t / RT60)
    tail[: int(0.002 * RATE)] = 0.0
    tail *= (distance / critical) / np.sqrt(np.sum(tail**2))  # reverberant energy / direct = (r / r_c)**2
    tail[0] = 1.0
    return tail, distance


def reverberate(clean: bytes, seed: str) -> bytes:
    """``clean`` (16-bit samples) in a room (``room_response``), as long as ``clean`` and at its
    level (the same RMS over the file)."""
    x = np.frombuffer(clean, dtype=np.int16).astype(np.float64)
    h, _ = room_response(seed)
    size = 1 << int(np.ceil(np.log2(len(x) + len(h))))
    wet = np.fft.irfft(np.fft.rfft(x, size) * np.fft.rfft(h, size), size)[: len(x)]
    wet *= np.sqrt(np.mean(x**2) / max(float(np.mean(wet**2)), 1e-9))
    return bytes(np.clip(np.round(wet), -32768, 32767).astype("<i2").tobytes())


def write_sample(sample: Mapping[str, Any], speech: bytes, out: Path, pink: bytes,
                 chatter: bytes) -> list[dict[str, Any]]:
    """The four conditions of one sample as WAV files; their manifest entries."""
    pad = bytes(int(PAD * RATE) * 2)
    clean = pad + speech + pad
    conditions = {
        "clean": clean,
        "noise": audioop.add(clean, background(speech, len(clean), pink, sample["noise_offset"], 10.0), 2),
        "chatter": audioop.add(clean, background(speech, len(clean), chatter, sample["chatter_offset"], 10.0), 2),
        "reverb": reverberate(clean, f"room-{sample['id']}"),
    }
    entries = []
    for condition, raw in conditions.items():
        path = out / f"{sample['id']}_{condition}.wav"
        write_wav(path, raw)
        entries.append({**sample, "players": list(sample["players"]), "condition": condition,
                        "file": str(path), "speech_seconds": len(speech) / (2 * RATE), "pad_seconds": PAD})
    return entries


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).parent / "out" / "voice"))
    parser.add_argument("--per-split", type=int, default=200,
                        help="espeak-ng utterances per split (x4 conditions)")
    parser.add_argument("--held-out", type=int, default=100,
                        help="test utterances per held-out synthesiser, flite and festival (x4 conditions)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-near-miss", dest="near_miss", action="store_false",
                        help="leave out the near-miss table talk (test split)")
    parser.add_argument("--jobs", type=int, default=2, help="synthesise in this many threads")
    args = parser.parse_args(argv)
    tools = ["espeak-ng", "sox"] + (["flite", "festival"] if args.held_out or args.near_miss else [])
    for tool in tools:
        if shutil.which(tool) is None:
            print(f"voice_corpus: {tool} is not installed (make setup installs it).", file=sys.stderr)
            return 2
    started = time.monotonic()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    pink = pink_noise(60, out)
    chatter = chatter_track(rng)
    todo = [*samples("tune", args.per_split, args.seed), *samples("test", args.per_split, args.seed + 1000)]
    for k, synth in enumerate(HELD_OUT_VOICES, start=2):
        todo += samples("test", args.held_out, args.seed + 1000 * k, synth)
    if args.near_miss:
        todo += near_miss_samples(args.seed + 5000)
    # Each batch synthesises and writes its own files (festival's in one process per batch);
    # the manifest is written whole at the end, under a temporary name first, so a reader never
    # sees half of one.
    batches = [todo[i::max(args.jobs, 1) * 4] for i in range(max(args.jobs, 1) * 4)]

    def run(batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [entry for sample, speech in zip(batch, synthesise(batch), strict=True)
                for entry in write_sample(sample, speech, out, pink, chatter)]

    with ThreadPoolExecutor(max(args.jobs, 1)) as pool:
        entries = [entry for part in pool.map(run, batches) for entry in part]
    order = {sample["id"]: i for i, sample in enumerate(todo)}
    manifest = sorted(entries, key=lambda e: order[e["id"]])  # the conditions stay in their order
    partial = out / f"manifest.json.{os.getpid()}"
    partial.write_text(json.dumps(manifest, indent=1))
    partial.replace(out / "manifest.json")
    talk = sum(1 for m in manifest if m["expected"] is None)
    per_synth = ", ".join(f"{synth} {sum(m['synth'] == synth for m in manifest)}" for synth in SYNTHESISERS)
    print(f"{len(manifest)} files ({talk} of table talk; {per_synth}) in {out} "
          f"in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
