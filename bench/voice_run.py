"""Run the voice benchmark over the corpus of ``bench/voice_corpus.py`` and print the figures,
side by side for the two recognisers.

Run: ``.venv/bin/python bench/voice_corpus.py && .venv/bin/python bench/voice_run.py``
(``--engine whisper|pocketsphinx|both``, default both; ``--tune`` also prints the confidence
threshold that the tune split alone would choose; ``--voices``, ``--intents``: accuracy per voice
and per kind of command; ``--errors``: the test split's misses). Each engine runs in a fresh
process of its own (``--worker``), so its memory and load time are its own; one after the other,
so they do not share the 2 cores. The corpus of three conditions (1,800 files) took PocketSphinx
35 minutes on 2 cores that other work was also using (load average about 5), about 12 minutes on
idle ones; ``--limit N`` decodes N files spread over the whole corpus, whole samples (all four
conditions: ``--limit 600`` is the same samples as ``--limit 450`` was with three; ``--condition
reverb --limit 150`` too) (the near-miss talk comes on top;
``--near-miss without|only``). ``--front-end NAME``: a speech-enhancement front end from
``bench/front_ends.py`` before the recogniser, its time printed apart; ``--vote``: Whisper's
vote over time shifts (``whisper.vote``); ``--save FILE`` keeps every file's result as JSON.

Printed per engine:
  * exact-command accuracy per split (tune / test) and condition (clean / noise / chatter / reverb): the
    canonical command decoded from the file equals the one spoken; and on the test split per
    synthesiser (espeak / flite / festival; flite and festival are never tuned on);
  * table-talk rejection: the share of non-commands that yield no command;
  * near-miss table talk (``voice_corpus.NEAR_MISS_TALK``, test split) rejected, apart;
  * decode time per utterance (median, p95) and the real-time factor (decode time / audio time);
  * end of speech -> parsed command, median and p95, with ONE listener (continuous mode, the
    engine from ``VoiceSettings.engine``) hearing 30 of the test split's clean commands in a row
    from a WAV input at real-time pace; and the median apart for commands without cards (Whisper
    may take them at a 0.15 s pause) and with cards (they wait out the 0.6 s pause);
  * model load time, the process's RSS before loading and its peak RSS (``VmHWM``) after
    decoding the corpus (before the listener loads a second model);
  * start-up: from starting a fresh interpreter to the first command heard from a WAV input.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from figures import percentile
from front_ends import FRONT_ENDS, front_end
from voice_engines import (
    ENGINES,
    EngineUnavailable,
    engine_of,
    memory_mb,
    recognizer_for,
)

from assistant.referee import Referee
from assistant.voice.recognizer import RecognizerUnavailable, read_wav

ROOT = Path(__file__).resolve().parents[1]
CONDITIONS = ("clean", "noise", "chatter", "reverb")
SYNTHESISERS = ("espeak", "flite", "festival")


def decode_all(manifest: list[dict[str, Any]], recognizer: Any,
               enhance: Callable[[bytes], bytes] | None = None) -> list[dict[str, Any]]:
    """Each file decoded with its game; ``enhance`` (``--front-end``): a speech-enhancement front
    end run on the file's 16 kHz audio first, its time kept apart (``enhance_seconds``)."""
    results = []
    for item in manifest:
        referee = Referee.resume(item["context"])
        recognizer.set_context(item["players"], referee.game)
        audio = read_wav(item["file"])
        enhance_seconds = 0.0
        if enhance is None:
            decoded = recognizer.decode_audio(audio)
        else:
            started = time.perf_counter()
            raw = enhance(audio.get_raw_data(convert_rate=16000, convert_width=2))
            enhance_seconds = time.perf_counter() - started
            decoded = recognizer.decode(raw)
        got = decoded.command.canonical if decoded.command else None
        results.append({**item, "got": got, "heard": decoded.text, "confidence": decoded.confidence,
                        "reason": decoded.reason, "seconds": decoded.seconds,
                        "enhance_seconds": enhance_seconds, "audio_seconds": decoded.audio_seconds})
    return results


