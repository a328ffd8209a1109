"""Java extraction on a fixture project: exact symbols, kinds, lines, roles and edges."""

from __future__ import annotations

import pytest

from tests.conftest import edges, scanned_copy, symbols

LANG = "lang/java"

MAIN = "src/main/java/com/acme"
APP = f"{MAIN}/App.java"
USER = f"{MAIN}/model/User.java"
SERVICE = f"{MAIN}/service/OrderService.java"
REPO = f"{MAIN}/store/Repository.java"
USER_REPO = f"{MAIN}/store/UserRepository.java"
TEST = "src/test/java/com/acme/store/UserRepositoryTest.java"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return scanned_copy(tmp_path_factory, LANG)


def test_user_symbols(root):
    assert symbols(root, USER) == [
        ("com.acme.model", "namespace", "package", 1, 1, "generic"),
        ("User", "declaration", "class", 4, 31, "generic"),
        ("User.MAX_NAME", "member", "constant", 5, 5, "state"),
        ("User.name", "member", "field", 7, 7, "state"),
        ("User.role", "member", "field", 8, 8, "state"),
        ("User.User", "function", "constructor", 10, 12, "generic"),
        ("User.getName", "function", "method", 14, 16, "generic"),
        ("User.rename", "function", "method", 18, 20, "generic"),
        ("User.normalizeName", "function", "method", 22, 25, "generic"),
        ("User.Role", "declaration", "enum", 27, 30, "generic"),
        ("User.Role.MEMBER", "member", "enum_member", 28, 28, "state"),
        ("User.Role.ADMIN", "member", "enum_member", 29, 29, "state"),
        ("Admin", "declaration", "class", 33, 41, "generic"),
        ("Admin.Admin", "function", "constructor", 34, 36, "generic"),
        ("Admin.demote", "function", "method", 38, 40, "generic"),
    ]


def test_store_symbols(root):
    assert symbols(root, REPO) == [
        ("com.acme.store", "namespace", "package", 1, 1, "generic"),
        ("Repository", "declaration", "interface", 3, 9, "contract"),
        ("Repository.get", "function", "method", 4, 4, "contract"),
        ("Repository.add", "function", "method", 6, 6, "contract"),
        ("Repository.size", "function", "method", 8, 8, "contract"),
    ]
    assert symbols(root, USER_REPO) == [
        ("com.acme.store", "namespace", "package", 1, 1, "generic"),
        ("UserRepository", "declaration", "class", 7, 36, "repository"),
        ("UserRepository.users", "member", "field", 8, 8, "repository"),
        ("UserRepository.withDefaults", "function", "method", 10, 14, "repository"),
        ("UserRepository.get", "function", "method", 16, 19, "repository"),  # from @Override
        ("UserRepository.add", "function", "method", 21, 24, "repository"),
        ("UserRepository.size", "function", "method", 26, 29, "repository"),
        ("UserRepository.create", "function", "method", 31, 35, "repository"),
    ]


def test_service_app_and_test_symbols(root):
    assert symbols(root, SERVICE) == [
        ("com.acme.service", "namespace", "package", 1, 1, "generic"),
        ("OrderService", "declaration", "class", 9, 45, "service"),
        ("OrderService.users", "member", "field", 10, 10, "service"),
        ("OrderService.receipts", "member", "field", 11, 11, "service"),
        ("OrderService.OrderService", "function", "constructor", 13, 15, "service"),
        ("OrderService.get", "function", "method", 18, 20, "service"),
        ("OrderService.register", "function", "method", 22, 27, "service"),
        ("OrderService.log", "function", "method", 29, 31, "service"),
        ("OrderService.label", "function", "method", 34, 36, "service"),
        ("OrderService.Receipt", "declaration", "class", 38, 44, "generic"),
        ("OrderService.Receipt.who", "member", "field", 39, 39, "state"),
        ("OrderService.Receipt.Receipt", "function", "constructor", 41, 43, "generic"),
    ]
    assert symbols(root, APP) == [
        ("com.acme", "namespace", "package", 1, 1, "entrypoint"),  # in an entry-point file
        ("App", "declaration", "class", 7, 13, "generic"),
        ("App.main", "function", "method", 8, 12, "entrypoint"),  # static main
    ]
    assert symbols(root, TEST) == [
        ("com.acme.store", "namespace", "package", 1, 1, "test"),
        ("UserRepositoryTest", "declaration", "class", 8, 15, "test"),
        ("UserRepositoryTest.addsUser", "function", "method", 9, 14, "test"),
    ]


