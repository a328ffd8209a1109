"""JavaScript extraction on a fixture project: exact symbols, kinds, lines, roles and edges."""

from __future__ import annotations

import pytest

from tests.conftest import edges, query, scanned_copy, symbols

LANG = "lang/javascript"
ORDER = "src/models/order.js"
SERVICE = "src/services/order_service.js"
LIST = "src/components/OrderList.jsx"
MAIN = "src/main.js"
TEST = "tests/order_service.test.js"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return scanned_copy(tmp_path_factory, LANG)


def test_model_symbols(root):
    assert symbols(root, ORDER) == [
        ("TAX_RATE", "member", "constant", 3, 3, "state"),
        ("nextId", "member", "variable", 5, 5, "state"),
        ("LineItem", "declaration", "class", 8, 18, "model"),  # models/ folder
        ("LineItem.constructor", "function", "constructor", 9, 13, "model"),
        ("LineItem.total", "function", "method", 15, 17, "model"),
        ("Order", "declaration", "class", 20, 46, "model"),
        ("Order.status", "member", "field", 21, 21, "model"),
        ("Order.MAX_ITEMS", "member", "constant", 22, 22, "model"),
        ("Order.constructor", "function", "constructor", 24, 28, "model"),
        ("Order.append", "function", "method", 30, 33, "model"),
        ("Order.get", "function", "method", 35, 37, "model"),
        ("Order.subtotal", "function", "method", 39, 41, "model"),
        ("Order.total", "function", "method", 43, 45, "model"),
        ("PriorityOrder", "declaration", "class", 48, 52, "model"),
        ("PriorityOrder.total", "function", "method", 49, 51, "model"),
        ("withTax", "function", "function", 54, 56, "model"),
    ]


def test_service_symbols(root):
    assert symbols(root, SERVICE) == [
        ("OrderRepository", "declaration", "class", 5, 16, "repository"),
        ("OrderRepository.#rows", "member", "field", 6, 6, "repository"),
        ("OrderRepository.get", "function", "method", 8, 10, "repository"),
        ("OrderRepository.append", "function", "method", 12, 15, "repository"),
        ("OrderService", "declaration", "class", 18, 47, "service"),
        ("OrderService.constructor", "function", "constructor", 19, 22, "service"),
        ("OrderService.place", "function", "method", 24, 32, "service"),
        ("OrderService.quote", "function", "method", 34, 36, "service"),
        ("OrderService.find", "function", "method", 38, 40, "service"),
        ("OrderService.rush", "function", "method", 42, 44, "service"),
        # A class field holding an arrow function is a method.
        ("OrderService.onPlaced", "function", "method", 46, 46, "service"),
    ]


def test_component_main_and_test_symbols(root):
    assert symbols(root, LIST) == [
        ("formatPrice", "function", "function", 4, 6, "generic"),
        ("OrderRow", "function", "function", 8, 14, "generic"),
        ("OrderList", "function", "function", 16, 26, "generic"),  # export default function
        ("emptyOrder", "function", "function", 28, 28, "generic"),  # const f = () => ...
    ]
    assert symbols(root, MAIN) == [
        ("DEFAULT_CUSTOMER", "member", "constant", 4, 4, "state"),
        ("summarize", "function", "function", 6, 15, "generic"),
        ("summarize.describe", "function", "function", 7, 9, "generic"),
        ("quoteWith", "function", "function", 18, 20, "generic"),
        ("report", "function", "function", 22, 25, "generic"),
        ("loadList", "function", "function", 27, 30, "generic"),
        ("main", "function", "function", 32, 37, "entrypoint"),
    ]
    # `const x = require(...)` binds an import, not a module variable.
    assert symbols(root, TEST) == [("makeService", "function", "function", 4, 6, "test")]


