"""What the store's games say: history rows, per-player statistics, exports and imports.

Everything is recomputed by replaying the stored canonical commands through the engine, so the
log stays the one source of truth (no summary columns that could disagree with it).
"""

from __future__ import annotations

import json
import random
import unicodedata
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assistant.commands import Command, ParseError, canonical, parse
from assistant.commands.files import NOT_UTF8, InputRefused, NotText, command_lines, open_input
from assistant.commands.text import printable
from assistant.i18n import _, current_language, format, ngettext, npgettext, pgettext
from assistant.referee import Entry, Referee, in_table_language
from assistant.store import dates
from assistant.store.current import load_game
from assistant.store.db import (
    DamagedGame,
    GameRow,
    GameStatus,
    GameStore,
    StoredEntry,
    StoreError,
    StoreErrorKind,
    rules_json,
)
from assistant.store.decode import stored_command
from assistant.table import score_sheet
from engine.actions import NewGame, SetStarter
from engine.errors import RuleError
from engine.game import Game, draw_start_player, name_key, places
from engine.log import MAX_ACTIONS, GameLog
from engine.rules import HouseRules
from engine.words import title

GAME_NAME = "Life is Life"
#: BoardGameGeek id: 0 leaves the game unlinked (the BG Stats user can link it to the BGG entry
#: in the app); we do not guess an id we cannot check offline.
BGG_ID = 0


@dataclass
class Record:
    """A stored game with its replayed referee."""

    row: GameRow
    entries: list[StoredEntry]
    referee: Referee

    @property
    def game(self) -> Game | None:
        return self.referee.game

    def current_commands(self) -> list[str]:
        """The game's commands as the replayed game writes them (``canonical``), never the
        stored text: another tool may have written a line with control characters or a line
        break that the parser reads past, and an export must not carry it."""
        return self.referee.history()

    @property
    def last_time(self) -> str:
        """When the game's last command was given (its end, for a game that ended), as the
        store writes times; the start when the stored value is not a time (another tool wrote
        it), which is never shown as it is."""
        row = self.row
        stored = row.ended or (self.entries[row.cursor - 1].at if row.cursor else row.started)
        return dates.stored_time(stored) or dates.stored_time(row.started) or row.started

    @property
    def duration_min(self) -> int:
        return minutes_between(self.row.started, self.last_time)

    @property
    def rounds(self) -> int:
        game = self.game
        if game is None:
            return 0
        return len(game.rounds) if game.is_over else game.round

    def places(self) -> dict[str, int]:
        """Finishing place per player (``engine.game.places``, the one ranking everywhere).
        Only for a finished game."""
        game = self.game
        assert game is not None
        return dict(places(game))

    def starter(self) -> str | None:
        """The first round's start player: the last 'X starts' before the first turn."""
        starter = None
        for e in self.entries[: self.row.cursor]:
            words = e.command.split()
            if len(words) == 2 and words[1] == "starts":
                starter = words[0]
            elif words[0] not in ("new", "row"):
                break
        return starter


#: The most characters of one name read from the store shown in a line of text.
SHOWN_NAME = 40


def shown_names(names: Iterable[str]) -> str:
    """Names read from the store, for a line of text: as the table shows them
    (``engine.words.title``) and as typed input is shown (``printable``), so a name edited in by
    another tool can neither send escape sequences to the terminal nor break a line of an
    export into two."""
    return ", ".join(printable(title(name), SHOWN_NAME) for name in names)


def minutes_between(started: str, ended: str) -> int:
    """A game's duration in whole minutes (rounded), from the store's time stamps: the one rule
    for ``history``, the exports and the table's game-over screen."""
    try:
        return max(0, round((_when(ended) - _when(started)).total_seconds() / 60))
    except (TypeError, ValueError, OverflowError):  # a time that is not a date: not worth a refusal
        return 0


def _when(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp)


def _local(stamp: str, form: str) -> str:
    """A stored time in this machine's time zone, as ``form``; as stored when it has none (a
    valid ISO date at the edge of the calendar, '0001-01-01T00:00:00+14:00', overflowed),
    escaped as typed input is (``printable``): it is read from the store."""
    try:
        return _when(stamp).astimezone().strftime(form)
    except (OverflowError, ValueError, OSError, TypeError):
        return printable(str(stamp), 40)


