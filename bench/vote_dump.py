"""Several decodings of each file over small time shifts and gains, for choosing a vote offline
(issue 38 item 1; bench/NOTES.md, "Voting over shifts and gains, and the game's weights").

Run: ``PYTHONPATH=$PWD .venv/bin/python bench/vote_dump.py dump --split tune --limit 300 OUT.json``
decodes the files ``voice_run.py`` would (same ``select``, same games) once as they are and once
per variant (``Variant``: the first milliseconds dropped, a gain), each through the whole
recogniser (its bars, its free transcription), and keeps every decision with its mean log-probability and time. ``rules OUT.json ...`` then prints what each
voting rule would give, exact commands / talk rejected per condition, and the decoding time a
vote would cost (the first decoding's plus those of the variants it asks for).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from figures import percentile
from voice_engines import recognizer_for
from voice_run import CONDITIONS, ROOT, select

from assistant.referee import Referee
from assistant.voice.recognizer import read_wav
from engine.deck import Cards

SAMPLE_RATE = 16000


@dataclass(frozen=True)
class Variant:
    """The same utterance with its first ``shift_ms`` of audio dropped and its level changed by
    ``gain_db`` (clipped to 16 bits)."""

    shift_ms: float = 0.0
    gain_db: float = 0.0


def varied(raw: bytes, variant: Variant) -> bytes:
    """``raw`` (16 kHz, 16-bit little-endian) as ``variant`` says."""
    samples = np.frombuffer(raw[: len(raw) // 2 * 2], dtype="<i2")
    samples = samples[round(variant.shift_ms * SAMPLE_RATE / 1000):]
    if variant.gain_db:
        scaled = samples.astype(np.float32) * np.float32(10 ** (variant.gain_db / 20))
        samples = np.clip(np.round(scaled), -32768, 32767).astype("<i2")
    return samples.tobytes()


#: The variants decoded beside the file as it is.
DUMPED = (Variant(shift_ms=5.0), Variant(shift_ms=12.5), Variant(shift_ms=20.0),
          Variant(gain_db=6.0), Variant(gain_db=-6.0), Variant(shift_ms=7.5, gain_db=3.0))
#: The variants whose audio scores the first decoding's candidates (``sums``).
SCORED = (Variant(shift_ms=5.0), Variant(shift_ms=12.5), Variant(gain_db=6.0), Variant(gain_db=-6.0))
#: The game-as-judge margins tried (``_summed``'s "margin-M": ``CHOICE_MARGIN`` = M).
MARGINS = (0.15, 0.3, 0.6, 1.0, 2.0, 5.0)
#: The bonuses tried for a swap's cards known to be in the player's hand ("known-B": B times
#: the share of the cards put down that the game knows the player holds, added to the mean
#: log-probability per token on the audio as it is).
KNOWN_BONUSES = (0.1, 0.2, 0.3, 0.5, 1.0)
#: The voting rules tried (``rules``): which of ``DUMPED`` (1-based) vote beside the first.
PICKS = ([1, 2], [4, 5], [1, 4, 5], [1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6])
#: Mean log-probabilities per token of the first decoding below which a vote is held (0: always).
BARS = (-0.5, -1.0, -1.5, 0.0)


def _files(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The files ``voice_run.py --split S --limit N`` decodes (the near-miss talk with
    ``--near-miss``)."""
    manifest = json.loads((Path(args.corpus) / "manifest.json").read_text())
    manifest = [m for m in manifest if m["split"] == args.split]
    near = [m for m in manifest if m.get("near_miss")] if args.near_miss else []
    return select([m for m in manifest if not m.get("near_miss")], args.limit) + near


def _entry(item: dict[str, Any]) -> dict[str, Any]:
    return {k: item[k] for k in ("id", "file", "split", "condition", "expected", "text")} | {
        "synth": item.get("synth", "espeak"), "near_miss": bool(item.get("near_miss"))}