def test_module_nodes_docs_and_signatures(root):
    rows = query(
        root,
        "SELECT id, qualified_name, type, kind, role FROM symbols WHERE id = file ORDER BY id",
    )
    assert rows == [
        (LIST, "src.components.OrderList", "namespace", "module", "generic"),
        (MAIN, "src.main", "namespace", "module", "entrypoint"),
        (ORDER, "src.models.order", "namespace", "module", "model"),
        (SERVICE, "src.services.order_service", "namespace", "module", "service"),
        (TEST, "tests.order_service.test", "namespace", "module", "test"),
    ]
    names = dict(query(root, "SELECT id, name FROM symbols WHERE id = file AND id <> ?", [TEST]))
    assert names == {
        LIST: "OrderList",
        MAIN: "main",
        ORDER: "order",
        SERVICE: "order_service",
    }
    doc, sig = query(
        root, "SELECT doc, signature FROM symbols WHERE id = ?", [f"{ORDER}::LineItem"]
    )[0]
    assert (doc, sig) == ("One product line of an order.", "class LineItem")
    doc, sig = query(
        root, "SELECT doc, signature FROM symbols WHERE id = ?", [f"{MAIN}::quoteWith"]
    )[0]
    assert (doc, sig) == (
        "A parameter named like the imported function shadows it.",
        "function quoteWith(withTax, amount)",
    )
    (sig,) = query(root, "SELECT signature FROM symbols WHERE id = ?", [f"{MAIN}::main"])[0]
    assert sig == "async function main(argv = process.argv.slice(2))"


def test_contains_edges(root):
    contains = {e for e in edges(root, "contains") if e[0].startswith(SERVICE)}
    s = SERVICE
    assert contains == {
        (s, f"{s}::OrderRepository"),
        (s, f"{s}::OrderService"),
        (f"{s}::OrderRepository", f"{s}::OrderRepository.#rows"),
        (f"{s}::OrderRepository", f"{s}::OrderRepository.get"),
        (f"{s}::OrderRepository", f"{s}::OrderRepository.append"),
        (f"{s}::OrderService", f"{s}::OrderService.constructor"),
        (f"{s}::OrderService", f"{s}::OrderService.place"),
        (f"{s}::OrderService", f"{s}::OrderService.quote"),
        (f"{s}::OrderService", f"{s}::OrderService.find"),
        (f"{s}::OrderService", f"{s}::OrderService.rush"),
        (f"{s}::OrderService", f"{s}::OrderService.onPlaced"),
    }


def test_imports_edges(root):
    assert edges(root, "imports") == {
        (SERVICE, "dep::node:events"),
        (SERVICE, ORDER),  # named and namespace imports of the same file
        (LIST, "dep::react"),
        (LIST, ORDER),
        (MAIN, SERVICE),  # default + named import
        (MAIN, ORDER),
        (MAIN, LIST),  # dynamic import("./components/OrderList.jsx")
        (TEST, "dep::node:assert"),  # const assert = require("node:assert")
        (TEST, SERVICE),  # const { ... } = require("../src/services/order_service.js")
    }