def _decode_chunk(chunk: list[dict[str, Any]], engine: str, options: dict[str, Any], model: str,
                  tail: float | None = None, front: str | None = None) -> list[dict[str, Any]]:
    set_tail(tail)
    return decode_all(chunk, recognizer_for(engine, decoder_options=options, model=model), front_end(front))


def set_tail(tail: float | None) -> None:
    """``--tail``: Whisper's silent tail (``whisper.features.TAIL_SECONDS``) in this process."""
    if tail is not None:
        from assistant.voice.whisper import features

        features.TAIL_SECONDS = tail


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


def decode_parallel(manifest: list[dict], jobs: int, engine: str, options: dict, model: str,
                    tail: float | None = None, front: str | None = None) -> list[dict]:
    """``decode_all`` over ``jobs`` processes (for quick iteration; the times are then shared
    cores' times, so the full run's timing figures come from ``--jobs 1``). The processes are
    spawned, not forked: a child forked after BLAS had started its threads waited forever."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    chunks = [manifest[i::jobs] for i in range(jobs)]
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        parts = list(pool.map(_decode_chunk, chunks, [engine] * jobs, [options] * jobs, [model] * jobs,
                              [tail] * jobs, [front] * jobs))
    order = {m["file"]: i for i, m in enumerate(manifest)}
    return sorted((r for part in parts for r in part), key=lambda r: order[r["file"]])


# --------------------------------------------------------------------------- printing
def cell(results: list[dict] | None, keep: Callable[[dict], bool], talk: bool = False) -> str:
    """Exact commands (or, with ``talk``, table talk rejected) among the results kept."""
    if results is None:
        return "-"
    rows = [r for r in results if keep(r) and (r["expected"] is None) == talk]
    if not rows:
        return "-"
    hits = sum((r["got"] is None) if talk else (r["got"] == r["expected"]) for r in rows)
    return f"{hits / len(rows):.1%}"


def count(results: dict[str, list[dict] | None], keep: Callable[[dict], bool], talk: bool = False) -> int:
    rows = next((r for r in results.values() if r is not None), [])
    return sum(1 for r in rows if keep(r) and (r["expected"] is None) == talk)


class Table:
    """Rows of figures, one column per engine."""

    def __init__(self, engines: list[str]) -> None:
        self.engines = engines
        print(f"{'':44}" + "".join(f"{e:>18}" for e in engines))

    def row(self, label: str, values: list[str]) -> None:
        print(f"{label:44}" + "".join(f"{v:>18}" for v in values))


def report(table: Table, results: dict[str, list[dict] | None]) -> None:
    runs = [results[e] for e in table.engines]
    for split in ("tune", "test"):
        for condition in CONDITIONS:
            def keep(r: dict, split=split, condition=condition) -> bool:
                return r["split"] == split and r["condition"] == condition and not r.get("near_miss")

            n = count(results, keep)
            if not n:
                continue
            table.row(f"{split} {condition:8} exact commands ({n})", [cell(r, keep) for r in runs])
            table.row(f"{split} {condition:8} table talk rejected ({count(results, keep, True)})",
                      [cell(r, keep, True) for r in runs])
    print("test split per synthesiser (flite and festival are never tuned on):")
    for synth in SYNTHESISERS:
        for condition in CONDITIONS:
            def keep(r: dict, synth=synth, condition=condition) -> bool:
                return r["split"] == "test" and r.get("synth", "espeak") == synth and r["condition"] == condition \
                    and not r.get("near_miss")

            n = count(results, keep)
            if not n:
                continue
            table.row(f"  {synth:8} {condition:8} exact ({n})", [cell(r, keep) for r in runs])
            table.row(f"  {synth:8} {condition:8} talk rejected ({count(results, keep, True)})",
                      [cell(r, keep, True) for r in runs])
    near_miss(table, results, runs)


def near_miss(table: Table, results: dict[str, list[dict[str, Any]] | None],
              runs: list[list[dict[str, Any]] | None]) -> None:
    """Near-miss table talk (``voice_corpus.NEAR_MISS_TALK``): rejected per condition and
    synthesiser, apart from the other talk."""
    if not count(results, lambda r: r.get("near_miss", False), True):
        return
    print("near-miss table talk rejected (test split):")
    for synth in ("all", *SYNTHESISERS):
        for condition in CONDITIONS:
            def keep(r: dict[str, Any], synth: str = synth, condition: str = condition) -> bool:
                return bool(r.get("near_miss")) and r["condition"] == condition \
                    and synth in ("all", r.get("synth", "espeak"))

            table.row(f"  {synth:8} {condition:8} near-miss rejected ({count(results, keep, True)})",
                      [cell(r, keep, True) for r in runs])


def timing(table: Table, results: dict[str, list[dict] | None]) -> None:
    decode, rtf, enhance, total = [], [], [], []
    for engine in table.engines:
        rows = results[engine]
        if not rows:
            decode.append("-")
            rtf.append("-")
            enhance.append("-")
            total.append("-")
            continue
        times = [r["seconds"] for r in rows]
        factors = [r["seconds"] / r["audio_seconds"] for r in rows if r["audio_seconds"]]
        decode.append(f"{statistics.median(times) * 1000:.0f} / {percentile(times, 0.95) * 1000:.0f}")
        rtf.append(f"{statistics.median(factors):.3f} / {percentile(factors, 0.95):.3f}")
        added = [r.get("enhance_seconds", 0.0) for r in rows]
        both = [r["seconds"] + a for r, a in zip(rows, added, strict=True)]
        enhance.append(f"{statistics.median(added) * 1000:.0f} / {percentile(added, 0.95) * 1000:.0f}")
        total.append(f"{statistics.median(both) * 1000:.0f} / {percentile(both, 0.95) * 1000:.0f}")
    table.row("decode time per file, ms (median / p95)", decode)
    table.row("real-time factor (median / p95)", rtf)
    table.row("front end's time per file, ms (median / p95)", enhance)
    table.row("front end + decoding per file, ms (med / p95)", total)


def accuracy_by(table: Table, results: dict[str, list[dict] | None], group: Callable[[dict], str]) -> None:
    """Exact-command accuracy per group of commands (``group`` of each) and condition."""
    rows = next((r for r in results.values() if r is not None), [])
    names = sorted({group(r) for r in rows if r["expected"] is not None})
    for name in names:
        for condition in CONDITIONS:
            def keep(r: dict, name=name, condition=condition) -> bool:
                return r["expected"] is not None and group(r) == name and r["condition"] == condition

            n = count(results, keep)
            if n:
                table.row(f"  {name:22} {condition:8} ({n})", [cell(results[e], keep) for e in table.engines])


def voice(result: dict) -> str:
    """Per voice: where the misses come from."""
    return f"{result.get('synth', 'espeak')}:{result['voice']}"


def kind(result: dict) -> str:
    """Per kind of command: the first word of its canonical form, or the verb after the
    player's name, so the long card lists and the short commands show apart."""
    words = result["expected"].split()
    return words[1] if len(words) > 1 and words[1] in ("swaps", "has", "knocks", "passes", "starts") \
        else words[0]


