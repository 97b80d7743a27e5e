"""An env backend written outside the library, as a third party would write one: the worked example
of ``docs/guides/new-backend.md``.

The Cellar is a five-room text game in pure Python (:mod:`.env`): find the key, open the chest in
the garden, take the coin. Its package would declare, in its own ``setup.cfg``, what
:data:`ENTRY_POINTS` holds: its id table (:mod:`.ids`), the backend's one entry point (the env class
names its text parser, :mod:`.parser`, itself), and, as any package may, a memory (the two-method
``Notes`` of :mod:`tests.memory.two_method`).
The tests install exactly these entry points (``tests.entry_points``), so the library finds the
backend the way it finds an installed package's, and the generic env tests play its ids.
"""

from __future__ import annotations

#: What the example's package declares, as its ``setup.cfg`` ``[options.entry_points]`` would.
ENTRY_POINTS: dict[str, dict[str, str]] = {
    "textmem_gym.env_backends": {"cellar": "tests.envs.example_backend.ids:ENV_TABLE"},
    "textmem_gym.memories": {"notes": "tests.memory.two_method:Notes"},
}

#: The distribution name the example is installed under.
DISTRIBUTION = "cellar-games"
