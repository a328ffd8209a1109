"""The resolution rules of docs/languages.md, one small fixture project per language
(tests/fixtures/lang/rules/<language>/), each with its positive case and the three negative
cases of issue 4: a method named like a builtin or a collection method, two classes with
the same method name, a local name shadowing an import. The rules the engine does not
know yet are strict xfails that assert the right edge, so they turn green when it learns
them. The table in docs/languages.md ("Resolution rules by language: tests") lists them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import edges, query, scanned_copy


@pytest.fixture(scope="module")
def scan(tmp_path_factory):
    """Scans each language's project once, when a test first asks for it."""
    roots: dict[str, Path] = {}

    def get(lang: str) -> Path:
        if lang not in roots:
            roots[lang] = scanned_copy(tmp_path_factory, f"lang/rules/{lang}")
        return roots[lang]

    return get


def project_calls(root: Path) -> set[tuple[str, str]]:
    """Call edges to project symbols (not to external nodes)."""
    return {e for e in edges(root, "call") if not e[1].startswith("ext::")}


def resolutions(root: Path) -> dict[tuple[str, str], str]:
    rows = query(root, "SELECT src, dst, resolution FROM edges WHERE kind = 'call'")
    return {(src, dst): res for src, dst, res in rows}


def no_edge_to(root: Path, src: str, targets: list[str]) -> None:
    calls = edges(root, "call")
    for dst in targets:
        assert (src, dst) not in calls, (src, dst)


# JavaScript / TypeScript: ES imports (default, named, re-exports), classes, `this`,
# object-literal methods. The same files serve both languages.
@pytest.mark.parametrize("lang,ext", [("javascript", "js"), ("typescript", "ts")])
def test_es_module_rules(scan, lang, ext):
    root = scan(lang)
    lib, main, rex = f"lib.{ext}", f"main.{ext}", f"reexport.{ext}"
    assert project_calls(root) == {
        (f"{main}::useDefault", f"{lib}::makeCart"),  # import makeCart (export default)
        (f"{main}::useReexport", f"{lib}::helper"),  # export { helper as relayed } from
        (f"{main}::useObjectMethod", f"{lib}::api.run"),
        (f"{lib}::api.run", f"{lib}::api.stop"),  # this.stop() in an object literal
        (f"{lib}::api.stop", f"{lib}::helper"),
        (f"{lib}::api.reset", f"{lib}::stop"),  # a bare stop(): the module function
        (f"{rex}::relay", f"{rex}::helper"),  # its own helper, not the re-exported one
        (rex, f"{rex}::relay"),  # from the anonymous default export
    }
    assert edges(root, "imports") == {
        (main, lib),
        (main, rex),
        (rex, lib),  # export ... from is an import of that file
    }
    res = resolutions(root)
    # A local arrow function shadows the imported helper: never lib's helper.
    assert res[f"{main}::shadow", "ext::helper"] == "local"
    # Array push, Map get, and push on a parameter: never Cart.push/Cart.get/Queue.push,
    # though two classes of the file define push.
    assert res[f"{main}::collections", "ext::items.push"] == "local"
    if lang == "javascript":
        # `m = new Map()` holds a Map (type flow): a builtin class, so no project edge.
        assert res[f"{main}::collections", "ext::Map.get"] == "unresolved"
    else:
        assert res[f"{main}::collections", "ext::m.get"] == "local"
    assert res[f"{main}::collections", "ext::queue.push"] == "local"
    for m in ("Cart.push", "Cart.get", "Queue.push"):
        no_edge_to(root, f"{main}::collections", [f"{main}::{m}"])
    # An arrow function's `this` is not the object literal it is a property of.
    assert res[f"{lib}::api.later", "ext::this.stop"] == "unresolved"
    # A default import of a file whose default export is anonymous binds none of its names.
    assert res[f"{main}::useAnonymousDefault", "ext::relayDefault"] == "unresolved"


@pytest.mark.parametrize("lang,ext", [("javascript", "js"), ("typescript", "ts")])
def test_es_default_import(scan, lang, ext):
    root = scan(lang)
    assert (f"main.{ext}::useDefault", f"lib.{ext}::makeCart") in edges(root, "call")
    assert resolutions(root)[f"main.{ext}::useDefault", f"lib.{ext}::makeCart"] == "import"