def show_errors(results: list[dict], split: str, limit: int = 400) -> None:
    wrong = [r for r in results if r["split"] == split and r["got"] != r["expected"]]
    for r in wrong[:limit]:
        print(f"  {r['id']} {r['condition']:7} {voice(r):22} said {r['text']!r:50} heard {r['heard']!r} "
              f"-> {r['got']!r} conf {r['confidence']:.2f} ({r['reason']})")


def tune(results: list[dict], split: str = "tune") -> None:
    """The confidence threshold this split alone would pick (decoded with no threshold)."""
    rows = [r for r in results if r["split"] == split]
    cmds = [r for r in rows if r["expected"] is not None]
    talk = [r for r in rows if r["expected"] is None]
    if not cmds or not talk:
        print(f"  {split} split: no commands or no table talk to choose a threshold on")
        return
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


def speech_bounds(path: str) -> tuple[float, float]:
    """Where the speech in a clean file really starts and ends (seconds): the first and last
    10 ms above 2% of the loudest (espeak-ng pads its output with silence of its own)."""
    import wave

    from assistant.voice.pcm import audioop

    with wave.open(path) as w:
        rate, raw = w.getframerate(), w.readframes(w.getnframes())
    step = rate // 100 * 2
    levels = [audioop.rms(raw[i : i + step], 2) for i in range(0, len(raw), step)]
    loud = max(levels) * 0.02
    first = min(i for i, level in enumerate(levels) if level > loud)
    last = max(i for i, level in enumerate(levels) if level > loud)
    return first / 100, (last + 1) / 100


