"""One ScienceWorld simulator (one JVM) per env: found, started fast, and always stopped.

:class:`ScienceWorldProcess` is ScienceWorld's own Python API (``scienceworld.ScienceWorldEnv``)
with a different start and stop:

- The JVM is started, and always stopped, by :class:`~textmem_gym.envs.jvm.JVMGateway` (Java
  looked up first; without it the error names the package to install).
- The JVM runs with a constant identity hash: ScienceWorld builds its worlds partly in the
  iteration order of identity-hashed sets, which with the JVM's default hashes changes after
  every reset (and with everything the JVM did before). With a constant hash a variation is one
  well-defined world, the same after every reset and in every process; the order in which
  objects are listed may differ from a default-JVM ScienceWorld run of that variation (start
  room, objects and gold paths are the variation's own).
  Then fast-start options and a class-data-sharing archive of ScienceWorld's
  classes, built on the first start and kept in the cache dir: later starts skip most class
  loading (about 3x faster on 2 cores).
- ``close()`` (also run when the object is collected, and at exit) waits for the JVM to exit,
  killing it if it does not, then publishes a freshly written class archive: no stray Java
  process outlives its env.

Example:
    >>> sim = ScienceWorldProcess()
    >>> sim.load("find-living-thing", 0, "easy")
    >>> sim.reset()[0].startswith("This room is called the hallway.")
    True
    >>> sim.close(); sim.java_process.poll() is not None
    True
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path

from gymnasium.error import DependencyNotInstalled

from textmem_gym.envs.jvm import JVMGateway, find_java
from textmem_gym.paths import cache_dir

try:
    from scienceworld import ScienceWorldEnv as EngineEnv
    from scienceworld.constants import BASEPATH, JAR_PATH
except ImportError as error:  # pragma: no cover - depends on the installed extras
    raise DependencyNotInstalled(
        f"ScienceWorld is not installed ({error}): pip install 'textmem-gym[scienceworld]'") from error

#: JVM options always used. Determinism: ScienceWorld lists objects in the iteration order of
#: identity-hashed sets, which differs after every ``reset`` with the JVM's default identity
#: hashes; a constant identity hash makes that order follow insertion order, the same after
#: every reset and in every process. No log lines on stdout (py4j reads the gateway port from
#: the JVM's first stdout line).
REQUIRED_JAVA_OPTIONS: tuple[str, ...] = (
    "-XX:+UnlockExperimentalVMOptions", "-XX:hashCode=2", "-Xlog:disable", "-Xlog:all=error:stderr",
)
#: Tuning options for short-lived simulators (replaceable): quick JIT, small-footprint GC.
DEFAULT_JAVA_OPTIONS: tuple[str, ...] = ("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto")


class ClassArchive:
    """The class-data-sharing archive of one (ScienceWorld jar, java) pair in the cache dir.

    Args:
        jar: ScienceWorld's jar.
        java: The java executable.
    """

    def __init__(self, jar: str, java: str):
        parts = []
        for path in (os.path.realpath(jar), os.path.realpath(java)):  # a JDK update changes java's stat
            stat = os.stat(path)
            parts.append(f"{path}|{stat.st_size}|{stat.st_mtime_ns}")
        key = "|".join(parts)
        digest = hashlib.sha256(key.encode()).hexdigest()[:16]
        self.path = cache_dir("scienceworld") / f"classes-{digest}.jsa"
        self.pending: Path | None = None

    def java_options(self) -> list[str]:
        """Uses the archive if built, else asks this JVM to write it when it exits."""
        if self.path.is_file():
            return [f"-XX:SharedArchiveFile={self.path}"]
        self.pending = self.path.with_name(f"{self.path.stem}.{uuid.uuid4().hex}.tmp")
        return [f"-XX:ArchiveClassesAtExit={self.pending}"]

    def publish(self) -> None:
        """After the JVM exited: moves a freshly written archive into place (atomically)."""
        pending, self.pending = self.pending, None
        if pending is None:
            return
        if pending.is_file() and pending.stat().st_size > 0 and not self.path.exists():
            os.replace(pending, self.path)
        pending.unlink(missing_ok=True)


class ScienceWorldProcess(EngineEnv):
    """ScienceWorld's Python API over a JVM that this object owns (one JVM per instance).

    Args:
        java_options: JVM tuning options; ``None`` uses :data:`DEFAULT_JAVA_OPTIONS`
            (:data:`REQUIRED_JAVA_OPTIONS` are always added).
        class_archive: Use (and build on first start) the class-data-sharing archive.

    Raises:
        gymnasium.error.DependencyNotInstalled: If Java is missing.
    """

    def __init__(self, java_options: Sequence[str] | None = None, class_archive: bool = True):
        java = find_java("ScienceWorld")
        self._archive = ClassArchive(JAR_PATH, java)
        options = [*REQUIRED_JAVA_OPTIONS, *(DEFAULT_JAVA_OPTIONS if java_options is None else java_options)]
        options += self._archive.java_options() if class_archive else []
        self._obj_tree_tempdir = tempfile.TemporaryDirectory(prefix="textmem-sciworld-")
        self._jvm = JVMGateway(JAR_PATH, cwd=BASEPATH, java_options=options, program="ScienceWorld", java=java,
                               after_exit=(self._archive.publish, self._obj_tree_tempdir.cleanup))
        self._gateway = self._jvm.gateway
        self.java_process = self._jvm.process
        try:
            self.server = self._jvm.jvm.scienceworld.runtime.pythonapi.PythonInterface()
        except Exception:
            self.close()
            raise
        self.lastStepScore = 0
        self.taskName = None
        self.envStepLimit = 10**9
        self.goldPathGenerated = False

    @property
    def closed(self) -> bool:
        """Whether the JVM has been stopped."""
        return self._jvm.closed

    def close(self) -> None:
        """Stops the JVM and waits for it to exit (idempotent)."""
        self._jvm.close()

    def __del__(self) -> None:
        """Collection runs the finalizer; nothing else to do."""