@pytest.mark.parametrize("lang,ext", [("javascript", "js"), ("typescript", "ts")])
def test_es_reexport(scan, lang, ext):
    root = scan(lang)
    assert (f"main.{ext}::useReexport", f"lib.{ext}::helper") in edges(root, "call")
    assert resolutions(root)[f"main.{ext}::useReexport", f"lib.{ext}::helper"] == "import"


@pytest.mark.parametrize("lang,ext", [("javascript", "js"), ("typescript", "ts")])
def test_object_literal_methods(scan, lang, ext):
    root = scan(lang)
    lib = f"lib.{ext}"
    calls = edges(root, "call")
    assert (f"main.{ext}::useObjectMethod", f"{lib}::api.run") in calls
    assert (f"{lib}::api.run", f"{lib}::api.stop") in calls  # this.stop()
    assert resolutions(root)[f"{lib}::api.run", f"{lib}::api.stop"] == "self_method"
    rows = query(
        root,
        "SELECT qualified_name, kind, parent_id FROM symbols WHERE file = ? AND name <> 'api' "
        "AND qualified_name LIKE 'api.%' ORDER BY start_line",
        [lib],
    )
    assert rows == [
        ("api.run", "method", f"{lib}::api"),
        ("api.stop", "method", f"{lib}::api"),
        ("api.reset", "method", f"{lib}::api"),  # reset: function () {}
        ("api.later", "function", f"{lib}::api"),  # later: () => ...
    ]


