"""C++ extraction on a fixture project: exact symbols, kinds, lines, roles and edges."""

from __future__ import annotations

import pytest

from tests.conftest import edges, scanned_copy, symbols

LANG = "lang/cpp"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return scanned_copy(tmp_path_factory, LANG)


def test_namespace_and_class_symbols(root):
    assert symbols(root, "include/shop/order.hpp") == [
        ("shop", "namespace", "namespace", 6, 50, "generic"),
        ("shop.Item", "declaration", "struct", 8, 11, "generic"),
        ("shop.Item.name", "member", "field", 9, 9, "state"),
        ("shop.Item.price", "member", "field", 10, 10, "state"),
        ("shop.Order", "declaration", "class", 14, 46, "generic"),
        ("shop.Order.Status", "declaration", "enum", 16, 16, "generic"),  # nested
        ("shop.Order.Status.Open", "member", "enum_member", 16, 16, "state"),
        ("shop.Order.Status.Paid", "member", "enum_member", 16, 16, "state"),
        ("shop.Order.Order", "function", "constructor", 18, 18, "generic"),
        ("shop.Order.add", "function", "method", 20, 23, "generic"),
        ("shop.Order.total", "function", "method", 25, 31, "generic"),
        ("shop.Order.size", "function", "method", 33, 33, "generic"),
        ("shop.Order.apply", "function", "method", 35, 37, "generic"),
        ("shop.Order.touch", "function", "method", 40, 40, "generic"),
        ("shop.Order.id_", "member", "field", 42, 42, "state"),
        ("shop.Order.version_", "member", "field", 43, 43, "state"),
        ("shop.Order.status_", "member", "field", 44, 44, "state"),
        ("shop.Order.items_", "member", "field", 45, 45, "state"),
        ("shop.discounted", "function", "function", 48, 48, "generic"),
        ("clamp_value", "function", "function", 53, 55, "generic"),  # template
    ]
    assert symbols(root, "include/users.hpp") == [
        ("Entity", "declaration", "class", 6, 9, "model"),
        ("Entity.id", "member", "field", 8, 8, "model"),
        ("User", "declaration", "class", 11, 19, "generic"),
        ("User.User", "function", "constructor", 13, 13, "generic"),
        ("User.name", "function", "method", 14, 14, "generic"),
        ("User.valid", "function", "method", 15, 15, "generic"),
        ("User.name_", "member", "field", 18, 18, "state"),
        ("UserRepository", "declaration", "class", 21, 35, "repository"),
        ("UserRepository.add", "function", "method", 23, 28, "repository"),
        ("UserRepository.get", "function", "method", 29, 29, "repository"),
        ("UserRepository.make", "function", "method", 30, 30, "repository"),
        ("UserRepository.size", "function", "method", 31, 31, "repository"),
        ("UserRepository.users_", "member", "field", 34, 34, "repository"),
    ]


def test_out_of_class_definitions(root):
    # The header declares the methods (prototypes are not symbols); the source defines them.
    assert symbols(root, "src/order_service.hpp") == [
        ("OrderService", "declaration", "class", 6, 15, "service"),
        ("OrderService.users_", "member", "field", 13, 13, "service"),
        ("OrderService.placed_", "member", "field", 14, 14, "service"),
    ]
    # `Foo::bar` definitions are named Foo.bar. The class is declared in another file (the
    # header), so they sit in the file, not in the class, but play the role its name
    # gives it (`service`).
    assert symbols(root, "src/order_service.cpp") == [
        ("next_id", "member", "variable", 5, 5, "state"),
        ("OrderService.OrderService", "function", "constructor", 7, 7, "service"),
        ("OrderService.checkout", "function", "method", 9, 17, "service"),
        ("OrderService.quote", "function", "method", 19, 21, "service"),
    ]
    assert symbols(root, "src/main.cpp") == [("main", "function", "function", 5, 13, "entrypoint")]
    assert symbols(root, "tests/order_test.cpp") == [
        ("test_total", "function", "function", 5, 9, "test")
    ]


