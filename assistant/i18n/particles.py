"""Korean particles that follow the word before them: ``{player:이/가}`` in a translation.

A Korean particle has two forms, chosen by whether the word it is attached to ends in a
consonant (``밥이``, ``Bob이``) or a vowel (``앨리스가``, ``Alice가``). Translations name both
forms in the placeholder's format spec and ``i18n.format`` picks one for the value; English and
German translations simply do not use such specs. A word in Latin letters is judged by its last
letter (``Bob`` ends in a consonant, ``Alice`` in a vowel), digits by their Sino-Korean reading.
"""

from __future__ import annotations

_HANGUL_FIRST, _HANGUL_LAST = 0xAC00, 0xD7A3
_RIEUL = 8  # the final consonant ㄹ (its index among the 28 finals)
#: Digits read in Sino-Korean: 0 영, 1 일, 2 이, 3 삼, 4 사, 5 오, 6 육, 7 칠, 8 팔, 9 구.
_DIGIT_FINALS = {"0": 21, "1": _RIEUL, "2": 0, "3": 16, "4": 0, "5": 0, "6": 1, "7": _RIEUL, "8": _RIEUL, "9": 0}
#: The particle pairs understood in a spec, written "after a consonant/after a vowel".
PAIRS = frozenset({"이/가", "은/는", "을/를", "과/와", "으로/로", "아/야", "이다/다", "이나/나", "이랑/랑"})


def final_consonant(word: str) -> int | None:
    """Index (1..27) of the final consonant ``word`` ends in; 0 for a vowel; None if unknown."""
    for ch in reversed(word.strip()):
        code = ord(ch)
        if _HANGUL_FIRST <= code <= _HANGUL_LAST:
            return (code - _HANGUL_FIRST) % 28
        if ch in _DIGIT_FINALS:
            return _DIGIT_FINALS[ch]
        if ch.isalpha() and ch.isascii():
            return 0 if ch.lower() in "aeiouy" else 1
        if ch.isalnum():
            return None
    return None


def attach(word: str, spec: str) -> str:
    """``word`` followed by the right form of the particle pair ``spec`` (e.g. ``"이/가"``)."""
    after_consonant, after_vowel = spec.split("/")
    final = final_consonant(word)
    if final is None:
        return f"{word}{after_consonant}({after_vowel})"
    if after_consonant == "으로" and final == _RIEUL:
        return word + after_vowel  # ㄹ takes 로: 서울로
    return word + (after_consonant if final else after_vowel)