def load(store: GameStore, row: GameRow) -> Record:
    """The game of ``row`` replayed (``store.current.load_game``: ``DamagedGame`` when it
    cannot be)."""
    loaded = load_game(store, row, confirm_new_game=False)
    return Record(row, list(loaded.entries), loaded.referee)


def pick_game(store: GameStore, game_id: int | None) -> GameRow:
    """The game asked for, else the current (unfinished) one, else the newest."""
    if game_id is not None:
        # SQLite's integers stop at 2**63 - 1: a bigger number is no game (it raised OverflowError).
        row = store.game(game_id) if abs(game_id) < 2**63 else None
        if row is None:
            raise StoreError(format(_("There is no game {game} in {path}; 'lifeguard history' lists the "
                                      "games."), game=game_id, path=store.path), StoreErrorKind.MISSING, store.path)
        return row
    row = store.current_game() or store.latest_game()
    if row is None:
        raise StoreError(format(_("No games yet in {path}."), path=store.path), StoreErrorKind.MISSING, store.path)
    return row


# ---------------------------------------------------------------------------- history
def history(store: GameStore) -> list[dict[str, Any]]:
    """One dict per game, newest first; a damaged game is listed with ``damaged`` (a sentence)
    so that the others stay usable."""
    rows = []
    for row in store.games(newest_first=True):
        try:
            record = load(store, row)
        except DamagedGame as err:
            rows.append({"id": row.id, "date": row.started, "players": list(row.players),
                         "status": row.status, "damaged": err.message})
            continue
        rows.append({
            "id": row.id,
            "date": row.started,
            "players": list(row.players),
            "rounds": record.rounds,
            "winners": list(row.winners),
            "duration_min": record.duration_min,
            "status": row.status,
            "source": row.source,
        })
        game = record.game
        if row.status == GameStatus.FINISHED and game is not None and game.is_over:
            rows[-1]["places"] = [{"name": p, "place": n} for p, n in places(game)]
    return rows


def shown_status(status: str) -> str:
    """A stored game's status ("finished", "unfinished", "abandoned") in the table's language."""
    words = {"finished": pgettext("game status", "finished"),
             "unfinished": pgettext("game status", "unfinished"),
             "abandoned": pgettext("game status", "abandoned")}
    return words.get(status, status)


