"""Several decodings of one unsure utterance over small time shifts, and a vote between them
(issue 38 item 1; bench/NOTES.md, "Voting over shifts and gains, and the game's weights").

Whisper's log-mel features depend on where its 10 ms frames fall: tiny.en's reading of the same
speech shifted by a few milliseconds is now and then another one. When the first reading is
unsure (it took nothing, or its mean log-probability per token is under ``Vote.bar``), the
utterance is decoded again with its first ``Vote.shifts_ms`` dropped, and the decision most
readings agree on is taken (``tally``; a rejection is a vote for nothing, a tie goes to the first
reading). Chosen on the tune split (`bench/vote_dump.py`): shifts of 5 and 12.5 ms under -1.5.
Test split, the same 912 files: exact commands over chatter 59 -> 61 of 94, talk over chatter
rejected 54 -> 55 of 56, near-miss talk rejected over noise / chatter / reverb 73 / 70 / 74 ->
75 / 73 / 73 of 78 (10 files decided otherwise, one wrong swap now rejected among them), at
twice the decoding time at p95 (the vote runs on every piece of talk). Off unless ``WhisperRecognizer.vote`` is set (``voice_run.py --vote``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from assistant.voice.recognizer import Decoded
from assistant.voice.recording import SAMPLE_RATE


@dataclass(frozen=True)
class Vote:
    """When to vote (a first reading under ``bar`` mean log-probability per token, or none) and
    over what: the utterance with its first ``shifts_ms`` milliseconds dropped, one decoding each."""

    shifts_ms: tuple[float, ...] = (5.0, 12.5)
    bar: float = -1.5


#: The vote chosen on the tune split (bench/NOTES.md, session 19).
TUNED = Vote()


def shifted(raw: bytes, shift_ms: float) -> bytes:
    """``raw`` (16 kHz, 16-bit little-endian) without its first ``shift_ms`` milliseconds."""
    samples = np.frombuffer(raw[: len(raw) // 2 * 2], dtype="<i2")
    return samples[round(shift_ms * SAMPLE_RATE / 1000):].tobytes()


def unsure(decoded: Decoded, bar: float) -> bool:
    """Whether a first reading calls for a vote: it took nothing, or its mean log-probability per
    token (``Decoded.confidence`` is its exponential) is under ``bar``."""
    return decoded.command is None or math.log(max(decoded.confidence, 1e-12)) < bar


def _decision(decoded: Decoded) -> str | None:
    return decoded.command.canonical if decoded.command is not None else None


def tally(readings: Sequence[Decoded]) -> int:
    """The index of the reading whose decision (its command's canonical form, or None for a
    rejection) most readings agree on; of a tie, the first reading's when it is among the most,
    else the earliest."""
    votes = Counter(_decision(r) for r in readings)
    most = max(votes.values())
    if votes[_decision(readings[0])] == most:
        return 0
    return next(i for i, r in enumerate(readings) if votes[_decision(r)] == most)


def voted(raw: bytes, first: Decoded, vote: Vote, decode: Callable[[bytes], Decoded]) -> tuple[int, Decoded]:
    """``first`` when it is sure; else the reading ``tally`` takes of ``first`` and ``decode`` of
    each shifted copy of ``raw`` (its index: 0 for ``first``, i for the i-th shift), its time
    the sum of all readings'."""
    if not unsure(first, vote.bar):
        return 0, first
    readings = [first, *(decode(shifted(raw, shift)) for shift in vote.shifts_ms)]
    index = tally(readings)
    return index, replace(readings[index], seconds=sum(r.seconds for r in readings))
