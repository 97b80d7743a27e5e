"""The story file's dictionary read from its bytes: the words Jericho's own reader (ztools) gives."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from textmem_gym.envs.jericho.dictionary import decode_text, story_words, word_letters
from textmem_gym.memory.extractors.jericho import Vocabulary

SUITE = Path(os.environ.get("TEXTMEM_ROMS_DIR", "/nonexistent"))
#: Jericho's reader, alone in a fresh process (its ztools state is global to a process).
ZTOOLS = ("import json, sys, jericho; env = jericho.FrotzEnv(sys.argv[1]);"
          "print(json.dumps(sorted({w.word for w in env.get_dictionary() if w.word.strip()})))")


@pytest.mark.parametrize("game", ["zork1.z5", "planetfall.z3", "anchor.z8"])  # versions 3 (zork1.z5 too), 3 and 8
def test_the_words_are_those_jericho_reads(game: str) -> None:
    rom = SUITE / game
    if not rom.is_file():
        pytest.skip("TEXTMEM_ROMS_DIR needed")
    theirs = json.loads(subprocess.run([sys.executable, "-c", ZTOOLS, str(rom)], capture_output=True, text=True,
                                       check=True, timeout=120).stdout)
    words = story_words(rom.read_bytes())
    assert words == theirs and len(words) > 500


def test_shifts_escapes_and_padding_decode() -> None:
    def encode(*codes: int) -> bytes:
        padded = list(codes) + [5] * (-len(codes) % 3)
        words = [(a << 10) | (b << 5) | c for a, b, c in zip(padded[::3], padded[1::3], padded[2::3])]
        return b"".join(w.to_bytes(2, "big") for w in words)

    assert decode_text(encode(13, 10, 17, 17, 20)) == "hello"
    assert decode_text(encode(4, 13, 10)) == "He"  # 4: one upper-case letter
    assert decode_text(encode(5, 8, 5, 9)) == "01"  # 5: digits and punctuation
    assert decode_text(encode(5, 6, 2, 1)) == "A"  # the ZSCII escape: 2 << 5 | 1 == 65
    assert story_words(bytes([2]) + bytes(63)) == []  # version 2 shifts differently: not read


@pytest.mark.parametrize(("game", "letters"), [("zork1.z5", 6), ("planetfall.z3", 6), ("anchor.z8", 9)])
def test_words_are_cut_as_the_story_files_version_stores_them(game: str, letters: int) -> None:
    rom = SUITE / game
    if not rom.is_file():
        pytest.skip("TEXTMEM_ROMS_DIR needed")
    story = rom.read_bytes()
    words = story_words(story)
    assert word_letters(story[0]) == letters
    assert max(len(w) for w in words if w.isalpha()) == letters  # no entry longer than the version keeps
    vocabulary = Vocabulary(words, word_letters(story[0]))
    assert vocabulary.cut == letters and vocabulary.knows("lanterns" if letters == 6 else "lantern")
