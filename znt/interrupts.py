"""A Ctrl-C during the import of a nanobind extension aborts the interpreter.

DuckDB's Python module is built with nanobind, which creates its enums by calling Python's
``enum`` machinery while the module initialises. A SIGINT that lands then raises
KeyboardInterrupt inside that call; nanobind treats any error there as fatal and calls
``abort()``: the process dies with SIGABRT and "Critical nanobind error" instead of
``znt: interrupted`` and status 130. Every command that reads the index imports DuckDB in its
first fraction of a second, exactly when an impatient Ctrl-C comes.

``shield_native_imports`` makes the command line's import of such a module hold a Ctrl-C
until the import is done, then deliver it: the import finishes, and the interrupt surfaces
at the next line of ours as the usual KeyboardInterrupt. It is installed by the console
script only: a library that imports znt keeps its own signal handling."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import signal
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import FrameType, ModuleType
from typing import Any

#: Top-level modules whose initialisation must not see a KeyboardInterrupt.
NATIVE_MODULES = frozenset({"duckdb", "_duckdb"})


@contextmanager
def sigint_deferred() -> Iterator[None]:
    """Hold a SIGINT that arrives inside the block and deliver it to the handler that was
    in place once the block ends. Off the main thread (where no Python signal handler can
    be set, and none runs) this does nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[FrameType | None] = []

    def hold(_signum: int, frame: FrameType | None) -> None:
        pending.append(frame)

    previous = signal.signal(signal.SIGINT, hold)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if pending:
            if callable(previous):
                previous(signal.SIGINT, pending[0])
            elif previous == signal.SIG_DFL:
                signal.raise_signal(signal.SIGINT)


class _ShieldedLoader(importlib.abc.Loader):
    """The real loader, with each step run under ``sigint_deferred``."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def __getattr__(self, name: str) -> Any:
        # get_resource_reader, is_package, get_code ...: the real loader's own.
        return getattr(self._loader, name)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        with sigint_deferred():
            module: ModuleType | None = self._loader.create_module(spec)
            return module

    def exec_module(self, module: ModuleType) -> None:
        with sigint_deferred():
            self._loader.exec_module(module)


class _ShieldFinder(importlib.abc.MetaPathFinder):
    """Finds ``NATIVE_MODULES`` through the finders after it and wraps their loader; a
    package's submodules are imported inside its ``exec_module``, so they are covered."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in NATIVE_MODULES:
            return None
        for finder in sys.meta_path:
            if finder is self or isinstance(finder, _ShieldFinder):
                continue
            find = getattr(finder, "find_spec", None)
            if find is None:
                continue
            spec: importlib.machinery.ModuleSpec | None = find(fullname, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _ShieldedLoader(spec.loader)
                return spec
        return None


def shield_native_imports() -> None:
    """Put the finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _ShieldFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _ShieldFinder())
