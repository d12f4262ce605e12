"""What the benchmark scripts share: the percentile they print (p95) and another process's memory,
written once.

The scripts run as ``python bench/NAME.py``, so this folder is first on ``sys.path`` and they
import it as ``figures``; the project itself they import as the installed package (``make setup``
installs it editable into ``.venv``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def percentile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile (``fraction`` 0.95 for p95); NaN for no values."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def process_memory_kb(pid: int) -> tuple[int, int]:
    """A process's resident size now and its high-water mark (``VmRSS``, ``VmHWM``) in kB, from
    /proc; ``OSError`` once the process has gone."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])
