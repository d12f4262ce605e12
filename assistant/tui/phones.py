"""The table on every phone, from the table: a small modal with the server's link as a QR code.
Served on this computer only (``[serve] lan = false``) no phone can open the link, so there is
no code to scan: only the link, for a browser on this computer.

``LifeguardApp`` starts the server (``assistant.web.server.TableServer``, on a thread of its own)
from the serve key or ``[serve] start``; this screen only shows what the app hands it (the link,
whether it is on the local network) and asks the app to stop serving (``StopRequested``). The QR code is drawn black
on white whatever the theme, as phones read dark modules on a light ground.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static


def qr_text(url: str) -> Text:
    """The link as a QR code of half blocks, black on white."""
    from assistant.web.qr import qr_lines

    return Text("\n".join(qr_lines(url, border=2)), style="#000000 on #ffffff", no_wrap=True)


class PhonesScreen(ModalScreen):
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
        Binding("escape,q,enter", "app.pop_screen", "Close"),
        Binding("s", "stop", "Stop serving"),
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
            words.append("Scan to follow the game on a phone (read only)\n", style="bold")
        words.append(self.url + "\n")
        if self.lan:
            words.append("Anyone on this network who has the link can watch.\n", style="italic")
        else:
            words.append("On this computer only ([serve] lan = true for phones).\n",
                         style="italic")
        words.append("s stop serving · Esc close", style="dim")
        with Vertical(id="phones-body"):
            if self.lan:  # 127.0.0.1 on a phone is the phone itself: nothing to scan
                yield Static(qr_text(self.url), id="phones-qr")
            yield Static(words, id="phones-text")

    def action_stop(self) -> None:
        self.post_message(self.StopRequested())
