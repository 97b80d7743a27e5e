"""One TextWorld Express simulator (one JVM) per env: started, spoken to, and always stopped.

:class:`TWXProcess` talks to TextWorld Express's jar (``textworld-express`` on PyPI ships it)
through py4j, as TWX's own Python API does, with three differences:

- the JVM is started, and always stopped, by :class:`~textmem_gym.envs.jvm.JVMGateway` (Java
  found first; without it the error names the package to install);
- each call is one round trip: a step asks ``stepJSON`` only (TWX's API also asks for the task
  description on every step; here it is read once per game);
- ``close()`` (also run when the object is collected, and at exit) waits for the JVM to exit,
  killing it if it does not: no Java process outlives its env.

Example:
    >>> sim = TWXProcess()
    >>> sim.load("coin", "numLocations=1")
    >>> sim.new_game(seed=0, fold="train")["observation"].startswith("You are in the kitchen.")
    True
    >>> sim.close(); sim.java_process.poll() is not None
    True
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from gymnasium.error import DependencyNotInstalled

from textmem_gym.envs.jvm import JVMGateway

try:
    from py4j.protocol import Py4JJavaError
    from textworld_express.constants import BASEPATH, JAR_PATH
except ImportError as error:  # pragma: no cover - depends on the installed extras
    raise DependencyNotInstalled(
        f"TextWorld Express is not installed ({error}): pip install 'textmem-gym[twx]'") from error

#: JVM options by default: none (the JVM's own choices stepped fastest here, ahead of the serial
#: collector and of TWX's ``-Xverify:none``; no JIT limit, since long runs profit from the optimizing compiler).
DEFAULT_JAVA_OPTIONS: tuple[str, ...] = ()
#: The seed folds TWX defines (``getSeedsTrain`` / ``Dev`` / ``Test``).
FOLDS = ("train", "dev", "test")


class TWXProcess:
    """TextWorld Express's simulator over a JVM this object owns.

    Args:
        java_options: JVM options; ``None`` uses :data:`DEFAULT_JAVA_OPTIONS`.

    Raises:
        gymnasium.error.DependencyNotInstalled: If Java is missing.
    """

    def __init__(self, java_options: Sequence[str] | None = None):
        options = DEFAULT_JAVA_OPTIONS if java_options is None else java_options
        self._jvm = JVMGateway(JAR_PATH, cwd=BASEPATH, java_options=options, program="TextWorld Express")
        self.java_process = self._jvm.process
        self.generation_parameters = ""
        try:
            self.server = self._jvm.jvm.textworldexpress.runtime.PythonInterface()
        except Exception:
            self.close()
            raise

    @property
    def closed(self) -> bool:
        """Whether the JVM has been stopped."""
        return self._jvm.closed

    def close(self) -> None:
        """Stops the JVM and waits for it to exit (idempotent)."""
        self._jvm.close()

    def game_names(self) -> list[str]:
        """The games the jar knows (``cookingworld``, ``coin``, ...)."""
        return [str(name) for name in self.server.getGameNames()]

    def load(self, game: str, params: str) -> None:
        """Chooses the game and its parameters (``"numLocations=3, includeDoors=0"``).

        Raises:
            ValueError: With TWX's message when it rejects the game or a parameter.
        """
        self.generation_parameters = f"{game}: {params}"
        message = self.server.load(game, params)
        if message:
            raise ValueError(f"TextWorld Express rejected game {game!r} with {params!r}: {message}")

    def seeds(self, fold: str) -> list[int]:
        """The seeds of a fold (``train``, ``dev``, ``test``)."""
        getter = {"train": self.server.getSeedsTrain, "dev": self.server.getSeedsDev,
                  "test": self.server.getSeedsTest}[fold]
        return [int(seed) for seed in getter()]

    def new_game(self, seed: int, fold: str, gold_path: bool = False) -> dict[str, Any]:
        """Generates game ``seed`` of ``fold`` (deterministic) and returns its first step's JSON.

        Raises:
            ValueError: When TWX cannot generate the game with the loaded parameters (e.g. Map
                Reader with more distance than locations).
        """
        try:
            return dict(json.loads(self.server.generateNewGameJSON(seed, fold, gold_path)))
        except Py4JJavaError as error:
            raise ValueError(f"TextWorld Express could not generate seed {seed} of {fold} with parameters "
                             f"{self.generation_parameters!r}: {error.java_exception}") from error

    def step(self, command: str) -> dict[str, Any]:
        """Sends one command; TWX's step JSON (``observation``, ``look``, ``inventory``,
        ``validActions``, ``score``, ``scoreRaw``, ``tasksuccess``, ``taskfailure``)."""
        return dict(json.loads(self.server.stepJSON(command)))

    def task_description(self) -> str:
        """The current game's task text."""
        return str(self.server.getTaskDescription())

    def generation_properties(self) -> dict[str, Any]:
        """The parameters the current game was generated with."""
        return dict(json.loads(self.server.getGenerationPropertiesJSON()))

    def gold_actions(self) -> list[str]:
        """The gold action sequence (generated only when ``new_game(gold_path=True)``)."""
        return [str(action) for action in self.server.getGoldActionSequence()]
