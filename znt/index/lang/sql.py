"""SQL: tables and views (with their columns), types and functions created by DDL."""

from __future__ import annotations

from znt.index.languages import LanguageSpec

SPEC = LanguageSpec(
    name="sql",
    grammar="sql",
    extensions=(".sql",),
    resource=True,
    grammar_limit="it covers one SQL dialect: other dialects' syntax, such as SQLite's, is outside it",
    # A definition is its whole statement, so the comment above it is its documentation.
    comment_types=("comment", "marginalia"),
)
