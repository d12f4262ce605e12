"""Run the voice benchmark over the corpus of ``bench/voice_corpus.py`` and print the figures.

Run: ``.venv/bin/python bench/voice_corpus.py && .venv/bin/python bench/voice_run.py``
(``--tune`` also prints the confidence threshold that the tune split alone would choose).

Printed, per split (tune / test) and condition (clean / noise / chatter):
  * exact-command accuracy: the canonical command decoded from the file equals the one spoken;
  * table-talk rejection: the share of non-commands that yield no command;
  * decode time per utterance (median, p95) and the real-time factor (decode time / audio time);
  * end of speech -> parsed command, with the audio arriving at real-time pace through the WAV
    audio source and ``Recognizer.listen`` (a sample of the test split);
  * start-up: from starting a fresh interpreter to the first command heard from a WAV input.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.referee import Referee  # noqa: E402
from assistant.voice.recognizer import CommandRecognizer, read_wav  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def percentile(values: list[float], q: float) -> float:
    values = sorted(values)
    if not values:
        return float("nan")
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def decode_all(manifest: list[dict], recognizer: CommandRecognizer) -> list[dict]:
    results = []
    for item in manifest:
        referee = Referee.resume(item["context"])
        recognizer.set_context(item["players"], referee.game)
        decoded = recognizer.decode_audio(read_wav(item["file"]))
        got = decoded.command.canonical if decoded.command else None
        results.append({**item, "got": got, "heard": decoded.text, "confidence": decoded.confidence,
                        "reason": decoded.reason, "seconds": decoded.seconds,
                        "audio_seconds": decoded.audio_seconds})
    return results


def _decode_chunk(chunk: list[dict], options: dict) -> list[dict]:
    return decode_all(chunk, CommandRecognizer(decoder_options=options))


def decoder_options(pairs: list[str]) -> dict[str, object]:
    """``--option beam=1e-40``: PocketSphinx options to try (numbers and booleans converted)."""
    options: dict[str, object] = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        if value in ("true", "false"):
            options[key] = value == "true"
        else:
            try:
                options[key] = int(value) if value.lstrip("-").isdigit() else float(value)
            except ValueError:
                options[key] = value
    return options


def decode_parallel(manifest: list[dict], jobs: int, options: dict) -> list[dict]:
    """``decode_all`` over ``jobs`` processes (for quick iteration; the times are then shared
    cores' times, so the full run's timing figures come from ``--jobs 1``)."""
    if jobs <= 1:
        return decode_all(manifest, CommandRecognizer(decoder_options=options))
    from concurrent.futures import ProcessPoolExecutor

    chunks = [manifest[i::jobs] for i in range(jobs)]
    with ProcessPoolExecutor(jobs) as pool:
        parts = list(pool.map(_decode_chunk, chunks, [options] * jobs))
    order = {m["file"]: i for i, m in enumerate(manifest)}
    return sorted((r for part in parts for r in part), key=lambda r: order[r["file"]])


def accuracy_by(results: list[dict], group: Callable[[dict], str]) -> None:
    """Exact-command accuracy per group of commands (``group`` of each) and condition."""
    commands = [r for r in results if r["expected"] is not None]
    for name in sorted({group(r) for r in commands}):
        cells = []
        for condition in ("clean", "noise", "chatter"):
            cmds = [r for r in commands if group(r) == name and r["condition"] == condition]
            if cmds:
                cells.append(f"{condition} {sum(r['got'] == r['expected'] for r in cmds) / len(cmds):.2f}"
                             f" ({len(cmds)})")
        print(f"  {name:16} " + ", ".join(cells))


def voice(result: dict) -> str:
    """Per voice: where the misses come from."""
    return result["voice"]


def kind(result: dict) -> str:
    """Per kind of command: the first word of its canonical form, or the verb after the
    player's name, so the long card lists and the short commands show apart."""
    words = result["expected"].split()
    return words[1] if len(words) > 1 and words[1] in ("swaps", "has", "knocks", "passes", "starts") \
        else words[0]


def report(results: list[dict]) -> None:
    print(f"{'split':6} {'condition':8} {'commands':>8} {'exact':>7} {'talk':>5} {'rejected':>8}")
    for split in ("tune", "test"):
        for condition in ("clean", "noise", "chatter"):
            rows = [r for r in results if r["split"] == split and r["condition"] == condition]
            if not rows:
                continue
            cmds = [r for r in rows if r["expected"] is not None]
            talk = [r for r in rows if r["expected"] is None]
            exact = sum(r["got"] == r["expected"] for r in cmds) / max(len(cmds), 1)
            rejected = sum(r["got"] is None for r in talk) / max(len(talk), 1)
            print(f"{split:6} {condition:8} {len(cmds):8d} {exact:7.1%} {len(talk):5d} {rejected:8.1%}")
    times = [r["seconds"] for r in results]
    rtf = [r["seconds"] / r["audio_seconds"] for r in results if r["audio_seconds"]]
    print(f"decode time per utterance: median {statistics.median(times) * 1000:.0f} ms, "
          f"p95 {percentile(times, 0.95) * 1000:.0f} ms; real-time factor median "
          f"{statistics.median(rtf):.3f}, p95 {percentile(rtf, 0.95):.3f}")


