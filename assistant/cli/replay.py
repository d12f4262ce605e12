"""``lifeguard replay FILE``: a file of commands run through the referee, its announcements
printed (or with ``--json`` only the final state). Reproducible: the lots are drawn with seed 0
unless ``--seed`` says otherwise. Every refused line is said on stderr with its number, and
a file of refusals is given up after ``MAX_REFUSED_LINES`` of them."""

from __future__ import annotations

import argparse
import json
import random
import sys
from typing import Any, BinaryIO

from assistant.cli.streams import MAX_REFUSED_LINES, is_terminal
from assistant.commands.files import (
    MAX_FILE,
    NOT_UTF8,
    InputRefused,
    NotText,
    command_lines,
    open_input,
)
from assistant.commands.text import printable
from assistant.config import settings_or_exit
from assistant.i18n import _, format, ngettext
from assistant.referee import Referee, Reply
from assistant.table import TableState


def cmd_replay(args: argparse.Namespace) -> int:
    settings = settings_or_exit(args)
    seed = 0 if args.seed is None else args.seed  # replay is reproducible by default
    referee = Referee(settings.rules, random.Random(seed), confirm_new_game=False)
    try:
        # Bytes, decoded line by line: one line in another encoding is a refused line, not
        # the end of the replay (a text-mode read fails on the whole first 8 KB at once).
        stdin: Any = sys.stdin
        stream: BinaryIO = (getattr(stdin, "buffer", stdin) if args.file == "-"
                            else open_input(args.file, "command file"))
    except InputRefused as err:
        print(f"lifeguard: {printable(str(err), 300)}", file=sys.stderr)
        return 2
    refused = 0
    with stream:
        try:
            for number, line in command_lines(stream):
                if refused >= MAX_REFUSED_LINES:
                    print(format(_("lifeguard: stopped after {n} refused lines: {unread} not read. Is this "
                                   "a file of commands?"), n=refused, unread=_unread(stream, number)),
                          file=sys.stderr)
                    return 1
                reply = referee.handle(line) if line is not None else Reply(False, error=NOT_UTF8)
                if not reply.ok:
                    refused += 1
                    print(format(_("line {number}: {problem}"), number=number,
                                 problem=printable(reply.error or "", 300)), file=sys.stderr)
                elif not args.json:
                    for sentence in reply.said:
                        print(sentence)
        except NotText:
            print(format(_("lifeguard: {path} is not a text file."), path=printable(args.file)), file=sys.stderr)
            return 2
    if args.json:
        print(json.dumps(TableState.of(referee.game).status_json()))
    return 1 if refused else 0


def _unread(stream: BinaryIO, number: int) -> str:
    """What is left of ``stream`` from line ``number`` (just read) on, as a clause: its lines
    counted, reading at most ``MAX_FILE`` bytes more (an endless input is not read to its end;
    a terminal not at all)."""
    if is_terminal(stream):
        return format(_("line {number:,} and the rest of the input were"), number=number)
    lines, read, last = 1, 0, b"\n"
    while read <= MAX_FILE and (chunk := stream.read(1 << 16)):
        lines += chunk.count(b"\n")
        read += len(chunk)
        last = chunk[-1:]
    if read > MAX_FILE:
        return format(_("line {number:,} and the rest of the input (over {most:,} bytes) were"),
                      number=number, most=MAX_FILE)
    lines += last != b"\n"
    return format(ngettext("line {number:,} was", "{n:,} lines, from line {number:,} on, were", lines),
                  number=number, n=lines)
