"""Rust extraction on a fixture crate: exact symbols, kinds, lines, roles and edges."""

from __future__ import annotations

import pytest

from tests.conftest import edges, query, scanned_copy, symbols

LANG = "lang/rust"
MAIN = "src/main.rs"
MODELS = "src/models.rs"
SERVICES = "src/services.rs"
STORE = "src/store/mod.rs"
CACHE = "src/store/cache.rs"
CLI = "tests/cli.rs"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return scanned_copy(tmp_path_factory, LANG)


def test_models_symbols(root):
    # Items of `impl User` / `impl Describe for User` are named `User.item`, and are owned
    # by the type when the same file declares it.
    assert symbols(root, MODELS) == [
        ("MAX_AMOUNT", "member", "constant", 3, 3, "state"),
        ("Role", "declaration", "enum", 7, 10, "generic"),
        ("Role.Guest", "member", "enum_member", 8, 8, "state"),
        ("Role.Member", "member", "enum_member", 9, 9, "state"),
        ("User", "declaration", "struct", 13, 16, "generic"),
        ("User.name", "member", "field", 14, 14, "state"),
        ("User.role", "member", "field", 15, 15, "state"),
        ("User.new", "function", "method", 19, 21, "generic"),
        ("User.validate", "function", "method", 23, 25, "generic"),
        ("User.promote", "function", "method", 27, 31, "generic"),
        ("Order", "declaration", "struct", 34, 37, "generic"),
        ("Order.id", "member", "field", 35, 35, "state"),
        ("Order.amount", "member", "field", 36, 36, "state"),
        ("Order.new", "function", "method", 40, 42, "generic"),
        ("Order.total", "function", "method", 44, 46, "generic"),
        ("Order.validate", "function", "method", 48, 50, "generic"),
        ("Describe", "declaration", "trait", 54, 60, "contract"),
        ("Describe.describe", "function", "method", 55, 55, "contract"),
        ("Describe.shout", "function", "method", 57, 59, "contract"),
        ("User.describe", "function", "method", 63, 65, "generic"),
        ("Order.fmt", "function", "method", 69, 71, "generic"),
    ]


def test_other_symbols(root):
    assert symbols(root, MAIN) == [
        ("main", "function", "function", 11, 20, "entrypoint"),
        ("report", "function", "function", 22, 31, "generic"),
        ("report.banner", "function", "function", 23, 25, "generic"),
    ]
    assert symbols(root, CACHE) == [
        ("Cache", "declaration", "struct", 5, 7, "generic"),
        ("Cache.hits", "member", "field", 6, 6, "state"),
        ("Cache.default", "function", "method", 10, 12, "generic"),
        ("Cache.touch", "function", "method", 16, 20, "generic"),
        ("Cache.warm", "function", "method", 22, 26, "generic"),
    ]
    assert symbols(root, CLI) == [("prints_user_summary", "function", "function", 4, 7, "test")]
    # The methods of `impl UserRepository` / `impl OrderService` play their type's role.
    assert symbols(root, STORE) == [
        ("UserRepository", "declaration", "struct", 8, 11, "repository"),
        ("UserRepository.users", "member", "field", 9, 9, "repository"),
        ("UserRepository.cache", "member", "field", 10, 10, "repository"),
        ("UserRepository.new", "function", "method", 14, 16, "repository"),
        ("UserRepository.register", "function", "method", 18, 23, "repository"),
        ("UserRepository.add", "function", "method", 25, 27, "repository"),
        ("UserRepository.get", "function", "method", 29, 31, "repository"),
        ("UserRepository.len", "function", "method", 33, 35, "repository"),
        ("tests", "namespace", "module", 39, 48, "generic"),  # an inline module
        ("tests.test_register_adds_user", "function", "function", 43, 47, "test"),
    ]
    assert symbols(root, SERVICES) == [
        ("OrderService", "declaration", "struct", 3, 6, "service"),
        ("OrderService.orders", "member", "field", 4, 4, "service"),
        ("OrderService.next_id", "member", "field", 5, 5, "service"),
        ("OrderService.new", "function", "method", 9, 11, "service"),
        ("OrderService.place", "function", "method", 13, 18, "service"),
        ("OrderService.get", "function", "method", 20, 22, "service"),
        ("discount", "function", "function", 25, 27, "generic"),
        ("apply", "function", "function", 29, 31, "generic"),
        # a method of an impl for a type of another file: named by the impl, owned by none
        ("Order.default", "function", "method", 35, 37, "generic"),
    ]


