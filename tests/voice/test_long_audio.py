"""Long, compressed and malformed recordings: nothing a file holds takes ``hear`` or the audio
input (``listen --audio-input``, the table) down, nor makes it grow without bound.

* A recording longer than Whisper's 30 s window (it crashed at 28 s) is cut at its pauses into
  utterances, each heard in turn; speech with no pause is cut before the window.
* Memory is bounded by a file's decoded length, checked from its header before anything is
  decoded: an hour of 4 kHz 8-bit WAV (14 MB) took over 2 GB; a FLAC said to last hours at
  384 kHz was decoded whole into memory first. Peak memory stays under 600 MB.
* Every malformed header is a sentence (a chunk said to be 4 GB; 40-bit samples).
* A Whisper model folder whose config.json is not the object expected is a sentence.

All files are made here, at test time (small on disk, or generated).
"""

from __future__ import annotations

import json
import math
import os
import random
import struct
import subprocess
import sys
import wave
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.voice.audio import AudioUnavailable, WavSource
from assistant.voice.recognizer import (
    TOO_LONG_REASON,
    CommandRecognizer,
    make_recognizer,
    speech_recognition,
)
from assistant.voice.recording import (
    MAX_UTTERANCE_SECONDS,
    AudioRefused,
    open_recording,
    utterances,
)
from assistant.voice.whisper.modelfile import packaged_model_dir

from .conftest import join_wavs, needs_espeak

PLAYERS = ["--players", "alice", "bob", "carol", "--"]
#: The most memory ``hear`` or ``listen --audio-input`` may take on any file it accepts.
PEAK_LIMIT_MB = 600


def lifeguard(*args: str, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "assistant.cli", *args], capture_output=True,
                          text=True, env=env, timeout=timeout, check=False)


def peak_mb(args: list[str], env: dict[str, str], stop_after: float | None = None) -> tuple[float, str, str]:
    """Run ``lifeguard args`` in a child of a fresh interpreter and give the child's peak
    resident memory (MB), its output and its errors; ``stop_after``: interrupt it then (Ctrl+C)."""
    script = (
        "import resource, signal, subprocess, sys, json\n"
        # Ctrl+C's default handling for the child, as a terminal gives it: a suite started in
        # the background (`make test &`) ignores SIGINT, and the child would inherit that.
        "p = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,\n"
        "                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))\n"
        "stop = float(sys.argv[1])\n"
        "try:\n"
        "    out, err = p.communicate(timeout=stop if stop > 0 else 560)\n"
        "except subprocess.TimeoutExpired:\n"
        "    p.send_signal(signal.SIGINT)\n"
        "    try:\n"
        "        out, err = p.communicate(timeout=60)\n"
        "    except subprocess.TimeoutExpired:\n"
        "        p.kill()  # never leave the child behind\n"
        "        out, err = p.communicate()\n"
        "        err += '(not stopped by Ctrl+C within 60 s)'\n"
        "print(json.dumps([resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, out, err]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(stop_after or 0), sys.executable, "-m",
                           "assistant.cli", *args], capture_output=True, text=True, env=env, timeout=600,
                          check=True)
    peak, out, err = json.loads(done.stdout)
    return peak, out, err


def write_wav(path: Path, rate: int, frames: bytes | Iterator[bytes], width: int = 2, channels: int = 1) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(width)
        w.setframerate(rate)
        for part in [frames] if isinstance(frames, bytes) else frames:
            w.writeframes(part)
    return path


def tone(seconds: float, level: int = 8000, rate: int = 16000) -> bytes:
    """A 300 Hz tone made to sound like speech by a 4 Hz rise and fall (16-bit mono)."""
    t = np.arange(int(seconds * rate)) / rate
    wave_ = np.sin(2 * np.pi * 300 * t) * (0.6 + 0.4 * np.sin(2 * np.pi * 4 * t))
    return (wave_ * level).astype("<i2").tobytes()


def quiet(seconds: float, rate: int = 16000) -> bytes:
    return bytes(int(seconds * rate) * 2)


def blocks_of(data: bytes, size: int = 32000) -> Iterator[bytes]:
    for i in range(0, len(data), size):
        yield data[i : i + size]


