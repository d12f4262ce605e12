"""The catalogs against the code: which messages have no translation yet (a test and a tool).

Extraction is Babel's (the same keywords ``pybabel extract`` uses: ``_``, ``ngettext``,
``pgettext``, ``npgettext``, ``N_``), over the Python sources of ``engine`` and ``assistant``.
Imported only by the tests and ``python -m assistant.i18n``: Babel is a build and test tool here,
not needed to run the table (it reads the compiled ``.mo`` files through the standard library).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from assistant.i18n import DOMAIN, LOCALE_DIR

ROOT = LOCALE_DIR.parent.parent
SOURCES = ("engine", "assistant")
KEYWORDS = {"_": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2), "npgettext": ((1, "c"), 2, 3), "N_": None}


@dataclass(frozen=True)
class Message:
    """One message the code uses: its English (and plural), its context, where it is."""

    msgid: str
    plural: str | None
    context: str | None
    where: str

    @property
    def key(self) -> tuple[str, str | None]:
        return (self.msgid, self.context)


def code_messages() -> list[Message]:
    """Every message marked for translation in the sources, first place of each."""
    from babel.messages.extract import extract_from_dir

    found: dict[tuple[str, str | None], Message] = {}
    for package in SOURCES:
        method_map = [("**.py", "python")]
        for filename, lineno, text, _comments, context in extract_from_dir(
            str(ROOT / package), method_map=method_map, keywords=KEYWORDS
        ):
            msgid, plural = (text[0], text[1]) if isinstance(text, tuple) else (text, None)
            if not msgid:
                continue
            message = Message(msgid, plural, context, f"{package}/{filename}:{lineno}")
            found.setdefault(message.key, message)
    return list(found.values())


def catalog_path(code: str) -> Path:
    return LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.po"


def untranslated(code: str) -> list[Message]:
    """The code's messages with no (or an empty, or a fuzzy) translation in ``code``'s catalog."""
    from babel.messages.pofile import read_po

    with catalog_path(code).open("rb") as po:
        catalog = read_po(po, locale=code)
    missing = []
    for message in code_messages():
        entry = catalog.get(message.msgid, context=message.context)
        strings = entry.string if entry is not None else None
        if isinstance(strings, tuple):
            done = all(strings)
        else:
            done = bool(strings)
        if entry is None or not done or entry.fuzzy:
            missing.append(message)
    return missing


def stub(message: Message, plurals: int) -> str:
    """A ``.po`` entry for ``message`` to fill in (what ``--missing`` prints)."""

    def quoted(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'

    lines = [f"#: {message.where}"]
    if message.context is not None:
        lines.append(f"msgctxt {quoted(message.context)}")
    lines.append(f"msgid {quoted(message.msgid)}")
    if message.plural is not None:
        lines.append(f"msgid_plural {quoted(message.plural)}")
        lines += [f'msgstr[{i}] ""' for i in range(plurals)]
    else:
        lines.append('msgstr ""')
    return "\n".join(lines) + "\n"
