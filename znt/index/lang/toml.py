"""TOML: tables (``[tool.ruff]``, ``[[servers]]``) with their keys, and top-level keys."""

from __future__ import annotations

from znt.index.languages import LanguageSpec

SPEC = LanguageSpec(
    name="toml",
    grammar="toml",
    extensions=(".toml",),
    resource=True,
)