# ---------------------------------------------------------------------------- utterances
def test_a_recording_within_the_limit_is_one_utterance_as_it_is() -> None:
    data = quiet(1) + tone(2) + quiet(5) + tone(2) + quiet(1)
    assert list(utterances(blocks_of(data))) == [(0.0, data)]
    assert list(utterances([])) == []


def test_a_long_recording_is_cut_at_its_pauses_and_its_quiet_left_out() -> None:
    """Four bursts of 'speech' over 61 s, with 10 s or more of quiet between: four utterances,
    each starting 0.3 s before its burst, and none of the quiet between heard on its own."""
    starts = [3.0, 15.0, 27.5, 50.0]
    data = bytearray()
    for start in starts:
        data += quiet(start - len(data) / 32000) + tone(2.5)
    data += quiet(61 - len(data) / 32000)
    heard = list(utterances(blocks_of(bytes(data))))
    assert len(heard) == len(starts)
    assert all(abs(at - (start - 0.3)) <= 0.03 for (at, _), start in zip(heard, starts, strict=True))  # 30 ms frames
    assert all(2.5 <= len(audio) / 32000 <= 3.2 for _, audio in heard)
    assert all(any(audio) for _, audio in heard)


def test_speech_with_no_pause_is_cut_below_whisper_s_window() -> None:
    """70 s of 'speech' with no pause: every piece is at most MAX_UTTERANCE_SECONDS and together
    they hold all of it, in order."""
    data = tone(70)
    heard = list(utterances(blocks_of(data)))
    assert len(heard) >= 3
    assert all(len(audio) / 32000 <= MAX_UTTERANCE_SECONDS for _, audio in heard)
    assert b"".join(audio for _, audio in heard) == data
    assert [at for at, _ in heard] == sorted(at for at, _ in heard)


@pytest.mark.slow
def test_whisper_refuses_an_utterance_over_its_window_in_a_sentence() -> None:
    """What the listener could hand over (an unfinished command joined to what followed, up to
    four 12 s phrases): a reason, not "Invalid input features shape"."""
    recognizer, note = make_recognizer("whisper", ("alice", "bob", "carol"))
    assert note is None, note
    rng = np.random.default_rng(5)
    noise = (rng.normal(0, 3000, 16000 * 40)).astype("<i2").tobytes()
    decoded = recognizer.decode(noise)
    assert decoded.command is None and decoded.reason == TOO_LONG_REASON
    # Just inside the limit, it is heard (talk or nothing, but no error).
    inside = recognizer.decode(noise[: int(MAX_UTTERANCE_SECONDS * 16000) * 2])
    assert inside.reason != TOO_LONG_REASON


@needs_espeak
@pytest.mark.slow
def test_hear_a_recording_longer_than_whisper_s_window_hears_each_command(
        synth, tmp_path: Path, isolated_env: dict[str, str]) -> None:
    """Four commands with 8 s of quiet between them (57 s in all) used to crash Whisper; now
    each is heard and printed in turn, and the JSON says where each utterance begins."""
    said = ["carol knocks", "bob passes", "carol swaps row two bear and dog", "row one pig"]
    long = join_wavs([synth(text) for text in said], tmp_path / "long.wav", pause=8.0)
    with wave.open(str(long)) as w:
        assert w.getnframes() / w.getframerate() > 30
    done = lifeguard("hear", *PLAYERS, str(long), env=isolated_env)
    assert "Traceback" not in done.stderr and done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["carol knocks", "bob passes", "carol swaps 2 bear dog", "row 1 pig"]
    done = lifeguard("hear", "--json", *PLAYERS, str(long), env=isolated_env)
    entries = json.loads(done.stdout)
    assert [e["command"] for e in entries] == ["carol knocks", "bob passes", "carol swaps 2 bear dog", "row 1 pig"]
    assert [e["at"] for e in entries] == sorted(e["at"] for e in entries) and entries[0]["at"] < 1


