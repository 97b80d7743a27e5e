"""Text helpers shared by every backend: cleaning game output and sanitizing commands.

Example:
    >>> clean_observation("Hello\\n\\n>  -= Kitchen =-0/3")
    'Hello'
    >>> sanitize_command("  take\\tthe  café\\n")
    'take the cafe'
"""

from __future__ import annotations

import re
import string
import unicodedata

#: Characters allowed in observations and actions (``gymnasium.spaces.Text`` charset).
PRINTABLE_CHARSET: str = string.printable
_PRINTABLE = frozenset(PRINTABLE_CHARSET)
_NON_PRINTABLE = re.compile(f"[^{re.escape(PRINTABLE_CHARSET)}]")

#: Commands longer than this are cut: interpreters' line buffers are small (Jericho: under 198 bytes).
MAX_COMMAND_CHARS: int = 190

_BANNER_LINE = re.compile(r"^[\s$_|\\/<>()=-]*[$|\\_][\s$_|\\/<>()=-]*$")
_PROMPT_TAIL = re.compile(r"\n\s*>[^\n]*\s*$")
_MANY_NEWLINES = re.compile(r"\n{3,}")
_TRAILING_SPACES = re.compile(r"[ \t]+\n")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]+")
#: Dumb-frotz (under Jericho and TextWorld's .z8 games) reads ``\x`` as an interpreter escape,
#: some of which crash it; no game command needs a backslash.
_INTERPRETER_ESCAPES = re.compile(r"\\+")
_SPACES = re.compile(r"\s+")


def to_printable(text: str) -> str:
    """Maps text onto :data:`PRINTABLE_CHARSET` (accents folded, other characters dropped)."""
    if _NON_PRINTABLE.search(text) is None:
        return text
    folded = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in folded if ch in _PRINTABLE)


def clean_observation(text: str) -> str:
    """Removes ASCII-art banners, the ``>`` prompt and status tail, and surplus blank lines.

    Args:
        text: Raw text printed by the game interpreter.

    Returns:
        The feedback a player would read, in the printable charset.
    """
    text = to_printable(text).replace("\r\n", "\n").replace("\r", "\n")
    text = _PROMPT_TAIL.sub("", text)
    if text.lstrip().startswith(">"):
        text = text.lstrip()[1:]
    lines = [line for line in text.split("\n") if not (line.strip() and _BANNER_LINE.match(line))]
    text = _TRAILING_SPACES.sub("\n", "\n".join(lines))
    return _MANY_NEWLINES.sub("\n\n", text).strip()


def sanitize_command(command: str, max_chars: int = MAX_COMMAND_CHARS) -> str:
    """Makes any string safe to send to an interpreter as exactly one command.

    Control characters (newlines included, which would otherwise send several commands) and
    backslashes (interpreter escapes) become spaces, accents are folded to ASCII, other non-ASCII
    characters are dropped, runs of white space collapse, and the result is cut to ``max_chars``.

    Args:
        command: What the agent typed.
        max_chars: Longest command passed through.

    Returns:
        A single-line ASCII command, possibly empty (games answer an empty command themselves).
    """
    command = to_printable(_INTERPRETER_ESCAPES.sub(" ", _CONTROL.sub(" ", command)))
    return _SPACES.sub(" ", command).strip()[:max_chars].strip()