def show_errors(results: list[dict], split: str, limit: int = 400) -> None:
    wrong = [r for r in results if r["split"] == split and r["got"] != r["expected"]]
    for r in wrong[:limit]:
        print(f"  {r['id']} {r['condition']:7} {r['voice']:14} said {r['text']!r:50} heard {r['heard']!r} "
              f"-> {r['got']!r} conf {r['confidence']:.2f} ({r['reason']})")


def tune(results: list[dict], split: str = "tune") -> None:
    """The confidence threshold this split alone would pick (decoded with no threshold)."""
    rows = [r for r in results if r["split"] == split]
    cmds = [r for r in rows if r["expected"] is not None]
    talk = [r for r in rows if r["expected"] is None]
    best = None
    for step in range(100):
        t = step / 100
        exact = sum(r["got"] == r["expected"] and r["confidence"] >= t for r in cmds) / len(cmds)
        rejected = sum(r["got"] is None or r["confidence"] < t for r in talk) / len(talk)
        if best is None or exact + rejected > best[0]:
            best = (exact + rejected, t, exact, rejected)
        if step % 10 == 0:
            print(f"  threshold {t:.2f}: exact {exact:.1%}, talk rejected {rejected:.1%}")
    assert best is not None
    print(f"{split} split: best threshold {best[1]:.2f} (exact {best[2]:.1%}, talk rejected {best[3]:.1%})")


def speech_end_seconds(path: str) -> float:
    """Where the speech in a clean file really ends: the last 10 ms above 2% of the loudest
    (espeak-ng ends its output with a stretch of silence of its own)."""
    import warnings
    import wave

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import audioop
    with wave.open(path) as w:
        rate, raw = w.getframerate(), w.readframes(w.getnframes())
    step = rate // 100 * 2
    levels = [audioop.rms(raw[i : i + step], 2) for i in range(0, len(raw), step)]
    loud = max(levels) * 0.02
    last = max(i for i, level in enumerate(levels) if level > loud)
    return (last + 1) / 100


def realtime_latency(manifest: list[dict], count: int) -> None:
    """End of speech -> parsed command, as in a session: one listener (continuous mode) hears
    ``count`` of the test split's clean commands one after another from a WAV input at
    real-time pace (SpeechRecognition's ``Recognizer.listen`` streaming into the decoder), with
    the game state of whichever command is playing. The first utterance of a session is decoded
    in one go once it ends (the front end's running mean is still cold), the others as they
    arrive; the first is reported apart."""
    import queue

    from assistant.config import VoiceSettings
    from assistant.voice.listener import Heard, ListenContext, Listener, Rejected

    items = [m for m in manifest if m["split"] == "test" and m["condition"] == "clean"
             and m["expected"] is not None][:count]
    if not items:
        return
    contexts = [ListenContext.from_referee(Referee.resume(item["context"])) for item in items]
    speech_ends = [speech_end_seconds(item["file"]) for item in items]  # within each file
    rate = 16000 * 2  # bytes a second in the WAV source
    events: queue.Queue = queue.Queue()

    def playing() -> int:
        """The command being spoken or next to be: the first whose speech has not ended (a
        file's own padding after the speech belongs to the next command's wait)."""
        source = listener._source
        stream = getattr(source, "stream", None)
        if source is None or stream is None or not source.spans:
            return 0
        return next((i for i, ((start, _), end) in enumerate(zip(source.spans, speech_ends, strict=True))
                     if start / rate + end > stream.position / rate), len(items) - 1)

    def on_event(event) -> None:
        if isinstance(event, Heard | Rejected):
            events.put((time.monotonic(), event))

    listener = Listener(VoiceSettings(listen="continuous"), lambda: contexts[playing()], on_event,
                        audio_input=[item["file"] for item in items])
    listener.start()
    deadline = time.monotonic() + sum(i["speech_seconds"] + 2 * i["pad_seconds"] + 0.8 for i in items) + 20
    while not listener.input_ended and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
    source = listener._source
    listener.close()
    if source is None or source.started_at is None:
        print("end of speech -> parsed command: the listener did not start")
        return
    ends = [source.started_at + start / rate + end
            for (start, _), end in zip(source.spans, speech_ends, strict=True)]
    latencies: list[float] = []
    first: str | None = None
    correct = heard = 0
    seen: set[int] = set()
    while not events.empty():
        at, event = events.get()
        # The command whose speech ended last before this event.
        i = max((k for k, end in enumerate(ends) if end <= at), default=None)
        if i is None or i in seen or not isinstance(event, Heard):
            continue
        seen.add(i)
        heard += 1
        correct += event.command.canonical == items[i]["expected"]
        if i == 0:
            first = f"{(at - ends[0]) * 1000:.0f} ms"
        else:
            latencies.append(at - ends[i])
    if latencies:
        print(f"end of speech -> parsed command (one listener, real-time pace, {len(items)} commands "
              f"in a row; {heard} heard as commands, {correct} exactly): median "
              f"{statistics.median(latencies) * 1000:.0f} ms, p95 {percentile(latencies, 0.95) * 1000:.0f} ms"
              f"; the session's first command (decoded in one go): {first or 'not heard as a command'}")


