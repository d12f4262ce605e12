"""The real table's memory through a whole game by voice: issue 9's "RSS < 500 MB", measured on
the process people run (Textual, the model, the grammars, the store), not on a decoder alone.

Run: ``.venv/bin/python bench/table_memory.py [--players 4] [--seconds-after 45]``

One game of ``bench/voice_game.py`` (made first, the same seeded game and audio, if its files are
not in ``--out``): its typed lines (``new game ...`` and the start player) are imported into a
fresh store, then ``lifeguard --audio-input GAME.wav`` runs in a real terminal (tmux) and hears
the rest at real-time pace, nothing corrected; speech output is whatever the machine has (none
without an audio device). The process's resident size is read every second from ``/proc``, and
its high-water mark (``VmHWM``, which catches what a sample misses) once the audio is over.

Printed: resident MB once the model has loaded (``LOADED_AFTER`` seconds in), median, p90, the
highest sample and the last; VmHWM; and the game's history against the one that was played
(commands as played, ended right, the first difference). Runtime: the game's audio plus
``--seconds-after`` (about 8 minutes for 4 players). Linux only (``/proc``); needs tmux (``make
setup`` installs it).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import wave
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from figures import percentile, process_memory_kb
from voice_game import ROOT, choose_seed, pink_noise, render, script

SESSION = "lifeguard-table-memory"
#: The sample (seconds after the start) taken as "the model loaded": it loads in 1 to 2.5 s, in
#: the background, before the game's first line ends.
LOADED_AFTER = 5


def game_files(players: int, seeds: int, out: Path) -> tuple[Path, list[str], list[str]]:
    """The game's WAV, its typed lines and its whole history (canonical), made if missing."""
    seed = choose_seed(players, range(seeds))
    stem = out / f"game_{players}p_seed{seed}"
    if not (stem.with_suffix(".wav").exists() and stem.with_suffix(".json").exists()):
        out.mkdir(parents=True, exist_ok=True)
        with ThreadPoolExecutor(2) as pool:
            render(script(players, seed), out, pink_noise(60, out), pool)
    lines = json.loads(stem.with_suffix(".json").read_text())
    return stem.with_suffix(".wav"), lines[0]["before"], lines[-1]["after"]


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4, choices=(3, 4, 5))
    parser.add_argument("--seeds", type=int, default=40, help="as voice_game.py's --seeds")
    parser.add_argument("--out", default=str(ROOT / "bench" / "out" / "voice_game"))
    parser.add_argument("--seconds-after", type=float, default=45.0,
                        help="how long the table runs on after the audio (its last answers)")
    args = parser.parse_args(argv)
    if shutil.which("tmux") is None or not Path("/proc/self/status").exists():
        print("table_memory.py needs tmux and /proc (Linux)")
        return 1
    wav, typed, history = game_files(args.players, args.seeds, Path(args.out))
    with wave.open(str(wav)) as w:
        seconds = w.getnframes() / w.getframerate()
    lifeguard = Path(sys.executable).with_name("lifeguard")
    with tempfile.TemporaryDirectory(prefix="table-memory-") as home:
        env = {**os.environ, "XDG_DATA_HOME": f"{home}/data", "XDG_CONFIG_HOME": f"{home}/config"}
        typed_file = Path(home) / "typed.txt"
        typed_file.write_text("\n".join(typed) + "\n")
        subprocess.run([str(lifeguard), "import", str(typed_file)], env=env, check=True, capture_output=True)
        command = " ".join(["exec", "env", f"XDG_DATA_HOME={home}/data", f"XDG_CONFIG_HOME={home}/config",
                            shlex.quote(str(lifeguard)), "--audio-input", shlex.quote(str(wav))])
        tmux("kill-session", "-t", SESSION)
        tmux("new-session", "-d", "-s", SESSION, "-x", "140", "-y", "45", command)
        time.sleep(0.5)
        pid = int(tmux("display-message", "-p", "-t", SESSION, "#{pane_pid}").strip() or 0)
        started = time.monotonic()
        samples: list[int] = []
        high_water = 0
        try:
            while time.monotonic() - started < seconds + args.seconds_after:
                try:
                    rss_kb, high_water_kb = process_memory_kb(pid)
                except OSError:
                    break  # the table has ended
                samples.append(rss_kb // 1024)
                high_water = high_water_kb // 1024
                time.sleep(1.0)
        finally:
            tmux("kill-session", "-t", SESSION)
        played = subprocess.run([str(lifeguard), "export"], env=env, capture_output=True, text=True).stdout
    got = [line.strip() for line in played.splitlines() if line.strip() and not line.startswith("#")]
    if not samples:
        print("the table did not start")
        return 1
    loaded = samples[min(LOADED_AFTER, len(samples)) - 1]
    print(f"{args.players}-player game ({wav.name}, {seconds:.0f} s of audio, "
          f"{len(history) - len(typed)} commands after {len(typed)} typed lines), {len(samples)} samples")
    print(f"resident MB: model loaded {loaded}, median {statistics.median(samples):.0f}, "
          f"p90 {percentile(samples, 0.9)}, highest sample {max(samples)}, end {samples[-1]}; "
          f"VmHWM {high_water}")
    same = sum(a == b for a, b in zip(history, got, strict=False))
    print(f"history: {same} of {len(history)} lines as played; ended right: {'yes' if got == history else 'no'}")
    for index, (want, heard) in enumerate(zip(history, got, strict=False)):
        if want != heard:
            print(f"  first difference at line {index + 1}: expected '{want}', got '{heard}'")
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