def history_text(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return [_("No games yet.")]
    lines = []
    for r in rows:
        if "damaged" in r:
            damaged = _("damaged:")
            lines.append(f"#{r['id']:<4} {damaged} {printable(r['damaged'], 1000)}")
            continue
        when = printable(_local(r["date"], "%Y-%m-%d %H:%M"))
        winners = shown_names(r["winners"]) or "-"
        lines.append(
            f"#{r['id']:<4} {when}  {_left(shown_names(r['players']), 32)} {_rounds(r['rounds'])}  "
            f"{_minutes(r['duration_min'])}  {_left(shown_status(r['status']), 10)} {_('winner:')} {winners}"
        )
    return lines


def _rounds(n: int) -> str:
    """' 2 rounds', '12 rounds', ' 2 Runden', ' 2라운드': the count right-aligned in 2 cells, the
    whole as wide as 'NN rounds' (a column of history)."""
    # Translators: history's rounds column; Korean writes the counter without a space ("2라운드").
    text = format(npgettext("count", "{n} round", "{n} rounds", n), n=n)
    digits = len(str(n))
    return _left(" " * max(0, 2 - digits) + text, max(2, digits) + 7)


def _minutes(n: int) -> str:
    """'   5 min', '   5분': the minutes right-aligned, the number in 4 cells as before."""
    return " " * max(0, 4 - len(str(n))) + format(_("{minutes} min"), minutes=n)


def cells(text: str) -> int:
    """How many terminal cells ``text`` takes: East Asian wide and full-width characters (Hangul,
    CJK) two, combining marks none, the rest one (the store does not import rich)."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in text)


def _left(text: str, width: int) -> str:
    """``text`` padded with spaces on the right to ``width`` cells."""
    return text + " " * max(0, width - cells(text))


def _right(text: str, width: int) -> str:
    """``text`` padded with spaces on the left to ``width`` cells."""
    return " " * max(0, width - cells(text)) + text


# ---------------------------------------------------------------------------- stats
def stats(store: GameStore, left_out: list[str] | None = None) -> list[dict[str, Any]]:
    """Per player over finished games: games, wins, average place, sudden deaths, lives lost
    per round played (rounds the player started alive). A damaged game is left out, with its
    sentence added to ``left_out``. Players are one player whatever the case of their name
    (shown as first written)."""
    table: dict[str, dict[str, Any]] = {}
    for row in store.games(newest_first=False):
        if row.status != GameStatus.FINISHED:
            continue
        try:
            record = load(store, row)
        except DamagedGame as err:
            if left_out is not None:
                left_out.append(err.message)
            continue
        game = record.game
        if game is None or not game.is_over:
            continue
        places = record.places()
        per = {p: table.setdefault(name_key(p), {"player": p, "games": 0, "wins": 0, "_places": 0,
                                                 "sudden_deaths": 0, "_lost": 0, "rounds": 0})
               for p in game.players}
        for p in game.players:
            per[p]["games"] += 1
            per[p]["wins"] += p in game.winners
            per[p]["_places"] += places[p]
        for ended in score_sheet(game):  # the lives lost, from the round results
            for line in ended.lines:
                per[line.name]["rounds"] += 1
                per[line.name]["_lost"] += line.lost
            if ended.sudden_death is not None:
                per[ended.sudden_death[0]]["sudden_deaths"] += 1
    out = []
    for key in sorted(table, key=lambda name: (-table[name]["wins"], name)):
        s = table[key]
        out.append({
            "player": s["player"],
            "games": s["games"],
            "wins": s["wins"],
            "average_place": round(s["_places"] / s["games"], 2),
            "sudden_deaths": s["sudden_deaths"],
            "rounds": s["rounds"],
            "lives_lost_per_round": round(s["_lost"] / s["rounds"], 2) if s["rounds"] else 0.0,
        })
    return out


def stats_text(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return [_("No finished games yet.")]
    # The columns' headings in the table's language, each column as wide as its heading.
    headings = [pgettext("stats", "player"), pgettext("stats", "games"), pgettext("stats", "wins"),
                pgettext("stats", "avg place"), pgettext("stats", "sudden deaths"),
                pgettext("stats", "lives lost/round")]
    # Widths in terminal cells: a Hangul heading or name is twice as wide as it is long.
    w = [max(width, cells(heading)) for width, heading in zip((12, 5, 5, 9, 13, 16), headings, strict=True)]
    lines = [_left(headings[0], w[0]) + " " + " ".join(_right(h, n) for h, n in zip(headings[1:], w[1:], strict=True))]
    for r in rows:
        lines.append(f"{_left(printable(title(r['player']), SHOWN_NAME), w[0])} {r['games']:>{w[1]}} {r['wins']:>{w[2]}} "
                     f"{r['average_place']:>{w[3]}.2f} {r['sudden_deaths']:>{w[4]}} "
                     f"{r['lives_lost_per_round']:>{w[5]}.2f}")
    return lines


# ---------------------------------------------------------------------------- export
def export_text(record: Record) -> str:
    """The command file ``lifeguard replay`` reads: the game's current commands, with a header
    of comments (the house rules line is read back by ``lifeguard import``).

    Every value read from the store is checked as what it must be or escaped, so that no line
    of the header becomes two and nothing in it reaches a terminal raw: the names escaped
    (``shown_names``), the times as times (a line left out when the stored value is not one),
    the status one of ``GameStatus``, the rules as the game's house rules in JSON (which
    escapes every control character), and the commands as the replayed game writes them."""
    row = record.row
    started = dates.stored_time(row.started)
    last = _stored_last_time(record)
    lines = [
        f"# Lifeguard game {row.id}: {shown_names(row.players)}",
        f"# {f'{dates.STARTED} {started}; ' if started else ''}{GameStatus(row.status).value}"
        + (f"; won by {shown_names(row.winners)}" if row.winners else ""),
        f"# house rules: {rules_json(row.house_rules())}",
        *([last] if last else []),
        *record.current_commands(),
    ]
    return "\n".join(lines) + "\n"


def _stored_last_time(record: Record) -> str | None:
    """The ``# last command`` line of the export: none when the stored time is not a time."""
    row = record.row
    stored = row.ended or (record.entries[row.cursor - 1].at if row.cursor else row.started)
    return dates.last_command_comment(stored)


