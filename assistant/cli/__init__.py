"""``lifeguard``: the one console script, a front end at the top of the layers.

One module per subcommand group: ``parser`` declares every subcommand and option; ``entry`` holds
``main``; ``replay``, ``chat`` (also the table's fallback when there is no terminal), ``games``
(``status``, ``history``, ``stats``, ``export``, ``import``), ``voice`` (``hear``, ``listen``)
and ``serve`` run them; ``streams`` says whether input is a person at a terminal. Nothing below
(the store, the voice code, the web page, the table) imports this package.
"""

from assistant.cli.entry import main

__all__ = ["main"]
