"""YAML: the keys of top-level mappings and, as their children, the keys one level below."""

from __future__ import annotations

from znt.index.languages import LanguageSpec

SPEC = LanguageSpec(
    name="yaml",
    grammar="yaml",
    extensions=(".yaml", ".yml"),
    resource=True,
)