def export_json(record: Record) -> dict[str, Any]:
    row = record.row
    return {
        "format": "lifeguard-game",
        "version": 1,
        "game": {
            "id": row.id,
            "players": list(row.players),
            "rules": row.rules,
            "started": row.started,
            "ended": row.ended,
            "status": row.status,
            "winners": list(row.winners),
            "rounds": record.rounds,
            "duration_min": record.duration_min,
            "source": row.source,
        },
        "entries": [
            {"seq": e.seq, "command": e.command, "joined": e.joined, "undone": e.seq >= row.cursor,
             "at": e.at, "said": e.said}
            for e in record.entries
        ],
        "state": record.referee.state(),
    }


def export_stored(store: GameStore, row: GameRow) -> dict[str, Any]:
    """What is stored for a game, replayed or not: the rescue of a damaged game. The row's
    values are given as they are in the file (text that is not JSON stays text)."""
    columns = ("id", "players", "rules", "started", "ended", "status", "winners", "cursor",
               "source")
    stored = dict(zip(columns, row.raw, strict=False))
    for key, value in stored.items():
        if isinstance(value, bytes):
            stored[key] = value.decode("utf-8", "replace")
    entries = store.entries(row.id)
    return {
        "format": "lifeguard-game",
        "version": 1,
        "damaged": None,
        "stored": stored,
        "entries": [
            {"seq": e.seq, "command": e.command if isinstance(e.command, str) else str(e.command),
             "joined": e.joined, "at": e.at, "said": e.said}
            for e in entries
        ],
    }


#: The BG Stats app's "create play" link: the app opens its new-play form filled in from the
#: ``data`` JSON, for the user to check and save (the https form opens the app where it is
#: installed, else BG Stats' web page saying so).
BGSTATS_CREATE_PLAY = "https://app.bgstatsapp.com/createPlay.html?data="
#: Where a play comes from, for BG Stats to recognise the same play sent twice.
BGSTATS_SOURCE = "Lifeguard"
#: BG Stats' date form: "YYYY-MM-DD HH:MM:SS".
BGSTATS_TIME = "%Y-%m-%d %H:%M:%S"


def _finished(record: Record) -> Game:
    """The replayed game of a finished record; refuses (a sentence) any other. Judged by the
    replayed game, never by the stored status alone: another tool may have written 'finished'
    beside a log that is not (and a game killed before its status was written is finished)."""
    row, game = record.row, record.game
    if game is None or not game.is_over:
        raise StoreError(format(
            _("Game {game} is not finished: BG Stats takes finished plays only. Export it as text or json "
              "instead."), game=row.id), StoreErrorKind.MISSING)
    return game


def _bgstats_ids(record: Record) -> tuple[str, str, dict[str, str]]:
    """Stable ids for the play, the game and each player (the same export twice is one play)."""
    row = record.row
    play = str(uuid.uuid5(uuid.NAMESPACE_URL, f"lifeguard:{row.id}:{row.started}"))
    game = str(uuid.uuid5(uuid.NAMESPACE_URL, "lifeguard:game:life-is-life"))
    players = {p: str(uuid.uuid5(uuid.NAMESPACE_URL, f"lifeguard:player:{p}")) for p in row.players}
    return play, game, players


def _display(name: str) -> str:
    return name[:1].upper() + name[1:]


