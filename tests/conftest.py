"""Shared fixtures for the whole suite; kept small (subfolders add their own conftest files)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def isolated_env(tmp_path: Path) -> dict[str, str]:
    """Environment for ``lifeguard`` subprocesses that never touches a real home: the game store,
    the config directory and HOME all point into ``tmp_path``."""
    env = dict(os.environ)
    env.pop("LIFEGUARD_CONFIG", None)
    env["LIFEGUARD_DATA_DIR"] = str(tmp_path / "data")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    env["XDG_DATA_HOME"] = str(tmp_path / "share")
    env["HOME"] = str(tmp_path / "home")
    return env


#: Test modules left out of ``make check`` as a whole (issue 37: the lint and the rest in under a
#: minute on 2 cores); ``make test`` runs them. Each starts real things that take seconds per test:
#: Textual's Pilot driving the whole table, tmux, chromium, Whisper and PocketSphinx decoding,
#: espeak-ng audio played at real-time pace, ``lifeguard`` processes, long generated games.
#: Single tests elsewhere carry ``@pytest.mark.slow`` themselves.
SLOW_MODULES = (
    "tui/",
    "web/test_a11y.py",
    "web/test_browser.py",
    "web/test_connections.py",
    "voice/test_barge_in.py",
    "voice/test_cli.py",
    "voice/test_echo.py",
    "voice/test_listen_loop.py",
    "voice/test_listen_speech.py",
    "voice/test_listener.py",
    "voice/test_long_audio.py",
    "voice/test_odd_wav_input.py",
    "voice/test_pocketsphinx_names.py",
    "voice/test_recognizer.py",
    "voice/test_speaker.py",
    "voice/test_whisper",  # and any test_whisper_*.py the decoder's tests are split into
    "voice/whisper/",
    "commands/test_fuzz.py",
    "commands/test_languages_fuzz.py",  # German and Korean's Hypothesis runs: 12 s of CPU, 3 tests
    "engine/test_random_games.py",
    "store/test_faults.py",
    "store/test_hostile.py",
    "store/test_kill.py",
    "store/test_links.py",
    "store/test_long_game.py",
    "store/test_played_times.py",
    "store/test_shown_names.py",
    "store/test_stored_values.py",
    "test_chat_terminal.py",
    "test_cli.py",
    "test_hostile_input.py",
    "test_import_hygiene.py",
)


#: The longest tests (each over ~12 s of wall on a busy machine: real-time audio, Whisper, the
#: fuzzers, whole games typed key by key; longest first, as measured on 2026-12-04 with 3 workers
#: at load 3-13: bench/NOTES.md, session 19). ``make test`` starts them first, one at the head of
#: each worker's share of the suite, so that none of them starts late and keeps one worker busy
#: after the others have finished (the tail bounds the whole run). Node ids below ``tests/``,
#: without parameters: every parameter of a test listed is one of them.
LONGEST = (
    "tui/test_tui_batch.py::test_a_batch_ends_with_the_screen_the_lines_one_by_one_leave",
    "voice/test_long_audio.py::test_hear_and_listen_on_an_hour_of_4khz_8bit_audio_stay_under_600_mb",
    "commands/test_languages_fuzz.py::test_any_text_in_german_or_korean_is_a_command_or_a_sentence",
    "voice/test_listen_loop.py::test_an_unfinished_command_is_not_joined_to_the_start_of_the_next_players",
    "store/test_long_game.py::test_import_of_many_refused_lines_holds_only_a_line_at_a_time",
    "voice/test_listen_loop.py::test_an_unfinished_command_followed_by_talk_is_reported_before_the_talk",
    "tui/test_tui_voice.py::test_talk_is_written_down_and_an_unfinished_command_is_said",
    "voice/test_listen_loop.py::test_the_commands_heard_do_not_depend_on_the_machines_speed",
    "voice/test_barge_in.py::test_listen_room_plays_the_table_into_the_input_and_still_hears",
    "tui/test_tui_grid_cursor.py::test_the_cursor_follows_the_players_still_to_declare",
    "voice/test_listen_loop.py::test_an_unfinished_command_does_not_swallow_the_next_players_command",
    "voice/test_whisper.py::test_memory_does_not_grow_with_each_utterance_and_onnx_needs_no_float32_weights",
    "tui/test_tui_game.py::test_whole_game_with_sudden_death_elimination_and_game_over",
    "voice/test_listen_loop.py::test_a_command_with_a_pause_between_cards_arrives_whole",
    "voice/test_listen_loop.py::test_a_spoken_sudden_death_waits_for_yes_and_no_drops_it",
    "web/test_page_lang.py::test_axe_finds_nothing_on_the_page_in_german_or_korean",
    "voice/test_long_audio.py::test_hear_a_recording_longer_than_whisper_s_window_hears_each_command",
    "voice/test_listen_loop.py::test_a_quiet_player_over_room_noise_is_not_split",
    "tui/test_tui_voice.py::test_a_spoken_command_is_heard_read_back_and_applied",
    "voice/test_cli.py::test_hear_prints_one_canonical_command_per_file_and_nothing_for_talk",
    "voice/test_listen_loop.py::test_lifeguard_listen_says_an_unfinished_command_but_only_prints_talk",
    "i18n/test_speech_announce.py::test_a_whole_seeded_game_is_announced_in_the_language",
    "voice/test_barge_in.py::test_speaking_over_an_announcement_stops_it_and_is_heard_and_applied",
    "tui/test_tui_voice_load.py::test_the_event_loop_keeps_ticking_while_the_voice_loads",
    "tui/test_tui_setup.py::test_the_readmes_new_game_command_in_the_first_field_fills_the_names",
    "web/test_page_lang.py::test_the_game_over_view_is_in_the_tables_language",
    "voice/test_languages.py::test_german_speech_is_heard_as_the_canonical_command",
    "voice/test_cli.py::test_listen_session_reads_back_applies_and_take_that_back_undoes",
    "store/test_played_times.py::test_the_same_game_twice_is_refused_unless_asked_for",
    "voice/test_whisper.py::test_onnx_runtime_keeps_no_device_id_and_prints_nothing",
    "tui/test_tui_lang.py::test_f1_shows_the_rules_in_the_tables_language",
    "tui/test_tui_grid_cursor.py::test_the_checks_are_read_whole_beside_the_grid",
    "voice/test_listen_loop.py::test_a_command_right_after_a_phase_change_is_heard_with_the_new_phase",
    "table/test_sheet_lang.py::test_expected_and_hint_in_the_language_through_a_whole_game",
    "tui/test_tui_tmux.py::test_a_round_by_keys_only_with_a_suggestion_and_the_grid",
    "tui/test_tui_game.py::test_hand_grid_declares_hands_and_shows_results",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark the slow modules' tests ``slow``, and run the slow tests first (each group in its
    collection order): with several workers the long ones start at once rather than leaving one
    worker busy at the end while the others wait. Under xdist the ``LONGEST`` tests are dealt
    out to the heads of the workers' shares (``spread_longest``)."""
    tests = Path(__file__).resolve().parent
    for item in items:
        relative = item.path.resolve().relative_to(tests).as_posix()
        if relative.startswith(SLOW_MODULES):
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0") or 0)
    if workers > 1:
        items[:] = spread_longest(items, workers, tests)