def realtime_latency(manifest: list[dict], count: int, engine: str, model: str = "") -> dict:
    """End of speech -> parsed command, as in a session: one listener (continuous mode, its
    recogniser built from ``VoiceSettings.engine``) hears ``count`` of the test split's clean
    commands one after another from a WAV input at real-time pace (SpeechRecognition's
    ``Recognizer.listen`` streaming into the decoder), with the game state of whichever command
    is playing. The first utterance of a session is reported apart (PocketSphinx decodes it in
    one go once it ends: the front end's running mean is still cold).

    Returns the figures: ``latencies`` (seconds, the first left out), ``first``, ``heard``,
    ``exact``, ``commands``, ``engine`` (the listener's real recogniser), ``problem``."""
    import queue

    from assistant.config import VoiceSettings
    from assistant.voice.listener import Heard, ListenContext, Listener, ListenerState, Rejected

    items = [m for m in manifest if m["split"] == "test" and m["condition"] == "clean"
             and m["expected"] is not None and m.get("synth", "espeak") == "espeak"][:count]
    if not items:
        return {"problem": "no clean test commands in this corpus"}
    contexts = [ListenContext.from_referee(Referee.resume(item["context"])) for item in items]
    bounds = [speech_bounds(item["file"]) for item in items]  # within each file
    speech_ends = [end for _, end in bounds]
    rate = 16000 * 2  # bytes a second in the WAV source
    events: queue.Queue = queue.Queue()
    problems: list[str] = []

    def playing() -> int:
        """The command being heard: the last whose speech had begun when the listener asks
        (it asks once the speech has ended, while the stream runs on into the quiet before the
        next command; taking the first command whose speech had not ended gave it the next
        command's game, and short commands were forced into that game's grammar)."""
        source = listener._source
        stream = getattr(source, "stream", None)
        if source is None or stream is None or not source.spans:
            return 0
        return max((i for i, ((start, _), (begins, _)) in enumerate(zip(source.spans, bounds, strict=True))
                    if start / rate + begins < stream.position / rate), default=0)

    def on_event(event) -> None:
        if isinstance(event, Heard | Rejected):
            events.put((time.monotonic(), event))
        elif isinstance(event, ListenerState) and event.state == "unavailable":
            problems.append(event.reason or "unavailable")

    settings = dataclasses.replace(VoiceSettings(listen="continuous"), engine=engine, whisper_model=model)
    listener = Listener(settings, lambda: contexts[playing()], on_event,
                        audio_input=[item["file"] for item in items])
    listener.start()
    deadline = time.monotonic() + sum(i["speech_seconds"] + 2 * i["pad_seconds"] + 0.8 for i in items) + 60
    while not listener.input_ended and not problems and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.5)
    source = listener._source
    used = engine_of(listener.recognizer) if listener.recognizer is not None else None
    if getattr(listener, "note", None):
        problems.append(listener.note)
    listener.close()
    if problems:
        return {"problem": "; ".join(problems), "engine": used}
    if source is None or source.started_at is None:
        return {"problem": "the listener did not start", "engine": used}
    ends = [source.started_at + start / rate + end
            for (start, _), end in zip(source.spans, speech_ends, strict=True)]
    latencies: list[float] = []
    carded: list[bool] = []  # each latency's command names cards (it waits out the full pause)
    first: float | None = None
    exact = heard = 0
    seen: set[int] = set()
    while not events.empty():
        at, event = events.get()
        # The command whose speech ended last before this event.
        i = max((k for k, end in enumerate(ends) if end <= at), default=None)
        if i is None or i in seen or not isinstance(event, Heard):
            continue
        seen.add(i)
        heard += 1
        exact += event.command.canonical == items[i]["expected"]
        if i == 0:
            first = at - ends[0]
        else:
            latencies.append(at - ends[i])
            carded.append(bool(event.command.cards))
    return {"latencies": latencies, "carded": carded, "first": first, "heard": heard, "exact": exact,
            "commands": len(items), "engine": used, "problem": None}