def export_bgstats(record: Record, me: str | None = None) -> dict[str, Any]:
    """A BG Stats import file holding this one finished play.

    The shape follows the BG Stats app's export/import JSON ("BGStatsExport.json") and the keys
    every writer known to be imported by the app includes (the app is reported to crash on a
    missing key): top-level ``games``, ``players``, ``locations`` and ``plays`` linked by ids,
    ``challenges`` (empty) and ``userInfo.meRefId`` (the id of ``me``, the app's user, among the
    players; 0 for none of them). A play has ``playDate``, ``entryDate`` and
    ``modificationDate`` (local time, "YYYY-MM-DD HH:MM:SS"), ``durationMin``, ``rating`` and
    ``scoringSetting`` (0), ``playImages`` (the string "[]", as those writers give it), ``bggId``
    and ``nemestatsId`` (0: not linked), ``gameRefId`` and ``playerScores`` (``score`` a string,
    ``rank``, ``winner``, ``startPlayer``, ``newPlayer``, ``seatOrder``); a player has
    ``modificationDate`` and ``bggUsername`` (""); the game ``bggYear`` (0) and
    ``modificationDate``.
    """
    row = record.row
    game = _finished(record)
    places = record.places()
    starter = record.starter()
    ids = {p: i for i, p in enumerate(row.players, start=1)}
    play_uuid, game_uuid, player_uuids = _bgstats_ids(record)
    started = _local(row.started, BGSTATS_TIME)
    ended = _local(record.last_time, BGSTATS_TIME)
    me_id = 0
    if me:
        me_id = next((ids[p] for p in row.players if name_key(p) == name_key(me)), 0)
        if not me_id:
            raise StoreError(format(
                _("{me} did not play game {game} ({players}): give --me the name of one of its players, or "
                  "leave it out."), me=me, game=row.id, players=", ".join(map(_display, row.players))),
                StoreErrorKind.MISSING)
    return {
        "games": [{
            "id": 1,
            "name": GAME_NAME,
            "bggId": BGG_ID,
            "bggYear": 0,
            "uuid": game_uuid,
            "modificationDate": ended,
            "cooperative": False,
            "highestWins": True,
            "noPoints": True,
            "usesTeams": False,
        }],
        "players": [
            {"id": ids[p], "name": _display(p), "isAnonymous": False, "uuid": player_uuids[p],
             "modificationDate": ended, "bggUsername": ""}
            for p in row.players
        ],
        "locations": [],
        "plays": [{
            "uuid": play_uuid,
            "gameRefId": 1,
            "playDate": started,
            "entryDate": ended,
            "modificationDate": ended,
            "durationMin": record.duration_min,
            "rounds": record.rounds,
            "ignored": False,
            "manualWinner": False,
            "usesTeams": False,
            "rating": 0,
            "scoringSetting": 0,
            "playImages": "[]",
            "bggId": 0,
            "nemestatsId": 0,
            "comments": f"Recorded by Lifeguard (game {row.id}).",
            "playerScores": [
                {
                    "playerRefId": ids[p],
                    "rank": places[p],
                    "winner": p in game.winners,
                    "startPlayer": p == starter,
                    "newPlayer": False,
                    "seatOrder": ids[p],
                    "score": str(game.lives[p]),
                }
                for p in row.players
            ],
        }],
        "challenges": [],
        "userInfo": {"meRefId": me_id},
    }