def test_module_nodes_docs_and_signatures(root):
    from tests.conftest import query

    rows = query(
        root,
        "SELECT id, name, qualified_name, type, kind, role FROM symbols WHERE id = file "
        "ORDER BY id",
    )
    assert rows == [
        (APP, "App", "com.acme.App", "namespace", "module", "entrypoint"),
        (USER, "User", "com.acme.model.User", "namespace", "module", "generic"),
        (
            SERVICE,
            "OrderService",
            "com.acme.service.OrderService",
            "namespace",
            "module",
            "service",
        ),
        (REPO, "Repository", "com.acme.store.Repository", "namespace", "module", "repository"),
        (
            USER_REPO,
            "UserRepository",
            "com.acme.store.UserRepository",
            "namespace",
            "module",
            "repository",
        ),
        (
            TEST,
            "UserRepositoryTest",
            "com.acme.store.UserRepositoryTest",
            "namespace",
            "module",
            "test",
        ),
    ]
    rows = query(
        root,
        "SELECT id, doc, signature FROM symbols WHERE id IN (?, ?, ?, ?, ?) ORDER BY id",
        [
            f"{APP}::App",
            f"{USER}::User",
            f"{SERVICE}::OrderService.get",
            f"{USER_REPO}::UserRepository.get",
            f"{USER}::User.MAX_NAME",
        ],
    )
    assert rows == [
        (f"{APP}::App", "Registers a user from the command line.", "public class App"),
        (f"{USER}::User", "A person with an account.", "public class User"),
        (f"{USER}::User.MAX_NAME", None, "public static final int MAX_NAME = 40;"),
        (
            f"{SERVICE}::OrderService.get",
            "Same name as UserRepository.get: a call on a field is not bound to either.",
            "public User get(String id)",
        ),
        (f"{USER_REPO}::UserRepository.get", None, "@Override public User get(String id)"),
    ]


def test_contains_edges(root):
    m = USER_REPO
    contains = {e for e in edges(root, "contains") if e[0].startswith(m)}
    assert contains == {
        (m, f"{m}::com.acme.store"),
        (m, f"{m}::UserRepository"),
        (f"{m}::UserRepository", f"{m}::UserRepository.users"),
        (f"{m}::UserRepository", f"{m}::UserRepository.withDefaults"),
        (f"{m}::UserRepository", f"{m}::UserRepository.get"),
        (f"{m}::UserRepository", f"{m}::UserRepository.add"),
        (f"{m}::UserRepository", f"{m}::UserRepository.size"),
        (f"{m}::UserRepository", f"{m}::UserRepository.create"),
    }


def test_imports_edges(root):
    assert edges(root, "imports") == {
        (APP, SERVICE),
        (APP, USER_REPO),
        (SERVICE, USER),  # import com.acme.model.User and import static ...User.normalizeName
        (SERVICE, USER_REPO),
        (SERVICE, "dep::java.util"),  # import java.util.*: binds nothing
        (USER_REPO, USER),
        (USER_REPO, "dep::java.util"),  # HashMap and Map
        (TEST, USER),
        (TEST, "dep::org.junit.jupiter.api"),
        (TEST, "dep::org.junit.jupiter.api.Assertions"),  # a static import's class
    }


# A known gap, asserted in the xfail test below and left out of the exact set here: a name
# of the same package declared in another folder (src/test/... vs src/main/...).
SAME_PACKAGE_NEW = (f"{TEST}::UserRepositoryTest.addsUser", f"{USER_REPO}::UserRepository")


