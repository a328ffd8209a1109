"""Typer's rich help without the parts of rich it never uses here.

``typer.rich_utils`` (the module that draws Typer's help panels and error boxes) imports
``rich.markdown`` and ``rich.traceback`` at its top. znt renders help in the ``rich``
markup mode and turns Typer's pretty exceptions off, so neither is ever used, yet the two
bring markdown-it, pygments, ``rich.syntax``, ``rich.pretty`` and attrs along: about 40% of
``znt --help`` (docs/decisions/0021-one-shot-start-up.md). ``install`` registers an import
hook that loads ``typer.rich_utils`` with stand-ins for those two names; a stand-in imports
the real class the first time it is called or asked for an attribute, so markdown help or a
rich traceback, should either ever be used, still works. Every other import of
``rich.markdown`` or ``rich.traceback`` gets the real module: the stand-ins are in
``sys.modules`` only while ``typer.rich_utils`` itself runs.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Sequence
from importlib.machinery import ModuleSpec, PathFinder
from typing import Any

TARGET = "typer.rich_utils"
# The rich module and the one name ``typer.rich_utils`` takes from it.
DEFERRED = {"rich.markdown": "Markdown", "rich.traceback": "Traceback"}


class _DeferredClass(type):
    """The metaclass of a stand-in: constructing it, or reading an attribute it lacks
    (``Traceback.from_exception``), imports and uses the real class. A stand-in is a class,
    so the annotations ``typer.rich_utils`` evaluates (``Markdown | Text``) still work."""

    _module: str
    _name: str

    def real(cls) -> Any:
        return getattr(importlib.import_module(cls._module), cls._name)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls.real()(*args, **kwargs)

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(cls.real(), name)


def stand_in(module: str, name: str) -> type:
    """A class that stands for ``module.name`` until it is used."""
    return _DeferredClass(name, (), {"_module": module, "_name": name})


class _Loader:
    """The module's own loader, run with the stand-ins in place."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def create_module(self, spec: ModuleSpec) -> types.ModuleType | None:
        return self.real.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        placed = {}
        for mod_name, cls_name in DEFERRED.items():
            if mod_name not in sys.modules:
                placeholder = types.ModuleType(mod_name)
                setattr(placeholder, cls_name, stand_in(mod_name, cls_name))
                placed[mod_name] = placeholder
        sys.modules.update(placed)
        try:
            self.real.exec_module(module)
        finally:
            for mod_name, placeholder in placed.items():
                if sys.modules.get(mod_name) is placeholder:
                    del sys.modules[mod_name]


class _Finder:
    """Finds ``typer.rich_utils`` the ordinary way and wraps its loader."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname != TARGET:
            return None
        spec = PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _Loader(spec.loader)  # type: ignore[assignment]
        return spec


FINDER = _Finder()


def install() -> None:
    """Put the hook first on ``sys.meta_path`` (once); without effect if Typer's rich
    module is loaded already."""
    if FINDER not in sys.meta_path:
        sys.meta_path.insert(0, FINDER)