def bgstats_play_link(record: Record) -> str:
    """The BG Stats app's "create play" link for this finished play: the app opens its new-play
    form filled in, for the user to confirm. Every boolean is given (``winner``,
    ``startPlayer``, ``highestWins``, ``noPoints``, ...), and ``playDate`` is UTC
    ("YYYY-MM-DDTHH:MM:SSZ"), so the phone's time zone cannot move the play to another day."""
    from urllib.parse import quote

    row = record.row
    game = _finished(record)
    places = record.places()
    starter = record.starter()
    play_uuid, game_uuid, player_uuids = _bgstats_ids(record)
    try:
        played = _when(row.started).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except (OverflowError, ValueError, OSError):
        played = str(row.started)
    data = {
        "sourceName": BGSTATS_SOURCE,
        "sourcePlayId": play_uuid,
        "playDate": played,
        "durationMin": record.duration_min,
        "rounds": record.rounds,
        "ignored": False,
        "manualWinner": False,
        "usesTeams": False,
        "comments": f"Recorded by Lifeguard (game {row.id}).",
        "game": {
            "name": GAME_NAME,
            "sourceGameId": game_uuid,
            "bggId": BGG_ID,
            "highestWins": True,
            "noPoints": True,
            "cooperative": False,
            "usesTeams": False,
        },
        "players": [
            {
                "name": _display(p),
                "sourcePlayerId": player_uuids[p],
                "score": str(game.lives[p]),
                "rank": places[p],
                "winner": p in game.winners,
                "startPlayer": p == starter,
                "newPlayer": False,
                "seatOrder": i,
                "role": "",
            }
            for i, p in enumerate(row.players, start=1)
        ],
    }
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return BGSTATS_CREATE_PLAY + quote(text, safe="")


# ---------------------------------------------------------------------------- import
@dataclass
class Imported:
    players: tuple[str, ...]
    rules: HouseRules
    entries: list[Entry]
    finished: bool
    winners: tuple[str, ...]
    #: When it was played, from the file's header (``RecordedTimes``; none: dated at the import).
    times: dates.RecordedTimes | None = None


def read_command_file(
    lines: Iterable[tuple[int, str | None]], comments: Iterable[str], rules: HouseRules,
    rng: random.Random | None = None,
) -> Imported:
    """Validate the lines of a command file as one game; raise ``ImportRefused`` naming the
    first refused line (every later command depends on it, so later refusals would only echo
    it). A ``# house rules: {...}`` comment (as ``export`` writes) sets the rules."""
    comments = list(comments)
    rules = _rules_of_comments(comments, rules)
    times, problems = dates.times_of_comments(comments)
    if problems:
        raise ImportRefused(problems)
    reader = _GameReader(rules, rng or random.Random())
    lines = iter(lines)  # read as they come: nothing is kept but the game
    for number, text in lines:
        problem = reader.read(number, text)
        if problem is not None:
            problems = [_not_a_command_file(text) or format(_("line {number}: {problem}"), number=number,
                                                            problem=problem)]
            later = sum(1 for _line in lines)  # counted, not kept
            if later:
                problems.append(format(ngettext(
                    "The {n} line after it was not checked: each command depends on the ones before it.",
                    "The {n} lines after it were not checked: each command depends on the ones before it.",
                    later), n=later))
            raise ImportRefused(problems)
    game = reader.finish()
    game.times = times
    return game


def _not_a_command_file(first_refused: str | None) -> str | None:
    """A sentence for a JSON file given where a command file is read (``export --format json``
    or ``bgstats`` written out and imported back), whose first line is refused as a command."""
    if first_refused is not None and first_refused.lstrip().startswith(("{", "[")):
        return _("this is a JSON file (export --format json or bgstats), not a command file: import reads "
                 "what 'lifeguard export --format text' writes.")
    return None


class _HouseRulesComments(list[str]):
    """The comments of a command file that set house rules or the game's times, and only the
    first two of each kind (a second one is refused): a file of ten million comments must not be
    ten million strings."""

    def __init__(self) -> None:
        super().__init__()
        self.kinds: list[str] = []

    def append(self, comment: str) -> None:
        text = comment.strip().lstrip("#").strip()
        kind = "rules" if text.startswith("house rules:") else dates.time_comment_kind(text)
        if kind is not None and self.kinds.count(kind) < 2:
            self.kinds.append(kind)
            super().append(comment)


def _rules_of_comments(comments: Iterable[str], rules: HouseRules) -> HouseRules:
    """The house rules of a ``# house rules: {...}`` comment, else ``rules``."""
    problems: list[str] = []
    found = 0
    for comment in comments:
        text = comment.strip().lstrip("#").strip()
        if text.startswith("house rules:"):
            found += 1
            if found == 2:  # which one was meant? (the last one was taken without a word)
                problems.append(_("two house rules comments: keep the one meant for this game"))
            try:
                rules = HouseRules(**json.loads(text.split(":", 1)[1]))
            except (ValueError, TypeError, RecursionError) as err:
                reason = _("nested too deeply") if isinstance(err, RecursionError) else str(err)
                problems.append(format(_("house rules comment: {problem}"), problem=printable(reason, 200)))
    if problems:
        raise ImportRefused(problems)
    return rules