# ---------------------------------------------------------------------------- memory
def hour_of_4khz_8bit(path: Path, speech: bytes = b"") -> Path:
    """An hour of faint noise at 4 kHz, 8-bit (14 MB), with ``speech`` (4 kHz 8-bit frames)
    at minute 5, 25 and 45."""
    rng = random.Random(1)
    minute = bytes(128 + rng.randint(-2, 2) for _ in range(4000 * 60))

    def minutes() -> Iterator[bytes]:
        for m in range(60):
            yield speech + minute[len(speech):] if m % 20 == 5 else minute

    return write_wav(path, 4000, minutes(), width=1)


def speech_4khz_8bit(synth, tmp_path: Path) -> bytes:
    said = join_wavs([synth("carol knocks"), synth("row one pig")], tmp_path / "two.wav", pause=2.0)
    low = tmp_path / "two_4k.wav"
    subprocess.run(["sox", str(said), "-r", "4000", "-b", "8", "-e", "unsigned", str(low)], check=True)
    with wave.open(str(low)) as w:
        return w.readframes(w.getnframes())


@needs_espeak
@pytest.mark.slow
def test_hear_and_listen_on_an_hour_of_4khz_8bit_audio_stay_under_600_mb(
        synth, tmp_path: Path, isolated_env: dict[str, str]) -> None:
    """The 14 MB hour took over 2 GB (its room tone, and PocketSphinx on it whole): now hear
    goes through it an utterance at a time and hears the commands in it; listen holds it at
    16 kHz (115 MB) while it plays it in."""
    hour = hour_of_4khz_8bit(tmp_path / "hour.wav", speech_4khz_8bit(synth, tmp_path))
    assert hour.stat().st_size < 15_000_000
    for engine in ("whisper", "pocketsphinx"):
        peak, out, err = peak_mb(["hear", "--engine", engine, "--json", *PLAYERS, str(hour)], isolated_env)
        assert "Traceback" not in err, err
        heard = [e for e in json.loads(out) if e["command"]]
        assert [e["command"] for e in heard].count("row 1 pig") >= 2, (engine, out)
        assert peak < PEAK_LIMIT_MB, (engine, peak)
    peak, out, err = peak_mb(["--seed", "1", "listen", "--quiet", "--no-store", "--players", "alice", "bob",
                              "carol", "--audio-input", str(hour)], isolated_env, stop_after=20)
    assert "Traceback" not in err and "listening:" not in out, (out, err)
    assert "not stopped by Ctrl+C" not in err, err
    assert peak < PEAK_LIMIT_MB, peak


def flac_of(wav_path: Path, out: Path) -> Path:
    """``wav_path`` encoded by the ``flac`` program that decodes FLAC for Lifeguard (the
    system's, else the one SpeechRecognition ships)."""
    program = speech_recognition().get_flac_converter()
    subprocess.run([program, "--totally-silent", "--force", "-o", str(out), str(wav_path)], check=True)
    return out


def set_streaminfo(path: Path, rate: int | None = None, total: int | None = None) -> Path:
    """Rewrite a FLAC file's STREAMINFO: its sample rate and total samples (0: not said)."""
    data = bytearray(path.read_bytes())
    assert data[:4] == b"fLaC"
    packed = int.from_bytes(data[18:26], "big")
    if rate is not None:
        packed = (packed & ((1 << 44) - 1)) | (rate << 44)
    if total is not None:
        packed = (packed & ~((1 << 36) - 1)) | total
    data[18:26] = packed.to_bytes(8, "big")
    path.write_bytes(bytes(data))
    return path


