"""``--lang`` and ``[table] language``: the one switch, read before anything is shown.

Real ``lifeguard`` processes (this checkout's code, ``python -m assistant.cli``) and the real
chat loop in-process: a German and a Korean table answer ``status`` and ``chat`` lines in their
language, a bad language is a sentence and status 2, and English stays the default."""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant import i18n
from assistant.cli import main
from assistant.config import ConfigError, Settings, language, load_settings, settings_from_dict

ROOT = Path(__file__).resolve().parent.parent

#: A game up to Alice's first turn, then Bob out of turn and an undo.
LINES = ["new game alice bob carol", "alice starts", "row 1 giraffe", "row 2 bear bear",
         "row 3 mole mole mole", "row 4 goat goat goat goat", "bob swaps 2 dog dog", "undo"]


@pytest.fixture(autouse=True)
def english_after(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No settings file of whoever runs the tests; the process's language back to English."""
    monkeypatch.delenv("LIFEGUARD_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("LIFEGUARD_DATA_DIR", str(tmp_path / "data"))
    yield
    i18n.set_language("en")


def lifeguard(args: list[str], env: dict[str, str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    """This checkout's ``lifeguard`` in a process of its own."""
    env = {**env, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([sys.executable, "-m", "assistant.cli", *args], input=stdin, env=env,
                          capture_output=True, text=True, timeout=120, cwd=ROOT, check=False)


def chat_in_process(args: list[str], monkeypatch: pytest.MonkeyPatch,
                    capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    """``lifeguard ARGS`` through ``main``, the chat reading ``LINES``."""
    stdin = io.TextIOWrapper(io.BytesIO("\n".join(LINES).encode() + b"\n"), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    status = main(args)
    return status, capsys.readouterr().out.splitlines()


# --------------------------------------------------------------------------- the setting
def test_the_language_defaults_to_english_and_is_read_from_the_table_section() -> None:
    assert Settings().language == "en"
    assert settings_from_dict({"table": {"language": "ko"}}).language == "ko"


def test_a_language_that_is_not_one_is_a_sentence(tmp_path: Path) -> None:
    config = tmp_path / "lifeguard.toml"
    config.write_text('[table]\nlanguage = "fr"\n', encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_settings(config)
    assert str(caught.value) == f"""{config}: 'table.language' is 'fr'; allowed: "en", "de", "ko"."""


def test_lang_on_the_command_line_overrides_the_settings() -> None:
    import argparse

    settings = settings_from_dict({"table": {"language": "de"}})
    assert language(settings, argparse.Namespace(lang="ko")) == "ko"
    assert language(settings, argparse.Namespace(lang=None)) == "de"
    assert language(settings) == "de"


# --------------------------------------------------------------------------- the chat loop
@pytest.mark.parametrize(("args", "welcome", "refused", "undone"), [
    (["--lang", "de", "chat", "--no-store"],
     "Lifeguard-Schiedsrichter. Tippt 'Hilfe' für die Befehle, Ctrl+D zum Verlassen.",
     "! Alice ist dran, nicht Bob: erwartet wird 'alice tauscht'.",
     "Rückgängig gemacht: Reihe 4 vier Ziegen."),
    (["chat", "--no-store", "--lang", "ko"],  # --lang after the command
     "Lifeguard 심판입니다. 명령을 보려면 '도움말', 끝내려면 Ctrl+D를 누르세요.",
     "! Bob의 차례가 아니라 Alice의 차례입니다. 가능한 명령: 'alice가 … 교환해요'.",
     "되돌림: 4번 줄 염소 네 장."),
])
def test_chat_lines_are_answered_in_the_language(
        args: list[str], welcome: str, refused: str, undone: str,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    status, out = chat_in_process(args, monkeypatch, capsys)
    assert status == 0 and out[0] == welcome
    assert refused in out and undone in out


def test_the_settings_language_is_used_and_lang_overrides_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "german.toml"
    config.write_text('[table]\nlanguage = "de"\n', encoding="utf-8")
    _, out = chat_in_process(["--config", str(config), "chat", "--no-store"], monkeypatch, capsys)
    assert "! Alice ist dran, nicht Bob: erwartet wird 'alice tauscht'." in out
    _, out = chat_in_process(["--config", str(config), "--lang", "en", "chat", "--no-store"], monkeypatch, capsys)
    assert "! It's Alice's turn, not Bob's: expected 'alice swaps'." in out


def test_english_is_unchanged_without_a_language(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _, out = chat_in_process(["chat", "--no-store"], monkeypatch, capsys)
    assert out[0] == "Lifeguard referee. Type 'help' for commands, Ctrl+D to leave."
    assert "! It's Alice's turn, not Bob's: expected 'alice swaps'." in out
    assert "Undone: row 4 goat goat goat goat." in out
    assert i18n.current_language() == "en"


# --------------------------------------------------------------------------- real processes
@pytest.mark.slow
@pytest.mark.parametrize(("code", "empty", "game", "refused"), [
    ("de", "Noch keine Spiele (Spielspeicher: ", "Spiel 1 (unfertig) von Alice, Bob",
     "! Alice ist dran, nicht Bob: erwartet wird 'alice tauscht'."),
    ("ko", "아직 게임이 없습니다(게임 저장소: ", "게임 1(진행 중)",
     "! Bob의 차례가 아니라 Alice의 차례입니다. 가능한 명령: 'alice가 … 교환해요'."),
])
def test_status_and_chat_in_a_real_process(isolated_env: dict[str, str], code: str, empty: str,
                                           game: str, refused: str) -> None:
    done = lifeguard(["--lang", code, "status"], isolated_env)
    assert done.returncode == 0 and done.stdout.startswith(empty), done
    chat = lifeguard(["--lang", code, "chat"], isolated_env, "\n".join(LINES) + "\n")
    assert chat.returncode == 0 and refused in chat.stdout.splitlines(), chat
    status = lifeguard(["status", "--lang", code], isolated_env)
    assert status.returncode == 0 and game in status.stdout, status
    # What is stored stays the canonical English commands: English reads the same game.
    english = lifeguard(["export"], isolated_env)
    assert "row 3 mole mole mole" in english.stdout and "bob swaps" not in english.stdout


@pytest.mark.slow
def test_an_unknown_language_is_one_sentence_and_status_2(isolated_env: dict[str, str], tmp_path: Path) -> None:
    done = lifeguard(["--lang", "fr", "status"], isolated_env)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == ("lifeguard: There is no language 'fr': the languages are en (English), "
                                   "de (Deutsch), ko (한국어).")
    config = tmp_path / "french.toml"
    config.write_text('[table]\nlanguage = "fr"\n', encoding="utf-8")
    done = lifeguard(["--config", str(config), "chat"], isolated_env, "status\n")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == f"""lifeguard: {config}: 'table.language' is 'fr'; allowed: "en", "de", "ko"."""


@pytest.mark.slow
def test_help_is_in_the_language(isolated_env: dict[str, str]) -> None:
    done = lifeguard(["--lang", "de", "--help"], isolated_env)
    assert done.returncode == 0 and "Einstellungsdatei (TOML)" in done.stdout
    done = lifeguard(["chat", "--help", "--lang", "ko"], isolated_env)
    assert done.returncode == 0 and "줄마다 JSON 객체 하나로 답합니다" in done.stdout
    assert '{"greeting": [...], "resumed": true' in done.stdout  # the JSON shape as it is


def test_an_uncompiled_catalog_is_a_sentence(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path)  # no .mo files there
    i18n.translations.cache_clear()
    try:
        assert main(["--lang", "de", "status"]) == 2
    finally:
        i18n.translations.cache_clear()
    err = capsys.readouterr().err
    assert err.startswith("lifeguard: The Deutsch messages are not compiled: run `make setup`")
    assert i18n.current_language() == "en"




def test_an_import_refused_and_the_history_in_the_table_language(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("\n".join(LINES[:7]) + "\n", encoding="utf-8")  # line 7: Bob out of turn
    assert main(["--lang", "de", "import", str(bad)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[1] == "  Zeile 7: Alice ist dran, nicht Bob: erwartet wird 'alice tauscht'."
    good = tmp_path / "good.txt"
    good.write_text("\n".join(LINES[:6]) + "\n", encoding="utf-8")
    assert main(["--lang", "ko", "import", str(good)]) == 0
    assert "진행 중(이제 지금 게임입니다)" in capsys.readouterr().out
    assert main(["history", "--lang", "ko"]) == 0
    history = capsys.readouterr().out
    assert "라운드" in history and "진행 중" in history and "승자: -" in history
    assert main(["history"]) == 0  # English as before: the stored game is language-neutral
    assert "unfinished" in capsys.readouterr().out


def test_every_subcommand_takes_lang_and_it_keeps_one_given_before_the_command() -> None:
    import argparse

    from assistant.cli.parser import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert set(commands) == {"replay", "chat", "status", "history", "stats", "export", "import",
                             "hear", "listen", "serve"}
    needs = {"replay": ["x"], "import": ["x"], "hear": ["x.wav"]}
    for name in commands:
        assert parser.parse_args([name, *needs.get(name, []), "--lang", "ko"]).lang == "ko", name
        assert parser.parse_args(["--lang", "de", name, *needs.get(name, [])]).lang == "de", name
    assert parser.parse_args([]).lang is None
