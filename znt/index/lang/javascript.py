"""JavaScript: ES modules and CommonJS; only relative imports map to project files.

The import-to-file mapping here is shared with ``typescript``: a relative specifier
(``./x``, ``../y/z.js``) is resolved against the importing file's folder, trying the
specifier as written, then with each script extension, then as a folder's ``index`` file.
Bare specifiers (``react``, ``node:fs``, ``@scope/pkg``) and path aliases (``@/x``, which
depend on a bundler or ``tsconfig.json``) are never mapped: they become ``dep::`` nodes.

What a binding may look up in the target file:

* ``import { A, B as C } from './x'`` and ``const { A } = require('./x')``: the symbol ``A``;
* ``import * as ns from './x'``: any top-level symbol, ``ns.A`` -> ``A``;
* ``import X from './x'``, ``const X = require('./x')``, TS ``import X = require('./x')``:
  the default export, the member ``default``: no symbol is named so, but the target file's
  ``exports`` rows (``export default f``, ``module.exports = f``, TS ``export = f``) say
  which of its symbols it is;
* ``export { A, B as C } from './x'``, ``export * from './x'``, ``export * as ns from './x'``:
  re-exports. They bind no name in their own file: the local name is ``export C``,
  ``export *`` or ``export ns`` (with a space, which no expression can match), the form
  ``znt.graph.resolve`` follows when another file imports ``C`` from this one (``export *``
  gives every name but ``default``). The query captures a re-export's specifier text
  (``B as C``, or ``A``) as its alias, which tells it from an import (an alias is one
  identifier, not the imported name itself);
* ``module.exports = require('./x')``: a re-export of x's default export as the file's own
  (local name ``export default``);
* ``require('..')``, ``require('../..')``, ``require('./')``: a folder, through its
  ``package.json`` ``main`` (the ``main`` candidate), else its ``index`` file;
* ``import './x'``, ``import('./x')``: the file only (the local name is the specifier itself,
  which no expression can match).
"""

from __future__ import annotations

import posixpath
from typing import Any

from znt.index.languages import Candidate, ImportRef, LanguageSpec
from znt.index.syntax import SIMPLE, SyntaxRules, Value, node_text, normalize_expr

JS_EXTENSIONS = (".js", ".jsx", ".mjs", ".cjs")
TS_EXTENSIONS = (".ts", ".tsx", ".mts", ".cts")
CODE_EXTENSIONS = JS_EXTENSIONS + TS_EXTENSIONS + (".d.ts",)

# Where a compiled ``.js`` specifier may come from in a TypeScript project (``./x.js``
# written in ``x.ts`` under ``moduleResolution: node16``).
_TS_SOURCES = {".js": (".ts", ".tsx"), ".mjs": (".mts",), ".cjs": (".cts",)}

# Generated, vendored and bundled code; shared with TypeScript.
EXCLUDE = (
    "node_modules/",
    "bower_components/",
    "jspm_packages/",
    "dist/",
    "build/",
    "coverage/",
    ".next/",
    ".nuxt/",
    ".svelte-kit/",
    ".turbo/",
    ".parcel-cache/",
    ".yarn/",
    "storybook-static/",
    "*.min.js",
    "*.bundle.js",
)

DEFAULT_MEMBER = "default"

# What gives ``this`` its own value (an arrow function takes the one around it); shared
# with TypeScript.
THIS_BINDERS = (
    "function_expression",
    "function_declaration",
    "generator_function",
    "generator_function_declaration",
    "method_definition",
    "class_declaration",
    "class",
)


# Where a ``@local`` is bound when no definition owns it (``LanguageSpec.local_scopes``): a
# function's parameters in the function, a declaration in its block or loop; shared with
# TypeScript.
LOCAL_SCOPES = (
    *THIS_BINDERS,
    "arrow_function",
    "statement_block",
    "for_statement",
    "for_in_statement",
    "catch_clause",
)


def strip_extension(path: str) -> str:
    for ext in (".d.ts", ".d.mts", ".d.cts"):
        if path.endswith(ext):
            return path[: -len(ext)]
    return posixpath.splitext(path)[0]


def module_name(path: str) -> str:
    """``src/models/order.js`` -> ``src.models.order``; ``lib/index.js`` -> ``lib``."""
    parts = strip_extension(path).split("/")
    if parts[-1] == "index" and len(parts) > 1:
        parts = parts[:-1]
    return ".".join(parts)


# The local name of a re-export: ``export <name>`` (see ``znt.graph.resolve``).
REEXPORT = "export "
# The alias javascript.scm captures for ``module.exports = require('./x')``: the file's
# module object is x's, so its default export is x's default export.
WHOLE_MODULE = "module.exports"


