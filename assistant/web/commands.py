"""``lifeguard serve``: the current game of the store as a live, read-only web page.

``assistant.cli`` calls ``register(subparsers)``; the web libraries are imported only when the
command runs, so ``lifeguard --help`` and ``replay`` stay light. The first line printed is
exactly ``Serving the table at http://HOST:PORT/?t=TOKEN`` (scripts and tests read it).
"""

from __future__ import annotations

import argparse
import sys

from assistant.config import settings_or_exit

SERVE_EPILOG = """\
The page follows whatever game is current in the game store (lifeguard.sqlite3 in
$LIFEGUARD_DATA_DIR, else the user's data folder), also across new games, while the table or
'lifeguard chat' plays it. It is read only: GET requests with the link's token, nothing else.
The token is random and changes every time the server starts.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    serve = subparsers.add_parser(
        "serve", help="the current game as a live, read-only web page for phones",
        description="Serve the current game as a live, read-only web page (phones, a TV).",
        epilog=SERVE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument("--port", type=int, default=None, metavar="N",
                       help="the port (default: port under [serve] in the settings, 8765; "
                            "0: any free port)")
    serve.add_argument("--lan", action="store_true",
                       help="serve on this computer's local network address so phones on the "
                            "same network can open it (default: this computer only)")
    serve.set_defaults(func=cmd_serve)


def cmd_serve(args: argparse.Namespace) -> int:
    from assistant.store.db import data_dir

    settings = settings_or_exit(args)
    port = settings.serve.port if args.port is None else args.port
    if not 0 <= port <= 65535:
        print(f"lifeguard: --port {port} is no port: give a number from 1 to 65535, or 0 for any "
              "free port.", file=sys.stderr)
        return 2
    from assistant.web.qr import ansi, qr_lines
    from assistant.web.server import LAN_WARNING, ServeError, TableServer

    server = TableServer(data_dir(), port=port, lan=args.lan)
    try:
        server.prepare()
    except ServeError as err:
        print(f"lifeguard: {err}", file=sys.stderr)
        return 2
    print(f"Serving the table at {server.url}", flush=True)
    if args.lan:
        print(LAN_WARNING)
        if sys.stdout.isatty():
            print(ansi(qr_lines(server.url)))
    print("Read only: nothing can be changed through it. Ctrl+C stops serving.", flush=True)
    server.run()
    return 0
