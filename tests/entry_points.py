"""A package installed for a test: a dist-info folder declaring entry points, on ``sys.path`` and ``PYTHONPATH``.

``pip install`` writes the same folder (``METADATA`` and ``entry_points.txt``) into site-packages and
``importlib.metadata`` finds it on ``sys.path``, so the registries see the declared names exactly
as after a real install, in this process and in the processes it starts. Only the metadata is
written: the code the entry points name must be importable already (the tests' own modules are).

Example:
    >>> from textmem_gym.loading import declared_names
    >>> with installed_entry_points("tiny-memories", {"textmem_gym.memories": {"tiny": "collections:deque"}}):
    ...     declared_names("memory", "textmem_gym.memories")["tiny"].package
    'tiny-memories'
    >>> "tiny" in declared_names("memory", "textmem_gym.memories")
    False
"""

from __future__ import annotations

import importlib
import os
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

#: entry-point group -> {name: "module:attr"}, as a package's ``setup.cfg`` ``[options.entry_points]`` says.
Groups = Mapping[str, Mapping[str, str]]


def entry_points_text(groups: Groups) -> str:
    """The ``entry_points.txt`` of a dist-info folder declaring ``groups``.

    Example:
        >>> print(entry_points_text({"textmem_gym.memories": {"notes": "tests.memory.two_method:Notes"}}))
        [textmem_gym.memories]
        notes = tests.memory.two_method:Notes
        <BLANKLINE>
    """
    blocks = ["\n".join([f"[{group}]", *(f"{name} = {target}" for name, target in names.items())])
              for group, names in groups.items()]
    return "\n\n".join(blocks) + "\n"


@contextmanager
def installed_entry_points(distribution: str, groups: Groups) -> Iterator[Path]:
    """Installs the metadata of a package ``distribution`` declaring ``groups`` for the duration of the block.

    Args:
        distribution: The package's name (warnings and ``textmem-gym list`` show it).
        groups: What it declares: entry-point group -> {name: ``"module:attr"``}.

    Yields:
        The folder put first on ``sys.path`` and ``PYTHONPATH`` (removed from both afterwards).
    """
    with tempfile.TemporaryDirectory(prefix="entry-points-") as folder:
        dist = Path(folder) / f"{distribution.replace('-', '_')}-0.1.dist-info"
        dist.mkdir()
        (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: 0.1\n",
                                       encoding="utf-8")
        (dist / "entry_points.txt").write_text(entry_points_text(groups), encoding="utf-8")
        before = os.environ.get("PYTHONPATH")
        sys.path.insert(0, folder)
        os.environ["PYTHONPATH"] = os.pathsep.join([folder, before] if before else [folder])
        importlib.invalidate_caches()
        try:
            yield Path(folder)
        finally:
            sys.path.remove(folder)
            if before is None:
                os.environ.pop("PYTHONPATH", None)
            else:
                os.environ["PYTHONPATH"] = before
            importlib.invalidate_caches()
