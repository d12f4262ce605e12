"""``python -m assistant.cli``: the console script ``lifeguard`` without its installed launcher
(the tests and benchmarks start it this way, so they run the code of the checkout they are in)."""

import sys

from assistant.cli import main

sys.exit(main())
