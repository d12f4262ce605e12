"""The full-screen table in German and in Korean (issue 39): every word of its own on the screen
in the table's language, the language chosen on the setup screen, F1's rules translated.

"English left on the screen" is measured against the table's own English: the words of every
message in ``assistant/tui`` (extracted as the catalogs are). A screen is read as it is drawn
(the compositor's lines), less what other parts of the project write there: the log (the
referee's announcements), the command line (the hint) and the top line's "what next" (the table
model's sentence), which are not this package's words.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input, Select

from assistant import i18n
from assistant.i18n.catalogs import code_messages
from assistant.tui.app import LifeguardApp
from assistant.tui.lang import HOUSE_RULE_SENTENCES, house_rules_said, rules_markdown, rules_path
from assistant.tui.widgets import CommandInput, TableLog
from engine.deck import Animal
from engine.rules import HouseRules

from .conftest import game_lines, in_language, settle, submit_all
from .test_tui_snapshots import MID_GAME, REVEAL  # the same game as the English snapshots

MakeApp = Callable[..., LifeguardApp]

#: English words a German or Korean screen may show: key names, the players' names, the
#: program's name, and words German writes alike (``Start``, ``Hand``, ``Link``, ``Computer``, ``ok``).
ALLOWED = {
    "ctrl", "esc", "enter", "tab", "shift", "pagedown", "alice", "bob", "carol", "dave", "ann",
    "lifeguard", "life", "is", "start", "hand", "optional", "ok", "sd", "min", "qr", "lan",
    "true", "serve", "undo", "link", "code", "computer",
}


@functools.cache
def english_words() -> frozenset[str]:
    """The words of the table's own English messages (their fields left out): read from the
    code when first asked (in the worker that runs these tests, not at every worker's import:
    extracting the messages takes seconds)."""
    words: set[str] = set()
    for message in code_messages():
        if message.where.startswith("assistant/tui/"):
            for text in (message.msgid, message.plural or ""):
                text = re.sub(r"\{[^}]*\}", " ", text)
                words |= {w.lower() for w in re.findall(r"[A-Za-z]+", text) if len(w) >= 3}
    return frozenset(words - ALLOWED)


@pytest.fixture(params=["de", "ko"])
def language(request: pytest.FixtureRequest) -> Iterator[str]:
    i18n.set_language(request.param)
    try:
        yield request.param
    finally:
        i18n.set_language("en")


def screen_lines(app: App[Any], leave_out: tuple[type[Widget], ...] = (TableLog, CommandInput),
                 ids: tuple[str, ...] = ("next",)) -> list[str]:
    """The top screen's lines as drawn, the regions of ``leave_out`` widgets (and ``ids``)
    blanked: cut by cells, so that two-cell Hangul is measured as the screen has it."""
    screen = app.screen
    compositor = screen._compositor
    strips = compositor.render_strips()
    blanked = [region for widget, (region, _clip) in compositor.visible_widgets.items()
               if isinstance(widget, leave_out) or widget.id in ids]
    lines = []
    for y, strip in enumerate(strips):
        cuts = sorted((r.x, r.right) for r in blanked if r.y <= y < r.bottom)
        kept, at = [], 0
        for start, end in cuts:
            if start > at:
                kept.append(strip.crop(at, start).text)
            at = max(at, end)
        kept.append(strip.crop(at, strip.cell_length).text)
        lines.append(" | ".join(kept))
    return lines


#: The data file as the tests' app shows it (a path, not words).
DATA_LABEL = "$LIFEGUARD_DATA_DIR/lifeguard.sqlite"


def english_on(lines: list[str]) -> set[str]:
    """The table's own English words on ``lines`` (the data file's path left out)."""
    text = "\n".join(lines).replace(DATA_LABEL, "")
    return {w.lower() for w in re.findall(r"[A-Za-z]+", text)} & english_words()


async def _scene(pilot: Pilot[Any], scene: str) -> None:
    lines = game_lines()
    hands = [i for i, line in enumerate(lines) if " has " in line]
    played = {
        "setup": [],
        "play": MID_GAME,
        "reveal": REVEAL,
        "results": lines[: hands[2] + 1],
        "sheet": lines[:-1],
        "over": lines,
    }[scene]
    if scene != "setup":
        await pilot.press("escape")
        await submit_all(pilot, in_language(played, i18n.current_language()))
    if scene == "play":
        await pilot.press("f8")
    if scene == "sheet":
        await pilot.press("f3")
    await settle(pilot)


SCENES = ["setup", "play", "reveal", "results", "sheet", "over"]


@pytest.mark.slow
@pytest.mark.parametrize("scene", SCENES)
async def test_no_english_left_on_the_tables_screens(make_app: MakeApp, language: str, scene: str) -> None:
    """At 80x24, then the terminal resized to 120x40 (the screens draw their words again for
    the size; the scene is played once, not once a size)."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await _scene(pilot, scene)
        for size in [(80, 24), (120, 40)]:
            if app.size != size:
                await pilot.resize_terminal(*size)
                await settle(pilot)
            assert tuple(app.screen.size) == size
            lines = screen_lines(app)
            assert not english_on(lines), "\n".join(lines)


