"""``audioop``, the PCM arithmetic SpeechRecognition itself uses (the standard library's up to
Python 3.12, the ``audioop-lts`` backport from 3.13), imported in one place with its deprecation
warning silenced: nothing of it may reach a full-screen terminal."""

from __future__ import annotations

import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import audioop

__all__ = ["audioop"]
