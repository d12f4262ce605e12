"""``python -m assistant.i18n --missing de``: the messages ``de`` lacks, as ``.po`` entries to fill."""

from __future__ import annotations

import argparse

from assistant.i18n import LANGUAGES, SOURCE_LANGUAGE
from assistant.i18n.catalogs import stub, untranslated

PLURALS = {"de": 2, "ko": 1}


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m assistant.i18n")
    parser.add_argument("--missing", choices=[c for c in LANGUAGES if c != SOURCE_LANGUAGE], required=True)
    args = parser.parse_args()
    missing = untranslated(args.missing)
    for message in missing:
        print(stub(message, PLURALS[args.missing]))
    return 1 if missing else 0


raise SystemExit(main())