async def test_a_round_in_play_in_the_tables_language(make_app: MakeApp, language: str) -> None:
    """The rows, the players, the status line and the footer at 80x24, in German or Korean."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await _scene(pilot, "play")
        lines = screen_lines(app)
        text = "\n".join(lines)
        assert not english_on(lines), text
        words = {"de": ["Reihe 1", "Runde 1 · Züge", "getauscht", "Bär", "Reden", "Mikro: aus"],
                 "ko": ["1번 줄", "1라운드 · 차례", "교환함", "곰", "말하기", "마이크: 끔"]}[language]
        top = screen_lines(app, ids=())[0]
        for word in words:
            assert word in text or word in top, (word, text)


async def test_the_language_is_chosen_on_the_setup_screen(make_app: MakeApp) -> None:
    """Deutsch chosen on the setup screen: the screen, and the table after it, in German; the
    game is stored in its canonical English commands all the same."""
    app = make_app()
    try:
        async with app.run_test(size=(100, 40)) as pilot:
            await settle(pilot)
            choice = app.screen.query_one("#language", Select)
            assert choice.value == "en"
            choice.value = "de"
            await settle(pilot)
            assert i18n.current_language() == "de"
            text = "\n".join(screen_lines(app))
            assert "Hausregeln" in text and "House rules" not in text
            assert app.screen.query_one("#language", Select).value == "de"
            for i, name in enumerate(["alice", "bob", "carol"]):
                app.screen.query_one(f"#name-{i}", Input).value = name
            await pilot.press("ctrl+s")
            await settle(pilot)
            await submit_all(pilot, ["alice starts", "row 1 giraffe"])
            await settle(pilot)
            text = "\n".join(screen_lines(app))
            assert "Reihe 1" in text and "Reden" in text, text
            assert not english_on(screen_lines(app)), text
            commands = [command for command, _said in app.session.stored_log()]
            assert commands[:3] == ["new game alice bob carol", "alice starts", "row 1 giraffe"]
    finally:
        i18n.set_language("en")


async def test_a_language_chosen_keeps_the_names_typed(make_app: MakeApp) -> None:
    app = make_app()
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            app.screen.query_one("#name-0", Input).value = "minji"
            app.screen.query_one("#language", Select).value = "ko"
            await settle(pilot)
            assert app.screen.query_one("#name-0", Input).value == "minji"
            assert "하우스 규칙" in "\n".join(screen_lines(app))
    finally:
        i18n.set_language("en")


async def test_f1_shows_the_rules_in_the_tables_language(make_app: MakeApp, language: str) -> None:
    from textual.widgets import Markdown

    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("escape")
        await pilot.press("f1")
        await settle(pilot)
        source = app.screen.query_one(Markdown).source
        heading = {"de": "# So spielt man Life is Life", "ko": "# Life is Life 하는 법"}[language]
        assert source.startswith(heading)
        assert "How to play" not in source and "The next round starts" not in source


@pytest.mark.parametrize("code", sorted(i18n.LANGUAGES))
def test_every_language_has_its_rules_file(code: str) -> None:
    path = rules_path(code)
    assert path.is_file(), f"no rules for {code}: {path}"
    text = path.read_text(encoding="utf-8")
    assert {"{deck}", "{house_rules}", "{p}"} <= set(re.findall(r"\{[a-z_]+\}", text)), path


def test_the_rules_in_german_and_korean_have_the_deck_and_the_house_rules() -> None:
    rules = HouseRules(take_first=True, lowest_tie_loses=1)
    try:
        i18n.set_language("de")
        german = rules_markdown(rules, ("minji",))
        i18n.set_language("ko")
        korean = rules_markdown(rules, ("minji",))
    finally:
        i18n.set_language("en")
    assert "- Giraffe: 9 Karten, 9 Punkte" in german and "- Maus: 3 Karten, 3 Punkte" in german
    assert "- Bei Gleichstand der niedrigsten Summen verliert jeder davon 1 Leben." in german
    assert "minji tauscht 2" in german
    assert "- 기린: 9장, 9점" in korean and "- 교환할 때는 먼저 줄을 가져온 뒤 내려놓습니다" in korean
    assert "{" not in german + korean


def test_every_house_rule_sentence_is_marked_for_the_catalogs() -> None:
    """Whatever the house rules, each of the engine's sentences is one the catalogs translate,
    and in English the table says them as the engine does."""
    choices = list(HouseRules.CHOICES.items())
    for values in itertools.product(*(allowed for _name, allowed in choices)):
        rules = HouseRules(**dict(zip([name for name, _ in choices], values, strict=True)))  # type: ignore[arg-type]
        assert set(rules.describe()) <= set(HOUSE_RULE_SENTENCES)
        assert house_rules_said(rules) == rules.describe()


async def test_the_help_screen_in_the_tables_language(make_app: MakeApp, language: str) -> None:
    """F2: the headings, every key's description and the voice's states in the language (the
    command examples are the command language's, not the table's words)."""
    app = make_app()
    async with app.run_test(size=(100, 80)) as pilot:  # all of it on the screen
        await pilot.press("escape")
        await pilot.press("f2")
        await settle(pilot)
        text = "\n".join(screen_lines(app))
        wanted = {"de": ["Tasten", "Reden", "Punkteblatt", "Befehlspalette", "Stimme", "Mikrofon: aus",
                         "Datendatei:", "Handraster"],
                  "ko": ["키", "말하기", "점수표", "명령 팔레트", "음성", "마이크: 끔", "데이터 파일:", "손패 표"]}
        for word in wanted[language]:
            assert word in text, (word, text)
        keys_part = text.split(wanted[language][3])[0]  # the keys, above the commands
        assert not english_on(keys_part.splitlines()), keys_part


async def test_the_phones_screen_and_the_palette_in_the_tables_language(make_app: MakeApp, language: str) -> None:
    from assistant.tui.phones import PhonesScreen

    app = make_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("escape")
        entries = list(app.get_system_commands(app.screen))  # the table's, then Theme and Quit
        # ("Type: ..." entries, found by typing, carry the command language's own words.)
        shown = [words for entry in entries if entry.discover for words in (entry.title, entry.help)]
        assert len(shown) == 2 * 15
        assert not english_on(shown), shown
        await app.push_screen(PhonesScreen("http://127.0.0.1:8765/", lan=False))
        await settle(pilot)
        lines = [line.replace("http://127.0.0.1:8765/", "").replace("[serve] lan = true", "")
                 for line in screen_lines(app)]
        assert not english_on(lines), "\n".join(lines)
        assert {"de": "Nur auf diesem Computer", "ko": "이 컴퓨터에서만"}[language] in "\n".join(lines)


@pytest.mark.parametrize(
    ("code", "said"),
    [
        ("en", ["1st", "2nd place", "1 life", "3 lives", "1 h 05 min", "Row 3", "ROW 2", "ALICE'S TURN"]),
        ("de", ["1.", "2. Platz", "1 Leben", "3 Leben", "1 Std. 05 Min.", "Reihe 3", "REIHE 2", "ALICE IST DRAN"]),
        ("ko", ["1번", "2위", "목숨 1개", "목숨 3개", "1시간 05분", "3번 줄", "2번 줄", "ALICE 차례"]),
    ],
)
def test_the_tables_small_words_in_each_language(code: str, said: list[str]) -> None:
    from assistant.i18n import _, format
    from assistant.tui.screens import duration_words
    from assistant.tui.widgets import lives_words, ordinal, row_label

    i18n.set_language(code)
    try:
        place = format(_("OUT · {place} place"), place=ordinal(2, place=True)).split(" · ")[1]
        words = [ordinal(1), place, lives_words(1), lives_words(3), duration_words(65), row_label(3),
                 format(_("ROW {k}"), k=2), format(_("{name}'S TURN"), name="ALICE")]
    finally:
        i18n.set_language("en")
    assert words == said


@pytest.mark.parametrize(("code", "typed"), [("en", "Ann, Ben and Cy"), ("de", "Ann, Ben und Cy")])
def test_names_typed_in_one_field_are_joined_by_the_languages_and(code: str, typed: str) -> None:
    from assistant.tui.screens import split_names

    i18n.set_language(code)
    try:
        assert split_names(typed) == ["Ann", "Ben", "Cy"]
    finally:
        i18n.set_language("en")


@pytest.mark.parametrize("code", sorted(i18n.LANGUAGES))
def test_the_known_cards_short_names_tell_the_animals_apart(code: str) -> None:
    """Where space is short the known cards go by their first letters: in German "Mau" was
    both Maulwurf and Maus."""
    from assistant.tui.widgets import short_animal_names

    i18n.set_language(code)
    try:
        short = short_animal_names()
    finally:
        i18n.set_language("en")
    assert len(set(short.values())) == 10
    if code == "en":
        assert short[Animal.MOUSE] == "mou"  # as before
    if code == "de":
        assert (short[Animal.MOLE], short[Animal.MOUSE]) == ("Maul", "Maus")