def startup(manifest: list[dict], engine: str, model: str = "") -> str:
    """From starting the program to the first command heard (a fresh interpreter, WAV input)."""
    item = next((m for m in manifest if m["split"] == "test" and m["condition"] == "clean"
                 and m["expected"] is not None and not m["context"][2:]), None)
    if item is None:
        return "no test command at the start of a game in this corpus"
    code = (
        "import time, sys; t0 = time.monotonic()\n"
        "from assistant.voice.listener import Listener, ListenContext, Heard\n"
        "from assistant.config import VoiceSettings\n"
        "import threading; done = threading.Event(); out = {}\n"
        "def on_event(e):\n"
        "    if isinstance(e, Heard) and not done.is_set(): out['t'] = time.monotonic() - t0; out['c'] = e.command.canonical; done.set()\n"
        f"ctx = ListenContext(players=tuple({item['players']!r}), game=None)\n"
        f"l = Listener(VoiceSettings(listen='continuous', engine={engine!r}, whisper_model={model!r}), lambda: ctx, on_event, audio_input=[{item['file']!r}])\n"
        "l.start(); done.wait(30); l.close()\n"
        "print(out.get('t', -1), out.get('c'))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    fields = done.stdout.split(maxsplit=1)
    audio = item["pad_seconds"] + item["speech_seconds"]
    if fields and float(fields[0]) > 0:
        return (f"{float(fields[0]):.2f} s ({float(fields[0]) - audio:.2f} s after its {audio:.2f} s "
                f"of audio)")
    return f"no command heard ({done.stderr.strip()[-200:]})"


# --------------------------------------------------------------------------- one engine
def worker(args: argparse.Namespace, manifest: list[dict]) -> dict:
    """Everything measured for one engine, in this (fresh) process."""
    engine = args.worker
    options = decoder_options(args.option)
    set_tail(args.tail)
    out: dict = {"engine": engine, "rss_before_mb": memory_mb("VmRSS")}
    started = time.monotonic()
    try:
        recognizer = recognizer_for(engine, decoder_options=options, model=args.model)
    except (EngineUnavailable, RecognizerUnavailable) as err:
        return {**out, "problem": str(err)}
    out["load_seconds"] = time.monotonic() - started
    if args.vote:  # ``--vote``: an unsure reading decoded again over time shifts, voting
        from assistant.voice.whisper.vote import TUNED

        recognizer.vote = TUNED  # type: ignore[attr-defined]  # a WhisperRecognizer (--engine whisper)
    out["built"] = engine_of(recognizer)
    decoder = getattr(getattr(recognizer, "model", None), "decoder", None)
    if decoder is not None:  # Whisper's step decoder (ONNX Runtime's: OrtDecoder)
        out["decoder"] = type(decoder).__name__
    if not args.only_realtime:
        started = time.monotonic()
        if args.jobs > 1:
            del recognizer
            out["results"] = decode_parallel(manifest, args.jobs, engine, options, args.model, args.tail,
                                             args.front_end)
            out["peak_rss_mb"] = None  # the decoding processes' own; see resource.RUSAGE_CHILDREN
        else:
            out["results"] = decode_all(manifest, recognizer, front_end(args.front_end))
            out["peak_rss_mb"] = memory_mb("VmHWM")
        print(f"{engine}: {len(manifest)} files decoded in {time.monotonic() - started:.0f} s",
              file=sys.stderr, flush=True)
    if not args.no_realtime:
        out["latency"] = realtime_latency(manifest, args.latency_samples, engine, args.model)
        out["startup"] = startup(manifest, engine, args.model)
    return out


def run_engine(engine: str, argv: list[str]) -> dict:
    """``worker`` in a fresh interpreter, so that memory and load time are this engine's alone."""
    with tempfile.TemporaryDirectory(prefix="lifeguard-voice-run-") as tmp:
        result = Path(tmp) / "result.json"
        done = subprocess.run([sys.executable, __file__, *argv, "--worker", engine, "--result", str(result)],
                              cwd=ROOT, check=False)
        if done.returncode != 0 or not result.exists():
            return {"engine": engine, "problem": f"the {engine} run failed (exit status {done.returncode})"}
        return json.loads(result.read_text())


def figures(table: Table, runs: dict[str, dict]) -> None:
    def each(fn: Callable[[dict], str]) -> list[str]:
        return [fn(runs[e]) if not runs[e].get("problem") else "-" for e in table.engines]

    table.row("model load, s", each(lambda r: f"{r['load_seconds']:.2f}"))
    table.row("decoder step", each(lambda r: r.get("decoder", "-")))
    table.row("peak RSS after decoding, MB (before load)",
              each(lambda r: f"{r['peak_rss_mb']:.0f} ({r['rss_before_mb']:.0f})" if r.get("peak_rss_mb")
                   else "-"))

    def latency(r: dict) -> str:
        lat = r.get("latency")
        if not lat:
            return "-"
        if lat.get("problem"):
            return "failed"
        values = lat["latencies"]
        if not values:
            return "none heard"
        return f"{statistics.median(values) * 1000:.0f} / {percentile(values, 0.95) * 1000:.0f}"

    n = next((r["latency"]["commands"] for r in runs.values() if r.get("latency", {}).get("commands")), 0)
    table.row(f"end of speech -> command, ms (med / p95; {n})", each(latency))

    def latency_by_cards(r: dict) -> str:
        lat = r.get("latency") or {}
        pairs = list(zip(lat.get("latencies") or [], lat.get("carded") or [], strict=False))
        parts = [[v for v, c in pairs if not c], [v for v, c in pairs if c]]
        return " / ".join(f"{statistics.median(p) * 1000:.0f} ({len(p)})" if p else "-" for p in parts)

    table.row("  median without cards / with cards (n)", each(latency_by_cards))
    table.row("  commands heard / exactly right",
              each(lambda r: f"{r['latency']['heard']} / {r['latency']['exact']}"
                   if r.get("latency") and not r["latency"].get("problem") else "-"))
    table.row("  the session's first command, ms",
              each(lambda r: f"{r['latency']['first'] * 1000:.0f}"
                   if r.get("latency") and r["latency"].get("first") is not None else "-"))
    table.row("start-up to the first command heard", [""] * len(table.engines))
    for engine in table.engines:
        if runs[engine].get("startup"):
            print(f"  {engine}: {runs[engine]['startup']}")
    for engine in table.engines:
        r = runs[engine]
        notes = [r.get("problem")]
        if r.get("built") and r["built"] != engine:
            notes.append(f"asked for {engine}, got a {r['built']} recogniser")
        lat = r.get("latency") or {}
        if lat.get("problem"):
            notes.append(f"listener: {lat['problem']}")
        elif lat.get("engine") and lat["engine"] != engine:
            notes.append(f"the listener used {lat['engine']}, not {engine}")
        for note in filter(None, notes):
            print(f"{engine}: {note}")


def select(manifest: list[dict], limit: int | None) -> list[dict]:
    """At most ``limit`` files, whole samples (all their conditions) spread evenly over the
    corpus, so that a small run still sees every split and synthesiser."""
    if limit is None or limit >= len(manifest):
        return manifest
    ids = list(dict.fromkeys(m["id"] for m in manifest))
    per_id = max(1, len(manifest) // len(ids))
    keep_count = max(1, limit // per_id)
    keep = {ids[int(i * len(ids) / keep_count)] for i in range(keep_count)}
    return [m for m in manifest if m["id"] in keep]


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=(*ENGINES, "both"), default="both")
    parser.add_argument("--corpus", default=str(ROOT / "bench" / "out" / "voice"))
    parser.add_argument("--limit", type=int, default=None,
                        help="at most this many files (whole samples, spread over the corpus)")
    parser.add_argument("--tune", action="store_true", help="print the threshold the tune split picks")
    parser.add_argument("--errors", action="store_true", help="list the test split's misses")
    parser.add_argument("--latency-samples", type=int, default=30)
    parser.add_argument("--no-realtime", action="store_true", help="skip the real-time-pace runs")
    parser.add_argument("--only-realtime", action="store_true", help="only the real-time-pace runs")
    parser.add_argument("--split", choices=("tune", "test"), help="only this split")
    parser.add_argument("--condition", choices=CONDITIONS, action="append",
                        help="only this condition (repeatable)")
    parser.add_argument("--synth", choices=SYNTHESISERS, action="append",
                        help="only this synthesiser's files (repeatable)")
    parser.add_argument("--jobs", type=int, default=1, help="decode in this many processes")
    parser.add_argument("--voices", action="store_true", help="print accuracy per voice")
    parser.add_argument("--intents", action="store_true", help="print accuracy per kind of command")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a PocketSphinx decoder option to try (repeatable)")
    parser.add_argument("--model", default="", metavar="DIR",
                        help="a CTranslate2 Whisper model folder (default: the packaged tiny.en), or base: the "
                             "multilingual Whisper base listening for English")
    parser.add_argument("--tail", type=float, metavar="SECONDS",
                        help="Whisper's silent tail after the speech (whisper.features.TAIL_SECONDS) to try; decoding only")
    parser.add_argument("--front-end", choices=("none", *FRONT_ENDS), default="none",
                        help="a speech-enhancement front end before the recogniser (bench/front_ends.py)")
    parser.add_argument("--near-miss", choices=("with", "without", "only"), default="with",
                        help="the near-miss table talk (test split; never counted in --limit)")
    parser.add_argument("--vote", action="store_true",
                        help="Whisper: decode an unsure reading again over small time shifts and take the majority "
                             "(whisper.vote.TUNED; decoding in this process, --jobs 1)")
    parser.add_argument("--save", metavar="FILE", help="write every engine's results to FILE (JSON)")
    parser.add_argument("--worker", choices=ENGINES, help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
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
    if args.synth:
        manifest = [m for m in manifest if m.get("synth", "espeak") in args.synth]
    near = [m for m in manifest if m.get("near_miss")] if args.near_miss != "without" else []
    manifest = [] if args.near_miss == "only" else select([m for m in manifest if not m.get("near_miss")], args.limit)
    manifest += near
    if args.worker:
        Path(args.result).write_text(json.dumps(worker(args, manifest)))
        return 0

    engines = list(ENGINES) if args.engine == "both" else [args.engine]
    engine_argv = [a for i, a in enumerate(argv) if not a.startswith("--engine")
                   and not (i and argv[i - 1] == "--engine")]
    runs: dict[str, dict] = {}
    for engine in engines:
        runs[engine] = run_engine(engine, engine_argv)
    results = {e: runs[e].get("results") for e in engines}
    print(f"{len(manifest)} files, {os.cpu_count()} cores; one engine at a time, each in a process of its own; "
          f"front end: {args.front_end}; load average {os.getloadavg()[0]:.1f}")
    if args.save:
        Path(args.save).write_text(json.dumps(runs))
    table = Table(engines)
    if any(r is not None for r in results.values()):
        report(table, results)
        timing(table, results)
    figures(table, runs)
    if args.voices and any(results.values()):
        print("exact commands per voice:")
        accuracy_by(table, results, voice)
    if args.intents and any(results.values()):
        print("exact commands per kind of command:")
        accuracy_by(table, results, kind)
    for engine in engines:
        rows = results[engine]
        if rows and args.tune:
            print(f"{engine}: confidence threshold on the tune split")
            tune(rows)
        if rows and args.errors:
            print(f"{engine}: the {args.split or 'test'} split's misses")
            show_errors(rows, args.split or "test")
    return 0


if __name__ == "__main__":
    sys.exit(main())
