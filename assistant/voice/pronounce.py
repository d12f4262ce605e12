"""Pronunciations (CMU phones) for words the recogniser's dictionary lacks: unusual player names.

Called by ``assistant.voice.recognizer`` before a grammar with new names is loaded. espeak-ng
already knows how to say any spelling (``espeak-ng -q -x`` prints its phonemes in ASCII); those
phonemes are mapped onto the 39 CMU phones of PocketSphinx's English model. Without espeak-ng a
rough letter-by-letter spelling is used, so a name is never simply unrecognisable.
"""

from __future__ import annotations

import re
import shutil
import subprocess

#: espeak-ng's ASCII (Kirshenbaum-like) phonemes -> CMU phones; longest match first.
ESPEAK_TO_CMU: dict[str, str] = {
    "aI@": "AY ER", "aI3": "AY ER", "aU@": "AW ER", "i@3": "IH R", "A@": "AA R", "e@": "EH R",
    "i@": "IH R", "O@": "AO R", "o@": "AO R", "U@": "UH R", "3:": "ER", "A:": "AA", "O:": "AO",
    "i:": "IY", "u:": "UW", "aI": "AY", "aU": "AW", "eI": "EY", "OI": "OY", "oU": "OW",
    "aa": "AA", "@L": "AH L", "@2": "AH", "@5": "AH", "I2": "IH", "I#": "IH", "a#": "AH", "e#": "EH",
    "tS": "CH", "dZ": "JH", "t#": "T", "r-": "R",
    "a": "AE", "A": "AA", "E": "EH", "e": "EY", "I": "IH", "i": "IY", "0": "AA", "O": "AO",
    "o": "OW", "U": "UH", "u": "UW", "V": "AH", "@": "AH", "3": "ER", "y": "UW", "Y": "UH",
    "p": "P", "b": "B", "t": "T", "d": "D", "k": "K", "g": "G", "f": "F", "v": "V", "T": "TH",
    "D": "DH", "s": "S", "z": "Z", "S": "SH", "Z": "ZH", "h": "HH", "m": "M", "n": "N",
    "N": "NG", "l": "L", "r": "R", "w": "W", "j": "Y", "x": "HH", "c": "K", "J": "Y",
}
_KEYS = sorted(ESPEAK_TO_CMU, key=len, reverse=True)
_IGNORED = set("'`,%=:_!?;-|") | {" "}

#: A crude fallback: one CMU phone sequence per letter.
LETTER_PHONES: dict[str, str] = {
    "a": "AE", "b": "B", "c": "K", "d": "D", "e": "EH", "f": "F", "g": "G", "h": "HH", "i": "IH",
    "j": "JH", "k": "K", "l": "L", "m": "M", "n": "N", "o": "OW", "p": "P", "q": "K", "r": "R",
    "s": "S", "t": "T", "u": "UH", "v": "V", "w": "W", "x": "K S", "y": "Y", "z": "Z",
}


def espeak_phonemes(word: str, voice: str = "en-us") -> str | None:
    """espeak-ng's ASCII phonemes for ``word``, or None without espeak-ng."""
    exe = shutil.which("espeak-ng") or shutil.which("espeak")
    if exe is None:
        return None
    try:
        done = subprocess.run(
            [exe, "-q", "-x", "-v", voice, word],
            capture_output=True, text=True, timeout=5, check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None


def espeak_to_cmu(phonemes: str) -> list[str]:
    """Map an espeak-ng phoneme string onto CMU phones (unknown symbols are skipped)."""
    phones: list[str] = []
    i = 0
    while i < len(phonemes):
        if phonemes[i] in _IGNORED:
            i += 1
            continue
        for key in _KEYS:
            if phonemes.startswith(key, i):
                phones.extend(ESPEAK_TO_CMU[key].split())
                i += len(key)
                break
        else:
            i += 1
    # espeak writes doubled consonants for some spellings; CMU has no geminates.
    return [p for j, p in enumerate(phones) if j == 0 or p != phones[j - 1] or p in _VOWELS]


_VOWELS = {"AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW"}


def espeak_pronunciations(words: list[str], voice: str) -> dict[str, str]:
    """CMU pronunciations of many words in one espeak-ng call ({} without espeak-ng)."""
    if not words:
        return {}
    # "; " keeps every word its own token ("no. one" reads as "number one" and merges).
    phonemes = espeak_phonemes("; ".join(words), voice)
    if phonemes is None:
        return {}
    tokens = phonemes.split()
    if len(tokens) != len(words):  # espeak joined or split something: do them one by one
        singles = {w: espeak_phonemes(w, voice) for w in words}
        return {w: " ".join(espeak_to_cmu(p)) for w, p in singles.items() if p and espeak_to_cmu(p)}
    return {w: " ".join(espeak_to_cmu(t)) for w, t in zip(words, tokens, strict=True) if espeak_to_cmu(t)}


def pronounce(word: str) -> str:
    """A CMU pronunciation ("Z AY M N AH") for any word."""
    phonemes = espeak_phonemes(word)
    phones = espeak_to_cmu(phonemes) if phonemes else []
    if not phones:
        phones = [p for ch in re.sub(r"[^a-z]", "", word.lower()) for p in LETTER_PHONES[ch].split()]
    return " ".join(phones or ["AH"])