def test_module_nodes_and_docs(root):
    rows = query(
        root,
        "SELECT id, name, qualified_name, type, kind, role FROM symbols "
        "WHERE id = file ORDER BY id",
    )
    assert rows == [
        (MAIN, "main", "main", "namespace", "module", "entrypoint"),
        (MODELS, "models", "models", "namespace", "module", "generic"),
        (SERVICES, "services", "services", "namespace", "module", "generic"),
        (CACHE, "cache", "store.cache", "namespace", "module", "generic"),
        (STORE, "store", "store", "namespace", "module", "generic"),
        (CLI, "cli", "tests.cli", "namespace", "module", "test"),
    ]
    doc, sig = query(
        root, "SELECT doc, signature FROM symbols WHERE id = ?", [f"{MODELS}::Describe"]
    )[0]
    assert (doc, sig) == ("Something that can describe itself.", "pub trait Describe: fmt::Debug")
    sig = query(root, "SELECT signature FROM symbols WHERE id = ?", [f"{MODELS}::Order.new"])
    assert sig == [("pub fn new(id: u32, amount: u32) -> Self",)]


def test_contains_edges(root):
    contains = {e for e in edges(root, "contains") if e[0].startswith(MODELS)}
    m = MODELS
    # An impl block is not a symbol: its items hang from the type of the same file,
    # `impl Trait for Type` included.
    assert contains == {
        (m, f"{m}::MAX_AMOUNT"),
        (m, f"{m}::Role"),
        (m, f"{m}::User"),
        (m, f"{m}::Order"),
        (m, f"{m}::Describe"),
        (f"{m}::Role", f"{m}::Role.Guest"),
        (f"{m}::Role", f"{m}::Role.Member"),
        (f"{m}::User", f"{m}::User.name"),
        (f"{m}::User", f"{m}::User.role"),
        (f"{m}::User", f"{m}::User.new"),
        (f"{m}::User", f"{m}::User.validate"),
        (f"{m}::User", f"{m}::User.promote"),
        (f"{m}::User", f"{m}::User.describe"),
        (f"{m}::Order", f"{m}::Order.id"),
        (f"{m}::Order", f"{m}::Order.amount"),
        (f"{m}::Order", f"{m}::Order.new"),
        (f"{m}::Order", f"{m}::Order.total"),
        (f"{m}::Order", f"{m}::Order.validate"),
        (f"{m}::Order", f"{m}::Order.fmt"),
        (f"{m}::Describe", f"{m}::Describe.describe"),
        (f"{m}::Describe", f"{m}::Describe.shout"),
    }


def test_imports_edges(root):
    assert edges(root, "imports") == {
        (MAIN, MODELS),  # mod models; use crate::models::Order;
        (MAIN, SERVICES),  # mod services; use crate::services::OrderService;
        (MAIN, STORE),  # mod store; -> src/store/mod.rs
        (MAIN, "dep::std"),  # use std::env;
        (MODELS, "dep::std"),  # use std::fmt;
        (SERVICES, MODELS),  # use crate::models::{Order, User as Customer};
        (STORE, CACHE),  # mod cache; use self::cache::Cache;
        (STORE, MODELS),
        (STORE, "dep::std::collections"),
        (CACHE, STORE),  # use super::UserRepository;
        (CACHE, "dep::std::collections"),
        (CLI, "dep::std::process"),
    }


