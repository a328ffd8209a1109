"""Go extraction on a fixture module: exact symbols, kinds, lines, roles and edges."""

from __future__ import annotations

import pytest

from tests.conftest import edges, query, scanned_copy, symbols

LANG = "lang/go"

STORE = "internal/store/store.go"
SERVICE = "internal/store/service.go"
STRINGS = "pkg/util/strings.go"
STRINGS_TEST = "pkg/util/strings_test.go"
STORE_TEST = "internal/store/store_test.go"  # package store: an internal test file


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return scanned_copy(tmp_path_factory, LANG)


def test_store_symbols(root):
    # A method declared with a receiver is owned by its receiver type when the same file
    # declares the type: it plays the type's role.
    assert symbols(root, STORE) == [
        ("Item", "declaration", "struct", 11, 13, "generic"),
        ("Item.ID", "member", "field", 12, 12, "state"),
        ("Item.Name", "member", "field", 12, 12, "state"),
        ("Store", "declaration", "struct", 16, 20, "repository"),
        ("Store.mu", "member", "field", 17, 17, "repository"),
        ("Store.items", "member", "field", 18, 18, "repository"),
        ("Store.order", "member", "field", 19, 19, "repository"),
        ("NewStore", "function", "function", 23, 25, "generic"),
        ("Store.Put", "function", "method", 28, 33, "repository"),
        ("Store.append", "function", "method", 35, 37, "repository"),
        ("Store.Get", "function", "method", 40, 43, "repository"),
        ("Store.Len", "function", "method", 45, 47, "repository"),
        ("Store.Snapshot", "function", "method", 49, 60, "repository"),
        ("Store.Snapshot.entry", "declaration", "struct", 50, 53, "generic"),
        ("Store.Snapshot.entry.key", "member", "field", 51, 51, "state"),
        ("Store.Snapshot.entry.item", "member", "field", 52, 52, "state"),
    ]


def test_service_symbols(root):
    assert symbols(root, SERVICE) == [
        ("maxOrders", "member", "constant", 5, 5, "state"),
        ("ErrFull", "member", "variable", 8, 8, "state"),
        ("Reader", "declaration", "interface", 12, 14, "contract"),
        ("Reader.Get", "function", "method", 13, 13, "contract"),
        ("Repository", "declaration", "interface", 17, 20, "contract"),
        ("Repository.Put", "function", "method", 19, 19, "contract"),
        ("OrderService", "declaration", "struct", 24, 27, "service"),
        ("OrderService.repo", "member", "field", 25, 25, "service"),
        ("OrderService.count", "member", "field", 26, 26, "service"),
        ("AuditedService", "declaration", "struct", 30, 33, "service"),
        ("AuditedService.log", "member", "field", 32, 32, "service"),
        ("NewOrderService", "function", "function", 35, 37, "generic"),
        ("OrderService.Get", "function", "method", 40, 42, "service"),
        ("OrderService.Place", "function", "method", 44, 52, "service"),
        ("nextID", "function", "function", 54, 56, "generic"),
    ]


def test_util_main_and_test_symbols(root):
    assert symbols(root, STRINGS) == [
        ("MaxLen", "member", "constant", 7, 7, "state"),
        ("minLen", "member", "constant", 8, 8, "state"),
        ("separator", "member", "variable", 11, 11, "state"),
        ("Slug", "function", "function", 14, 17, "utility"),
        ("truncate", "function", "function", 19, 24, "utility"),
    ]
    assert symbols(root, "main.go") == [
        ("main", "function", "function", 14, 19, "entrypoint"),
        ("run", "function", "function", 21, 23, "generic"),
        ("describe", "function", "function", 26, 28, "generic"),
    ]
    assert symbols(root, STRINGS_TEST) == [("TestSlug", "function", "function", 9, 13, "test")]
    assert symbols(root, STORE_TEST) == [
        ("newFilled", "function", "function", 6, 10, "test"),
        ("TestLen", "function", "function", 12, 16, "test"),
    ]


def test_module_nodes_docs_and_signatures(root):
    from tests.conftest import query

    rows = query(
        root,
        "SELECT id, name, qualified_name, type, kind, role FROM symbols WHERE id = file "
        "ORDER BY id",
    )
    assert rows == [
        (SERVICE, "service", "internal.store.service", "namespace", "module", "generic"),
        (STORE, "store", "internal.store.store", "namespace", "module", "generic"),
        (STORE_TEST, "store_test", "internal.store.store_test", "namespace", "module", "test"),
        ("main.go", "main", "main", "namespace", "module", "entrypoint"),
        (STRINGS, "strings", "pkg.util.strings", "namespace", "module", "utility"),
        (STRINGS_TEST, "strings_test", "pkg.util.strings_test", "namespace", "module", "test"),
    ]
    docs = dict(
        query(
            root,
            "SELECT qualified_name, doc || ' | ' || signature FROM symbols "
            "WHERE qualified_name IN ('Store', 'Store.Put', 'Reader', 'MaxLen', 'Store.items')",
        )
    )
    assert docs == {
        "Store": "Store keeps items by id, in insertion order. | type Store struct",
        "Store.Put": "Put stores an item under its slug. | func (s *Store) Put(it Item)",
        "Reader": "Reader reads items. | Reader interface",
        "MaxLen": "MaxLen bounds a slug. | MaxLen = 32",
        "Store.items": None,  # no comment: doc is NULL
    }


