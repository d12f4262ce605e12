"""WAV files a tester made odd on purpose: cut mid-sample, or with absurd sample rates or lengths.

Every path that reads them is checked: ``lifeguard hear``, and the ``--audio-input`` source
(``WavSource``) that ``lifeguard listen`` and the table play in. A cut-off recording is still
heard (its last partial frame dropped) and does not spoil the files after it; a file with an
absurd header is refused in one sentence, the way a three-channel WAV is.
"""

from __future__ import annotations

import struct
import subprocess
import sys
import wave
from pathlib import Path

import pytest

from assistant.voice.audio import AudioUnavailable, WavSource
from assistant.voice.recognizer import read_wav
from assistant.voice.recording import MAX_AUDIO_SECONDS

from .conftest import needs_espeak

PLAYERS = ["--players", "alice", "bob", "carol"]


def lifeguard(*args: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "assistant.cli", *args], capture_output=True,
                          text=True, env=env, timeout=timeout, check=False)


def spoken(synth, text: str, out: Path, channels: int = 1) -> Path:
    """espeak-ng saying ``text``, as 16 kHz 16-bit PCM with ``channels`` channels."""
    subprocess.run(["sox", str(synth(text)), "-r", "16000", "-b", "16", "-c", str(channels), str(out)],
                   check=True)
    return out


def cut(path: Path, out: Path, drop: int) -> Path:
    """``path`` without its last ``drop`` bytes, as ``head -c`` cuts it (the header still gives
    the whole length)."""
    data = path.read_bytes()
    out.write_bytes(data[: len(data) - drop])
    return out