def _progress(n: int, total: int, started: float) -> None:
    if n % 50 == 0:
        print(f"{n}/{total} {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)


def _raw(item: dict[str, Any]) -> bytes:
    raw: bytes = read_wav(item["file"]).get_raw_data(convert_rate=16000, convert_width=2)
    return raw


def dump(args: argparse.Namespace) -> int:
    files = _files(args)
    recognizer: Any = recognizer_for("whisper")
    out = []
    started = time.monotonic()
    for n, item in enumerate(files):
        raw = _raw(item)
        first = _decoded(recognizer, item, raw, Variant())
        wanted = _unsure(first, args.unsure_below)
        decodings = [first, *(_decoded(recognizer, item, raw, variant)
                              if wanted and not (args.only and index not in args.only) else None
                              for index, variant in enumerate(DUMPED, start=1))]
        out.append(_entry(item) | {"decodings": decodings})
        _progress(n, len(files), started)
    Path(args.out).write_text(json.dumps(out))
    return 0


def _unsure(first: dict[str, Any], bar: float) -> bool:
    """Whether a vote is held (``rule``): the first decoding took nothing, or its mean
    log-probability per token is under ``bar``."""
    return first["got"] is None or math.log(max(first["confidence"], 1e-12)) < bar


def _decoded(recognizer: Any, item: dict[str, Any], raw: bytes, variant: Variant) -> dict[str, Any]:
    """One variant of a file decoded by the whole recogniser in the file's game."""
    referee = Referee.resume(item["context"])
    recognizer.set_context(item["players"], referee.game)
    decoded = recognizer.decode(varied(raw, variant))
    return {"variant": [variant.shift_ms, variant.gain_db],
            "got": decoded.command.canonical if decoded.command else None,
            "heard": decoded.text, "reason": decoded.reason,
            "confidence": decoded.confidence, "seconds": decoded.seconds}


def sums(args: argparse.Namespace) -> int:
    """For each file, the first decoding (the whole recogniser) and, when it takes a game action,
    its finished commands (the command and ``SearchResult.others``) scored by a forced pass on
    the audio as it is and on each ``SCORED`` variant's (``WhisperRecognizer._forced``): each
    candidate's mean log-probability per token per audio, kept with its canonical form."""
    files = _files(args)
    recognizer: Any = recognizer_for("whisper")
    out = []
    found_by_search: dict[str, Any] = {}
    search = recognizer.search

    def keeping(audio: np.ndarray, context: Any, game: Any = None) -> Any:
        found = search(audio, context, game)
        found_by_search["last"] = found
        return found

    recognizer.search = keeping
    started = time.monotonic()
    for n, item in enumerate(files):
        raw = _raw(item)
        referee = Referee.resume(item["context"])
        recognizer.set_context(item["players"], referee.game)
        begun = time.perf_counter()
        decoded = recognizer.decode(raw)
        entry = _entry(item) | {
            "got": decoded.command.canonical if decoded.command else None, "reason": decoded.reason,
            "seconds": time.perf_counter() - begun, "candidates": [], "scored_seconds": 0.0}
        if decoded.command is not None and decoded.command.is_game_action:
            _score(recognizer, found_by_search["last"], decoded.command, referee, raw, entry, args.variants)
        out.append(entry)
        _progress(n, len(files), started)
    Path(args.out).write_text(json.dumps(out))
    return 0


def _score(recognizer: Any, found: Any, heard: Any, referee: Referee, raw: bytes, entry: dict[str, Any],
           variants: bool) -> None:
    """``entry``'s candidates: the first decoding's finished commands, each scored on the audio
    as it is and (``variants``) on each of ``SCORED``."""
    from threadpoolctl import threadpool_limits

    from assistant.voice.whisper.recognizer import _legal, _samples

    model = recognizer.model
    context = recognizer._context
    sequences = [tuple(found.tokens), *(tuple(t) for t in found.others)]
    parsed = [recognizer._parsed(list(t), context) for t in sequences]
    begun = time.perf_counter()
    with threadpool_limits(limits=1, user_api="blas"):
        scores = [recognizer._forced(found.cross, context.prompt, sequences)]
        for variant in SCORED if variants else ():
            cross = model.decoder.cross_cache(model.encode(_samples(varied(raw, variant))))
            scores.append(recognizer._forced(cross, context.prompt, sequences))
    entry["scored_seconds"] = time.perf_counter() - begun
    for i, command in enumerate(parsed):
        if command is not None:
            same = (command.intent, command.player, command.row) == (heard.intent, heard.player, heard.row)
            entry["candidates"].append({"canonical": command.canonical, "same": same,
                                        "legal": _legal(command, referee.game),
                                        "scores": [s[i] for s in scores]})


def _known_cards(items: list[dict[str, Any]], corpus: str) -> None:
    """Each swap candidate's ``known_share``: of the cards it puts down, the share the game
    knows the player holds (``Game.known``) when the file was said."""
    from assistant.commands import parse

    manifest = {m["file"]: m for m in json.loads((Path(corpus) / "manifest.json").read_text())}
    for item in (i for i in items if i["candidates"]):
        entry = manifest[item["file"]]
        game = Referee.resume(entry["context"]).game
        assert game is not None
        for candidate in item["candidates"]:
            command = parse(candidate["canonical"], entry["players"])
            if command.intent == "swap" and command.cards and command.player:
                known = game.known[command.player]
                candidate["known_share"] = len(Cards(command.cards) & known) / len(command.cards)


#: A rule: a file's decision and the decoding time it cost.
Decide = Callable[[dict[str, Any]], tuple[str | None, float]]


def _cells(items: list[dict[str, Any]], decide: Decide) -> tuple[list[str], list[float]]:
    """Exact commands / talk rejected ("t") / near-miss talk rejected ("n") per condition, and
    every file's decoding time."""
    cells, seconds = [], []
    for condition in CONDITIONS:
        taken = [(i, *decide(i)) for i in items if i["condition"] == condition]
        seconds += [s for _, _, s in taken]
        cells.append(_cell([(i, got) for i, got, _ in taken]))
    return cells, seconds


def _cell(taken: list[tuple[dict[str, Any], str | None]]) -> str:
    commands = [(i, got) for i, got in taken if i["expected"] is not None and not i["near_miss"]]
    talk = [got for i, got in taken if i["expected"] is None and not i["near_miss"]]
    near = [got for i, got in taken if i["near_miss"]]
    cell = f"{sum(got == i['expected'] for i, got in commands)}/{len(commands)}" \
           f" t{sum(got is None for got in talk)}/{len(talk)}"
    return cell + (f" n{sum(got is None for got in near)}/{len(near)}" if near else "")


def _rows(label: str, items: list[dict[str, Any]], decide: Decide, by_synth: bool) -> None:
    """One rule's line (all files), and with ``by_synth`` one per synthesiser under it."""
    cells, seconds = _cells(items, decide)
    time_cell = f"  {1000 * statistics.median(seconds):.0f}/{1000 * percentile(seconds, 0.95):.0f} ms" \
        if any(seconds) else ""
    print(f"  {label} " + "  ".join(cells) + time_cell)
    synths = sorted({i["synth"] for i in items}) if by_synth else []
    for synth in synths if len(synths) > 1 else []:
        print(f"    {synth:8s} " + "  ".join(_cells([i for i in items if i["synth"] == synth], decide)[0]))


def sums_rules(args: argparse.Namespace) -> int:
    """What taking the candidate with the best sum over the audios would give (only where the
    first decoding took a game action; a rejection stays one), and the game's weights."""
    for path in args.files:
        items = json.loads(Path(path).read_text())
        print(f"{path}: {len(items)} files")
        _known_cards(items, args.corpus)
        for name in ("today", "sum-same", "sum-same-legal", "sum-any-legal",
                     *(f"margin-{m}" for m in MARGINS), *(f"known-{b}" for b in KNOWN_BONUSES)):
            _rows(f"{name:16s}", items, partial(_summed_free, name), args.by_synth)
        scored = [i["scored_seconds"] for i in items if i["candidates"]]
        total = [i["seconds"] + i["scored_seconds"] for i in items]
        print(f"  scoring {len(scored)} files: {1000 * statistics.median(scored):.0f}/"
              f"{1000 * percentile(scored, 0.95):.0f} ms; first decoding + scoring, all files: "
              f"{1000 * statistics.median(total):.0f}/{1000 * percentile(total, 0.95):.0f} ms")
    return 0


def _got(value: Any) -> str | None:
    """A decision as stored in the JSON: a canonical command, or None."""
    return None if value is None else str(value)


def _summed(name: str, item: dict[str, Any]) -> str | None:
    """What rule ``name`` takes for a file of ``sums``: the first decoding's decision, or one of
    its candidates (those of its intent, player and row, ``same``; the game would take them,
    ``legal``; "sum-same" and "sum-any-legal" relax one of the two)."""
    if name == "today" or not item["candidates"]:
        return _got(item["got"])
    keep = [c for c in item["candidates"]
            if (c["same"] or name == "sum-any-legal") and (c["legal"] or name == "sum-same")]
    if not keep:
        return _got(item["got"])
    if name.startswith("known-"):  # the cards the swapping player is known to hold, a bonus
        bonus = float(name[6:])
        return _got(max(keep, key=lambda c: c["scores"][0] + bonus * c.get("known_share", 0.0))["canonical"])
    if name.startswith("margin-"):
        return _within(float(name[7:]), item, keep)
    return _got(max(keep, key=lambda c: sum(c["scores"]))["canonical"])


def _summed_free(name: str, item: dict[str, Any]) -> tuple[str | None, float]:
    """``_summed`` as a rule of ``_rows`` (its time is not counted)."""
    return _summed(name, item), 0.0


def _within(margin: float, item: dict[str, Any], keep: list[dict[str, Any]]) -> str | None:
    """The game as judge (``CHOICE_MARGIN``) over a wider margin: the best kept candidate within
    ``margin`` of the best of the command's intent, player and row."""
    top = max(c["scores"][0] for c in item["candidates"] if c["same"])
    near = sorted((c for c in keep if c["scores"][0] >= top - margin), key=lambda c: -c["scores"][0])
    return _got(near[0]["canonical"] if near else item["got"])


def majority(decodings: list[dict[str, Any]]) -> str | None:
    """The decision most of the decodings agree on (a rejection is a vote for nothing); a tie
    goes to the first decoding's."""
    votes = Counter(d["got"] for d in decodings)
    best = max(votes.values())
    if votes[decodings[0]["got"]] == best:
        return _got(decodings[0]["got"])
    return _got(next(d["got"] for d in decodings if votes[d["got"]] == best))


def commands_majority(decodings: list[dict[str, Any]]) -> str | None:
    """A command taken by a strict majority of all decodings, else the first decoding's."""
    votes = Counter(d["got"] for d in decodings if d["got"] is not None)
    if votes:
        command, count = votes.most_common(1)[0]
        if count * 2 > len(decodings):
            return _got(command)
    return _got(decodings[0]["got"])


def rule(name: str, item: dict[str, Any], bar: float, picks: list[int]) -> tuple[str | None, float]:
    """What the rule takes for one file, and the decoding time it costs: a vote (``majority`` or
    ``commands_majority``) of the first decoding and the ``picks``, held only when the first
    decoding took nothing or its mean log-probability per token is under ``bar``."""
    decodings = item["decodings"]
    first = decodings[0]
    if name == "today" or not _unsure(first, bar):
        return first["got"], first["seconds"]
    chosen = [first, *(decodings[i] for i in picks)]
    seconds = sum(d["seconds"] for d in chosen)
    if name == "majority":
        return majority(chosen), seconds
    return commands_majority(chosen), seconds


def rules(args: argparse.Namespace) -> int:
    for path in args.files:
        items = json.loads(Path(path).read_text())
        print(f"{path}: {len(items)} files")
        tried = [(n, b, p) for n in ("majority", "commands") for b in BARS for p in PICKS
                 if all(i["decodings"][k] is not None for i in items if _unsure(i["decodings"][0], b) for k in p)]
        for name, bar, picks in [("today", 0.0, []), *tried]:
            _rows(f"{name:9s} bar {bar:5.1f} {picks!s:20s}", items, partial(rule, name, bar=bar, picks=picks),
                  args.by_synth)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    for name in ("dump", "sums"):
        d = sub.add_parser(name)
        d.add_argument("--corpus", default=str(ROOT / "bench" / "out" / "voice"))
        d.add_argument("--split", choices=("tune", "test"), default="tune")
        d.add_argument("--limit", type=int, default=300)
        d.add_argument("--near-miss", action="store_true")
        d.add_argument("out")
    sub.choices["dump"].add_argument("--only", type=lambda v: [int(i) for i in v.split(",")], default=[],
                                     help="decode only these variants (1-based positions in DUMPED)")
    sub.choices["dump"].add_argument("--unsure-below", type=float, default=math.inf,
                                     help="decode the variants only where the first decoding took nothing or its mean"
                                          " log-probability per token is below this (a rule's bar)")
    sub.choices["sums"].add_argument("--no-variants", dest="variants", action="store_false",
                                     help="score the candidates on the audio as it is only (the game's weights)")
    for name in ("rules", "sums-rules"):
        r = sub.add_parser(name)
        r.add_argument("--corpus", default=str(ROOT / "bench" / "out" / "voice"))
        r.add_argument("--by-synth", action="store_true", help="a line per synthesiser too")
        r.add_argument("files", nargs="+")
    args = parser.parse_args()
    return {"dump": dump, "rules": rules, "sums": sums, "sums-rules": sums_rules}[args.what](args)


if __name__ == "__main__":
    sys.exit(main())
