"""Pronunciations (CMU phones) for words the recogniser's dictionary lacks: unusual player names.

Called by ``assistant.voice.recognizer`` before a grammar with new names is loaded. espeak-ng
already knows how to say any spelling (``espeak-ng -q -x`` prints its phonemes in ASCII); those
phonemes are mapped onto the 39 CMU phones of PocketSphinx's English model. Without espeak-ng a
rough letter-by-letter spelling is used, so a name is never simply unrecognisable.

Player names may be written in any alphabet (Zoë, Jörg, Anne-Marie, O'Brien, प्रिया). The grammar
keeps each name as its own word, so that the command heard names the player as the game spells
it; only its pronunciation is found here:

* a name in Latin letters is *folded* to plain English letters (``latin_spelling``: accents
  dropped, 'zoë' -> 'zoe', 'ß' -> 'ss'); the folded name, or each part of a hyphenated one said
  in a row, is looked up in the decoder's English dictionary (``dictionary_pronunciation``), and
  espeak-ng's reading of the name as written is added (it knows 'ö' is not 'o');
* a name in another script is read by espeak-ng with a voice for that script (``SCRIPT_VOICES``:
  Devanagari by the Hindi voice, Cyrillic by the Russian one, ...) and its phonemes mapped onto
  the English phones like any other, a transliteration into sounds that needs nothing but
  espeak-ng, which Lifeguard already speaks with. Where that is impossible (no espeak-ng, a
  script it has no voice for, or characters it can only name, as with most Chinese characters)
  the name has no pronunciation (``hearable`` is False) and the grammar
  leaves it out rather than let a made-up pronunciation catch other words.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata
from collections.abc import Callable
from functools import cache

#: espeak-ng's ASCII (Kirshenbaum-like) phonemes -> CMU phones; longest match first.
ESPEAK_TO_CMU: dict[str, str] = {
    "aI@": "AY ER", "aI3": "AY ER", "aU@": "AW ER", "i@3": "IH R", "A@": "AA R", "e@": "EH R",
    "i@": "IH R", "O@": "AO R", "o@": "AO R", "U@": "UH R", "3:": "ER", "A:": "AA", "O:": "AO",
    "i:": "IY", "u:": "UW", "a:": "AA", "aI": "AY", "aU": "AW", "eI": "EY", "OI": "OY", "oU": "OW",
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
#: espeak-ng's language switches inside its phonemes: "(hi)pr'Ija:(en-us)".
_SWITCH = re.compile(r"\([a-z][a-z0-9-]*\)")

#: Latin letters that Unicode does not decompose into a plain letter and an accent.
LATIN_LETTERS: dict[str, str] = {
    "ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i",
    "ŋ": "ng", "ħ": "h", "ŧ": "t", "ŀ": "l", "ĸ": "k", "ſ": "s", "ɨ": "i", "ƒ": "f",
}

#: The espeak-ng voice that reads a script (the first word of its letters' Unicode names).
SCRIPT_VOICES: dict[str, str] = {
    "DEVANAGARI": "hi", "BENGALI": "bn", "GURMUKHI": "pa", "GUJARATI": "gu", "ORIYA": "or",
    "TAMIL": "ta", "TELUGU": "te", "KANNADA": "kn", "MALAYALAM": "ml", "SINHALA": "si",
    "CYRILLIC": "ru", "GREEK": "el", "ARMENIAN": "hy", "GEORGIAN": "ka", "HEBREW": "he",
    "ARABIC": "ar", "HANGUL": "ko", "HIRAGANA": "ja", "KATAKANA": "ja", "CJK": "cmn", "THAI": "th",
    "ETHIOPIC": "am", "MYANMAR": "my",
}

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
    phonemes = _SWITCH.sub("", phonemes)
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


def latin_spelling(word: str) -> str | None:
    """``word`` in plain lower-case English letters ('Zoë' -> 'zoe', 'Straße' -> 'strasse',
    'Anne-Marie' -> 'anne-marie'), hyphens and apostrophes kept; None when it has letters of
    another script (or none at all)."""
    out: list[str] = []
    for ch in word.lower():
        if ch in LATIN_LETTERS:
            out.append(LATIN_LETTERS[ch])
            continue
        for part in unicodedata.normalize("NFKD", ch):
            if unicodedata.combining(part):
                continue  # an accent
            if not ("a" <= part <= "z" or part in "-'"):
                return None
            out.append(part)
    spelling = "".join(out)
    return spelling if any(c.isalpha() for c in spelling) else None


def dictionary_pronunciation(word: str, lookup: Callable[[str], str | None]) -> str | None:
    """The English dictionary's pronunciation of a name it lacks as written: of its folded
    spelling ('zoë' as 'zoe'), else of its hyphenated parts said in a row ('anne-marie' as
    'anne' then 'marie'); None when the dictionary lacks those too (``lookup``: the decoder's)."""
    spelling = latin_spelling(word)
    if spelling is None:
        return None
    whole = lookup(spelling)
    if whole:
        return whole
    parts = [p for p in spelling.split("-") if p]
    if len(parts) < 2:
        return None
    phones = [lookup(p) for p in parts]
    return " ".join(p for p in phones if p) if all(phones) else None


def script_voice(word: str) -> str | None:
    """The espeak-ng voice for the script ``word``'s first letter is written in, or None."""
    for ch in word:
        if unicodedata.category(ch)[0] == "L":
            script = unicodedata.name(ch, "").split(" ")[0]
            return SCRIPT_VOICES.get(script)
    return None


@cache
def script_phones(word: str) -> str | None:
    """CMU phones for a word in another script, as espeak-ng reads it with that script's voice;
    None without espeak-ng or a voice for the script, or where espeak-ng could only fall back
    to English names of the characters ("chinese letter")."""
    voice = script_voice(word)
    if voice is None:
        return None
    phonemes = espeak_phonemes(word, voice)
    if not phonemes or "(en" in phonemes:
        return None
    phones = espeak_to_cmu(phonemes)
    return " ".join(phones) if phones else None


def hearable(word: str) -> bool:
    """Whether PocketSphinx can be given a pronunciation of ``word`` (a player's name)."""
    return latin_spelling(word) is not None or script_phones(word) is not None


def espeak_pronunciations(words: list[str], voice: str) -> dict[str, str]:
    """CMU pronunciations of many words in one espeak-ng call ({} without espeak-ng). Words in
    another script are read one by one by their script's voice (``script_phones``)."""
    found = {w: p for w in words if latin_spelling(w) is None and (p := script_phones(w))}
    return found | _latin_pronunciations([w for w in words if latin_spelling(w) is not None], voice)


def _latin_pronunciations(words: list[str], voice: str) -> dict[str, str]:
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
    """A CMU pronunciation ("Z AY M N AH") for any word (for one in another script that
    espeak-ng cannot read, a bare "AH": see ``hearable``)."""
    spelling = latin_spelling(word)
    if spelling is None:
        return script_phones(word) or "AH"
    phonemes = espeak_phonemes(word)
    phones = espeak_to_cmu(phonemes) if phonemes else []
    if not phones:
        phones = [p for ch in re.sub(r"[^a-z]", "", spelling) for p in LETTER_PHONES[ch].split()]
    return " ".join(phones or ["AH"])
