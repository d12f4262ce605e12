"""The recognisers the voice benchmarks compare, built in one place (``bench/voice_run.py``,
``bench/voice_game.py``).

``recognizer_for(engine)`` asks ``assistant.voice.recognizer.make_recognizer``, the factory the
listener uses. Until that factory exists on main, PocketSphinx falls back to
``CommandRecognizer`` and Whisper is reported as not available yet (``EngineUnavailable``);
this module is the one place to drop that fallback.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.voice.recognizer import CommandRecognizer  # noqa: E402
from engine.game import Game  # noqa: E402

ENGINES = ("pocketsphinx", "whisper")


class EngineUnavailable(RuntimeError):
    """This engine cannot be benchmarked here; the message says why, in one line."""


def _factory():
    try:
        from assistant.voice.recognizer import make_recognizer
    except ImportError:
        return None
    return make_recognizer


def engine_available(engine: str) -> str | None:
    """``None`` when ``engine`` can be built (and the listener builds it too), else why not."""
    if _factory() is None and engine != "pocketsphinx":
        return f"{engine} engine not available yet"
    return None


def recognizer_for(engine: str, players: Sequence[str] = (), game: Game | None = None,
                   decoder_options: dict[str, object] | None = None) -> object:
    """A recogniser of ``engine`` with the interface of ``CommandRecognizer``.

    ``decoder_options`` (PocketSphinx's, for trying settings) builds a ``CommandRecognizer``
    directly. Raises ``EngineUnavailable`` (and ``RecognizerUnavailable`` from the factory).
    """
    if decoder_options:
        if engine != "pocketsphinx":
            raise EngineUnavailable("--option sets PocketSphinx decoder options only")
        return CommandRecognizer(players, game, decoder_options=decoder_options)
    make_recognizer = _factory()
    if make_recognizer is None:
        if engine == "pocketsphinx":
            return CommandRecognizer(players, game)
        raise EngineUnavailable(f"{engine} engine not available yet")
    return make_recognizer(engine, players, game)


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


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]