def test_certain_calls_are_resolved(root):
    calls = {e for e in edges(root, "call") if not e[1].startswith("ext::")}
    assert calls - {SAME_PACKAGE_NEW} == {
        (f"{APP}::App.main", f"{SERVICE}::OrderService"),  # new OrderService(...)
        # UserRepository.withDefaults(): a static call on an imported class
        (f"{APP}::App.main", f"{USER_REPO}::UserRepository.withDefaults"),
        (f"{USER}::User.User", f"{USER}::User.normalizeName"),
        # new User(...) inside class User: the class scope names the constructor first
        (f"{USER}::User.rename", f"{USER}::User.User"),
        (f"{SERVICE}::OrderService.get", f"{USER}::User.normalizeName"),  # static import
        (f"{SERVICE}::OrderService.register", f"{USER}::User.normalizeName"),
        (f"{SERVICE}::OrderService.register", f"{SERVICE}::OrderService.Receipt"),
        (f"{SERVICE}::OrderService.register", f"{SERVICE}::OrderService.log"),
        (f"{USER_REPO}::UserRepository.withDefaults", f"{USER_REPO}::UserRepository"),
        (f"{USER_REPO}::UserRepository.withDefaults", f"{USER}::User"),
        (f"{USER_REPO}::UserRepository.create", f"{USER}::User"),
        (f"{USER_REPO}::UserRepository.create", f"{USER_REPO}::UserRepository.add"),  # this.add
        (f"{TEST}::UserRepositoryTest.addsUser", f"{USER}::User"),
    }
    assert edges(root, "inherits") == {(f"{USER}::Admin", f"{USER}::User")}
    # Repository is declared in another file of the same folder and package, without import.
    assert edges(root, "implements") == {(f"{USER_REPO}::UserRepository", f"{REPO}::Repository")}


def test_same_package_other_file_is_resolved(root):
    from tests.conftest import query

    rows = query(
        root,
        "SELECT src, dst, line, resolution FROM edges WHERE resolution = 'same_package'",
    )
    # The test lives in src/test/... but declares the same package as src/main/...
    assert set(rows) == {
        (
            f"{TEST}::UserRepositoryTest.addsUser",
            f"{USER_REPO}::UserRepository",
            11,
            "same_package",
        ),
        (f"{USER_REPO}::UserRepository", f"{REPO}::Repository", 7, "same_package"),
    }


def test_same_package_names(root):
    # new UserRepository() in the test: the class of package com.acme.store in src/main.
    assert SAME_PACKAGE_NEW in edges(root, "call")


def test_uncertain_calls_are_never_bound(root):
    from tests.conftest import query

    rows = query(
        root,
        "SELECT src, dst, resolution FROM edges WHERE kind = 'call' AND starts_with(dst, 'ext::')",
    )
    by_dst = {(src.split("::", 1)[1], dst): res for src, dst, res in rows}
    # A parameter named like the imported class shadows it.
    assert by_dst[("OrderService.label", "ext::User.trim")] == "local"
    # A collection method named like the class's own get: never bound to it.
    assert by_dst[("UserRepository.get", "ext::users.get")] == "unresolved"
    assert by_dst[("OrderService.get", "ext::users.get")] == "unresolved"
    assert by_dst[("OrderService.register", "ext::receipts.add")] == "unresolved"
    assert by_dst[("Admin.demote", "ext::other.rename")] == "local"
    # A wildcard import binds nothing; a named one leaves the project with its full name.
    assert by_dst[("OrderService.receipts", "ext::ArrayList")] == "unresolved"
    assert by_dst[("UserRepository.users", "ext::java.util.HashMap")] == "external"
    assert (
        by_dst[
            ("UserRepositoryTest.addsUser", "ext::org.junit.jupiter.api.Assertions.assertEquals")
        ]
        == "external"
    )
    assert by_dst[("App.main", "ext::System.out.println")] == "unresolved"
