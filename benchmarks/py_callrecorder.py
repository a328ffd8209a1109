"""Record the call graph of a Python test run with ``sys.setprofile``.

    python benchmarks/py_callrecorder.py <source root> <out.json> -- <pytest arguments>

Runs pytest in this process with a profile hook on every thread. A ``call`` event whose code
and whose caller's code both live under the source root is one edge, named the way PyCG
names functions (``pkg.mod.Cls.method``; a nested function ``f.<locals>.g`` as ``f.g``;
module code as the module). It counts only when the caller stands on a call instruction
(``CALL``/``CALL_FUNCTION_EX``): a property read, an iterator step, a ``with`` block's
``__enter__`` or an operator's dunder is no call written in the caller's code. A caller that
is a comprehension or a lambda counts for the function around it; a lambda or comprehension
as the callee is left out. The result is a PyCG-style adjacency list (caller -> callees).
"""

from __future__ import annotations

import dis
import inspect
import json
import os
import sys
import threading
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

_CALL_OPS = {op for name, op in dis.opmap.items() if name in ("CALL", "CALL_FUNCTION_EX")}
# A call that the interpreter inlines (a Python function called from Python) has already
# stepped over the call's inline cache entries when the callee starts.
_CACHE = dis.opmap.get("CACHE", -1)
_OPTIMIZED = inspect.CO_OPTIMIZED


def _at_call(frame: FrameType) -> bool:
    """Whether ``frame`` stands on a call instruction."""
    code = frame.f_code.co_code
    i = frame.f_lasti
    while 0 < i < len(code) and code[i] == _CACHE:
        i -= 2
    return 0 <= i < len(code) and code[i] in _CALL_OPS


def _wraps(wrapper: FrameType, callee: FrameType) -> bool:
    """Whether ``wrapper`` is a closure over the function ``callee`` runs."""
    names = wrapper.f_code.co_freevars
    scope = wrapper.f_locals
    return any(getattr(scope.get(n), "__code__", None) is callee.f_code for n in names)


class Recorder:
    def __init__(self, root: Path) -> None:
        self.root = str(root.resolve()) + os.sep
        self.names: dict[CodeType, str | None] = {}
        self.edges: set[tuple[str, str]] = set()

    def name(self, code: CodeType, *, as_callee: bool) -> str | None:
        key = code
        if not as_callee and key in self.names:
            return self.names[key]
        file = code.co_filename
        out: str | None = None
        if file.startswith(self.root) and file.endswith(".py"):
            rel = file[len(self.root) : -3].replace(os.sep, ".")
            module = rel[: -len(".__init__")] if rel.endswith(".__init__") else rel
            qual: str = getattr(code, "co_qualname", code.co_name)  # 3.11+
            parts = [p for p in qual.split(".") if p != "<locals>"]
            anonymous = [i for i, p in enumerate(parts) if p.startswith("<")]
            if qual == "<module>":
                out = module
            elif not code.co_flags & _OPTIMIZED:
                # A class body: its calls (decorators, class attributes) count for the class,
                # as PyCG and znt name them; running the body is no call of a function.
                if as_callee:
                    return None
                out = ".".join([module, *parts])
            elif anonymous:
                if as_callee:
                    return None
                # A comprehension or lambda runs for the function around it.
                kept = parts[: anonymous[0]]
                out = ".".join([module, *kept]) if kept else module
            else:
                out = ".".join([module, *parts])
        if not as_callee:
            self.names[key] = out
        return out

    def hook(self, frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":
            return
        caller = frame.f_back
        if caller is None:
            return
        callee = self.name(frame.f_code, as_callee=True)
        if callee is None:
            return
        src = self.name(caller.f_code, as_callee=False)
        if src is None:
            return
        if _at_call(caller):
            self.edges.add((src, callee))
            # A decorator's wrapper calling the function it wraps (``functools.wraps``):
            # whoever called the wrapper called, as written, the decorated function.
            if caller.f_code.co_freevars and caller.f_back is not None and _wraps(caller, frame):
                outer = self.name(caller.f_back.f_code, as_callee=False)
                if outer is not None and _at_call(caller.f_back):
                    self.edges.add((outer, callee))

    def graph(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for a, b in sorted(self.edges):
            out.setdefault(a, []).append(b)
        return out


def main(argv: list[str]) -> int:
    if "--" not in argv or len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cut = argv.index("--")
    root, out = Path(argv[0]), Path(argv[1])
    import pytest

    rec = Recorder(root)
    threading.setprofile(rec.hook)
    sys.setprofile(rec.hook)
    try:
        code = pytest.main(argv[cut + 1 :])
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    out.write_text(json.dumps(rec.graph(), indent=1), encoding="utf-8")
    print(f"{len(rec.edges)} edges, pytest exit {int(code)}", file=sys.stderr)
    # Failed tests (1) still made their calls; an interrupted or empty run (2-5) did not.
    return 0 if int(code) in (0, 1) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