def test_a_flac_file_is_bounded_by_its_decoded_length_before_it_is_decoded(
        tmp_path: Path, isolated_env: dict[str, str]) -> None:
    """A small FLAC whose STREAMINFO says hours at 384 kHz is refused from its header; one that
    does not say its length is counted as it streams, and refused at the hour; a real one is
    heard the same as its WAV."""
    short = write_wav(tmp_path / "short.wav", 16000, quiet(0.5) + tone(1.0) + quiet(0.5))
    flac = flac_of(short, tmp_path / "short.flac")
    assert open_recording(flac).seconds == 2.0
    assert b"".join(open_recording(flac).blocks()) == b"".join(open_recording(short).blocks())
    hours = set_streaminfo(flac_of(short, tmp_path / "hours.flac"), rate=384000, total=384000 * 3600 * 3)
    with pytest.raises(AudioRefused, match=r"^it lasts 180 min 0 s, over the 60 minutes heard at most$"):
        open_recording(hours)
    # 61 minutes of silence at 4 kHz: a few KB of FLAC, its length not said.
    silence = write_wav(tmp_path / "silence.wav", 4000, (bytes(4000 * 60 * 2) for _ in range(61)))
    unsaid = set_streaminfo(flac_of(silence, tmp_path / "unsaid.flac"), total=0)
    silence.unlink()
    assert unsaid.stat().st_size < 1_000_000
    recording = open_recording(unsaid)
    assert recording.seconds is None
    with pytest.raises(AudioRefused, match=r"^it lasts over the 60 minutes heard at most$"):
        for _ in recording.blocks():
            pass
    # Two that do not say their length, 35 minutes each: the audio input counts them together.
    half = write_wav(tmp_path / "half.wav", 4000, (bytes(4000 * 60 * 2) for _ in range(35)))
    unsaid_half = set_streaminfo(flac_of(half, tmp_path / "unsaid_half.flac"), total=0)
    half.unlink()
    with pytest.raises(AudioUnavailable, match=f"^the audio input runs over 60 minutes at {unsaid_half}: "):
        WavSource([str(unsaid_half)] * 2, realtime=False).load()
    for path, why in [(hours, "it lasts 180 min 0 s, over the 60 minutes heard at most"),
                      (unsaid, "it lasts over the 60 minutes heard at most")]:
        peak, out, err = peak_mb(["hear", "--engine", "pocketsphinx", *PLAYERS, str(path)], isolated_env)
        assert err == f"lifeguard hear: {path}: not a recording to hear ({why}).\n", err
        assert peak < 200, peak
        with pytest.raises(AudioUnavailable, match=f"cannot read audio input {path}: {why}"):
            WavSource([str(path)], realtime=False).load()


def sparse_wav(path: Path, seconds: int, rate: int = 4000) -> Path:
    """A WAV of ``seconds`` of 8-bit samples that takes no room on disk (a file with a hole)."""
    size = seconds * rate
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate, 1, 8)
    header = (b"RIFF" + struct.pack("<I", 36 + size) + b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt
              + b"data" + struct.pack("<I", size))
    with path.open("wb") as f:
        f.write(header)
        f.truncate(len(header) + size)
    return path


def test_the_audio_input_is_bounded_in_all_before_anything_is_decoded(tmp_path: Path) -> None:
    """Each file within the hour, together over it: refused from their headers, nothing loaded."""
    files = [str(sparse_wav(tmp_path / f"part{i}.wav", 25 * 60)) for i in range(3)]
    source = WavSource(files, realtime=False)
    with pytest.raises(AudioUnavailable) as refused:
        source.load()
    assert str(refused.value) == (f"the audio input runs over 60 minutes at {files[2]}: play in at most "
                                  "60 minutes in all")
    assert source.data == b"" and source.spans == []


# ---------------------------------------------------------------------------- malformed headers
def wav_with_chunk_before_data(path: Path, claimed: int) -> Path:
    """A WAV with a LIST chunk that claims ``claimed`` bytes before its data chunk."""
    data = tone(1.0)
    fmt = struct.pack("<HHIIHH", 1, 1, 16000, 32000, 2, 16)
    body = (b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt + b"LIST" + struct.pack("<I", claimed) + b"INFO"
            + b"data" + struct.pack("<I", len(data)) + data)
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    return path


