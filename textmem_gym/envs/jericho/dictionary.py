"""The words a Z-machine game's parser knows, read from its story file's dictionary.

The dictionary is a table of the story file (Z-Machine Standard 1.1, section 13): its address is
the header word at byte 8; it starts with the word-separator characters, then the entry length and
the (signed) entry count, then the entries, each opening with the word's encoded text (4 bytes in
versions 1-3, 6 later: 6 or 9 Z-characters, so words are cut: ``"lanter"``). The text is 5-bit
Z-characters three to a 16-bit word (section 3): alphabet A0 (lower case) unless a shift (4: A1,
upper case; 5: A2, punctuation and digits) precedes one character; A2's character 6 starts a 10-bit
ZSCII code.

Reading the bytes needs no interpreter: Jericho's ``get_dictionary`` goes through ztools, whose
state is global to the process and, after several games in one process, never returned (Leather
Goddesses after the other Jericho games in one worker).

Example:
    >>> import os
    >>> from pathlib import Path
    >>> rom = Path(os.environ.get("TEXTMEM_ROMS_DIR", ".")) / "zork1.z5"
    >>> words = story_words(rom.read_bytes()) if rom.exists() else ["lanter", "mailbo"]
    >>> "lanter" in words and "mailbo" in words
    True
"""

from __future__ import annotations

#: Alphabets A0 and A1 (Z-characters 6-31), and A2 from Z-character 7 (6 is the ZSCII escape).
_LOWER = "abcdefghijklmnopqrstuvwxyz"
_UPPER = _LOWER.upper()
_PUNCTUATION = "\n0123456789.,!?_#'\"/\\-:()"
_SHIFT_UPPER, _SHIFT_PUNCTUATION, _ESCAPE = 4, 5, 6
#: Bytes of a dictionary entry's encoded text by story file version (section 13.3-4): 4 up to version 3
#: (6 Z-characters), 6 later (9 Z-characters).
_TEXT_BYTES = {1: 4, 2: 4, 3: 4}
_LATER_TEXT_BYTES = 6


def word_letters(version: int) -> int:
    """How many Z-characters a dictionary entry of a story file of ``version`` keeps of a word (three to
    each two bytes of its text): 6 in versions 1-3, 9 later; a letter takes one, any other character two.

    Example:
        >>> word_letters(3), word_letters(5), word_letters(8)
        (6, 9, 9)
    """
    return _TEXT_BYTES.get(version, _LATER_TEXT_BYTES) // 2 * 3


def _zchars(text: bytes) -> list[int]:
    """The 5-bit Z-characters of encoded text, three to each big-endian 16-bit word."""
    codes = []
    for i in range(0, len(text) - 1, 2):
        word = int.from_bytes(text[i:i + 2], "big")
        codes += [(word >> 10) & 31, (word >> 5) & 31, word & 31]
    return codes


def decode_text(text: bytes) -> str:
    """Decodes a dictionary entry's Z-characters (versions 3 and later; trailing padding dropped).

    Example:
        >>> decode_text(bytes([0x7E, 0x97, 0xC0, 0xA5]))  # "zork" padded with 5s
        'zork'
    """
    out: list[str] = []
    codes, alphabet, i = _zchars(text), 0, 0
    while i < len(codes):
        code, shift, alphabet = codes[i], alphabet, 0
        i += 1
        if code in (_SHIFT_UPPER, _SHIFT_PUNCTUATION):
            alphabet = 1 if code == _SHIFT_UPPER else 2
        elif code == 0:
            out.append(" ")
        elif shift == 2 and code == _ESCAPE:
            if i + 1 < len(codes):
                out.append(chr((codes[i] << 5) | codes[i + 1]))
            i += 2
        elif code > _ESCAPE or (code == _ESCAPE and shift != 2):
            out.append((_LOWER, _UPPER, " " + _PUNCTUATION)[shift][code - 6])
    return "".join(out).rstrip(" ")


def story_words(story: bytes) -> list[str]:
    """The dictionary's words of a story file, sorted and unique (``[]`` for versions 1-2, whose
    shift characters differ; no Jericho game is one).

    Args:
        story: The story file's bytes.
    """
    version = story[0]
    if version < 3:
        return []
    start = int.from_bytes(story[8:10], "big")
    entries = start + 1 + story[start]  # past the word separators
    size, count = story[entries], abs(int.from_bytes(story[entries + 1:entries + 3], "big", signed=True))
    first, text = entries + 3, _TEXT_BYTES.get(version, _LATER_TEXT_BYTES)
    words = (decode_text(story[first + k * size:first + k * size + text]) for k in range(count))
    return sorted({word for word in words if word.strip()})


__all__ = ["decode_text", "story_words", "word_letters"]
