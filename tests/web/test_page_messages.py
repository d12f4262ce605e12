"""The phone page's catalog against the page that reads it (no browser): every message the script
and ``index.html`` ask for is there in every language, in the same shape (a counted message has
its two forms), with no field the English lacks, and the page served has no word left to fill.
A key the script asks for and the catalog lacks would show "undefined" on a phone."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from assistant import i18n
from assistant.web.messages import fill_page, no_link_page, page_messages
from assistant.web.server import page_file


@pytest.fixture(params=["en", "de", "ko"])
def language(request: pytest.FixtureRequest) -> Iterator[str]:
    i18n.set_language(request.param)
    try:
        yield request.param
    finally:
        i18n.set_language("en")


def script_keys() -> set[str]:
    """The messages ``table.js`` asks for: ``T.key``, ``T["key"]``, ``say("key"``, ``count("key"``,
    and the ones it builds from a prefix (``"phase_" + phase``, ``"mark_" + m``, ...)."""
    script = page_file("table.js")
    keys = set(re.findall(r"\bT\.(\w+)", script))
    keys |= set(re.findall(r"\b(?:say|count)\(\"(\w+)\"", script))
    keys = {k for k in keys if not k.endswith("_")}  # a prefix: its keys follow
    built = {"phase_": ["rows", "turns", "final_turns", "reveal", "game_over"],
             "mark_": ["winner", "out", "turn", "starts", "knocked", "done", "shown"],
             "link_": ["connecting", "live", "reconnecting", "gone"], "place_": ["1", "2", "3"]}
    for prefix, ends in built.items():
        assert f'"{prefix}"' in script, prefix
        keys |= {prefix + end for end in ends}
    return keys


def fields(text: str) -> set[str]:
    return set(re.findall(r"\{(\w+)(?::[^}]*)?\}", text))


def test_every_message_the_page_asks_for_is_there_in_the_same_shape(language: str) -> None:
    messages = page_messages()
    assert messages["lang"] == language
    missing = script_keys() - set(messages)
    assert not missing, missing
    i18n.set_language("en")
    english = page_messages()
    i18n.set_language(language)
    assert set(messages) == set(english)
    for key, text in messages.items():
        source = english[key]
        if key == "animals":
            assert set(text) == set(source) and all(set(v) == {"one", "other"} for v in text.values())
        elif isinstance(source, dict):
            assert set(text) == {"one", "other"}, key
            assert all(fields(text[form]) <= fields(source["other"]) for form in text), key
        elif isinstance(source, str):
            assert isinstance(text, str) and text and fields(text) <= fields(source), key


def test_the_page_and_the_refusal_are_filled_in_whole(language: str) -> None:
    page = fill_page(page_file("index.html"))
    assert f'<html lang="{language}">' in page
    assert not re.search(r"\{\{\w+\}\}", page)
    assert {m for m in re.findall(r"\{(\w+)\}", page)} == {"token", "messages", "serial", "state"}
    refusal = no_link_page()
    assert f'<html lang="{language}">' in refusal and "{" not in refusal
    if language != "en":  # none of the English page's sentences left
        assert "Scan the code" not in page + refusal and "Final places" not in page
