"""Speech out in the table's language: espeak-ng's German and Korean voices, through the path the
table speaks by (the speaker's pyttsx3 espeak engine writing a WAV, a player process playing it).

Real audio: each announcement is synthesised by the speaker and compared with what espeak-ng's
own command line says for the same text in each voice; the speaker's WAV must have sound in it
and match the language's voice (German: sample for sample), not English's.
"""

from __future__ import annotations

import shutil
import subprocess
import wave
from pathlib import Path

import numpy as np
import pytest

from assistant import announce, i18n
from assistant.config import VoiceSettings
from assistant.voice.speaker import Speaker, voice_for
from engine.deck import Animal
from engine.events import Majority, RoundEnded

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None,
                                  reason="espeak-ng is installed by 'make setup'")


def test_the_default_voice_follows_the_table_s_language() -> None:
    assert [voice_for("en", lang) for lang in ("en", "de", "ko")] == ["en", "de", "ko"]
    assert voice_for("", "ko") == "ko" and voice_for(" en ", "de") == "de"


def test_a_voice_named_in_the_settings_is_kept() -> None:
    assert voice_for("en-us", "de") == "en-us"
    assert voice_for("de+m3", "ko") == "de+m3"
    assert voice_for("ko", "en") == "ko"


def result_sentence(language: str) -> str:
    """A round's result as the announcer says it aloud in ``language`` (brief)."""
    ended = RoundEnded(round=3, sudden_death=None, majorities=(Majority(Animal.BEAR, "dave", 3),),
                       points={"ivan": 0, "carol": 0, "dave": 8}, losses={"ivan": 2, "carol": 1, "dave": 0},
                       lives={"ivan": 0, "carol": 2, "dave": 5}, out=("ivan",))
    i18n.set_language(language)
    try:
        return " ".join(announce.brief(ended))
    finally:
        i18n.set_language("en")


def samples(path: Path) -> np.ndarray:
    with wave.open(str(path)) as wav:
        assert wav.getnchannels() == 1 and wav.getsampwidth() == 2
        return np.frombuffer(wav.readframes(wav.getnframes()), dtype=np.int16)


def spoken_by_speaker(text: str, language: str, settings: VoiceSettings,
                      folder: Path) -> tuple[np.ndarray, str | None]:
    """``text`` said by a ``Speaker`` at a table in ``language``: the WAV it had played, and the
    voice the speech engine reports it spoke with."""
    log = folder / "played.txt"
    player = ["sh", "-c", 'echo "$1" >> "$0"', str(log), "{file}"]
    speaker = Speaker(settings, player=player, wav_dir=folder / "said")
    i18n.set_language(language)
    try:
        speaker.start()
        speaker.say(text)
        assert speaker.wait_idle(30)
    finally:
        speaker.close()
        i18n.set_language("en")
    assert speaker.state == "on", speaker.reason
    assert [line for line in log.read_text().split() if "probe" not in line]  # it was played
    wavs = sorted((folder / "said").glob("*.wav"))
    assert len(wavs) == 1
    return samples(wavs[0]), speaker.voice


def espeak_ng(text: str, voice: str, settings: VoiceSettings, path: Path) -> np.ndarray:
    """``text`` said by espeak-ng's command line in ``voice`` at the speaker's rate."""
    subprocess.run(["espeak-ng", "-v", voice, "-s", str(settings.rate), "-w", str(path), text],
                   check=True, capture_output=True)
    return samples(path)


def sounding_seconds(audio: np.ndarray, rate: int = 22050) -> float:
    """Seconds of 10 ms frames louder than 2% of full scale."""
    frames = audio[: len(audio) // 220 * 220].reshape(-1, 220).astype(np.float64)
    loud = np.sqrt((frames**2).mean(axis=1)) > 0.02 * 32768
    return float(loud.sum()) * 0.01 if rate == 22050 else 0.0


def bands(audio: np.ndarray) -> np.ndarray:
    """Log energies in 24 frequency bands per 20 ms frame, each frame's mean taken out (the
    shape of the spectrum: what a voice's vowels and consonants sound like)."""
    frame = 441
    frames = audio[: len(audio) // frame * frame].reshape(-1, frame).astype(np.float64)
    frames = frames[np.sqrt((frames**2).mean(axis=1)) > 0.02 * 32768]  # the sounding frames
    spectrum = np.abs(np.fft.rfft(frames * np.hanning(frame), axis=1)) ** 2
    edges = np.unique(np.geomspace(2, spectrum.shape[1] - 1, 25).astype(int))
    energy = np.stack([spectrum[:, a:b].sum(axis=1) for a, b in zip(edges[:-1], edges[1:], strict=True)], 1)
    logs: np.ndarray = np.log(energy + 1e-3)
    centred: np.ndarray = logs - logs.mean(axis=1, keepdims=True)
    return centred


def distance(a: np.ndarray, b: np.ndarray) -> float:
    """Dynamic time warping of two utterances' band frames: the mean frame distance along the
    best alignment (0: the same sounds in the same order)."""
    x, y = bands(a), bands(b)
    cost = np.sqrt(((x[:, None, :] - y[None, :, :]) ** 2).sum(axis=2))
    total = np.full((len(x) + 1, len(y) + 1), np.inf)
    total[0, 0] = 0.0
    for i in range(1, len(x) + 1):
        row = cost[i - 1]
        for j in range(1, len(y) + 1):
            total[i, j] = row[j - 1] + min(total[i - 1, j], total[i, j - 1], total[i - 1, j - 1])
    return float(total[-1, -1] / (len(x) + len(y)))


#: The voice pyttsx3 reports for each language's espeak-ng voice (its identifier).
VOICE_IDS = {"de": "gmw/de", "ko": "ko", "en-us": "gmw/en-us"}


@needs_espeak
@pytest.mark.parametrize("language", ["de", "ko"])
def test_an_announcement_is_spoken_with_the_language_s_voice(language: str, tmp_path: Path) -> None:
    text = result_sentence(language)
    assert ("verliert" in text) if language == "de" else ("잃습니다" in text)
    settings = VoiceSettings()  # the default voice: the table's language
    said, voice = spoken_by_speaker(text, language, settings, tmp_path)
    assert voice == VOICE_IDS[language]
    assert sounding_seconds(said) > 1.0  # not silent: over a second of speech
    own = distance(said, espeak_ng(text, language, settings, tmp_path / "own.wav"))
    english = distance(said, espeak_ng(text, "en", settings, tmp_path / "en.wav"))
    other = distance(said, espeak_ng(text, "ko" if language == "de" else "de", settings,
                                     tmp_path / "other.wav"))
    # Sounds as espeak-ng's own voice for the language says it, not as English's or the other's.
    assert own < 0.5 * min(english, other), (own, english, other)


@needs_espeak
def test_an_explicit_voice_is_kept_at_a_german_table(tmp_path: Path) -> None:
    text = result_sentence("de")
    settings = VoiceSettings(voice="en-us")
    said, voice = spoken_by_speaker(text, "de", settings, tmp_path)
    assert voice == VOICE_IDS["en-us"] and sounding_seconds(said) > 1.0
    kept = distance(said, espeak_ng(text, "en-us", settings, tmp_path / "en-us.wav"))
    german = distance(said, espeak_ng(text, "de", settings, tmp_path / "de.wav"))
    assert kept < 0.5 * german, (kept, german)