def test_certain_calls_are_resolved(root):
    calls = {e for e in edges(root, "call") if not e[1].startswith("ext::")}
    assert calls == {
        # same file: bare names, this.m(), a class's own default parameter
        (f"{ORDER}::Order.total", f"{ORDER}::Order.subtotal"),  # this.subtotal()
        (f"{ORDER}::Order.total", f"{ORDER}::withTax"),
        (f"{SERVICE}::OrderService.constructor", f"{SERVICE}::OrderRepository"),
        (f"{LIST}::OrderRow", f"{LIST}::formatPrice"),
        (f"{LIST}::OrderList", f"{LIST}::OrderRow"),  # <OrderRow ... />
        (f"{MAIN}::summarize", f"{MAIN}::summarize.describe"),
        (f"{MAIN}::main", f"{MAIN}::summarize"),
        (f"{MAIN}::main", f"{MAIN}::report"),
        (f"{MAIN}::main", f"{MAIN}::quoteWith"),
        (MAIN, f"{MAIN}::main"),  # top-level main()
        (TEST, f"{TEST}::makeService"),
        # through imports: named, aliased (withTax as applyTax), namespace (orders.X)
        (f"{SERVICE}::OrderService.place", f"{ORDER}::Order"),
        (f"{SERVICE}::OrderService.place", f"{ORDER}::LineItem"),
        (f"{SERVICE}::OrderService.quote", f"{ORDER}::withTax"),
        (f"{SERVICE}::OrderService.rush", f"{ORDER}::PriorityOrder"),
        (f"{LIST}::emptyOrder", f"{ORDER}::Order"),
        (f"{MAIN}::summarize.describe", f"{ORDER}::withTax"),
        (f"{MAIN}::main", f"{SERVICE}::OrderRepository"),
        # a default import: `export default OrderService` names the class
        (f"{MAIN}::main", f"{SERVICE}::OrderService"),
        # CommonJS destructuring, plain and renamed ({ OrderRepository: Repo })
        (f"{TEST}::makeService", f"{SERVICE}::OrderService"),
        (f"{TEST}::makeService", f"{SERVICE}::OrderRepository"),
        # a local holding `new C()`: C's method (type flow, `assigned`)
        (f"{SERVICE}::OrderService.place", f"{ORDER}::Order.append"),
        (f"{MAIN}::main", f"{SERVICE}::OrderService.place"),  # service = new OrderService()
        # new C() also runs C's constructor, or its base's (PriorityOrder has none); a
        # class without one (OrderRepository) gets no constructor edge
        (f"{SERVICE}::OrderService.place", f"{ORDER}::Order.constructor"),
        (f"{SERVICE}::OrderService.place", f"{ORDER}::LineItem.constructor"),
        (f"{SERVICE}::OrderService.rush", f"{ORDER}::Order.constructor"),
        (f"{LIST}::emptyOrder", f"{ORDER}::Order.constructor"),
        (f"{MAIN}::main", f"{SERVICE}::OrderService.constructor"),
        (f"{TEST}::makeService", f"{SERVICE}::OrderService.constructor"),
    }
    assert edges(root, "inherits") == {
        (f"{ORDER}::PriorityOrder", f"{ORDER}::Order"),
        (f"{SERVICE}::OrderService", "ext::node:events.EventEmitter"),
    }
    assert edges(root, "implements") == set()


def test_new_runs_the_constructor_of_the_class_or_its_base(root):
    """`new C()` binds to C and to the constructor that runs: C's own, else the nearest
    base's. Never a same-named constructor of another class, never one for a class
    without a constructor in its chain."""
    calls = {e for e in edges(root, "call") if e[1].endswith(".constructor")}
    place = {dst for src, dst in calls if src == f"{SERVICE}::OrderService.place"}
    assert place == {f"{ORDER}::Order.constructor", f"{ORDER}::LineItem.constructor"}
    # PriorityOrder extends Order and defines no constructor: Order's runs
    rush = {dst for src, dst in calls if src == f"{SERVICE}::OrderService.rush"}
    assert rush == {f"{ORDER}::Order.constructor"}
    assert not {e for e in calls if "OrderRepository" in e[1]}
    (res,) = query(
        root,
        "SELECT DISTINCT resolution FROM edges WHERE kind = 'call' AND dst LIKE '%.constructor'",
    )
    assert res == ("constructor",)


