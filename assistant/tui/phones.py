"""The table on every phone, from the table: a small modal with the server's link as a QR code.
Served on this computer only (``[serve] lan = false``) no phone can open the link, so there is
no code to scan: only the link, for a browser on this computer.

``PhoneServer`` is the app's one owner of the server (``assistant.web.server.TableServer``, on a
thread of its own): the app makes one and asks it to serve (the serve key, ``[serve] start``) and
to stop (``StopRequested``, the app closing), so the server's life cycle lives here, not among the
app's methods. Starting and stopping run in thread workers: binding a socket and opening the
store are disk and network work, never for the event loop. ``PhonesScreen`` only shows what it is
handed (the link, whether it is on the local network) and asks to stop serving. The QR code is
drawn black on white whatever the theme, as phones read dark modules on a light ground.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static

from assistant.config import ServeSettings
from assistant.i18n import N_, _, format
from assistant.tui.lang import TranslatedKeys

if TYPE_CHECKING:  # assistant.web loads when serving starts (Starlette, uvicorn: slow imports)
    from assistant.web.server import TableServer


def qr_text(url: str) -> Text:
    """The link as a QR code of half blocks, black on white."""
    from assistant.web.qr import qr_lines

    return Text("\n".join(qr_lines(url, border=2)), style="#000000 on #ffffff", no_wrap=True)


class PhonesScreen(TranslatedKeys, ModalScreen[None]):
    """Scan to follow the game: the QR code (on the local network only), the link, who can
    watch; s stops serving."""

    DEFAULT_CSS = """
    PhonesScreen {
        align: center middle;
    }
    #phones-body {
        width: auto;
        height: auto;
        max-height: 100%;
        border: round $primary;
        background: $surface;
        padding: 0 1;
    }
    #phones-qr {
        width: auto;
        height: auto;
    }
    #phones-text {
        width: auto;
        max-width: 60;
        height: auto;
    }
    """

    BINDINGS = [
        Binding("escape,q,enter", "app.pop_screen", N_("Close")),
        Binding("s", "stop", N_("Stop serving")),
    ]

    class StopRequested(Message):
        """Stop serving (``s``): the app closes this screen and stops the server."""

    def __init__(self, url: str, lan: bool) -> None:
        super().__init__()
        self.url = url
        self.lan = lan

    def compose(self) -> ComposeResult:
        words = Text()
        if self.lan:
            words.append(_("Scan to follow the game on a phone (read only)") + "\n", style="bold")
        words.append(self.url + "\n")
        if self.lan:
            words.append(_("Anyone on this network who has the link can watch.") + "\n", style="italic")
        else:
            words.append(_("On this computer only ([serve] lan = true for phones).") + "\n",
                         style="italic")
        words.append(_("s stop serving · Esc close"), style="dim")
        with Vertical(id="phones-body"):
            if self.lan:  # 127.0.0.1 on a phone is the phone itself: nothing to scan
                yield Static(qr_text(self.url), id="phones-qr")
            yield Static(words, id="phones-text")

    def action_stop(self) -> None:
        self.post_message(self.StopRequested())


class PhoneServer:
    """The app's web server for phones, from start to stop: at most one at a time, started and
    stopped on worker threads, its link shown on ``PhonesScreen``. Why an object of its own: the
    server's life cycle (the app closing while it starts, a second start) is one concern, and the
    app only has to say when."""

    def __init__(self, app: App[Any], settings: ServeSettings, folder: Path | None) -> None:
        self.app = app
        self.settings = settings
        #: The store's folder, which the server reads (None: the table is not saved).
        self.folder = folder
        #: The running server (None while not serving).
        self.server: TableServer | None = None

    def serve(self, show: bool = True) -> None:
        """Serve the table to phones (started off the UI loop), then show its link as a QR code."""
        app = self.app
        if self.server is not None:
            if show and not isinstance(app.screen, PhonesScreen):
                app.push_screen(PhonesScreen(self.server.url, self.server.lan))
            return
        if self.folder is None:
            app.notify(_("This table is not saved, so there is nothing to serve."), severity="warning")
            return
        app.run_worker(partial(self._start, self.folder, show), thread=True, exclusive=True,
                       group="serve")

    def _start(self, folder: Path, show: bool) -> None:
        """On a worker thread: the server started, then handed to the UI loop (``_started``)."""
        app = self.app
        try:
            from assistant.web.server import ServeError, TableServer
        except ImportError as err:
            app.call_from_thread(app.notify, format(_("Serving needs {package}: install lifeguard "
                                                      "again with its dependencies."), package=err.name),
                                 severity="error")
            return
        server = TableServer(folder, port=self.settings.port, lan=self.settings.lan, quiet=True)
        try:
            server.start()
        except ServeError as err:
            app.call_from_thread(app.notify, str(err), severity="error", timeout=10)
            return
        try:
            app.call_from_thread(self._started, server, show)
        except RuntimeError:  # the app closed meanwhile
            server.stop()

    def _started(self, server: TableServer, show: bool) -> None:
        app = self.app
        if self.server is not None or not app.is_running:  # started twice, or the app is closing
            app.run_worker(server.stop, thread=True, group="serve-stop")
            return
        self.server = server
        if show:
            self.serve()
        else:
            app.notify(format(_("Serving the table at {url}"), url=server.url), timeout=8)

    def stop_requested(self) -> None:
        """``s`` on the phones screen: the screen closed, then the server stopped."""
        while isinstance(self.app.screen, PhonesScreen):
            self.app.pop_screen()
        self.stop()

    def stop(self, wait: bool = False) -> None:
        """Stop the web server (on a thread, unless ``wait``: when the app closes)."""
        server, self.server = self.server, None
        if server is None:
            return
        if wait:
            server.stop()
        else:
            self.app.run_worker(server.stop, thread=True, group="serve-stop")
            self.app.notify(_("The table is no longer served; its link stops working."))
