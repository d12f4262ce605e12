"""Near-miss talk by the length of Whisper's free transcription: an offline estimate (issue 38,
item 3; bench/NOTES.md, session 18).

Run on two dumps of ``bench/near_miss_free.py dump`` (tune, then test):
``PYTHONPATH=$PWD:$PWD/bench .venv/bin/python bench/near_miss_length.py TUNE.json TEST.json``.

The recogniser's rule (``MAX_OTHER_WORDS``) counts the *distinct* words of the free transcription
that are not the command's; near-miss talk that gets through is often written freely with two
new words only ("what can i say i love most") or as a loop ("where are we where are we"). The
rule estimated here counts the free transcription's words beyond the command's (first time
round, ``_first_time_round``; or all of them), for a command naming no cards whose free
transcription begins like it (``MIN_BEGINS_ALIKE``). Printed per split and condition: exact
commands, table talk and near-miss talk rejected, today and under each rule.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assistant.voice.whisper.recognizer import (
    MIN_BEGINS_ALIKE,
    _begins_like,
    _first_time_round,
    _spelt,
)

Row = dict[str, Any]
Rule = Callable[[Row], bool]
CONDITIONS = ("clean", "noise", "chatter", "reverb")


def names_cards(row: Row) -> bool:
    return any(ch.isdigit() for ch in str(row["got"]))


def once(words: list[str]) -> list[str]:
    """``words`` once, when the whole is its first few words said again and again ("no no no",
    "bob doc bob doc bob", "redo redo red"); otherwise ``words`` (up to where they start over, as
    ``_first_time_round`` finds it)."""
    for period in range(1, len(words)):
        # the last word may be cut short where the transcription stopped ("redo redo red")
        if all(word == words[i % period] for i, word in enumerate(words[:-1])) \
                and words[(len(words) - 1) % period].startswith(words[-1]):
            return words[:period]
    return _first_time_round(words)


def extra_words(most: int, loops: str) -> Rule:
    """Talk when the free transcription holds more than ``most`` words beyond the command's and
    begins like it; ``loops``: "counted" (every word), "first" (``_first_time_round``), "once"
    (``once``)."""

    def talk(row: Row) -> bool:
        words, free = _spelt(row["words"]), _spelt(row["free"])
        counted = {"counted": free, "first": _first_time_round(free), "once": once(free)}[loops]
        return len(counted) - len(words) > most and _begins_like(words, free) >= MIN_BEGINS_ALIKE

    return talk


def taken(row: Row, rule: Rule | None) -> bool:
    if row["got"] is None:
        return False
    if rule is None or names_cards(row) or not row["free"] or not row["words"]:
        return True
    return not rule(row)


def line(rows: list[Row], rule: Rule | None) -> str:
    cells = []
    for condition in CONDITIONS:
        group = [r for r in rows if r["condition"] == condition]
        exact = sum(taken(r, rule) and r["got"] == r["expected"] for r in group if r["expected"] is not None)
        talk = sum(not taken(r, rule) for r in group if r["expected"] is None and not r.get("near_miss"))
        near = sum(not taken(r, rule) for r in group if r.get("near_miss"))
        n_near = sum(bool(r.get("near_miss")) for r in group)
        cells.append(f"{exact:3} {talk:3} {near:3}/{n_near:<3}")
    return " | ".join(cells)


def main(argv: list[str]) -> int:
    rules: dict[str, Rule | None] = {"today": None}
    for most in (1, 2, 3):
        for loops in ("once", "first", "counted"):
            rules[f"> {most} words beyond, loops {loops}"] = extra_words(most, loops)
    for path in argv:
        rows: list[Row] = json.loads(Path(path).read_text())
        print(f"{path}: exact / talk rejected / near-miss rejected, " + " | ".join(CONDITIONS))
        for name, rule in rules.items():
            print(f"  {name:40} {line(rows, rule)}")
            if rule is not None:
                for r in rows:
                    if taken(r, None) and not taken(r, rule) and r["expected"] is not None:
                        print(f"      loses {r['id']} {r['condition']}: {r['expected']!r}, free {' '.join(r['free'])!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
