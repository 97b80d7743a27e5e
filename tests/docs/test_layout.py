"""``docs/guides/layout.md`` names every module of the packages it maps, read from the tree when the test
runs (a module added, renamed or merged without its line in the map fails here)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LAYOUT = REPO / "docs" / "guides" / "layout.md"
#: The packages the map covers module by module.
PACKAGES = ("textmem_gym", "policies", "baselines_rl")


def folder_texts(page: str) -> dict[str, str]:
    """Each folder of the map's tree -> the text of its entry: its own line and continuation lines, and
    the lines of the files listed under it (``results.py, fallbacks.py ...`` under ``textmem_gym/``).

    The tree is the page's first fenced block: an entry starts in the name column (its depth is its
    indent), its description starts at the column of the first line's description, and a line blank up
    to that column continues the entry above.

    Example:
        >>> tree = "```\\nlib/       the library\\n  io/      reader,\\n           writer\\n  main.py  entry\\n```\\n"
        >>> folder_texts(tree)
        {'lib/': 'the library main.py  entry', 'lib/io/': 'reader, writer'}
    """
    lines = [line for line in page.split("```", 2)[1].splitlines() if line.strip()]
    column = len(lines[0]) - len(lines[0].split(maxsplit=1)[1])  # where the first description starts
    texts: dict[str, str] = {}
    open_folders: list[tuple[int, str]] = []  # (indent, folder) from the root to the current entry
    current = ""
    for line in lines:
        if not line[:column].strip():  # continues the entry above
            texts[current] += " " + line.strip()
            continue
        indent = len(line) - len(line.lstrip())
        while open_folders and open_folders[-1][0] >= indent:
            open_folders.pop()
        parent = open_folders[-1][1] if open_folders else ""
        name, _, rest = line.strip().partition(" ")
        if name.endswith("/"):
            current = parent + name
            texts[current] = rest.strip()
            open_folders.append((indent, current))
        else:  # files of the parent folder
            current = parent
            texts[current] = f"{texts.get(current, '')} {line.strip()}".strip()
    return texts


def unnamed_modules(texts: dict[str, str], modules: list[Path]) -> list[str]:
    """The modules (paths relative to the repository) the map does not name: a module's folder must have
    an entry, and a module other than ``__init__.py`` must be named in it by its stem (``memory_graph``,
    ``memory_graph.py``; not inside a longer name).

    Example:
        >>> texts = {"lib/": "main.py (entry), io_utils", "lib/io/": "reader"}
        >>> unnamed_modules(texts, [Path("lib/main.py"), Path("lib/io.py"), Path("lib/io/writer.py"),
        ...                         Path("lib/io/__init__.py"), Path("lib/net/__init__.py")])
        ['lib/io.py', 'lib/io/writer.py', 'lib/net/__init__.py (its folder has no entry)']
    """
    missing = []
    for module in modules:
        folder = module.parent.as_posix() + "/"
        if folder not in texts:
            missing.append(f"{module.as_posix()} (its folder has no entry)")
        elif module.name != "__init__.py" and not re.search(rf"(?<![\w/.]){re.escape(module.stem)}(\.py)?\b",
                                                            texts[folder]):
            missing.append(module.as_posix())
    return missing


def test_the_layout_guide_names_every_module() -> None:
    modules = sorted(path.relative_to(REPO) for package in PACKAGES for path in (REPO / package).rglob("*.py"))
    assert len(modules) > 200  # the tree was read
    texts = folder_texts(LAYOUT.read_text(encoding="utf-8"))
    assert {"textmem_gym/", "textmem_gym/memory/arigraph/", "policies/", "baselines_rl/"} <= set(texts)
    missing = unnamed_modules(texts, modules)
    assert missing == [], f"docs/guides/layout.md does not name these modules (add each to its folder's line): {missing}"
