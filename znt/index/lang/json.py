"""JSON: the keys of the top-level object."""

from __future__ import annotations

from znt.index.languages import LanguageSpec

SPEC = LanguageSpec(
    name="json",
    grammar="json",
    extensions=(".json",),
    resource=True,
    grammar_limit="JSON with comments or trailing commas, as in JSONC config files, is outside it",
)