def _in_table_language(text: str, players: tuple[str, ...] | None) -> Command:
    """A line of a command file read as ``replay`` reads it: in the table's language, then as
    English (the canonical forms an export writes)."""
    return parse(text, players, language=current_language())


class _GameReader:
    """A command file's game, read a line at a time: each line is checked against the game so
    far, as the referee would, and kept as the entry the referee would log."""

    def __init__(self, rules: HouseRules, rng: random.Random) -> None:
        self.rules = rules
        self.rng = rng
        self.log = GameLog(rules)
        self.entries: list[Entry] = []
        self.players: tuple[str, ...] | None = None
        self.new_game_line = 0
        #: The line before was 'new game': a start player not named next is drawn by lot.
        self.expect_lot = False

    def read(self, number: int, text: str | None) -> str | None:
        """Apply one line; what is wrong with it (None: it is a command of this game)."""
        if text is None:
            return NOT_UTF8
        if len(self.entries) >= MAX_ACTIONS:
            return format(_("a game holds at most {most:,} commands, and this file holds more."), most=MAX_ACTIONS)
        try:
            cmd = stored_command(text, self.players, _in_table_language)
        except ParseError as err:
            return err.message
        if not cmd.is_game_action:
            return format(_("'{text}' is not a game command (a command file holds the game's accepted "
                            "commands only)."), text=printable(text, 60))
        action = cmd.to_action()
        if isinstance(action, NewGame) and self.players is not None:
            return format(_("a second 'new game' (the first is on line {number}); a file holds one game."),
                          number=self.new_game_line)
        if not isinstance(action, NewGame) and self.players is None:
            return _("the file must start with 'new game' and the names.")
        joined = self.expect_lot and isinstance(action, SetStarter)
        if self.expect_lot and not joined:
            self._draw_lot()  # no start player named right after the new game
        self.expect_lot = False
        try:
            self.log.apply(action, joined=joined)
        except RuleError as err:
            return in_table_language(err)
        if isinstance(action, NewGame):
            self.players = self.log.game.players if self.log.game else None
            self.new_game_line = number
            self.expect_lot = True
        self.entries.append(Entry(cmd.canonical, joined))
        return None

    def _draw_lot(self) -> None:
        """Draw the start player, as the referee does, joined to the command before."""
        if self.log.game is None:
            return
        lot = SetStarter(draw_start_player(self.log.game.players, self.rng), by_lot=True)
        self.log.apply(lot, joined=True)
        self.entries.append(Entry(canonical(lot), True))

    def finish(self) -> Imported:
        """The game read, once every line was accepted."""
        if self.players is None:
            raise ImportRefused([_("no commands: the file must start with 'new game' and the names.")])
        if self.expect_lot:
            self._draw_lot()
        game = self.log.game
        assert game is not None
        return Imported(self.players, self.rules, self.entries, game.is_over, tuple(game.winners))


class ImportRefused(Exception):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


def read_import_file(path: Path, rules: HouseRules) -> Imported:
    """Read and check a command file before the store is touched (the store's lock is taken
    only afterwards, so a slow or endless input never holds it)."""
    comments = _HouseRulesComments()
    try:
        with open_input(path, "command file") as f:
            # Read twice, keeping nothing but the game: first for a house rules comment (it
            # may stand anywhere), then each line checked as it is read.
            for _line in command_lines(f, comments):
                pass
            f.seek(0)
            return read_command_file(command_lines(f), comments, rules)
    except InputRefused as err:
        raise StoreError(printable(str(err), 300), StoreErrorKind.MISSING) from None
    except OSError as err:
        raise StoreError(format(_("Cannot read {path}: {why}."), path=printable(str(path)), why=err.strerror or err),
                         StoreErrorKind.MISSING) from None
    except NotText:
        raise StoreError(format(_("{path} is not a text file."), path=printable(str(path))),
                         StoreErrorKind.FOREIGN) from None


