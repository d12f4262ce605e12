"""Property tests for issue 10: arbitrary Unicode and bytes through the parser and the referee
(in process: only sentences come back, a refusal changes nothing) and through ``chat`` and
``replay`` as real processes, each under an address-space limit of 300 MB and a time limit, a
bounded number of examples."""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assistant.commands import ParseError, parse
from assistant.commands.text import normalize
from assistant.referee import Referee

PLAYERS = ("alice", "bob", "carol")
OPENING = ["new game alice bob carol", "alice starts", "row 1 giraffe", "row 2 bear bear",
           "row 3 mole mole mole", "row 4 goat goat goat goat"]
#: Every character Python has, surrogates and control characters included.
ANY_TEXT = st.text(st.characters(exclude_categories=()), max_size=120)
#: Words that make the text look like commands, mixed with any characters.
WORDS = st.sampled_from(["row", "alice", "bob", "swaps", "has", "all", "pigs", "new", "game",
                         "yes", "no", "undo", "³", "٣", "-3", "2.5", "99999999999999999999",
                         "anne-marie", "o'brien", "प्रिया", "İbrahim", "Zoe\u0308", "\x1b[2J",
                         "\u202e", "\x00", "ⅻ", "½", "𝟙"])
COMMAND_LIKE = st.lists(st.one_of(WORDS, ANY_TEXT), max_size=8).map(" ".join)
MEMORY_LIMIT = 300 * 1024 * 1024
IN_PROCESS = settings(max_examples=int(os.environ.get("LIFEGUARD_FUZZ_EXAMPLES", "200")),
                      deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: Processes are slow to start: few examples, each bounded in time.
PROCESSES = settings(max_examples=int(os.environ.get("LIFEGUARD_PROCESS_EXAMPLES", "12")),
                     deadline=None,
                     suppress_health_check=[HealthCheck.too_slow,
                                            HealthCheck.function_scoped_fixture])


def a_sentence(text: str | None) -> bool:
    return bool(text) and "\n" not in text and "Traceback" not in text  # type: ignore[operator]


@IN_PROCESS
@given(st.one_of(ANY_TEXT, COMMAND_LIKE))
def test_the_parser_gives_a_command_or_a_sentence(text: str) -> None:
    for players in (PLAYERS, None):
        try:
            command = parse(text, players)
        except ParseError as err:
            assert a_sentence(err.message)
        else:
            assert command.intent and command.canonical == parse(command.canonical, players).canonical
    assert normalize(normalize(text)) == normalize(text)


_opened = Referee(rng=random.Random(0))
for _line in OPENING:
    _opened.handle(_line)


@IN_PROCESS
@given(st.lists(st.one_of(ANY_TEXT, COMMAND_LIKE), min_size=1, max_size=6), st.booleans())
def test_the_referee_answers_sentences_and_a_refusal_changes_nothing(
    lines: list[str], heard: bool
) -> None:
    import copy

    referee = copy.deepcopy(_opened)
    for line in lines:
        before = (json.dumps(referee.state(), sort_keys=True), referee.history(),
                  referee.question)
        try:
            command = parse(line, referee.players)
        except ParseError:
            reply = referee.handle(line)
        else:
            reply = referee.execute(command, heard=heard)
        if reply.ok:
            assert reply.said and all(a_sentence(s) for s in reply.said)
        else:
            assert a_sentence(reply.error)
            after = (json.dumps(referee.state(), sort_keys=True), referee.history(),
                     referee.question)
            assert after == before


# --------------------------------------------------------------------------- processes
def limited() -> None:
    """In the child: at most 300 MB of address space (issue 10: memory stays under 300 MB)."""
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def run_limited(args: list[str], data: bytes, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "assistant.cli", *args], input=data,
                          capture_output=True, env=env, timeout=60, preexec_fn=limited)


@pytest.fixture(scope="module")
def process_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("hostile")
    env = dict(os.environ)
    env.pop("LIFEGUARD_CONFIG", None)
    env.update(LIFEGUARD_DATA_DIR=str(root / "data"), XDG_CONFIG_HOME=str(root / "config"),
               HOME=str(root))
    return env


BYTES = st.one_of(
    st.binary(max_size=3000),
    st.lists(st.one_of(COMMAND_LIKE, ANY_TEXT), max_size=20).map(
        lambda lines: "\n".join(lines).encode("utf-8", "surrogatepass")),
)


@PROCESSES
@given(BYTES)
def test_chat_as_a_process_answers_every_line(process_env: dict[str, str], data: bytes) -> None:
    opening = "".join(line + "\n" for line in OPENING).encode()
    out = run_limited(["chat", "--jsonl", "--no-store"], opening + data + b"\nstatus\n",
                      process_env)
    assert out.returncode == 0, out.stderr[-1000:]
    assert b"Traceback" not in out.stderr and out.stderr == b""
    replies = [json.loads(line) for line in out.stdout.splitlines()]
    assert replies[-1]["intent"] == "status" and replies[-1]["ok"]
    for reply in replies:
        assert a_sentence(reply["said"] if reply["ok"] else reply["error"])


@PROCESSES
@given(BYTES)
def test_replay_as_a_process_gives_sentences(process_env: dict[str, str], data: bytes) -> None:
    opening = "".join(line + "\n" for line in OPENING).encode()
    out = run_limited(["replay", "-"], opening + data, process_env)
    assert out.returncode in (0, 1, 2), out.stderr[-1000:]
    assert b"Traceback" not in out.stderr, out.stderr[-1000:]
    for line in out.stderr.decode("utf-8", "replace").splitlines():
        assert line.startswith(("line ", "lifeguard: ")), line


def test_endless_input_is_read_in_bounded_memory(process_env: dict[str, str], tmp_path: Path) -> None:
    """50 MB without a newline, and /dev/zero: refused, within the memory limit."""
    out = run_limited(["chat", "--jsonl", "--no-store"], b"x" * 50_000_000 + b"\nstatus\n",
                      process_env)
    replies = [json.loads(line) for line in out.stdout.splitlines()]
    assert "longer than 1,000 characters" in replies[0]["error"] and replies[1]["ok"]
    with open("/dev/zero", "rb") as zero:
        out = subprocess.run([sys.executable, "-m", "assistant.cli", "replay", "-"], stdin=zero,
                             capture_output=True, env=process_env, timeout=60,
                             preexec_fn=limited)
    assert out.returncode == 2 and b"is not a text file" in out.stderr