def test_uncertain_calls_are_never_bound(root):
    def resolution(src: str, dst: str) -> str:
        rows = query(
            root,
            "SELECT resolution FROM edges WHERE kind = 'call' AND src = ? AND dst = ?",
            [src, dst],
        )
        assert len(rows) == 1, (src, dst)
        return str(rows[0][0])

    # A parameter named like the imported function shadows it.
    assert resolution(f"{MAIN}::quoteWith", "ext::withTax") == "local"
    # A local arrow function named like a top-level function shadows it.
    assert resolution(f"{MAIN}::report", "ext::summarize") == "local"
    # Methods called on parameters: the receiver's type is unknown, so the same-named
    # methods of Order/LineItem/OrderRepository are never picked. A local holding `new
    # Order()` is an Order: its `append` is Order's, never OrderRepository's.
    assert resolution(f"{SERVICE}::OrderService.place", f"{ORDER}::Order.append") == "assigned"
    assert not query(
        root,
        "SELECT dst FROM edges WHERE src = ? AND dst LIKE '%OrderRepository.append'",
        [f"{SERVICE}::OrderService.place"],
    )
    assert resolution(f"{ORDER}::Order.subtotal", "ext::item.total") == "local"
    assert resolution(f"{LIST}::OrderRow", "ext::order.total") == "local"
    assert resolution(f"{LIST}::OrderRow", "ext::onSelect") == "local"  # destructured param
    assert resolution(f"{MAIN}::summarize", "ext::lines.push") == "local"
    # Through a field of this: unknown type, even though OrderRepository has get/append.
    assert resolution(f"{SERVICE}::OrderService.find", "ext::this.repository.get") == "unresolved"
    assert (
        resolution(f"{SERVICE}::OrderService.place", "ext::this.repository.append") == "unresolved"
    )
    assert resolution(f"{ORDER}::PriorityOrder.total", "ext::super.total") == "unresolved"
    # A default import binds what the file's `export default` names (not a guess by name).
    assert resolution(f"{MAIN}::main", f"{SERVICE}::OrderService") == "import"
    # External packages keep their full name; lower-case JSX tags are not references.
    assert resolution(f"{LIST}::OrderList", "ext::react.useState") == "external"
    assert resolution(f"{LIST}::OrderList", "ext::react.Fragment") == "external"
    assert resolution(TEST, "ext::node:assert.strictEqual") == "external"
    assert query(root, "SELECT count(*) FROM edges WHERE dst IN ('ext::li', 'ext::ul')") == [(0,)]


def test_import_candidates():
    from znt.index.lang.javascript import SPEC
    from znt.index.languages import Candidate, ImportRef

    cands = SPEC.import_candidates
    # require("./util") binds the module's export, whose name is unknown: member `default`.
    paths = [c.path for c in cands("src/a.js", ImportRef("./util", None, "util"))]
    assert paths[:4] == ["src/util.js", "src/util.jsx", "src/util.mjs", "src/util.cjs"]
    assert "src/util/index.js" in paths
    assert {c.member for c in cands("src/a.js", ImportRef("./util", None, "util"))} == {"default"}
    # Written with its extension (also non-script files): that file first.
    assert cands("src/a.js", ImportRef("./data.json", None, "data")) == [
        Candidate("src/data.json", member="default"),
        *[
            Candidate(f"src/data.json{e}", member="default")
            for e in (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")
        ],
        *[
            Candidate(f"src/data.json/index{e}", member="default")
            for e in (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")
        ],
    ]
    # "." is the folder's package.json main, else its index file; a side-effect import
    # binds no name.
    assert cands("a.js", ImportRef(".", None, None))[:2] == [
        Candidate("package.json", mode="main"),
        Candidate("index.js"),
    ]
    assert cands("src/a.js", ImportRef("../", None, "x"))[0] == Candidate(
        "package.json", mode="main", member="default"
    )
    # A specifier that may name a file never depends on a package.json.
    assert all(c.mode == "exact" for c in cands("src/a.js", ImportRef("./lib", None, "x")))
    assert SPEC.local_name(ImportRef("./polyfill", None, None)) == "./polyfill"
    assert cands("src/a.js", ImportRef("lodash/fp", "map", None)) == []
    assert cands("src/a.js", ImportRef("../../x", "X", None)) == []
