"""Dockerfiles: named build stages, ARG and ENV names, and base images as dependencies."""

from __future__ import annotations

from znt.index.languages import ImportRef, LanguageSpec


def local_name(imp: ImportRef) -> str:
    return imp.module


SPEC = LanguageSpec(
    name="dockerfile",
    grammar="dockerfile",
    extensions=(".dockerfile",),
    filenames=("Dockerfile", "Containerfile"),
    resource=True,
    uppercase_constants=False,
    local_name=local_name,
)
