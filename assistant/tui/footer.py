"""The footer every screen of the table shows: Textual's own, drawn again only when the keys it
shows change.

Textual's ``Footer`` composes its keys afresh (removes them and mounts new ones, each styled and
laid out) whenever the screen's bindings *may* have changed: every focus change, every
``refresh_bindings``, every screen pushed or popped. Most of those leave the same keys: opening
the table (its screen and the setup form over it) composed the footers' keys 9 times, 46 keys
mounted where 16 are shown. ``KeysFooter`` remembers what its keys were composed from and
composes them again only when that changed (3 times as the table opens). The screens use it in
place of ``Footer``.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey


class KeysFooter(Footer):
    """``Footer``, composed again only when the keys it would show are not the ones it shows."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: What the keys on show were composed from (``_keys_shown``).
        self._composed_from: object = None

    def _keys_shown(self) -> object:
        """Everything ``Footer.compose`` reads to make its keys: each binding it shows (the
        translated description included, ``TranslatedKeys``), whether it is enabled, its
        tooltip and how its key is displayed (the keymap), the command palette's key."""
        if not self._bindings_ready:
            return None
        app = self.app
        return (
            self.show_command_palette and app.ENABLE_COMMAND_PALETTE,
            tuple(
                (key, binding, enabled, tooltip, app.get_key_display(binding))
                for key, (_node, binding, enabled, tooltip) in self.screen.active_bindings.items()
                if binding.show or key == app.COMMAND_PALETTE_BINDING
            ),
        )

    def compose(self) -> ComposeResult:
        self._composed_from = self._keys_shown()
        for widget in super().compose():
            if self.compact and isinstance(widget, FooterKey):
                # As its ``compact`` (bound to the footer's) sets it once mounted: given now,
                # the key is styled once, not styled and then restyled for the class.
                widget.add_class("-compact", update=False)
            yield widget

    async def recompose(self) -> None:
        if self.is_attached and self._composed_from is not None and self._keys_shown() == self._composed_from:
            return  # the same keys: nothing to draw again
        await super().recompose()