def wav(out: Path, rate: int, frames: bytes, width: int = 2) -> Path:
    """A mono WAV of ``frames`` whose header says ``rate``: written by ``wave`` at 16 kHz, then
    the rate fields set (``wave`` cannot write a byte rate over 32 bits)."""
    with wave.open(str(out), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(width)
        w.setframerate(16000)
        w.writeframes(frames)
    with out.open("r+b") as f:
        f.seek(24)
        f.write(struct.pack("<LL", rate, (rate * width) & 0xFFFFFFFF))
    return out


# ---------------------------------------------------------------------------- cut mid-sample
@needs_espeak
def test_hear_a_recording_cut_mid_sample_is_still_heard(synth, tmp_path: Path, isolated_env) -> None:
    mono = spoken(synth, "carol passes", tmp_path / "mono.wav")
    stereo = spoken(synth, "carol passes", tmp_path / "stereo.wav", channels=2)
    files = [cut(mono, tmp_path / "mono_cut.wav", 1001),  # 16-bit mono ending on half a sample
             cut(stereo, tmp_path / "stereo_cut.wav", 1002),  # 16-bit stereo ending mid-frame
             cut(stereo, tmp_path / "stereo_odd.wav", 1001)]
    assert all(f.stat().st_size % 2 == 1 for f in files[::2]) and files[1].stat().st_size % 4 == 2
    done = lifeguard("hear", "--engine", "pocketsphinx", *PLAYERS, "--", *map(str, files), env=isolated_env)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
    assert done.stdout == "carol passes\n" * 3


@needs_espeak
@pytest.mark.slow
def test_listen_hears_the_file_after_a_recording_cut_mid_sample(synth, tmp_path: Path, isolated_env) -> None:
    """The files are played in one after another: the cut one's half sample once shifted every
    later sample by a byte, and the file after it was heard as noise."""
    first = cut(spoken(synth, "row one pig", tmp_path / "r1.wav"), tmp_path / "r1_cut.wav", 1001)
    second = spoken(synth, "row two bear and dog", tmp_path / "r2.wav")
    done = lifeguard("--seed", "1", "listen", "--engine", "pocketsphinx", "--quiet", "--no-store", *PLAYERS,
                     "--audio-input", str(first), str(second), env=isolated_env)
    assert "Traceback" not in done.stderr, done.stderr
    heard = [line for line in done.stdout.splitlines() if line.startswith("heard: ")]
    assert heard == ["heard: row 1 pig", "heard: row 2 bear dog"], done.stdout


def test_the_audio_input_keeps_later_files_aligned_after_a_cut_one(tmp_path: Path) -> None:
    """What ``listen`` and the table play: each file's span starts on a whole sample and holds
    the same samples it would without the cut file before it."""
    samples = bytes(range(256)) * 64  # distinct 16-bit values, so a shift by a byte shows
    whole = wav(tmp_path / "whole.wav", 16000, samples)
    cut_one = cut(whole, tmp_path / "cut.wav", 1)
    source = WavSource([str(cut_one), str(whole)], realtime=False)
    source.load()
    (a, b), (c, d) = source.spans
    assert len(source.data) % 2 == 0 and a % 2 == 0 and c % 2 == 0
    assert source.data[a:b] == samples[:-2]  # the last, cut sample is left out
    assert source.data[c:d] == samples


# ---------------------------------------------------------------------------- absurd headers
def test_an_absurd_sample_rate_or_length_is_refused_by_the_reader(tmp_path: Path) -> None:
    """``read_wav``, which ``hear`` and the audio input both call. A 200 KB file said to be at
    1 Hz lasts 28 hours: brought to 16 kHz it would take 3 GB. Checked here in-process, where
    the reader refuses it before anything converts it."""
    speech = bytes(200_000)
    with pytest.raises(ValueError, match=r"^its sample rate, 1 Hz, is not between 4000 and 384000 Hz$"):
        read_wav(str(wav(tmp_path / "slow.wav", 1, speech)))
    with pytest.raises(ValueError, match=r"sample rate, 4294967295 Hz"):
        read_wav(str(wav(tmp_path / "fast.wav", 4294967295, speech)))
    with pytest.raises(ValueError, match=r"^it lasts 60 min 1 s, over the 60 minutes heard at most$"):
        read_wav(str(wav(tmp_path / "long.wav", 4000, bytes([128]) * 4000 * 3601, width=1)))
    # The bounds themselves are taken: a second at 4 and at 384 kHz, and an hour exactly.
    for rate in (4000, 384000):
        audio = read_wav(str(wav(tmp_path / f"r{rate}.wav", rate, bytes(rate * 2))))
        assert abs(len(audio.get_raw_data(convert_rate=16000, convert_width=2)) - 32000) <= 16
    assert MAX_AUDIO_SECONDS == 3600
    hour = read_wav(str(wav(tmp_path / "hour.wav", 4000, bytes([128]) * 4000 * 3600, width=1)))
    assert abs(len(hour.get_raw_data()) - 16000 * 3600 * 2) <= 16 and not any(hour.get_raw_data()[::4001])


def test_hear_refuses_absurd_headers_in_a_sentence_and_hears_the_rest(tmp_path: Path, isolated_env) -> None:
    """Each is refused as a three-channel WAV is, and the files after it are still decoded."""
    speech = bytes(32000)
    three = tmp_path / "three.wav"
    with wave.open(str(three), "wb") as w:
        w.setnchannels(3)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(bytes(6000))
    refused = [wav(tmp_path / "huge.wav", 4294967295, speech),
               wav(tmp_path / "c_int.wav", 2**31, speech),
               wav(tmp_path / "too_low.wav", 3999, speech),
               wav(tmp_path / "too_high.wav", 384001, speech),
               wav(tmp_path / "long.wav", 4000, bytes([128]) * 4000 * 3612, width=1),
               three]
    fine = wav(tmp_path / "fine.wav", 16000, speech)
    done = lifeguard("hear", "--engine", "pocketsphinx", *PLAYERS, "--json", "--",
                     *map(str, refused), str(fine), env=isolated_env)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2
    assert done.stdout == f'[{{"file": "{fine}", "command": null}}]\n'  # silence: decoded, no command
    # Each line names its file (cut to a length: only the ending is compared) and says why.
    why = [line.split(": not a recording to hear ", 1) for line in done.stderr.splitlines()]
    assert [w[0].startswith("lifeguard hear: ") for w in why] == [True] * len(refused)
    assert [w[1] for w in why] == [
        "(its sample rate, 4294967295 Hz, is not between 4000 and 384000 Hz).",
        "(its sample rate, 2147483648 Hz, is not between 4000 and 384000 Hz).",
        "(its sample rate, 3999 Hz, is not between 4000 and 384000 Hz).",
        "(its sample rate, 384001 Hz, is not between 4000 and 384000 Hz).",
        "(it lasts 60 min 12 s, over the 60 minutes heard at most).",
        "(it has 3 channels; a recording to hear is mono or stereo).",
    ]


def test_the_audio_input_refuses_an_absurd_header_as_it_does_three_channels(tmp_path: Path) -> None:
    """``WavSource.load`` (``listen --audio-input`` and the table) names the file and says why."""
    fast = wav(tmp_path / "fast.wav", 4294967295, bytes(32000))
    long = wav(tmp_path / "long.wav", 4000, bytes([128]) * 4000 * 3612, width=1)
    for path, why in [(fast, "its sample rate, 4294967295 Hz, is not between 4000 and 384000 Hz"),
                      (long, "it lasts 60 min 12 s, over the 60 minutes heard at most")]:
        source = WavSource([str(wav(tmp_path / "ok.wav", 16000, bytes(3200))), str(path)], realtime=False)
        with pytest.raises(AudioUnavailable) as refused:
            source.load()
        assert str(refused.value) == f"cannot read audio input {path}: {why}"
        assert source.data == b""  # nothing was half loaded


@needs_espeak
@pytest.mark.slow
def test_listen_reports_an_absurd_header_as_it_does_three_channels(synth, tmp_path: Path, isolated_env) -> None:
    fast = wav(tmp_path / "fast.wav", 4294967295, bytes(32000))
    good = spoken(synth, "row one pig", tmp_path / "r1.wav")
    done = lifeguard("--seed", "1", "listen", "--engine", "pocketsphinx", "--quiet", "--no-store", *PLAYERS,
                     "--audio-input", str(fast), str(good), env=isolated_env)
    assert "Traceback" not in done.stderr, done.stderr
    assert (f"(listening: cannot read audio input {fast}: its sample rate, 4294967295 Hz, is not "
            "between 4000 and 384000 Hz)") in done.stdout, done.stdout