def reexported_name(imp: ImportRef) -> str | None:
    """The name a re-export (``export ... from``) exports (``*`` for ``export *``), or
    ``None`` for an import; see the module docstring for how the query marks them."""
    if imp.name is None and imp.alias == WHOLE_MODULE:
        return DEFAULT_MEMBER  # ``module.exports = require('./x')``: x's default is ours
    if imp.name == "*":
        if imp.alias is None:
            return "*"
        return imp.alias.split()[-1] if imp.alias.startswith("*") else None
    if imp.name and imp.alias and (imp.alias == imp.name or len(imp.alias.split()) > 1):
        return imp.alias.split()[-1]
    return None


def local_name(imp: ImportRef) -> str:
    """The name an import binds; a re-export binds ``export <name>``, an import that binds
    none keeps the specifier."""
    exported = reexported_name(imp)
    if exported is not None:
        return REEXPORT + exported
    if imp.alias:
        return imp.alias
    if imp.name and imp.name != "*":
        return imp.name
    return imp.module


def _member(imp: ImportRef) -> str | None:
    if imp.name == "*":
        return None
    if imp.name:
        return imp.name
    if imp.alias:
        return DEFAULT_MEMBER
    return None


def _files(base: str, extensions: tuple[str, ...]) -> list[str]:
    ext = posixpath.splitext(base)[1]
    if ext in CODE_EXTENSIONS:
        # Written with its extension: that file, or the TypeScript source it compiles from.
        stem = base[: -len(ext)]
        return [base] + [stem + src for src in _TS_SOURCES.get(ext, ())]
    if not base:  # the project root itself: only its index file
        return ["index" + e for e in extensions]
    out = [base] if ext else []
    out.extend(base + e for e in extensions)
    out.extend(f"{base}/index{e}" for e in extensions)
    return out


def relative_candidates(path: str, imp: ImportRef, extensions: tuple[str, ...]) -> list[Candidate]:
    """Project files a relative specifier may name, most likely first."""
    module = imp.module
    if not (module == "." or module == ".." or module.startswith(("./", "../"))):
        return []
    base = posixpath.normpath(posixpath.join(posixpath.dirname(path), module))
    if base == ".":
        base = ""
    if base == ".." or base.startswith("../"):
        return []  # outside the project
    member = _member(imp)
    out = [Candidate(p, member=member) for p in _files(base, extensions)]
    if module in (".", "..") or module.endswith(("/", "/..")):
        # Written as a folder (``require('..')``, ``require('../..')``): Node reads the
        # folder's ``package.json`` ``main`` before its index file (mode ``main``, which
        # znt.graph.resolve reads from that file's ``main`` key). Only for specifiers that
        # can name nothing but a folder, so other imports never depend on a package.json.
        pkg = f"{base}/package.json" if base else "package.json"
        out.insert(0, Candidate(pkg, mode="main", member=member))
    return out


def import_candidates(path: str, imp: ImportRef) -> list[Candidate]:
    return relative_candidates(path, imp, JS_EXTENSIONS + TS_EXTENSIONS)


class JavaScriptSyntax(SyntaxRules):
    """JavaScript's trees for the type flow: only what a name holds. javascript.scm's
    ``@binding`` matches name a class a variable holds an instance of (``const app = new
    Koa()``), so ``app.use()`` is the member ``use`` of that class and its bases (resolution
    ``assigned``). Nothing else is bound: arguments bind no parameters, and a call's result
    (``x = f()``) is not followed (what a JavaScript function returns is stated nowhere)."""

    def bindings(self, node: Any, caps: dict[str, Any]) -> list[tuple[int, str, Value]]:
        value, names = caps.get("binding.instance"), caps.get("binding.name")
        if not value or not names:
            return []
        expr = normalize_expr(node_text(value[0]))
        if not SIMPLE.match(expr):
            return []
        return [(int(node.start_byte), normalize_expr(node_text(names[0])), Value(expr, True))]


SPEC = LanguageSpec(
    name="javascript",
    grammar="javascript",
    extensions=JS_EXTENSIONS,
    exclude=EXCLUDE,
    entrypoints=("main.js", "main.mjs", "server.js", "cli.js", "app.js", "bin/"),
    tests=(
        "*.test.js",
        "*.spec.js",
        "*.test.jsx",
        "*.spec.jsx",
        "*.test.mjs",
        "*.spec.mjs",
        "*.test.cjs",
        "*.spec.cjs",
        "__tests__/",
        "__mocks__/",
        "test/",
        "tests/",
        "spec/",
    ),
    self_names=("this",),
    constructor_names=("constructor",),
    class_scope_visible=False,
    docstrings=False,
    comment_types=("comment",),
    wrapper_types=("export_statement",),
    this_binders=THIS_BINDERS,
    local_scopes=LOCAL_SCOPES,
    receiver_names=True,
    body_fields=("body",),
    module_name=module_name,
    local_name=local_name,
    import_candidates=import_candidates,
    syntax=JavaScriptSyntax(),
)