def spread_longest(items: list[pytest.Item], workers: int, tests: Path) -> list[pytest.Item]:
    """``items`` reordered for ``--dist worksteal``, which first hands each of ``workers`` an
    equal run of the collection in order (the first third to one, the next to another, ...),
    then moves tests from the end of a long queue to a worker left idle: the ``LONGEST`` tests,
    longest first, go one to the head of each run in turn; every other test keeps its place.
    Each worker collects the same order (xdist checks that)."""
    def rank(item: pytest.Item) -> int | None:
        node = item.nodeid.split("[", 1)[0]
        relative = (item.path.resolve().relative_to(tests).as_posix() + "::"
                    + node.split("::", 1)[1]) if "::" in node else node
        return LONGEST.index(relative) if relative in LONGEST else None

    longest = sorted((i for i in items if rank(i) is not None), key=lambda i: rank(i) or 0)
    rest = [i for i in items if rank(i) is None]
    sizes, left = [], len(items)
    for share in range(workers, 0, -1):  # as xdist's WorkStealingScheduling.check_schedule
        sizes.append(left // share)
        left -= sizes[-1]
    runs: list[list[pytest.Item]] = [[] for _ in sizes]
    for n, item in enumerate(longest):
        runs[n % workers].append(item)
    taken = 0
    for run, size in zip(runs, sizes, strict=True):
        more = max(0, size - len(run))
        run.extend(rest[taken:taken + more])
        taken += more
    return [item for run in runs for item in run] + rest[taken:]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """With ``LIFEGUARD_TEST_CPU=<file>``, each test's CPU seconds (setup, call and teardown; every
    thread of the worker, the table's desk included) and its child processes' (those waited for:
    ``lifeguard`` runs, espeak-ng, tmux) appended to the file as "seconds<TAB>node id<TAB>child
    seconds": unlike ``--durations``, the same on a loaded machine as on a quiet one
    (bench/NOTES.md, sessions 18 and 19). Each xdist worker appends its own lines."""
    start, children = time.process_time(), _children_cpu()
    yield
    path = os.environ.get("LIFEGUARD_TEST_CPU")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"{time.process_time() - start:.3f}\t{item.nodeid}"
                      f"\t{_children_cpu() - children:.3f}\n")


def _children_cpu() -> float:
    """CPU seconds (user and system) of this process's child processes waited for so far."""
    times = os.times()
    return times.children_user + times.children_system
