"""Ruby: ``require_relative 'x'`` maps to ``x.rb`` next to the file, ``require 'x'`` to
``lib/x.rb`` of the project (else it is an external gem or standard library).

A ``require`` binds no name in Ruby: constants are global. By the Ruby convention (one
constant per file, ``user_repository.rb`` defines ``UserRepository``) an import binds the
CamelCase name of the required file, looked up as a member of that file: ``UserRepository``
and ``UserRepository.find`` resolve only when the required file defines that top-level
constant, and nothing is bound otherwise.

The query cannot tell ``require`` from ``require_relative`` by the module text, so
``ruby.scm`` captures the ``require_relative`` method name as ``@import.name``.
"""

from __future__ import annotations

import posixpath
from typing import Any

from znt.index.languages import Candidate, ImportRef, LanguageSpec
from znt.index.syntax import SyntaxRules, node_text

RELATIVE = "require_relative"


def module_name(path: str) -> str:
    """``lib/shop/order.rb`` -> ``shop.order``; ``Rakefile`` -> ``Rakefile``."""
    stem = path[:-3] if path.endswith(".rb") else path
    parts = stem.split("/")
    if parts[0] == "lib" and len(parts) > 1:
        parts = parts[1:]
    return ".".join(parts)


def _camel(stem: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in stem.split("_") if part)


def local_name(imp: ImportRef) -> str:
    """The constant the required file defines by convention: ``require 'shop/order'`` ->
    ``Shop.Order`` (a load path names the namespaces), ``require_relative 'models/user'``
    -> ``User`` (a relative path names only the file)."""
    module = imp.module.strip().rstrip("/")
    if module.endswith(".rb"):
        module = module[:-3]
    if imp.name == RELATIVE or module.startswith("."):
        parts = [posixpath.basename(module)]
    else:
        parts = module.split("/")
    names = [_camel(p) for p in parts]
    if not all(n and n[0].isalpha() for n in names):
        return imp.module
    return ".".join(names)


def _rb(path: str) -> str:
    return path if path.endswith(".rb") else f"{path}.rb"


def import_candidates(path: str, imp: ImportRef) -> list[Candidate]:
    module = imp.module.strip()
    if not module or module.startswith("/"):
        return []
    member = local_name(imp)
    if imp.name == RELATIVE:
        rel = posixpath.normpath(posixpath.join(posixpath.dirname(path), module))
        if rel.startswith("../") or rel == "..":
            return []
        return [Candidate(_rb(rel), member=member)]
    if module.startswith("."):
        return []
    return [Candidate(_rb(f"lib/{module}"), member=member)]


# Where a ``self.m`` call is written to, not read: ``self.m = v``, ``self.m += v``,
# ``self.a, self.b = ...``.
_ASSIGNMENTS = frozenset({"assignment", "operator_assignment"})
_TARGET_LISTS = frozenset(
    {"left_assignment_list", "destructured_left_assignment", "rest_assignment"}
)


class RubySyntax(SyntaxRules):
    def callee_text(self, node: Any) -> str:
        """A callee's text, but none for the method of a ``self.m`` call that is assigned
        to: the setter ``m=`` runs there, not ``m``, and the reference is dropped."""
        call = node.parent
        if call is not None and call.type == "call" and node.type == "identifier":
            holder = call.parent
            if holder is not None and (
                holder.type in _TARGET_LISTS
                or (holder.type in _ASSIGNMENTS and holder.child_by_field_name("left") == call)
            ):
                return ""
        return node_text(node)


SPEC = LanguageSpec(
    name="ruby",
    grammar="ruby",
    extensions=(".rb", ".rake"),
    filenames=("Rakefile", "Gemfile"),
    exclude=("vendor/bundle/", ".bundle/", "coverage/"),
    entrypoints=("main.rb", "app.rb", "config.ru", "bin/*", "exe/*"),
    tests=("*_test.rb", "test_*.rb", "*_spec.rb", "test/", "spec/"),
    self_names=("self",),
    constructor_names=("initialize",),
    class_scope_visible=True,
    # ``include Pricing`` / ``prepend Pricing`` mix a module (a namespace) into the class.
    mixin_kinds=("namespace",),
    comment_types=("comment",),
    # A Ruby body starts at its first statement, after any comment: the signature is the
    # definition's first line instead.
    body_fields=(),
    syntax=RubySyntax(),
    module_name=module_name,
    local_name=local_name,
    import_candidates=import_candidates,
)
