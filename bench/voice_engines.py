"""The recognisers the voice benchmarks compare, built in one place (``bench/voice_run.py``,
``bench/voice_game.py``): through ``assistant.voice.recognizer.make_recognizer``, the factory
the listener uses. Where Whisper falls back to PocketSphinx (its model missing), the benchmark
says so instead of printing PocketSphinx's figures under Whisper's name.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from assistant.voice.recognizer import CommandRecognizer, make_recognizer
from engine.game import Game

ENGINES = ("pocketsphinx", "whisper")
#: ``--model base``: the multilingual Whisper base (the German and Korean model) listening for
#: English, with English's grammar and bars (bench/NOTES.md, "Whisper base for English, again").
MULTILINGUAL_BASE = "base"


class EngineUnavailable(RuntimeError):
    """This engine cannot be benchmarked here; the message says why, in one line."""


def recognizer_for(engine: str, players: Sequence[str] = (), game: Game | None = None,
                   decoder_options: dict[str, object] | None = None, model: str = "") -> object:
    """A recogniser of ``engine`` with the interface of ``CommandRecognizer``.

    ``decoder_options`` (PocketSphinx's, for trying settings) builds a ``CommandRecognizer``
    directly; ``model``: a CTranslate2 Whisper folder instead of the packaged one. Raises
    ``EngineUnavailable`` when ``engine`` would fall back to another, and
    ``RecognizerUnavailable`` when none loads.
    """
    if decoder_options:
        if engine != "pocketsphinx":
            raise EngineUnavailable("--option sets PocketSphinx decoder options only")
        return CommandRecognizer(players, game, decoder_options=decoder_options)
    if model == MULTILINGUAL_BASE and engine == "whisper":
        from assistant.voice.whisper import WhisperRecognizer

        return WhisperRecognizer(players, game, multilingual=True)
    recognizer, note = make_recognizer(engine, players, game, model=model)
    if note:
        raise EngineUnavailable(note)
    return recognizer


def engine_of(recognizer: object) -> str:
    """Which engine a recogniser really is (a listener falls back to PocketSphinx when the
    Whisper model is missing: the figures must not be printed under the wrong name)."""
    name = getattr(recognizer, "engine", None)
    if isinstance(name, str):
        return name
    if isinstance(recognizer, CommandRecognizer):
        return "pocketsphinx"
    return "whisper" if "whisper" in type(recognizer).__name__.lower() else type(recognizer).__name__


def memory_mb(field: str) -> float:
    """This process's ``VmRSS`` (now) or ``VmHWM`` (peak so far) in MB, from /proc."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


