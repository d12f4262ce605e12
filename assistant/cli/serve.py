"""``lifeguard serve``: the current game of the store as a live, read-only web page.

``assistant.cli.parser`` declares the subcommand and its options and calls ``cmd_serve``; the
web libraries are imported only when the command runs, so ``lifeguard --help`` and ``replay``
stay light. The first line printed is exactly ``Serving the table at http://HOST:PORT/?t=TOKEN``
(scripts and tests read it). The next says who can open it: without ``--lan`` this computer
only, and how to reach phones; with ``--lan`` anyone on the network, and in a terminal the link
follows as a QR code to scan (only there: a code for 127.0.0.1 would send a phone to itself).
"""

from __future__ import annotations

import argparse
import sys

from assistant.commands.text import printable
from assistant.config import settings_or_exit
from assistant.i18n import N_, _, format

#: Said under the link without ``--lan``: 127.0.0.1 is every device's own address.
LOCAL_ONLY = N_("This link works on this computer only: a phone cannot open it. For phones on the "
                "same Wi-Fi, stop with Ctrl+C and start 'lifeguard serve --lan', which also shows "
                "a QR code to scan.")


#: ``lifeguard serve --help``'s closing words.
SERVE_EPILOG = N_("""\
The page follows whatever game is current in the game store (lifeguard.sqlite3 in
$LIFEGUARD_DATA_DIR, else the user's data folder), also across new games, while the table or
'lifeguard chat' plays it. It is read only: GET requests with the link's token, nothing else.
The token is random and changes every time the server starts.
""")


def cmd_serve(args: argparse.Namespace) -> int:
    from assistant.store.db import data_dir

    settings = settings_or_exit(args)
    port = settings.serve.port if args.port is None else args.port
    if not 0 <= port <= 65535:
        print(format(_("lifeguard: --port {port} is no port: give a number from 1 to 65535, or 0 for "
                       "any free port."), port=port), file=sys.stderr)
        return 2
    from assistant.web.qr import ansi, qr_lines
    from assistant.web.server import LAN_WARNING, ServeError, TableServer

    server = TableServer(data_dir(), port=port, lan=args.lan)
    try:
        server.prepare()
    except ServeError as err:  # the path and the reason, as every other subcommand says them
        print(f"lifeguard: {printable(str(err), 1000)}", file=sys.stderr)
        return 2
    # Not translated: scripts and tests read this line (the module's docstring).
    print(f"Serving the table at {server.url}", flush=True)
    if args.lan:
        print(LAN_WARNING)
        if sys.stdout.isatty():
            print(_("Scan this code with a phone's camera to follow the game:"))
            print(ansi(qr_lines(server.url)))
    else:
        print(_(LOCAL_ONLY))
    print(_("Read only: nothing can be changed through it. Ctrl+C stops serving."), flush=True)
    server.run()
    return 0