def test_es_exports_chains_and_conflicts(tmp_path):
    """Default exports and re-exports followed through several files, and the cases the
    language itself leaves unbound: a name two `export *` give, `default` through
    `export *`."""
    from znt import api

    files = {
        "a.js": "export function f() {}\nexport function dup() {}\n"
        "export default function make() {}\n",
        "b.js": "export function dup() {}\nexport function f() {}\n",
        # `export { default as Make }`: a.js's default export under a name
        "barrel.js": 'export { default as Make } from "./a.js";\n'
        'export { f } from "./a.js";\nexport * from "./a.js";\nexport * from "./b.js";\n',
        "cjs.js": "function build() {}\nmodule.exports = build;\n",
        "main.js": 'import { Make, f, dup } from "./barrel.js";\n'
        'import * as ns from "./barrel.js";\n'
        'const build = require("./cjs.js");\n'
        "export function run() {\n  Make();\n  f();\n  dup();\n  ns.default();\n"
        "  build();\n}\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    api.scan(str(tmp_path))
    assert project_calls(tmp_path) == {
        ("main.js::run", "a.js::make"),  # Make: through barrel's `default as Make`
        ("main.js::run", "a.js::f"),  # the named re-export wins over b.js's `export *` f
        ("main.js::run", "cjs.js::build"),  # require: module.exports = build
    }
    res = resolutions(tmp_path)
    # dup comes from a.js and b.js through two `export *`: ambiguous, so bound to neither.
    assert res["main.js::run", "ext::dup"] == "unresolved"
    # `export *` does not re-export a default.
    assert res["main.js::run", "ext::ns.default"] == "unresolved"


def test_es_reexport_after_an_edit_equals_a_clean_scan(tmp_path):
    """c.js calls through b.js's re-export of a.js: an edit of a.js alone re-resolves c.js
    (which does not import a.js), as a scan from scratch does."""
    from tests.conftest import rescans_equal_clean
    from znt import api

    work = tmp_path / "work"
    work.mkdir()
    (work / "a.js").write_text("export function f() {\n  return 1;\n}\n")
    (work / "b.js").write_text('export { f as g } from "./a.js";\nexport * from "./a.js";\n')
    (work / "c.js").write_text(
        'import { g, f } from "./b.js";\n'
        "export function useG() {\n  return g();\n}\n"
        "export function useF() {\n  return f();\n}\n"
    )
    api.scan(str(work))
    both = {("c.js::useG", "a.js::f"), ("c.js::useF", "a.js::f")}
    assert project_calls(work) == both
    edits: list[tuple[str, str | None]] = [
        ("a.js", "export function h() {\n  return 1;\n}\n"),  # f goes: nothing binds
        ("a.js", "export function h() {}\nexport function f() {}\n"),  # f is back
    ]
    found = [project_calls(work) for _ in rescans_equal_clean(work, tmp_path, edits)]
    assert found == [set(), both]


# Go: package-qualified calls, receivers, interfaces by method set.
GO_SHAPES = "shapes/shapes.go"


def test_go_rules(scan):
    root = scan("go")
    assert project_calls(root) == {
        ("main.go::main", f"{GO_SHAPES}::Square"),  # &shapes.Square{}
        # sq := &shapes.Square{}: sq holds a Square (type flow)
        ("main.go::main", f"{GO_SHAPES}::Square.Append"),
        ("main.go::main", f"{GO_SHAPES}::Square.Area"),
        ("main.go::main", "main.go::total"),
        ("main.go::shadow", "main.go::Local"),
        ("main.go::shadow", "main.go::Local.Area"),  # shapes := Local{}: the local's type
        (f"{GO_SHAPES}::Square.Area", f"{GO_SHAPES}::Square.Len"),  # s.Len() on the receiver
        # the closure's own s is a *Circle where it is in sight
        (f"{GO_SHAPES}::Square.Grow", f"{GO_SHAPES}::Circle.Len"),
        (f"{GO_SHAPES}::Square.Shrink", f"{GO_SHAPES}::Square.Len"),  # the receiver's s
        ("extra.go::sum", "main.go::total"),  # the root folder's package
    }
    res = resolutions(root)
    # A local named like the imported package shadows it: its type binds the call, the
    # package's name is never looked up.
    assert ("main.go::shadow", "ext::shapes.Area") not in res
    # Three types define Area (Square, Circle, Local): a call on a value of unknown type
    # (a range variable) is never bound to one of them.
    assert res["main.go::total", "ext::s.Area"] == "local"
    # Builtins are no calls: the methods named Len/Append are not len/append.
    assert not {dst for _src, dst in res if dst in ("ext::len", "ext::append")}
    for m in ("Circle.Area", "Square.Len", "Circle.Len"):
        for src in ("main.go::main", "main.go::total", "main.go::shadow"):
            no_edge_to(root, src, [f"{GO_SHAPES}::{m}"])
    no_edge_to(root, "main.go::total", [f"{GO_SHAPES}::Square.Area"])
    no_edge_to(root, "main.go::shadow", [f"{GO_SHAPES}::Square.Area"])


def test_go_receiver_call(scan):
    root = scan("go")
    area, length = f"{GO_SHAPES}::Square.Area", f"{GO_SHAPES}::Square.Len"
    assert resolutions(root)[area, length] == "self_method"
    # `c` is Circle's receiver, `s` Square's: neither call reaches the other type.
    no_edge_to(root, area, [f"{GO_SHAPES}::Circle.Len"])
    no_edge_to(root, f"{GO_SHAPES}::Circle.Area", [length, f"{GO_SHAPES}::Circle.Len"])
    # A closure's parameter named like the receiver: inside the closure that `s` is the
    # declaration in sight, a *Circle, never the Square receiver.
    grow = f"{GO_SHAPES}::Square.Grow"
    assert resolutions(root)[grow, f"{GO_SHAPES}::Circle.Len"] == "assigned"
    no_edge_to(root, grow, [length])
    # The receiver's own name outside the closure is still the receiver; an untyped
    # closure parameter named like it binds nothing.
    shrink = f"{GO_SHAPES}::Square.Shrink"
    assert resolutions(root)[shrink, length] == "self_method"
    assert resolutions(root)[shrink, "ext::s.Len"] == "local"
    no_edge_to(root, shrink, [f"{GO_SHAPES}::Circle.Len"])


def test_go_implements_by_method_set(scan):
    root = scan("go")
    # main.go's Local has Area too, but Shape is another package's: no edge; Areaer is
    # its own (root) package's, which Square and Circle are not in.
    assert edges(root, "implements") == {
        (f"{GO_SHAPES}::Square", f"{GO_SHAPES}::Shape"),
        (f"{GO_SHAPES}::Circle", f"{GO_SHAPES}::Shape"),
        ("main.go::Local", "extra.go::Areaer"),
    }
    rows = query(
        root, "SELECT DISTINCT resolution, confidence FROM edges WHERE kind = 'implements'"
    )
    assert rows == [("method_set", 0.9)]


# Java, Kotlin, C#: imports, class hierarchy, this/super, interfaces.
J_MODEL, J_MAIN = "src/shop/model", "src/shop/app/Main.java"


def test_java_rules(scan):
    root = scan("java")
    item = f"{J_MODEL}/Item.java::Item"
    assert project_calls(root) == {
        (f"{J_MAIN}::Main.main", item),  # new Item() through the import
        (f"{J_MAIN}::Main.main", f"{J_MODEL}/Box.java::Box"),
        (f"{item}.price", f"{item}.size"),  # this.size()
        (f"{item}.describe", f"{item}.price"),  # this.price()
        (f"{item}.describe", f"{J_MODEL}/Base.java::Base.describe"),  # super.describe()
    }
    assert edges(root, "inherits") == {(item, f"{J_MODEL}/Base.java::Base")}
    assert edges(root, "implements") == {(item, f"{J_MODEL}/Priced.java::Priced")}
    res = resolutions(root)
    # A parameter named like the imported class shadows it.
    assert res[f"{J_MAIN}::Main.shadow", "ext::Item.size"] == "local"
    # Item, Base and Box all define size(): a call on a local is bound to none.
    assert res[f"{J_MAIN}::Main.main", "ext::item.size"] == "local"
    assert res[f"{J_MAIN}::Main.main", "ext::box.size"] == "local"
    # List size/add/get on a field are not Item.size or any project method.
    assert res[f"{item}.price", "ext::parts.size"] == "unresolved"
    assert res[f"{item}.size", "ext::parts.add"] == "unresolved"
    assert res[f"{item}.size", "ext::parts.get"] == "unresolved"


def test_java_super_call(scan):
    root = scan("java")
    item, base = f"{J_MODEL}/Item.java::Item", f"{J_MODEL}/Base.java::Base"
    res = resolutions(root)
    assert res[f"{item}.describe", f"{base}.describe"] == "super"
    # Never the overriding method itself, nor an `ext::super.…` node beside the edge.
    assert (f"{item}.describe", f"{item}.describe") not in res
    assert [dst for src, dst in res if src == f"{item}.describe" and "super" in dst] == []
    # Box's base is outside the project: its super call is bound to nothing.
    box = f"{J_MODEL}/Box.java::Box"
    assert res[f"{box}.toString", "ext::super.toString"] == "unresolved"
    # In an anonymous class's method, `super` is that class's base: never Base.hashCode.
    assert res[f"{item}.later.run", "ext::super.hashCode"] == "unresolved"
    assert not [src for src, dst in res if dst == f"{base}.hashCode"]
    assert [dst for src, dst in res if src == f"{box}.toString"] == ["ext::super.toString"]


K_MODEL, K_MAIN = "src/shop/model", "src/shop/app/Main.kt"


def test_kotlin_rules(scan):
    root = scan("kotlin")
    item = f"{K_MODEL}/Item.kt::Item"
    assert project_calls(root) == {
        (f"{K_MAIN}::main", item),
        (f"{K_MAIN}::main", f"{K_MODEL}/Box.kt::Box"),
        (f"{item}.price", f"{item}.size"),
        (f"{item}.describe", f"{item}.price"),
        (f"{item}.describe", f"{K_MODEL}/Base.kt::Base.describe"),  # super.describe()
    }
    res = resolutions(root)
    assert res[f"{item}.price", f"{item}.size"] == "self_method"
    assert edges(root, "inherits") == {(item, f"{K_MODEL}/Base.kt::Base")}
    assert edges(root, "implements") == {(item, f"{K_MODEL}/Priced.kt::Priced")}
    assert res[f"{K_MAIN}::shadow", "ext::Item.size"] == "local"
    assert res[f"{K_MAIN}::main", "ext::item.size"] == "local"
    assert res[f"{K_MAIN}::main", "ext::box.size"] == "local"
    assert res[f"{item}.size", "ext::parts.add"] == "unresolved"
    assert res[f"{item}.size", "ext::parts.get"] == "unresolved"


def test_kotlin_super_call(scan):
    root = scan("kotlin")
    item, base = f"{K_MODEL}/Item.kt::Item", f"{K_MODEL}/Base.kt::Base"
    res = resolutions(root)
    assert res[f"{item}.describe", f"{base}.describe"] == "super"
    assert (f"{item}.describe", f"{item}.describe") not in res
    assert [dst for src, dst in res if src == f"{item}.describe" and "super" in dst] == []
    box = f"{K_MODEL}/Box.kt::Box"
    assert res[f"{box}.toString", "ext::super.toString"] == "unresolved"
    assert [dst for src, dst in res if src == f"{box}.toString"] == ["ext::super.toString"]


CS_MODELS, CS_PROGRAM = "src/Models.cs::Shop.Models", "src/Program.cs::Shop.Program"


def test_csharp_rules(scan):
    root = scan("csharp")
    item = f"{CS_MODELS}.Item"
    assert project_calls(root) == {
        # using Boxes = Shop.Models.Box; new Boxes(): the file named like the type
        (f"{CS_PROGRAM}.Main", "src/Shop/Models/Box.cs::Shop.Models.Box"),
        # using Pricing = Shop.Models.Base; new Pricing(): the file that defines the type
        (f"{CS_PROGRAM}.Main", f"{CS_MODELS}.Base"),
        (f"{item}.Price", f"{item}.Size"),  # this.Size()
        (f"{item}.Describe", f"{item}.Price"),
        (f"{item}.Describe", f"{CS_MODELS}.Base.Describe"),  # base.Describe()
    }
    assert edges(root, "inherits") == {(item, f"{CS_MODELS}.Base")}
    assert edges(root, "implements") == {(item, f"{CS_MODELS}.IPriced")}
    res = resolutions(root)
    # A parameter named like the imported alias shadows it.
    assert res[f"{CS_PROGRAM}.Shadow", "ext::Boxes.Size"] == "local"
    assert res[f"{CS_PROGRAM}.Main", "ext::item.Size"] == "local"
    assert res[f"{CS_PROGRAM}.Main", "ext::box.Size"] == "local"
    # List.Add on a field is not a project method.
    assert res[f"{item}.Size", "ext::_parts.Add"] == "unresolved"
    # A namespace `using` names no file: never guessed.
    assert res[f"{CS_PROGRAM}.Main", "ext::Item"] == "unresolved"


def test_csharp_base_call(scan):
    root = scan("csharp")
    edge = (f"{CS_MODELS}.Item.Describe", f"{CS_MODELS}.Base.Describe")
    res = resolutions(root)
    assert res[edge] == "super"
    assert (edge[0], edge[0]) not in res
    assert [dst for src, dst in res if src == edge[0] and "ext::" in dst] == []
    box = "src/Shop/Models/Box.cs::Shop.Models.Box"
    assert res[f"{box}.ToString", "ext::super.ToString"] == "unresolved"
    assert [dst for src, dst in res if src == f"{box}.ToString"] == ["ext::super.ToString"]


def test_csharp_alias_to_project_type_is_not_external(scan):
    # using Pricing = Shop.Models.Base; Base lives in src/Models.cs, not .../Shop/Models/
    # Base.cs: it is found by its qualified name, never called an external type.
    root = scan("csharp")
    res = resolutions(root)
    assert res[f"{CS_PROGRAM}.Main", f"{CS_MODELS}.Base"] == "import"
    assert (f"{CS_PROGRAM}.Main", "ext::Shop.Models.Base") not in res
    assert edges(root, "imports") == {
        ("src/Program.cs", "dep::Shop.Models"),  # a namespace `using` names no file
        ("src/Program.cs", "src/Shop/Models/Box.cs"),
        ("src/Program.cs", "src/Models.cs"),
        ("src/Models.cs", "dep::System.Collections.Generic"),
    }


# Rust, C, C++, Ruby, PHP: scope- and import-aware resolution.
RS_UTIL, RS_MAIN = "src/util.rs", "src/main.rs"


def test_rust_rules(scan):
    root = scan("rust")
    assert project_calls(root) == {
        (f"{RS_MAIN}::main", f"{RS_UTIL}::helper"),  # use crate::util::{helper, Stack}
        (f"{RS_MAIN}::main", f"{RS_UTIL}::Stack.new"),
        (f"{RS_UTIL}::Stack.new", f"{RS_UTIL}::Stack"),
        (f"{RS_UTIL}::Stack.push", f"{RS_UTIL}::Stack.len"),  # self.len()
        (f"{RS_MAIN}::main", f"{RS_UTIL}::make_queue"),  # mod util; use util::make_queue
    }
    res = resolutions(root)
    assert res[f"{RS_MAIN}::main", f"{RS_UTIL}::helper"] == "import"
    assert res[f"{RS_UTIL}::Stack.push", f"{RS_UTIL}::Stack.len"] == "self_method"
    # A closure bound to a local named like the imported function shadows it.
    assert res[f"{RS_MAIN}::shadow", "ext::helper"] == "local"
    # Stack and Queue both define push; Vec has push/len: none is bound by name.
    assert res[f"{RS_MAIN}::main", "ext::s.push"] == "local"
    assert res[f"{RS_MAIN}::main", "ext::q.push"] == "local"
    assert res[f"{RS_MAIN}::main", "ext::v.len"] == "local"
    assert res[f"{RS_UTIL}::Stack.push", "ext::self.items.push"] == "unresolved"
    assert res[f"{RS_UTIL}::Stack.len", "ext::self.items.len"] == "unresolved"


def test_rust_use_of_a_declared_module(scan):
    root = scan("rust")
    res = resolutions(root)
    assert res[f"{RS_MAIN}::main", f"{RS_UTIL}::make_queue"] == "import"
    # The `use` binds the declared module's file: no external crate `util` is left. No
    # `mod other;` in main.rs: `use other::thing` is the crate, though src/other.rs exists.
    assert edges(root, "imports") == {(RS_MAIN, RS_UTIL), (RS_MAIN, "dep::other")}
    assert res[f"{RS_MAIN}::outside", "ext::other.thing"] == "external"
    no_edge_to(root, f"{RS_MAIN}::outside", ["src/other.rs::thing"])


def test_c_rules(scan):
    root = scan("c")
    assert project_calls(root) == {
        ("util.c::size", "util.c::helper"),
        ("main.c::main", "util.c::helper"),  # declared by the included util.h
    }
    res = resolutions(root)
    assert res["main.c::main", "util.c::helper"] == "import"
    # A function-pointer parameter named like the declared function shadows it.
    assert res["main.c::shadow", "ext::helper"] == "local"
    assert res["main.c::main", "ext::strlen"] == "unresolved"


CPP_H = "shapes.hpp::shapes"


def test_cpp_rules(scan):
    root = scan("cpp")
    assert project_calls(root) == {
        (f"{CPP_H}.Stack.push", f"{CPP_H}.Stack.size"),  # this->size()
        (f"{CPP_H}.Stack.size", f"{CPP_H}.Base.size"),  # Base::size()
    }
    assert edges(root, "inherits") == {(f"{CPP_H}.Stack", f"{CPP_H}.Base")}
    res = resolutions(root)
    # A function-pointer parameter named like shapes::helper: never that function.
    assert res["main.cpp::shadow", "ext::helper"] == "local"
    # Stack and Queue both define push; vector push_back/size are not Stack's methods.
    assert res["main.cpp::main", "ext::s.push"] == "local"
    assert res["main.cpp::main", "ext::s.size"] == "local"
    assert res["main.cpp::main", "ext::v.push_back"] == "local"
    assert res[f"{CPP_H}.Stack.push", "ext::items_.push_back"] == "unresolved"
    assert res[f"{CPP_H}.Stack.size", "ext::items_.size"] == "unresolved"


RB_ITEM = "lib/shop/item.rb::Shop"


def test_ruby_rules(scan):
    root = scan("ruby")
    assert project_calls(root) == {
        ("main.rb::main", f"{RB_ITEM}.Item"),  # Shop::Item.new through require "shop/item"
        (f"{RB_ITEM}.Item.total", f"{RB_ITEM}.Item.size"),  # size and self.size
        ("main.rb::main", f"{RB_ITEM}.Item.initialize"),  # Shop::Item.new runs initialize
    }
    assert edges(root, "inherits") == {(f"{RB_ITEM}.Item", f"{RB_ITEM}.Base")}
    res = resolutions(root)
    # A local variable named like the method main shadows it.
    assert res["main.rb::shadow", "ext::main.size"] == "local"
    # Item, Base and Box define size; Array push/size: none is bound by name.
    assert res["main.rb::main", "ext::item.size"] == "local"
    assert res["main.rb::main", "ext::box.size"] == "local"
    assert res[f"{RB_ITEM}.Item.size", "ext::@parts.push"] == "unresolved"
    assert res[f"{RB_ITEM}.Item.size", "ext::@parts.size"] == "unresolved"
    # require "shop/item" names Shop::Item only: Shop::Box of the same file is not guessed.
    assert res["main.rb::main", "ext::Shop.Box"] == "unresolved"


PHP_ITEM, PHP_BOX = "app/Models/Item.php", "app/Models/Box.php"


def test_php_rules(scan):
    root = scan("php")
    assert project_calls(root) == {
        ("index.php::main", f"{PHP_ITEM}::Item.make"),  # use App\Models\Item; Item::make()
        ("index.php::main", f"{PHP_BOX}::Box"),  # new Box()
        (f"{PHP_ITEM}::Item.make", f"{PHP_ITEM}::Item"),
        (f"{PHP_ITEM}::Item.count", f"{PHP_ITEM}::Item.size"),  # $this->size()
        (f"{PHP_ITEM}::Item.count", f"{PHP_ITEM}::Base.count"),  # parent::count()
    }
    assert edges(root, "inherits") == {(f"{PHP_ITEM}::Item", f"{PHP_ITEM}::Base")}
    res = resolutions(root)
    # A parameter named like a function of the file shadows it.
    assert res["index.php::shadow", "ext::main"] == "local"
    # The builtin count() inside the method count() is not that method.
    assert res[f"{PHP_ITEM}::Item.count", "ext::count"] == "unresolved"
    # Item and Box both define size(): a call on a local is bound to neither.
    assert res["index.php::main", "ext::item.size"] == "local"
    assert res["index.php::main", "ext::box.size"] == "local"


def test_php_parent_call(scan):
    root = scan("php")
    res = resolutions(root)
    assert res[f"{PHP_ITEM}::Item.count", f"{PHP_ITEM}::Base.count"] == "super"
    # Not the method itself, and the builtin count() beside it stays unresolved.
    assert (f"{PHP_ITEM}::Item.count", f"{PHP_ITEM}::Item.count") not in res
    assert not [dst for src, dst in res if "parent" in dst]
    # Base has no size(): parent::size() is bound to nothing, never Item's own size().
    total = f"{PHP_ITEM}::Item.total"
    assert res[total, "ext::super.size"] == "unresolved"
    assert [dst for src, dst in res if src == total] == ["ext::super.size"]


def test_go_rust_csharp_rules_rescan_equals_clean_scan(tmp_path):
    """The cross-file rules (Go method sets over a package, Rust `use` through `mod m;`,
    C# aliases by qualified name) after edits: an incremental scan equals a clean one."""
    from tests.conftest import copy_fixture, rescans_equal_clean
    from znt import api

    steps = {
        "go": [
            # Tri's methods in two other files of the package: it implements Shape...
            ("shapes/tri.go", "package shapes\n\ntype Tri struct{}\n"),
            ("shapes/tri_m.go", "package shapes\n\nfunc (t Tri) Area() int { return 1 }\n"),
            # ...until the file with Area goes.
            ("shapes/tri_m.go", None),
        ],
        "rust": [("src/util.rs", None)],  # the declared module's file goes
        "csharp": [
            ("src/More/Base.cs", "namespace Shop.Models\n{\n    public class Base { }\n}\n"),
            ("src/More/Base.cs", None),
        ],
    }
    seen: set[tuple[object, object]] = set()
    for lang, edits in steps.items():
        root = copy_fixture(f"lang/rules/{lang}", tmp_path / lang)
        api.scan(str(root))
        for got in rescans_equal_clean(root, tmp_path, edits, label=f"{lang}-"):
            seen |= {(src, dst) for src, dst, kind, *_ in got if kind == "implements"}
    # The edits did reach the rule: Tri implemented Shape while tri_m.go existed.
    assert ("shapes/tri.go::Tri", f"{GO_SHAPES}::Shape") in seen
