"""One JVM per simulator, found, started and always stopped: the Java side of the Java backends.

ScienceWorld and TextWorld Express are Scala programs that Python drives through py4j.
:class:`JVMGateway` is the one way this library starts such a program:

- Java is looked up first (:func:`find_java`: ``JAVA_HOME``, then ``PATH``); without it the
  error names the backend and the package to install;
- the JVM is launched with the caller's options and a py4j gateway connects to it;
- ``close()`` (also run by ``weakref.finalize`` when the object is collected, and at exit)
  shuts the gateway down and waits for the JVM to exit, killing it if it does not, then runs
  the caller's clean-ups (e.g. removing a temporary folder): no Java process outlives its env.

Example:
    >>> from textworld_express.constants import BASEPATH, JAR_PATH
    >>> jvm = JVMGateway(JAR_PATH, cwd=BASEPATH, program="TextWorld Express")
    >>> sorted(str(name) for name in jvm.jvm.textworldexpress.runtime.PythonInterface().getGameNames())[:2]
    ['arithmetic', 'coin']
    >>> jvm.close(); jvm.closed, jvm.process.poll() is not None
    (True, True)
"""

from __future__ import annotations

import os
import shutil
import subprocess
import weakref
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from gymnasium.error import DependencyNotInstalled
from py4j.java_gateway import GatewayParameters, JavaGateway, launch_gateway

#: Package that provides Java on Debian/Ubuntu (named in the missing-Java error).
JAVA_PACKAGE = "default-jre-headless"
#: Seconds to wait for a JVM to exit before killing it.
EXIT_TIMEOUT = 30.0


def find_java(program: str = "This backend") -> str:
    """The ``java`` executable (``$JAVA_HOME/bin/java``, else ``java`` on ``PATH``).

    Args:
        program: What needs Java, named in the error (``"ScienceWorld"``).

    Raises:
        gymnasium.error.DependencyNotInstalled: If there is no Java runtime.

    Example:
        >>> os.path.basename(find_java())
        'java'
    """
    java_home = os.environ.get("JAVA_HOME")
    candidates = [str(Path(java_home) / "bin" / "java")] if java_home else []
    candidates.append(shutil.which("java") or "")
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise DependencyNotInstalled(
        f"{program} runs on Java, but no Java runtime was found (JAVA_HOME unset or wrong, no "
        f"`java` on PATH). Install one, e.g. `sudo apt-get install {JAVA_PACKAGE}`.")


def stop_jvm(gateway: Any, process: subprocess.Popen, after_exit: Iterable[Callable[[], object]] = ()) -> None:
    """Shuts ``gateway`` down, makes sure its JVM has exited (killed after :data:`EXIT_TIMEOUT`
    seconds), reaps it, closes its stdin, then calls each of ``after_exit``."""
    try:
        gateway.shutdown()
    except Exception:  # noqa: BLE001 - the JVM may already be gone; it is reaped below
        pass
    if process.poll() is None and process.stdin is not None:
        try:  # py4j's die_on_exit: the JVM exits when its stdin gets a line
            process.stdin.write(b"\n")
            process.stdin.flush()
        except OSError:
            pass
    try:
        process.wait(timeout=EXIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stdin is not None:  # stdout is py4j's reader thread's to close
        try:
            process.stdin.close()
        except OSError:
            pass
    for cleanup in after_exit:
        cleanup()


class JVMGateway:
    """A JVM running ``jar`` with a py4j gateway into it, owned by this object.

    Args:
        jar: The class path (the simulator's jar).
        cwd: Working folder of the JVM.
        java_options: JVM options.
        program: What runs in the JVM, named in the missing-Java error.
        java: The java executable (``None``: :func:`find_java`).
        after_exit: Called, in order, once the JVM has exited.

    Attributes:
        gateway: The py4j gateway.
        process: The JVM's process.

    Raises:
        gymnasium.error.DependencyNotInstalled: If Java is missing.
    """

    def __init__(self, jar: str, *, cwd: str, java_options: Sequence[str] = (), program: str = "This backend",
                 java: str | None = None, after_exit: Iterable[Callable[[], object]] = ()):
        java = java or find_java(program)
        port, process = launch_gateway(classpath=jar, die_on_exit=True, cwd=cwd, return_proc=True,
                                       javaopts=list(java_options), java_path=java)
        self.process: subprocess.Popen = process
        self.gateway = JavaGateway(gateway_parameters=GatewayParameters(auto_field=True, port=port),
                                   java_process=process)
        self._finalizer = weakref.finalize(self, stop_jvm, self.gateway, process, tuple(after_exit))

    @property
    def jvm(self) -> Any:
        """The JVM view (``jvm.some.package.Class()``)."""
        return self.gateway.jvm

    @property
    def closed(self) -> bool:
        """Whether the JVM has been stopped."""
        return not self._finalizer.alive

    def close(self) -> None:
        """Stops the JVM and waits for it to exit (idempotent)."""
        self._finalizer()