def aiff(path: Path, bits: int, rate: float = 16000.0, channels: int = 1, frames: int = 16000) -> Path:
    """An AIFF file with a COMM chunk as given (its samples: silence of the size it implies)."""
    exponent, mantissa = 0, 0
    if rate:
        m, e = math.frexp(rate)
        exponent, mantissa = e - 1 + 16383, int(m * 2**64)
    comm = struct.pack(">hIh", channels, frames, bits) + struct.pack(">HQ", exponent, mantissa)
    samples = bytes(frames * channels * ((bits + 7) // 8))
    body = (b"AIFF" + b"COMM" + struct.pack(">I", len(comm)) + comm
            + b"SSND" + struct.pack(">I", len(samples) + 8) + bytes(8) + samples)
    path.write_bytes(b"FORM" + struct.pack(">I", len(body)) + body)
    return path


def wav_header(path: Path, channels: int = 1, rate: int = 16000, align: int = 2, bits: int = 16) -> Path:
    data = bytes(3200)
    fmt = struct.pack("<HHIIHH", 1, channels, rate, rate * align, align, bits)
    body = b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt + b"data" + struct.pack("<I", len(data)) + data
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    return path


def aiff_rate(path: Path, exponent: int, mantissa: int) -> Path:
    """A 16-bit mono AIFF whose rate's 80 bits are as given (NaN, infinities, a minus sign)."""
    aiff(path, 16)
    data = bytearray(path.read_bytes())
    data[28:38] = struct.pack(">HQ", exponent, mantissa)  # FORM 12, COMM 8, then 8 bytes
    path.write_bytes(bytes(data))
    return path


def test_each_damaged_size_or_rate_is_named_as_it_is(tmp_path: Path) -> None:
    """The refusal says what is wrong, and agrees with what is heard: a block size that cannot
    hold the samples is a damaged block size (not "16-bit samples; 8 to 32 bits are heard"), 1-
    and 4-bit samples are refused as the sentence says, and an AIFF's NaN, infinite or negative
    rate is called so (not "1099511627776 Hz", "0 Hz", or taken as positive)."""
    refused = {
        wav_header(tmp_path / "align0.wav", align=0): "its block size is damaged (0-byte frames cannot hold "
                                                      "1 channel of 16-bit samples)",
        wav_header(tmp_path / "align7.wav", align=7): "its block size is damaged (7-byte frames cannot hold "
                                                      "1 channel of 16-bit samples)",
        wav_header(tmp_path / "stereo_align2.wav", channels=2, align=2): "its block size is damaged (2-byte "
                                                                         "frames cannot hold 2 channels of "
                                                                         "16-bit samples)",
        wav_header(tmp_path / "one_bit.wav", align=1, bits=1): "its samples are 1-bit; WAV samples of 8 to 32 "
                                                               "bits are heard",
        aiff(tmp_path / "four_bit.aiff", 4): "its samples are 4-bit; AIFF samples of 8 to 32 bits are heard",
        aiff(tmp_path / "one_bit.aiff", 1): "its samples are 1-bit; AIFF samples of 8 to 32 bits are heard",
        aiff_rate(tmp_path / "nan.aiff", 0x7FFF, 0xC000000000000000): "its sample rate is not a number (NaN): "
                                                                      "its header is damaged",
        aiff_rate(tmp_path / "inf.aiff", 0x7FFF, 1 << 63): "its sample rate is infinite: its header is damaged",
        aiff_rate(tmp_path / "minus_inf.aiff", 0xFFFF, 1 << 63): "its sample rate is infinite: its header is "
                                                                 "damaged",
        aiff_rate(tmp_path / "negative.aiff", 0x8000 | (16383 + 13), 0xFA00000000000000):
            "its sample rate is negative (-16000 Hz): its header is damaged",
        aiff(tmp_path / "zero_rate.aiff", 16, rate=0.0): "its sample rate is 0 Hz: its header is damaged",
    }
    for path, why in refused.items():
        with pytest.raises(AudioRefused) as err:
            open_recording(path)
        assert str(err.value) == why, path.name
    heard = [wav_header(tmp_path / "eight.wav", align=1, bits=8), aiff(tmp_path / "twelve.aiff", 12),
             aiff_rate(tmp_path / "positive.aiff", 16383 + 13, 0xFA00000000000000)]
    for path in heard:
        assert open_recording(path).format.rate == 16000, path.name


def test_malformed_headers_are_each_a_clause_in_every_reader(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    """A chunk said to be 4 GB (``wave`` raised RuntimeError), 40-bit AIFF samples (``audioop``
    raised), a data chunk said to be 4 GB (the file's size bounds it: heard), an AIFF's rate of
    ten to the power 4000 (an overflow)."""
    refused = {
        wav_with_chunk_before_data(tmp_path / "list4g.wav", 0xFFFFFFF0): "it holds no samples (no data chunk)",
        aiff(tmp_path / "forty.aiff", 40): "its samples are 40-bit; AIFF samples of 8 to 32 bits are heard",
        aiff(tmp_path / "zero.aiff", 0): "its samples are 0-bit; AIFF samples of 8 to 32 bits are heard",
        aiff(tmp_path / "huge_rate.aiff", 16, rate=1e300): "its sample rate is far over 384000 Hz: its "
                                                           "header is damaged",
        aiff(tmp_path / "three.aiff", 16, channels=3): "it has 3 channels; a recording to hear is mono or stereo",
    }
    many = tmp_path / "many_chunks.wav"
    body = b"WAVE" + (b"junk" + struct.pack("<I", 0)) * 100_000
    many.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    refused[many] = "its header has over 1000 chunks before its samples"
    for path, why in refused.items():
        with pytest.raises(AudioRefused) as err:
            open_recording(path)
        assert str(err.value) == why
        with pytest.raises(AudioUnavailable, match=f"^cannot read audio input {path}: "):
            WavSource([str(path)], realtime=False).load()
    big = tmp_path / "data4g.wav"
    good = write_wav(tmp_path / "good.wav", 16000, tone(1.0))
    data = bytearray(good.read_bytes())
    data[40:44] = struct.pack("<I", 0xFFFFFFF0)  # the data chunk's size
    big.write_bytes(bytes(data))
    assert b"".join(open_recording(big).blocks()) == tone(1.0)
    done = lifeguard("hear", "--engine", "pocketsphinx", "--json", *PLAYERS, *map(str, refused), str(big),
                     env=isolated_env)
    assert "Traceback" not in done.stderr and done.returncode == 2
    assert [json.loads(done.stdout)[0]["file"]] == [str(big)]
    assert done.stderr.splitlines() == [f"lifeguard hear: {path}: not a recording to hear ({why})."
                                        for path, why in refused.items()]


@needs_espeak
@pytest.mark.slow
def test_listen_names_a_malformed_file_and_why(tmp_path: Path, isolated_env: dict[str, str]) -> None:
    """``listen`` said "listening stopped: RuntimeError: " and nothing more."""
    bad = wav_with_chunk_before_data(tmp_path / "list4g.wav", 0xFFFFFFF0)
    done = lifeguard("--seed", "1", "listen", "--engine", "pocketsphinx", "--quiet", "--no-store", "--players",
                     "alice", "bob", "carol", "--audio-input", str(bad), env=isolated_env)
    assert "Traceback" not in done.stderr and "RuntimeError" not in done.stdout
    assert f"(listening: cannot read audio input {bad}: it holds no samples (no data chunk))" in done.stdout


def _headers() -> list[bytes]:
    rng = np.random.default_rng(3)
    speech = (rng.normal(0, 2000, 1600)).astype("<i2").tobytes()
    fmt = struct.pack("<HHIIHH", 1, 1, 16000, 32000, 2, 16)
    body = b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt + b"data" + struct.pack("<I", len(speech)) + speech
    wav_bytes = b"RIFF" + struct.pack("<I", len(body)) + body
    comm = struct.pack(">hIh", 1, 1600, 16) + struct.pack(">HQ", 16383 + 13, int(16000 / 2**14 * 2**64))
    body = b"AIFF" + b"COMM" + struct.pack(">I", 18) + comm + b"SSND" + struct.pack(">I", 3208) + bytes(8) + speech
    return [wav_bytes, b"FORM" + struct.pack(">I", len(body)) + body]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.sampled_from([0, 1]), changes=st.lists(st.tuples(st.integers(0, 63), st.integers(0, 255)),
                                                       min_size=1, max_size=6))
def test_any_damage_to_a_header_is_audio_or_a_clause(tmp_path: Path, which: int,
                                                     changes: list[tuple[int, int]]) -> None:
    """Bytes of a WAV or AIFF header changed at random: the file is read (a bounded length of
    samples) or refused with ``AudioRefused``; nothing else is raised."""
    data = bytearray(_headers()[which])
    for at, value in changes:
        data[at] = value
    path = tmp_path / "damaged"
    path.write_bytes(bytes(data))
    try:
        recording = open_recording(path)
        heard = sum(len(block) for block in recording.blocks())
    except AudioRefused as err:
        assert str(err) and "\n" not in str(err)
    else:
        assert heard <= 16000 * 2 * 3600 + 64


# ---------------------------------------------------------------------------- the model's settings
@pytest.mark.parametrize("config", ['[1, 2]', '"whisper"', '{"lang_ids": 5}', 'null'])
def test_a_model_folder_whose_config_is_not_an_object_is_a_sentence(tmp_path: Path, config: str) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    for name in ("model.bin", "tokenizer.json"):
        (folder / name).write_bytes(b"")
    (folder / "config.json").write_text(config)
    recognizer, note = make_recognizer("whisper", ("alice", "bob", "carol"), model=str(folder))
    assert isinstance(recognizer, CommandRecognizer)
    assert note is not None and f"config.json in {folder}" in note and "PocketSphinx" in note


def test_a_file_replaced_after_its_header_was_read_is_a_clause(tmp_path: Path) -> None:
    """Between the header's check and the samples' reading the file became a FIFO: refused,
    nothing waited on."""
    path = write_wav(tmp_path / "soon_a_fifo.wav", 16000, tone(0.5))
    recording = open_recording(path)
    path.unlink()
    os.mkfifo(path)
    with pytest.raises(AudioRefused, match=r"^it changed while it was read: The audio file .* is a pipe"):
        next(recording.blocks())


def _model_with(tmp_path: Path, name: str, text: str) -> Path:
    """The packaged model's folder (its files linked, not copied) with ``name`` written as ``text``."""
    source = packaged_model_dir()
    assert source is not None
    folder = tmp_path / "model"
    folder.mkdir()
    for each in source.iterdir():
        (folder / each.name).symlink_to(each)
    (folder / name).unlink()
    (folder / name).write_text(text)
    return folder


@pytest.mark.parametrize(("name", "text", "said"), [
    ("config.json", "[" * 200_000 + "]" * 200_000, "nested too deeply"),
    ("config.json", '{"lang_ids": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    ("tokenizer.json", '{"model": 5}', "tokenizer.json in"),
    ("tokenizer.json", "[" * 200_000 + "]" * 200_000, "tokenizer.json in"),
    ("tokenizer.json", '{"model": ' + "{" * 1000 + '"a": 1' + "}" * 1000 + "}", "tokenizer.json in"),
    ("vocabulary.txt", "[" * 1000, ""),
])
def test_a_model_folder_with_a_malformed_file_falls_back_in_a_sentence(tmp_path: Path, name: str, text: str,
                                                                       said: str) -> None:
    """Each file of a custom ``[voice] whisper_model`` folder made malformed (nested beyond any
    parser's depth, or of the wrong shape for its library): PocketSphinx listens and the note says
    why in one line; whatever json, tokenizers or CTranslate2 raise never escapes."""
    folder = _model_with(tmp_path, name, text)
    recognizer, note = make_recognizer("whisper", ("alice", "bob", "carol"), model=str(folder))
    if isinstance(recognizer, CommandRecognizer):
        assert note is not None and note.startswith("Whisper unavailable (") and "PocketSphinx" in note
        assert said in note and "\n" not in note and len(note) < 600, note
    else:  # a file Whisper does not need (the vocabulary: the tokenizer has its own)
        assert not said and note is None


def test_hear_with_a_malformed_tokenizer_says_so_and_hears_with_pocketsphinx(tmp_path: Path, isolated_env) -> None:
    folder = _model_with(tmp_path, "tokenizer.json", '{"model": 5}')
    config = tmp_path / "lifeguard.toml"
    config.write_text(f'[voice]\nengine = "whisper"\nwhisper_model = "{folder}"\n')
    wav = write_wav(tmp_path / "quiet.wav", 16000, tone(0.5))
    done = lifeguard("hear", *PLAYERS, str(wav), env={**isolated_env, "LIFEGUARD_CONFIG": str(config)})
    assert "Traceback" not in done.stderr, done.stderr
    assert "tokenizer.json in" in done.stderr and "listening with PocketSphinx" in done.stderr, done.stderr