def test_module_nodes_docs_and_signatures(root):
    from tests.conftest import query

    rows = query(
        root,
        "SELECT id, name, qualified_name, type, kind, role FROM symbols WHERE id = file "
        "ORDER BY id",
    )
    assert rows == [
        ("include/shop/order.hpp", "order", "include.shop.order", "namespace", "module", "generic"),
        ("include/users.hpp", "users", "include.users", "namespace", "module", "generic"),
        ("src/main.cpp", "main", "src.main", "namespace", "module", "entrypoint"),
        (
            "src/order_service.cpp",
            "order_service",
            "src.order_service",
            "namespace",
            "module",
            "generic",
        ),
        (
            "src/order_service.hpp",
            "order_service",
            "src.order_service",
            "namespace",
            "module",
            "generic",
        ),
        ("tests/order_test.cpp", "order_test", "tests.order_test", "namespace", "module", "test"),
    ]
    doc, sig = query(
        root,
        "SELECT doc, signature FROM symbols WHERE id = 'include/shop/order.hpp::shop.Order'",
    )[0]
    assert (doc, sig) == ("An order of items.", "class Order")
    sig = query(
        root,
        "SELECT signature FROM symbols WHERE id = 'src/order_service.cpp::OrderService.checkout'",
    )
    assert sig == [("shop::Order *OrderService::checkout(int id, std::size_t user)",)]


def test_contains_edges(root):
    f = "include/users.hpp"
    assert {e for e in edges(root, "contains") if e[0].startswith(f)} == {
        (f, f"{f}::Entity"),
        (f, f"{f}::User"),
        (f, f"{f}::UserRepository"),
        (f"{f}::Entity", f"{f}::Entity.id"),
        (f"{f}::User", f"{f}::User.User"),
        (f"{f}::User", f"{f}::User.name"),
        (f"{f}::User", f"{f}::User.valid"),
        (f"{f}::User", f"{f}::User.name_"),
        (f"{f}::UserRepository", f"{f}::UserRepository.add"),
        (f"{f}::UserRepository", f"{f}::UserRepository.get"),
        (f"{f}::UserRepository", f"{f}::UserRepository.make"),
        (f"{f}::UserRepository", f"{f}::UserRepository.size"),
        (f"{f}::UserRepository", f"{f}::UserRepository.users_"),
    }
    s = "src/order_service.cpp"
    assert {e for e in edges(root, "contains") if e[0].startswith(s)} == {
        (s, f"{s}::next_id"),
        (s, f"{s}::OrderService.OrderService"),
        (s, f"{s}::OrderService.checkout"),
        (s, f"{s}::OrderService.quote"),
    }


def test_imports_edges(root):
    assert edges(root, "imports") == {
        ("include/shop/order.hpp", "dep::functional"),
        ("include/shop/order.hpp", "dep::vector"),
        ("include/users.hpp", "dep::string"),
        ("include/users.hpp", "dep::vector"),
        ("src/main.cpp", "dep::iostream"),
        ("src/order_service.cpp", "dep::stdexcept"),
        ("tests/order_test.cpp", "dep::cassert"),
        # "order_service.hpp" next to the includer
        ("src/main.cpp", "src/order_service.hpp"),
        ("src/order_service.cpp", "src/order_service.hpp"),
        # "shop/order.hpp" is under include/: the one project path ending in it
        ("src/order_service.hpp", "include/shop/order.hpp"),
        ("tests/order_test.cpp", "include/shop/order.hpp"),
        # "../include/users.hpp" relative to src/
        ("src/order_service.hpp", "include/users.hpp"),
    }


def test_certain_calls_are_resolved(root):
    o, u = "include/shop/order.hpp", "include/users.hpp"
    calls = {e for e in edges(root, "call") if not e[1].startswith("ext::")}
    s = "src/order_service.cpp::OrderService"
    assert calls == {
        # Through includes (order_service.hpp, and shop/order.hpp that it includes).
        (f"{s}.quote", f"{o}::clamp_value"),
        (f"{s}.quote", f"{o}::shop.discounted"),  # shop::discounted()
        (f"{s}.checkout", f"{o}::shop.Order"),  # new shop::Order(...)
        (f"{o}::shop.Order.add", f"{o}::shop.Order.touch"),  # this->touch()
        (f"{o}::shop.Order.apply", f"{o}::shop.Order.total"),  # bare member call
        (f"{u}::UserRepository.add", f"{u}::User"),  # User(name)
        (f"{u}::UserRepository.make", f"{u}::User"),  # new User(name)
        (f"{u}::UserRepository.get", f"{u}::UserRepository.size"),  # size() in the class
    }
    assert edges(root, "inherits") == {(f"{u}::User", f"{u}::Entity")}
    assert edges(root, "implements") == set()