def startup(manifest: list[dict]) -> None:
    """From starting the program to the first command heard (a fresh interpreter, WAV input)."""
    item = next(m for m in manifest if m["split"] == "test" and m["condition"] == "clean"
                and m["expected"] is not None and not m["context"][2:])
    code = (
        "import time, sys; t0 = time.monotonic()\n"
        "from assistant.voice.listener import Listener, ListenContext, Heard\n"
        "from assistant.config import VoiceSettings\n"
        "import threading; done = threading.Event(); out = {}\n"
        "def on_event(e):\n"
        "    if isinstance(e, Heard) and not done.is_set(): out['t'] = time.monotonic() - t0; out['c'] = e.command.canonical; done.set()\n"
        f"ctx = ListenContext(players=tuple({item['players']!r}), game=None)\n"
        f"l = Listener(VoiceSettings(listen='continuous'), lambda: ctx, on_event, audio_input=[{item['file']!r}])\n"
        "l.start(); done.wait(20); l.close()\n"
        "print(out.get('t', -1), out.get('c'))\n"
    )
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    wall = time.monotonic() - started
    fields = done.stdout.split(maxsplit=1)
    audio = item["pad_seconds"] + item["speech_seconds"]
    if fields and float(fields[0]) > 0:
        print(f"start-up: first command heard {float(fields[0]):.2f} s after the interpreter started "
              f"(process wall time {wall:.2f} s; the command's audio itself lasts {audio:.2f} s, "
              f"so {float(fields[0]) - audio:.2f} s of that is start-up and decoding): {fields[1].strip()}")
    else:
        print(f"start-up: no command heard ({done.stderr.strip()[-300:]})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(ROOT / "bench" / "out" / "voice"))
    parser.add_argument("--limit", type=int, default=None, help="at most this many files")
    parser.add_argument("--tune", action="store_true", help="print the threshold the tune split picks")
    parser.add_argument("--errors", action="store_true", help="list the test split's misses")
    parser.add_argument("--latency-samples", type=int, default=30)
    parser.add_argument("--no-realtime", action="store_true", help="skip the real-time-pace runs")
    parser.add_argument("--only-realtime", action="store_true", help="only the real-time-pace runs")
    parser.add_argument("--split", choices=("tune", "test"), help="only this split")
    parser.add_argument("--condition", choices=("clean", "noise", "chatter"), action="append",
                        help="only this condition (repeatable)")
    parser.add_argument("--jobs", type=int, default=1, help="decode in this many processes")
    parser.add_argument("--voices", action="store_true", help="print accuracy per voice")
    parser.add_argument("--intents", action="store_true", help="print accuracy per kind of command")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a PocketSphinx decoder option to try (repeatable)")
    args = parser.parse_args(argv)
    path = Path(args.corpus) / "manifest.json"
    if not path.exists():
        print(f"voice_run: no corpus at {path}; run bench/voice_corpus.py first.", file=sys.stderr)
        return 2
    manifest = json.loads(path.read_text())
    if args.split:
        manifest = [m for m in manifest if m["split"] == args.split]
    if args.condition:
        manifest = [m for m in manifest if m["condition"] in args.condition]
    manifest = manifest[: args.limit]
    if args.only_realtime:
        realtime_latency(manifest, args.latency_samples)
        startup(manifest)
        return 0
    started = time.monotonic()
    if args.jobs > 1:
        results = decode_parallel(manifest, args.jobs, decoder_options(args.option))
        print(f"{len(manifest)} files decoded in {time.monotonic() - started:.1f} s ({args.jobs} processes)")
    else:
        recognizer = CommandRecognizer(decoder_options=decoder_options(args.option))
        print(f"decoder ready in {time.monotonic() - started:.2f} s; {len(manifest)} files")
        results = decode_all(manifest, recognizer)
    report(results)
    if args.voices:
        accuracy_by(results, voice)
    if args.intents:
        accuracy_by(results, kind)
    if args.tune:
        tune(results)
    if args.errors:
        show_errors(results, args.split or "test")
    if not args.no_realtime:
        realtime_latency(manifest, args.latency_samples)
        startup(manifest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
