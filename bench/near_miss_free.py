"""Near-miss talk against Whisper's free transcription: an offline estimate (issue 38, item 3).

Run: ``PYTHONPATH=$PWD .venv/bin/python bench/near_miss_free.py dump tune 300 without OUT.json``
(``dump SPLIT LIMIT with|without|only OUT``: the files as ``voice_run.py --split SPLIT --limit
LIMIT --near-miss ...`` picks them), then ``bench/near_miss_free.py rules TUNE.json TEST.json``.

``dump`` decodes each file as ``voice_run.py`` does and, for every command the recogniser would
take (or that the free-transcription check then judges), also records Whisper's greedy free
transcription of it, which today runs only for commands that are no game action. It reaches into
the recogniser's private ``search`` and ``_doubt`` to do so, changing no decision. ``rules`` then
prints, for a rule "a command naming no cards is talk when its free transcription holds more than
K distinct words other than its own" (the rule ``MAX_ANSWER_OTHER_WORDS`` applies to a waiting
"yes" or "no"), and for the same rule only where the free transcription begins like the
command, the exact commands, talk and near-miss talk rejected per condition.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import voice_run
from voice_engines import recognizer_for

Row = dict[str, Any]
CONDITIONS = ("clean", "noise", "chatter")


def dump(split: str, limit: int, near: str, out: str) -> None:
    from assistant.voice import whisper

    records: list[Row] = []
    search, doubt = whisper.WhisperRecognizer.search, whisper.WhisperRecognizer._doubt
    contexts: dict[int, Any] = {}

    def keep_context(self: Any, audio: Any, context: Any, game: Any = None) -> Any:
        contexts[id(self)] = context
        return search(self, audio, context, game)

    def record(self: Any, found: Any, words: list[str], *args: Any) -> str | None:
        reason = doubt(self, found, words, *args)
        if reason is None and found.cross is not None and not getattr(found, "recorded", False):
            found.recorded = True
            free = self._free_words(found.cross, contexts[id(self)], len(found.tokens) + 8)
            records.append({"words": words, "free": free})
        return reason

    whisper.WhisperRecognizer.search = keep_context  # type: ignore[method-assign]
    whisper.WhisperRecognizer._doubt = record  # type: ignore[method-assign, assignment]
    manifest = [m for m in json.loads((voice_run.ROOT / "bench/out/voice/manifest.json").read_text())
                if m["split"] == split]
    near_miss = [m for m in manifest if m.get("near_miss")] if near != "without" else []
    chosen = [] if near == "only" else voice_run.select([m for m in manifest if not m.get("near_miss")], limit)
    recognizer = recognizer_for("whisper", decoder_options={}, model="")
    rows = []
    for item in chosen + near_miss:
        records.clear()
        row = voice_run.decode_all([item], recognizer)[0]
        row.update(records[-1] if records else {"words": None, "free": None})
        rows.append(row)
    Path(out).write_text(json.dumps(rows))


def _spelt(words: list[str]) -> list[str]:
    """The recogniser's own spelling of numbers ("2" -> "two"), wherever the move of Whisper's
    modules into a package (issue 37) leaves it."""
    import importlib

    for name in ("assistant.voice.whisper.recognizer", "assistant.voice.whisper"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(module, "_spelt"):
            spelt: list[str] = module._spelt(words)
            return spelt
    raise RuntimeError("the Whisper recogniser's _spelt was not found")


def other_words(row: Row) -> int:
    """Distinct words of the free transcription that are not the command's (numbers spelt)."""
    return len(set(_spelt(row["free"])) - set(_spelt(row["words"])))


def begins_like(row: Row) -> float:
    """How alike the command is to the free transcription's first words (about as many)."""
    from difflib import SequenceMatcher

    said, free = " ".join(_spelt(row["words"])), _spelt(row["free"])
    size = len(row["words"])
    return max(SequenceMatcher(None, said, " ".join(free[:n])).ratio() for n in range(max(1, size - 1), size + 2))


def taken(row: Row, most: int | None, alike: float | None = None) -> bool:
    """Would the recogniser take the row's command under the rule (``most`` None: today's)?
    With ``alike``, only a free transcription that begins like the command counts against it
    (over chatter the free transcription is often the other voices' words)."""
    if row["got"] is None:
        return False
    names_cards = any(ch.isdigit() for ch in row["got"])
    if most is None or names_cards or not row["free"] or other_words(row) <= most:
        return True
    return alike is not None and begins_like(row) < alike


def figures(rows: list[Row], most: int | None, alike: float | None = None) -> str:
    def command(r: Row) -> bool:
        return r["expected"] is not None

    def exact(r: Row) -> bool:
        return taken(r, most, alike) and bool(r["got"] == r["expected"])

    def talk(r: Row) -> bool:
        return r["expected"] is None and not r.get("near_miss")

    def near_miss(r: Row) -> bool:
        return bool(r.get("near_miss"))

    def rejected(r: Row) -> bool:
        return not taken(r, most, alike)

    parts = []
    for label, keep, right in (("exact", command, exact), ("talk rejected", talk, rejected),
                               ("near-miss rejected", near_miss, rejected)):
        cells = []
        for condition in CONDITIONS:
            group = [r for r in rows if keep(r) and r["condition"] == condition]
            if group:
                cells.append(f"{sum(map(right, group))}/{len(group)}")
        if cells:
            parts.append(f"{label} {' '.join(cells)}")
    return "; ".join(parts)


def rules(paths: list[str]) -> None:
    runs = {Path(p).stem: json.loads(Path(p).read_text()) for p in paths}
    choices: list[tuple[int | None, float | None]] = [(None, None), *((k, None) for k in range(6)),
                                                      (1, 0.5), (2, 0.4), (2, 0.5), (2, 0.6), (3, 0.5)]
    for most, alike in choices:
        label = "today" if most is None else f"at most {most} other words"
        if alike is not None:
            label += f", if it begins alike >= {alike}"
        for name, rows in runs.items():
            print(f"{label:46} {name:10} {figures(rows, most, alike)}")


def main(argv: list[str]) -> int:
    if argv[:1] == ["dump"] and len(argv) == 5:
        dump(argv[1], int(argv[2]), argv[3], argv[4])
        return 0
    if argv[:1] == ["rules"] and len(argv) > 1:
        rules(argv[1:])
        return 0
    print(__doc__.splitlines()[2], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
