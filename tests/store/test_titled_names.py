"""Names read the same in `history`, `stats` and `import`'s answer as at the table and in
`status`: with the capital first letter of ``engine.words.title``; JSON keeps them as typed."""

from __future__ import annotations

import json
from pathlib import Path

from engine.words import title
from tests.store.conftest import lifeguard

#: Carol claims five sudden deaths and wins; 'o'brien' shows how title treats the rest.
GAME = ["new game alice o'brien carol", *["carol has all cats", "carol has all pigs"] * 2,
        "carol has all rabbits"]


def test_history_stats_and_import_title_names_as_the_table_does(env, data: Path, tmp_path: Path) -> None:
    path = tmp_path / "game.txt"
    path.write_text("\n".join(GAME) + "\n")
    imported = lifeguard(env, "import", str(path))
    assert imported.returncode == 0, imported.stderr
    assert "Imported game 1: Alice, O'brien, Carol," in imported.stdout
    shown = ", ".join(title(p) for p in ("alice", "o'brien", "carol"))
    (line,) = lifeguard(env, "history").stdout.splitlines()
    assert shown in line and line.endswith("winner: Carol")
    stats = lifeguard(env, "stats").stdout.splitlines()[1:]
    assert [s.split()[0] for s in stats] == ["Carol", "Alice", "O'brien"]
    status = lifeguard(env, "status").stdout.splitlines()[0]
    assert "Alice, O'brien and Carol" in status  # the table's sentence, the same names
    # data stays as typed
    (row,) = json.loads(lifeguard(env, "history", "--json").stdout)
    assert row["players"] == ["alice", "o'brien", "carol"] and row["winners"] == ["carol"]
    assert {s["player"] for s in json.loads(lifeguard(env, "stats", "--json").stdout)} == {
        "alice", "o'brien", "carol"}