def test_contains_edges(root):
    contains = {e for e in edges(root, "contains") if e[0].startswith(STORE)}
    m = STORE
    assert contains == {
        (m, f"{m}::Item"),
        (m, f"{m}::Store"),
        (m, f"{m}::NewStore"),
        # a receiver method is contained by its type, declared in the same file
        (f"{m}::Store", f"{m}::Store.Put"),
        (f"{m}::Store", f"{m}::Store.append"),
        (f"{m}::Store", f"{m}::Store.Get"),
        (f"{m}::Store", f"{m}::Store.Len"),
        (f"{m}::Store", f"{m}::Store.Snapshot"),
        (f"{m}::Item", f"{m}::Item.ID"),
        (f"{m}::Item", f"{m}::Item.Name"),
        (f"{m}::Store", f"{m}::Store.mu"),
        (f"{m}::Store", f"{m}::Store.items"),
        (f"{m}::Store", f"{m}::Store.order"),
        (f"{m}::Store.Snapshot", f"{m}::Store.Snapshot.entry"),
        (f"{m}::Store.Snapshot.entry", f"{m}::Store.Snapshot.entry.key"),
        (f"{m}::Store.Snapshot.entry", f"{m}::Store.Snapshot.entry.item"),
    }


def test_imports_edges(root):
    assert edges(root, "imports") == {
        ("main.go", "dep::fmt"),
        ("main.go", "dep::os"),
        # a third-party path ending in /util is never bound to the project's pkg/util
        ("main.go", "dep::github.com/acme/kit/util"),
        # a package import binds every file of the folder but its _test.go files
        ("main.go", STORE),
        ("main.go", SERVICE),
        ("main.go", STRINGS),
        (STORE, "dep::sync"),
        (STORE, STRINGS),
        (SERVICE, "dep::errors"),
        (STRINGS, "dep::strings"),
        (STRINGS_TEST, "dep::testing"),
        # the external test package util_test binds util's non-test files
        (STRINGS_TEST, STRINGS),
        (STORE_TEST, "dep::testing"),
    }


def test_imports_skip_test_files(root):
    # A _test.go file, of the package (store_test.go) or of its external test package
    # (strings_test.go), is never part of the package another package imports.
    assert {e for e in edges(root, "imports") if e[1].endswith("_test.go")} == set()


def test_certain_calls_are_resolved(root):
    calls = {e for e in edges(root, "call") if not e[1].startswith("ext::")}
    assert calls == {
        ("main.go::main", f"{STORE}::NewStore"),  # store.NewStore()
        ("main.go::main", f"{STORE}::Item"),  # store.Item{...}
        ("main.go::main", f"{STRINGS}::Slug"),  # util.Slug()
        ("main.go::main", "main.go::run"),
        (f"{STORE}::NewStore", f"{STORE}::Store"),  # &Store{...}
        (f"{STORE}::Store.Put", f"{STRINGS}::Slug"),
        (f"{STORE}::Store.Put", f"{STORE}::Store.append"),  # s.append() on the receiver
        (f"{STORE}::Store.Snapshot", f"{STORE}::Store.Snapshot.entry"),  # entry{...}
        (f"{SERVICE}::NewOrderService", f"{SERVICE}::OrderService"),
        (f"{SERVICE}::OrderService.Place", f"{SERVICE}::nextID"),
        # Item{} in service.go is the struct declared in store.go (same package, same folder)
        (f"{SERVICE}::OrderService.Place", f"{STORE}::Item"),
        (f"{STRINGS}::Slug", f"{STRINGS}::truncate"),
        (f"{STRINGS_TEST}::TestSlug", f"{STRINGS}::Slug"),  # package util_test imports util
        # an internal test file sees its package's names
        (f"{STORE_TEST}::newFilled", f"{STORE}::NewStore"),
        (f"{STORE_TEST}::newFilled", f"{STORE}::Item"),
        (f"{STORE_TEST}::TestLen", f"{STORE_TEST}::newFilled"),
        # Type flow: what NewStore() declares it returns (*Store), a parameter's type
        ("main.go::main", f"{STORE}::Store.Put"),  # s := store.NewStore(); s.Put()
        (f"{STORE_TEST}::newFilled", f"{STORE}::Store.Put"),  # s := NewStore(); s.Put()
        (f"{STORE_TEST}::TestLen", f"{STORE}::Store.Len"),  # newFilled().Len()
        ("main.go::describe", f"{STORE}::Store.Len"),  # util *store.Store; util.Len()
        # A field through the receiver: o.repo is a Repository (its declared type), whose
        # Get comes from the Reader it embeds and whose Put is its own; each call also
        # reaches, ambiguous, the methods of the package's types implementing them.
        (f"{SERVICE}::OrderService.Get", f"{SERVICE}::Reader.Get"),
        (f"{SERVICE}::OrderService.Get", f"{STORE}::Store.Get"),
        (f"{SERVICE}::OrderService.Get", f"{SERVICE}::OrderService.Get"),
        (f"{SERVICE}::OrderService.Place", f"{SERVICE}::Repository.Put"),
        (f"{SERVICE}::OrderService.Place", f"{STORE}::Store.Put"),
    }
    assert edges(root, "inherits") == {
        (f"{SERVICE}::AuditedService", f"{SERVICE}::OrderService"),  # struct embedding
        (f"{SERVICE}::Repository", f"{SERVICE}::Reader"),  # interface embedding
    }
    # Implements by method set: Store and OrderService both have Get(key string) (Item,
    # bool), Reader's one method. Repository embeds Reader: its method set is Get and Put,
    # which Store has and OrderService has not.
    assert edges(root, "implements") == {
        (f"{STORE}::Store", f"{SERVICE}::Reader"),
        (f"{SERVICE}::OrderService", f"{SERVICE}::Reader"),
        (f"{STORE}::Store", f"{SERVICE}::Repository"),
    }


