"""Markdown: headings as nested sections (``Install.Linux``); nothing is imported."""

from __future__ import annotations

from znt.index.languages import LanguageSpec

SPEC = LanguageSpec(
    name="markdown",
    grammar="markdown",
    extensions=(".md", ".markdown"),
    resource=True,
    comment_types=(),
)