def test_certain_calls_are_resolved(root):
    calls = {e for e in edges(root, "call") if not e[1].startswith("ext::")}
    assert calls == {
        (f"{MAIN}::main", f"{STORE}::UserRepository.new"),  # UserRepository::new()
        (f"{MAIN}::main", f"{SERVICES}::OrderService.new"),
        (f"{MAIN}::main", f"{MODELS}::Order.new"),
        (f"{MAIN}::main", f"{MAIN}::report"),
        (f"{MAIN}::report", f"{MAIN}::report.banner"),  # nested fn
        (f"{MODELS}::User.new", f"{MODELS}::User"),  # struct literal User { .. }
        (f"{MODELS}::Order.new", f"{MODELS}::Order"),
        (f"{MODELS}::Describe.shout", f"{MODELS}::Describe.describe"),  # self in a trait
        (f"{MODELS}::User.promote", f"{MODELS}::User.validate"),  # self in an impl
        (f"{SERVICES}::OrderService.new", f"{SERVICES}::OrderService"),
        (f"{SERVICES}::OrderService.place", f"{MODELS}::Order.new"),
        (f"{SERVICES}::OrderService.place", f"{SERVICES}::apply"),
        (f"{SERVICES}::Order.default", f"{MODELS}::Order"),  # Order { .. }, the imported type
        (f"{STORE}::UserRepository.new", f"{STORE}::UserRepository"),
        (f"{STORE}::UserRepository.new", f"{CACHE}::Cache.default"),  # self::cache::Cache
        (f"{STORE}::UserRepository.register", f"{MODELS}::User.new"),
        (f"{STORE}::UserRepository.register", f"{STORE}::UserRepository.add"),  # self.add
        # UserRepository::new() in `mod tests { use super::*; }`: the type of the same file
        (f"{STORE}::tests.test_register_adds_user", f"{STORE}::UserRepository.new"),
        (f"{CACHE}::Cache.warm", f"{CACHE}::Cache.touch"),  # self.touch
        (f"{CACHE}::Cache.default", f"{CACHE}::Cache"),
    }
    assert edges(root, "inherits") == {(f"{MODELS}::Describe", "ext::std.fmt.Debug")}
    # `impl Trait for Type` starts at the type when the file declares it, else at the file.
    assert edges(root, "implements") == {
        (f"{MODELS}::User", f"{MODELS}::Describe"),
        (f"{MODELS}::Order", "ext::std.fmt.Display"),
        (f"{CACHE}::Cache", "ext::Default"),
        (SERVICES, "ext::Default"),  # impl Default for Order: Order is models.rs's
    }


def test_uncertain_calls_are_never_bound(root):
    rows = {
        (src.split("::")[-1], dst): res
        for src, dst, res in query(
            root,
            "SELECT src, dst, resolution FROM edges "
            "WHERE kind = 'call' AND starts_with(dst, 'ext::')",
        )
    }
    # A parameter named like a function of the same file shadows it.
    assert rows["apply", "ext::discount"] == "local"
    # A closure bound to a local named like a method (`len`) is not that method.
    assert rows["report", "ext::len"] == "local"
    # Methods called on locals and parameters: the receiver's type is unknown.
    assert rows["main", "ext::repo.register"] == "local"
    assert rows["Cache.warm", "ext::repo.get"] == "local"
    assert rows["OrderService.place", "ext::customer.name.len"] == "local"
    # Collection methods named like project methods (get, len, push) are not bound.
    assert rows["UserRepository.get", "ext::self.users.get"] == "unresolved"
    assert rows["UserRepository.len", "ext::self.users.len"] == "unresolved"
    assert rows["OrderService.place", "ext::self.orders.push"] == "unresolved"
    # A method called on a field is not the field type's method, nor the impl's own.
    assert rows["UserRepository.register", "ext::self.cache.touch"] == "unresolved"
    # Calls through an external import keep the full path.
    assert rows["main", "ext::std.env.args"] == "external"
    assert rows["Cache.default", "ext::std::collections.HashMap.new"] == "external"
    # Two types define `validate`: a call is never bound to the other type's method.
    for src, dst in edges(root, "call"):
        if dst in (f"{MODELS}::User.validate", f"{MODELS}::Order.validate"):
            assert src.split("::")[-1].split(".")[0] == dst.split("::")[-1].split(".")[0]


def test_impl_trait_for_type_starts_at_the_type(root):
    assert (f"{MODELS}::User", f"{MODELS}::Describe") in edges(root, "implements")


@pytest.mark.xfail(strict=True, reason="engine: an attribute separates an item from its doc")
def test_doc_before_attributes(root):
    rows = query(root, "SELECT doc FROM symbols WHERE id = ?", [f"{MODELS}::Role"])
    assert rows == [("Who may place orders.",)]
