"""PocketSphinx hears players whose names the game accepts: Zoë, Anne-Marie, प्रिया.

A name of letters other than a-z once broke the speech grammar ("Failed to parse JSGF" from
``add_jsgf_string``): ``hear`` gave a traceback and ``listen`` stopped hearing. Real espeak-ng
speech throughout; the Whisper model is never loaded (``--engine pocketsphinx``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from assistant.voice import pronounce
from assistant.voice.jsgf import build_grammar
from assistant.voice.recognizer import SAMPLE_RATE, CommandRecognizer, read_wav

from .conftest import needs_espeak

pytestmark = needs_espeak


def raw16k(path: Path) -> bytes:
    return read_wav(str(path)).get_raw_data(convert_rate=SAMPLE_RATE, convert_width=2)


def heard(recognizer: CommandRecognizer, wav: Path) -> str | None:
    decoded = recognizer.decode(raw16k(wav))
    return decoded.command.canonical if decoded.command else None


def lifeguard(*args: str, env: dict[str, str], stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "assistant.cli", *args], capture_output=True, text=True,
                          env=env, input=stdin, timeout=120, check=False)


def test_a_name_with_an_accent_is_heard_and_named_as_the_game_spells_it(synth) -> None:
    recognizer = CommandRecognizer(("Zoë", "Bob", "Carol"))
    decoded = recognizer.decode(raw16k(synth("zoë knocks")))
    assert decoded.command is not None, decoded
    assert decoded.command.player == "Zoë"
    assert decoded.command.canonical == "Zoë knocks"
    # The accent folded away, the English dictionary's "zoe" is how it sounds.
    assert recognizer._decoder.lookup_word("zoë") == recognizer._decoder.lookup_word("zoe")


def test_a_hyphenated_name_is_heard_as_its_parts_said_in_a_row(synth) -> None:
    recognizer = CommandRecognizer(("Anne-Marie", "Bob", "Carol"))
    assert heard(recognizer, synth("anne marie passes")) == "Anne-Marie passes"
    assert heard(recognizer, synth("bob passes")) == "Bob passes"
    decoder = recognizer._decoder
    assert decoder.lookup_word("anne-marie") == f"{decoder.lookup_word('anne')} {decoder.lookup_word('marie')}"


def test_a_devanagari_name_among_the_players_does_not_stop_the_others_being_heard(synth) -> None:
    recognizer = CommandRecognizer(("प्रिया", "Bob", "Carol"))
    assert heard(recognizer, synth("bob swaps two pig cat")) == "Bob swaps 2 pig cat"
    assert heard(recognizer, synth("carol passes")) == "Carol passes"
    # espeak-ng reads the name with its Hindi voice: it is in the grammar, and nothing is left out.
    assert "प्रिया" in recognizer.grammar.words  # type: ignore[union-attr]
    assert recognizer.note is None


def test_a_name_that_cannot_be_pronounced_is_left_out_and_the_note_says_so(synth, monkeypatch) -> None:
    """Without a reading of a script (no espeak-ng voice for it), a made-up pronunciation would
    catch other words: the name is left out of the grammar, and the note names it."""
    monkeypatch.setattr(pronounce, "script_phones", lambda word: None)
    recognizer = CommandRecognizer(("प्रिया", "Bob", "Carol"))
    assert "प्रिया" not in recognizer.grammar.words  # type: ignore[union-attr]
    assert recognizer.note is not None and "प्रिया" in recognizer.note
    assert heard(recognizer, synth("bob passes")) == "Bob passes"


def test_listen_says_which_player_it_cannot_listen_for(synth, isolated_env) -> None:
    """Cherokee has no espeak-ng voice: ``listen`` says so once the players are known, and hears
    the others' commands."""
    done = lifeguard("listen", "--engine", "pocketsphinx", "--no-store", "--quiet", "--players", "ᏣᎳᎩ",
                     "bob", "carol", "--audio-input", str(synth("row one pig")), env=isolated_env)
    assert done.returncode == 0, done.stderr
    assert "heard: row 1 pig" in done.stdout
    assert "(PocketSphinx has no pronunciation for ᏣᎳᎩ, so it does not listen for that name" in done.stdout


def test_a_player_string_that_is_no_name_never_breaks_the_grammar(synth) -> None:
    """Names reach the grammar from stored games too: whatever they hold, it is left out."""
    grammar = build_grammar(("<rule>", "a;b|c", "", "Bob", "Carol"))
    assert grammar.unheard == ("<rule>", "a;b|c", "")
    recognizer = CommandRecognizer(("<rule>", "a;b|c", "Bob", "Carol"))
    assert heard(recognizer, synth("carol passes")) == "Carol passes"


def test_hear_with_such_players_prints_the_command(synth, isolated_env) -> None:
    """The tester's reproduction, which ended in a ValueError traceback."""
    done = lifeguard("hear", "--engine", "pocketsphinx", "--players", "zoë", "bob", "carol", "--",
                     str(synth("zoe knocks", voice="en", speed=150)), env=isolated_env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "zoë knocks\n"
    assert "Traceback" not in done.stderr


def test_hear_the_current_games_players_in_other_alphabets(synth, isolated_env) -> None:
    started = lifeguard("chat", env=isolated_env, stdin="new game Zoë Anne-Marie प्रिया\n")
    assert started.returncode == 0, started.stderr
    done = lifeguard("hear", "--engine", "pocketsphinx", str(synth("anne marie starts")),
                     str(synth("zoë starts")), env=isolated_env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Anne-Marie starts\nZoë starts\n"


@pytest.mark.parametrize("bad", ["", "<rule>", "*", "a;b|c"])
def test_hear_refuses_a_bad_players_name_in_one_sentence(bad: str, synth, isolated_env) -> None:
    done = lifeguard("hear", "--engine", "pocketsphinx", "--players", bad, "bob", "carol", "--",
                     str(synth("bob knocks")), env=isolated_env)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("lifeguard hear: ")
    assert f"'{bad}' is not a name" in done.stderr


def test_hear_refuses_players_a_new_game_would_refuse(synth, isolated_env) -> None:
    wav = str(synth("bob knocks"))
    for players, sentence in [(["bob", "Bob", "carol"], "same name"), (["bob", "carol"], "you named 2"),
                              (["pig", "bob", "carol"], "word of the command language")]:
        done = lifeguard("hear", "--engine", "pocketsphinx", "--players", *players, "--", wav,
                         env=isolated_env)
        assert done.returncode == 2, players
        assert sentence in done.stderr and done.stderr.count("\n") == 1, done.stderr
