"""When a game was played, as a command file's header says it.

``lifeguard export --format text`` writes ``# started <time>`` and ``# last command <time>``
(``records.export_text``); ``lifeguard import`` reads them back here, so an imported game keeps
its date and duration in ``history``, ``stats`` and the BG Stats export instead of the time of
the import. Times are stored as ``db.now()`` writes them: ISO 8601 in UTC, to the millisecond.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from assistant.commands.text import printable
from assistant.i18n import N_, _, format

STARTED = "started"
LAST_COMMAND = "last command"

#: No game recorded by Lifeguard is older than this; a year 1 or 1850 is a typing slip.
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
#: How far ahead of this machine's clock a time may be (another machine's clock, a time zone
#: written wrongly by hand) before it is a date in the future.
AHEAD = timedelta(days=1)

#: What each comment's time is called in a refusal.
_NAMED = {STARTED: N_("start time"), LAST_COMMAND: N_("last command's time")}
_COMMENT = re.compile(rf"({STARTED}|{LAST_COMMAND})\b:?\s*([^;]*)", re.IGNORECASE)


@dataclass(frozen=True)
class RecordedTimes:
    """When an imported game started and when its last command was given (its end, for a
    finished game), as the store writes times."""

    started: str
    last: str


def time_comment_kind(text: str) -> str | None:
    """Which time a comment's text (without its ``#``) gives: ``started``, ``last command`` or
    None."""
    match = _COMMENT.match(text)
    return match.group(1).lower() if match else None


def last_command_comment(value: object) -> str | None:
    """The export's header line read back as the game's last command time; None (no line)
    when the stored value is not a time: another tool may have written anything there (a line
    break and commands after it, an escape sequence), and a line of the export must never be
    more than its own line. A game without the line is dated by its start alone."""
    when = stored_time(value)
    return None if when is None else f"# {LAST_COMMAND} {when}"


def stored_time(value: object) -> str | None:
    """A time read from the store, written as the store writes times (``stamp``); None when
    it is not a time (another tool may have written anything there), so that it is never
    written out as it is."""
    if not isinstance(value, str):
        return None
    try:
        return stamp(datetime.fromisoformat(value))
    except (ValueError, OverflowError, OSError):  # not a date; a date at the calendar's edge
        return None


def stamp(when: datetime) -> str:
    """A time as the store writes it (``db.now()``)."""
    return when.astimezone(UTC).isoformat(timespec="milliseconds")


def same_instant(one: str, other: str) -> bool:
    """Whether two stored times are the same moment (the same time written in two zones is)."""
    try:
        return datetime.fromisoformat(one) == datetime.fromisoformat(other)
    except (TypeError, ValueError):
        return one == other


def times_of_comments(
    comments: Iterable[str], clock: datetime | None = None
) -> tuple[RecordedTimes | None, list[str]]:
    """The times of the ``# started`` and ``# last command`` comments, and what is wrong with
    them (a sentence each; the file is then refused). None when the file names no time: the
    game is dated at the import. One time alone stands for both (a duration of 0 minutes:
    not known). A time without a zone is this machine's local time."""
    clock = clock or datetime.now(UTC)
    found: dict[str, tuple[str, datetime | None]] = {}
    problems: list[str] = []
    for comment in comments:
        text = comment.strip().lstrip("#").strip()
        match = _COMMENT.match(text)
        if match is None:
            continue
        what = match.group(1).lower()
        if what in found:
            problems.append(format(_("two '# {what}' comments: keep the one meant for this game and delete the "
                                     "other."), what=what))
            continue
        found[what] = (text, _read_time(text, match.group(2).strip(), what, clock, problems))
    started = found.get(STARTED, ("", None))
    last = found.get(LAST_COMMAND, ("", None))
    if started[1] and last[1] and last[1] < started[1]:
        problems.append(format(_("'# {last}' is before '# {started}': correct one of them, or delete both "
                                 "lines to date the game now."), last=printable(last[0], 80),
                               started=printable(started[0], 80)))
    if problems:
        return None, problems
    first, end = started[1] or last[1], last[1] or started[1]
    if first is None or end is None:
        return None, []
    return RecordedTimes(stamp(first), stamp(end)), []


def _read_time(
    comment: str, value: str, what: str, clock: datetime, problems: list[str]
) -> datetime | None:
    """The time written after ``# started``/``# last command``; None with a problem noted."""
    quoted = f"'# {printable(comment, 80)}'"
    what = _(_NAMED[what])
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        example = clock.astimezone().strftime("%Y-%m-%d 20:15")
        problems.append(format(_("{comment}: the {what} is not a date. Write it as {example} (this machine's "
                                 "time) or as 'lifeguard export' writes it, or delete the line to date the "
                                 "game now (the time of the import)."), comment=quoted, what=what,
                               example=example))
        return None
    if when.year < EARLIEST.year:  # before converting: the year 1 in a zone east of UTC overflows
        when = EARLIEST - AHEAD
    try:
        # A time without a zone is this machine's local time, as a person writes it.
        when = (when.astimezone() if when.tzinfo is None else when).astimezone(UTC)
    except (OverflowError, OSError):  # the last days of the year 9999
        when = datetime.max.replace(tzinfo=UTC)
    if when < EARLIEST:
        problems.append(format(_("{comment}: the {what} is before {year}, so it cannot be when this game was "
                                 "played. Correct it, or delete the line to date the game now (the time of "
                                 "the import)."), comment=quoted, what=what, year=EARLIEST.year))
        return None
    if when > clock + AHEAD:
        problems.append(format(_("{comment}: the {what} is in the future (this machine's clock says {now}). "
                                 "Correct it, or delete the line to date the game now (the time of the "
                                 "import)."), comment=quoted, what=what,
                               now=f"{clock.astimezone():%Y-%m-%d %H:%M}"))
        return None
    return when
