"""``lifeguard serve``: the table as a live, read-only web page for the phones around it.

``table`` reads the game store beside the one writer (the table or ``chat``) and says what each
commit changed; ``server`` serves that as a page, ``/state.json`` and server-sent events
(Starlette on uvicorn, on a thread of its own); ``commands`` adds the ``serve`` subcommand and
``qr`` draws the link as a QR code in text. The page itself (``page/``) is plain HTML, CSS and a
little JavaScript shipped with the package. Nothing here imports textual; the table
(``assistant/tui``) starts and stops the same server.
"""
