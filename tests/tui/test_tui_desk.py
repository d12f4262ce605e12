"""Commands run off the UI's event loop: the store's fsync'd commit never holds up the screen,
commands are answered in the order given, and quitting waits for what was handed over."""

from __future__ import annotations

import asyncio
import threading

import pytest
from textual.command import CommandList

from assistant.store.db import StoreJournal

from .conftest import OPENING, history, submit_all


@pytest.fixture
def held_commits(monkeypatch: pytest.MonkeyPatch):
    """Every journal write waits for ``gate`` and notes the thread it ran on (the real store
    still writes)."""
    gate = threading.Event()
    gate.set()
    threads: list[str] = []
    append = StoreJournal.append

    def held(self, entries, cursor_before):
        threads.append(threading.current_thread().name)
        assert gate.wait(10), "the test never let the commit through"
        return append(self, entries, cursor_before)

    monkeypatch.setattr(StoreJournal, "append", held)
    return gate, threads


async def swap_while_the_disk_is_held(pilot, gate: threading.Event) -> asyncio.Task:
    """The opening, then Alice's swap handed over while its commit waits for ``gate``."""
    await pilot.press("escape")
    await submit_all(pilot, OPENING)
    gate.clear()
    return asyncio.create_task(pilot.app.submit("alice swaps 2 cat mouse"))


async def test_a_slow_commit_does_not_freeze_the_screen(make_app, held_commits) -> None:
    gate, threads = held_commits
    app = make_app()
    async with app.run_test() as pilot:
        command = await swap_while_the_disk_is_held(pilot, gate)
        ticked = asyncio.Event()
        app.set_timer(0.01, ticked.set)
        await asyncio.wait_for(ticked.wait(), 5)  # the UI loop runs on meanwhile
        assert not command.done()
        assert app.view.game.turn == "alice"  # nothing is shown before it is committed
        gate.set()
        reply = await asyncio.wait_for(command, 10)
        assert reply.ok and app.view.game.turn == "bob"
    assert threads and all(name.startswith("lifeguard-commands") for name in threads)
    assert threading.main_thread().name not in threads


async def test_commands_given_together_are_applied_and_shown_in_order(make_app) -> None:
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press("escape")
        await submit_all(pilot, OPENING)
        replies = await asyncio.gather(*(app.submit(line) for line in (
            "alice swaps 2 cat mouse", "bob swaps 1 dog", "carol swaps 3 bear bear cat", "undo")))
        assert [r.ok for r in replies] == [True, True, True, True]
        assert history(app)[-2:] == ["alice swaps 2 cat mouse", "bob swaps 1 dog"]
        log = app.table_log.plain
        shown = [log.index(f"› {line}") for line in ("alice swaps 2 cat mouse", "bob swaps 1 dog",
                                                       "carol swaps 3 bear bear cat", "undo")]
        assert shown == sorted(shown)
        assert app.view.game.turn == "carol"


async def test_quitting_waits_for_a_command_handed_over(make_app, held_commits) -> None:
    gate, _ = held_commits
    app = make_app()
    async with app.run_test() as pilot:
        command = await swap_while_the_disk_is_held(pilot, gate)
        await asyncio.sleep(0.05)
        threading.Timer(0.3, gate.set).start()  # the disk answers after the app began to close
    reply = await asyncio.wait_for(command, 10)  # answered, though there is no table to show it
    assert reply.ok
    again = make_app()
    async with again.run_test() as pilot:
        await pilot.pause()
        assert again.view.game.turn == "bob"


async def test_a_palette_command_goes_through_the_desk(make_app) -> None:
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press("escape")
        await submit_all(pilot, OPENING[:2])
        await pilot.press("ctrl+p")
        await pilot.press(*"Status")
        hits = app.screen.query_one(CommandList)
        for _ in range(100):  # the palette searches in the background
            if hits.option_count and hits.highlighted is not None:
                break
            await pilot.pause(0.05)
        assert "Status" in str(hits.get_option_at_index(hits.highlighted).prompt)
        await pilot.press("enter")
        await pilot.pause()
        assert app.table_log.plain[-3:] == [
            "› status", "  Round 1. Alice 5 lives, Bob 5 lives, Carol 5 lives.",
            "  Round 1: enter row 1, 2, 3, 4."]


async def test_keys_go_on_while_a_typed_command_waits_for_the_disk(make_app, held_commits) -> None:
    """A typed line goes up as a message; the app answers it in a worker, so while its commit
    waits the app still takes keys (here F8) and the line typed next; the reply then comes
    back to the command line (a refusal stays there)."""
    from textual import events

    gate, _ = held_commits
    app = make_app()
    async with app.run_test() as pilot:
        await pilot.press("escape")
        await submit_all(pilot, OPENING)
        gate.clear()
        field = app.command_input
        field.value = "alice swaps 2 cat mouse"
        await field.action_submit()  # Enter, without waiting for the answer as pilot.press would
        for _ in range(20):  # let the screen's message reach the app and the desk
            await asyncio.sleep(0.01)
        assert app.view.game.turn == "alice"  # the commit is held: nothing shown yet
        app.post_message(events.Key("f8", None))
        for _ in range(200):
            if app.table.show_known:
                break
            await asyncio.sleep(0.01)
        assert app.table.show_known  # the app's keys were not held up by the disk
        gate.set()
        for _ in range(500):
            if app.view.game.turn == "bob":
                break
            await asyncio.sleep(0.01)
        assert app.view.game.turn == "bob" and "› alice swaps 2 cat mouse" in app.table_log.plain
        await pilot.pause()