def test_same_package_other_file_is_resolved(root):
    from tests.conftest import query

    rows = query(
        root,
        "SELECT line, count, resolution FROM edges WHERE kind = 'call' AND src = ? AND dst = ?",
        [f"{SERVICE}::OrderService.Place", f"{STORE}::Item"],
    )
    assert rows == [(46, 2, "same_package")]  # Item{} on lines 46 and 49


def test_uncertain_calls_are_never_bound(root):

    rows = query(
        root,
        "SELECT src, dst, resolution FROM edges WHERE kind = 'call' AND starts_with(dst, 'ext::')",
    )
    by_dst = {(src.split("::", 1)[1], dst): res for src, dst, res in rows}
    # A parameter named like the imported package shadows it (its type binds the call:
    # test_certain_calls_are_resolved), so the package's name is never looked up.
    assert ("describe", "ext::util.Len") not in by_dst
    # A receiver call is the receiver type's method; a field through the receiver is the
    # field's declared type's (o.repo.Get: test_certain_calls_are_resolved), by that type
    # alone: Store.Get and OrderService.Get are reached as Reader's implementations only.
    assert ("Store.Put", "ext::s.append") not in by_dst
    assert ("OrderService.Get", "ext::o.repo.Get") not in by_dst
    rows = query(
        root,
        "SELECT resolution FROM edges WHERE kind = 'call' AND src = ? AND dst = ?",
        [f"{SERVICE}::OrderService.Get", f"{STORE}::Store.Get"],
    )
    assert rows == [("ambiguous",)]
    # Builtins are neither edges nor unresolved calls (the method named append is not
    # the builtin append either).
    assert not {dst for _src, dst in by_dst if dst in ("ext::append", "ext::len")}
    # Packages outside the module are external, with their full import path.
    assert by_dst[("main", "ext::fmt.Println")] == "external"
    assert by_dst[("run", "ext::github.com/acme/kit/util.Retry")] == "external"
    assert by_dst[("ErrFull", "ext::errors.New")] == "external"


def test_test_files_after_edits_rescan_equals_clean_scan(tmp_path):
    """A _test.go file coming, going or becoming a plain file of an imported package: an
    incremental scan equals a clean one, and no importer ever binds the test file."""
    from tests.conftest import copy_fixture, rescans_equal_clean
    from znt import api

    helper = "package util\n\nfunc Pad(s string) string { return s }\n"
    steps = [
        ("pkg/util/pad_test.go", helper),
        ("pkg/util/pad_test.go", None),
        ("pkg/util/pad.go", helper),
        ("pkg/util/pad.go", None),
    ]
    root = copy_fixture(LANG, tmp_path / "edited")
    api.scan(str(root))
    seen = set()
    for _ in rescans_equal_clean(root, tmp_path, steps):
        seen |= edges(root, "imports")
    assert ("main.go", "pkg/util/pad.go") in seen  # the edits did reach the importer
    assert not {e for e in seen if e[1].endswith("_test.go")}