def import_file(
    store: GameStore, path: Path | Imported, rules: HouseRules, abandon_current: bool = False,
    again: bool = False,
) -> tuple[int, Imported]:
    """Add a command file (or one already read with ``read_import_file``) as a game, at the
    times its header gives. A game the store holds already is refused (``ImportRefused``)
    unless ``again``: stats would count it twice."""
    imported = path if isinstance(path, Imported) else read_import_file(path, rules)
    if not again:
        _refuse_a_duplicate(store, imported)
    current = store.current_game()
    if not imported.finished and current is not None and not abandon_current:
        raise StoreError(format(
            _("Game {game} ({players}) is unfinished in {path}; the imported game is unfinished too. Finish "
              "that game first, or import with --abandon-current to keep it in the history as abandoned "
              "and continue the imported one."), game=current.id,
            players=shown_names(current.players) or _("damaged"), path=store.path),
            StoreErrorKind.CONFLICT, store.path)
    game_id = store.add_game(
        imported.players, imported.rules, imported.entries,
        status=GameStatus.FINISHED if imported.finished else GameStatus.UNFINISHED,
        winners=imported.winners, source="imported", abandon_unfinished=True,
        times=(imported.times.started, imported.times.last) if imported.times else None,
    )
    return game_id, imported


def _refuse_a_duplicate(store: GameStore, imported: Imported) -> None:
    """Refuse a game the store holds already: the same players, the same commands and (when
    the file gives it) the same start time."""
    same = _same_game(store, imported)
    if same is None:
        return
    when = _local(same.started, "%Y-%m-%d %H:%M")
    message = (_("the store holds this game already as game {game} ({players}, started {when}): the same "
                 "players, commands and start time, so the statistics would count it twice. To keep a "
                 "second copy all the same, import it with --again.") if imported.times else
               _("the store holds this game already as game {game} ({players}, started {when}): the same "
                 "players and commands (the file gives no start time), so the statistics would count it "
                 "twice. To keep a second copy all the same, import it with --again."))
    raise ImportRefused([format(message, game=same.id, players=shown_names(same.players), when=when)])


def _same_game(store: GameStore, imported: Imported) -> GameRow | None:
    """The stored game that is ``imported``, if there is one (the newest)."""
    commands = _compared_commands([e.command for e in imported.entries])
    for row in store.games(newest_first=True):
        if row.damage is not None or _folded(row.players) != _folded(imported.players):
            continue
        if imported.times is not None and not dates.same_instant(row.started, imported.times.started):
            continue
        try:
            stored = store.entries(row.id)[: row.cursor]
        except DamagedGame:  # a log too long to be read is no copy of a game that can be
            continue
        if _compared_commands([e.command for e in stored]) == commands:
            return row
    return None


def _folded(names: Iterable[str]) -> tuple[str, ...]:
    """Names as the game tells them apart: 'Bob' and 'BOB' are one player (and ``stats`` counts
    them as one), so a copy with its names in other capitals is the same game."""
    return tuple(name_key(name) for name in names)


def _compared_commands(commands: list[str]) -> list[str]:
    """A game's commands as two copies of it are compared: in any case (a name typed in
    other capitals is the same player), without the start player after 'new game' (a file
    naming none has one drawn by lot at each import; the turns that follow say who started
    whenever it matters)."""
    if len(commands) > 1 and commands[1].endswith(" starts"):
        commands = commands[:1] + commands[2:]
    return [name_key(command) for command in commands]


def played_at(imported: Imported) -> str:
    """When an imported game was played, for ``import``'s answer ('' when the file gives no
    time: it is dated now)."""
    if imported.times is None:
        return ""
    minutes = minutes_between(imported.times.started, imported.times.last)
    return format(_(", played {when} for {minutes} min"), when=_local(imported.times.started, "%Y-%m-%d %H:%M"),
                  minutes=minutes)
