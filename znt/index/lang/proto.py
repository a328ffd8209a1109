"""Protocol Buffers: package, messages with their fields, enums, services with their rpcs.

``import "a/b.proto";`` names a file on the compiler's include path; the include path is not
known, so the file is looked up next to the importing file and from the project root.
"""

from __future__ import annotations

import posixpath

from znt.index.languages import Candidate, ImportRef, LanguageSpec


def local_name(imp: ImportRef) -> str:
    return imp.module


def import_candidates(path: str, imp: ImportRef) -> list[Candidate]:
    module = imp.module.strip("/")
    paths = [posixpath.normpath(posixpath.join(posixpath.dirname(path), module)), module]
    return [Candidate(p) for p in dict.fromkeys(paths) if not p.startswith("../")]


SPEC = LanguageSpec(
    name="proto",
    grammar="proto",
    extensions=(".proto",),
    resource=True,
    local_name=local_name,
    import_candidates=import_candidates,
)
