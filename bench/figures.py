"""What the benchmark scripts share: the percentile they print (p95), written once.

The scripts run as ``python bench/NAME.py``, so this folder is first on ``sys.path`` and they
import it as ``figures``; the project itself they import as the installed package (``make setup``
installs it editable into ``.venv``).
"""

from __future__ import annotations

from collections.abc import Sequence


def percentile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile (``fraction`` 0.95 for p95); NaN for no values."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]