def test_uncertain_calls_are_never_bound(root):
    from tests.conftest import query

    rows = set(
        query(
            root,
            "SELECT src, dst, resolution FROM edges "
            "WHERE kind = 'call' AND starts_with(dst, 'ext::')",
        )
    )
    o, u = "include/shop/order.hpp", "include/users.hpp"
    # A parameter named like the function shop::discounted shadows it.
    assert (f"{o}::shop.Order.apply", "ext::discounted", "local") in rows
    # size()/get()/push_back() on a field or local are never bound to UserRepository.size,
    # Order.size or UserRepository.get (two classes define add and size).
    assert (f"{o}::shop.Order.size", "ext::items_.size", "unresolved") in rows
    assert (f"{u}::UserRepository.size", "ext::users_.size", "unresolved") in rows
    assert (f"{u}::UserRepository.add", "ext::users_.push_back", "unresolved") in rows
    assert ("src/order_service.cpp::OrderService.checkout", "ext::users_.get", "unresolved") in rows
    assert ("src/main.cpp::main", "ext::repo.add", "local") in rows
    # `OrderService service(repo);` is a local object, not a function declaration.
    assert ("src/main.cpp::main", "ext::service.checkout", "local") in rows
    assert ("tests/order_test.cpp::test_total", "ext::order.add", "local") in rows


SVC = "src/order_service.cpp"


def test_call_through_include(root):
    calls = edges(root, "call")
    assert (f"{SVC}::OrderService.quote", "include/shop/order.hpp::clamp_value") in calls
    assert (f"{SVC}::OrderService.checkout", "include/shop/order.hpp::shop.Order") in calls


def test_qualified_call(root):
    target = "include/shop/order.hpp::shop.discounted"
    assert (f"{SVC}::OrderService.quote", target) in edges(root, "call")


def test_out_of_class_method_role(root):
    rows = symbols(root, SVC)
    assert ("OrderService.checkout", "function", "method", 9, 17, "service") in rows


def test_include_rescan_equals_clean_scan(tmp_path):
    """A header two includes away loses and regains a definition; a class gets a member
    named like an included function: an incremental scan equals a clean one."""
    from tests.conftest import copy_fixture, rescans_equal_clean
    from znt import api

    root = copy_fixture(LANG, tmp_path)
    api.scan(str(root))
    order = (root / "include/shop/order.hpp").read_text()
    users = (root / "include/users.hpp").read_text()
    target = (f"{SVC}::OrderService.quote", "include/shop/order.hpp::clamp_value")
    steps = [
        ("include/shop/order.hpp", order.replace("T clamp_value(", "T clamp_other(")),
        ("include/shop/order.hpp", order),
        # A method named clamp_value in some class: inside a method the bare name may be
        # that member, so it is never bound there.
        ("include/users.hpp", users.replace("bool valid()", "bool clamp_value()")),
        ("include/users.hpp", users),
    ]
    present = [
        target in {(r[0], r[1]) for r in got}
        for got in rescans_equal_clean(root, tmp_path, list(steps))
    ]
    assert present == [False, True, False, True]


def test_include_prefers_no_guess_over_an_inner_name(tmp_path):
    """`g()` inside `namespace n` may be `n::g` (declared in the same header): never bound
    to the global `g`; at the top level it is the global one; `n::g()` is `n.g`."""
    from tests.conftest import query
    from znt import api

    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.hpp").write_text("int g(int x);\nnamespace n {\nint g(int x);\n}\n")
    (root / "a.cpp").write_text(
        '#include "a.hpp"\nint g(int x) { return x; }\nint n::g(int x) { return -x; }\n'
    )
    (root / "main.cpp").write_text(
        '#include "a.hpp"\n'
        "namespace n {\nint use() { return g(1); }\n}\n"
        "int top() { return g(2) + n::g(3); }\n"
    )
    api.scan(str(root))
    rows = set(query(root, "SELECT src, dst, resolution FROM edges WHERE kind = 'call'"))
    project = {(s, d) for s, d, _r in rows if not d.startswith("ext::")}
    assert project == {("main.cpp::top", "a.cpp::g"), ("main.cpp::top", "a.cpp::n.g")}
    assert ("main.cpp::n.use", "ext::g", "unresolved") in rows
