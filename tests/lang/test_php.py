"""PHP extraction on a fixture project: exact symbols, kinds, lines, roles and edges."""

from __future__ import annotations

import pytest

from tests.conftest import edges, query, scanned_copy, symbols

LANG = "lang/php"
USER = "app/Models/User.php"
REPO = "app/Repositories/UserRepository.php"
ORDERS = "app/Services/OrderService.php"
HELPERS = "app/Support/helpers.php"
INDEX = "index.php"
TEST = "tests/UserRepositoryTest.php"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return scanned_copy(tmp_path_factory, LANG)


def test_models_symbols(root):
    assert symbols(root, USER) == [
        ("App\\Models", "namespace", "namespace", 3, 3, "generic"),
        ("User", "declaration", "class", 10, 38, "generic"),
        ("User.ROLE", "member", "constant", 12, 12, "state"),
        ("User.name", "member", "property", 14, 14, "state"),
        # `protected array $tags = [], $notes = [];` declares two properties.
        ("User.tags", "member", "property", 15, 15, "state"),
        ("User.notes", "member", "property", 15, 15, "state"),
        ("User.__construct", "function", "constructor", 17, 20, "generic"),
        ("User.rename", "function", "method", 22, 27, "generic"),
        ("User.validate", "function", "method", 29, 32, "generic"),
        ("User.jsonSerialize", "function", "method", 34, 37, "generic"),
        ("Admin", "declaration", "class", 40, 51, "generic"),
        ("Admin.promote", "function", "method", 42, 45, "generic"),
        ("Admin.make", "function", "method", 47, 50, "generic"),
    ]


def test_other_symbols(root):
    assert symbols(root, REPO) == [
        ("App\\Repositories", "namespace", "namespace", 3, 3, "generic"),
        ("UserRepository", "declaration", "class", 9, 35, "repository"),
        ("UserRepository.users", "member", "property", 12, 12, "repository"),
        ("UserRepository.add", "function", "method", 14, 17, "repository"),
        ("UserRepository.get", "function", "method", 19, 22, "repository"),
        ("UserRepository.count", "function", "method", 24, 27, "repository"),
        ("UserRepository.register", "function", "method", 29, 34, "repository"),
    ]
    assert symbols(root, ORDERS) == [
        ("App\\Services", "namespace", "namespace", 3, 3, "generic"),
        ("Billing", "declaration", "interface", 9, 12, "contract"),
        ("Billing.total", "function", "method", 11, 11, "contract"),
        ("OrderService", "declaration", "class", 14, 43, "service"),
        ("OrderService.orders", "member", "property", 16, 16, "service"),
        ("OrderService.__construct", "function", "constructor", 18, 20, "service"),
        ("OrderService.add", "function", "method", 22, 29, "service"),
        ("OrderService.total", "function", "method", 31, 34, "service"),
        ("OrderService.forAdmin", "function", "method", 36, 42, "service"),
    ]
    assert symbols(root, HELPERS) == [
        ("SEPARATOR", "member", "constant", 3, 3, "state"),
        ("slugify", "function", "function", 5, 8, "generic"),
        ("format_name", "function", "function", 10, 18, "generic"),
        ("format_name.squeeze", "function", "function", 12, 15, "generic"),
    ]
    assert symbols(root, INDEX) == [
        ("config", "member", "variable", 9, 9, "state"),
        ("main", "function", "function", 11, 17, "entrypoint"),
    ]
    assert symbols(root, TEST) == [
        ("Tests", "namespace", "namespace", 3, 3, "test"),
        ("UserRepositoryTest", "declaration", "class", 8, 16, "test"),
        ("UserRepositoryTest.testRegisterAddsUser", "function", "method", 10, 15, "test"),
    ]


def test_module_nodes_docs_and_signatures(root):
    rows = query(
        root,
        "SELECT id, name, qualified_name, type, kind, role FROM symbols "
        "WHERE id = file ORDER BY id",
    )
    assert rows == [
        (USER, "User", "app.Models.User", "namespace", "module", "generic"),
        (
            REPO,
            "UserRepository",
            "app.Repositories.UserRepository",
            "namespace",
            "module",
            "repository",
        ),
        (ORDERS, "OrderService", "app.Services.OrderService", "namespace", "module", "service"),
        (HELPERS, "helpers", "app.Support.helpers", "namespace", "module", "generic"),
        (INDEX, "index", "index", "namespace", "module", "entrypoint"),
        (TEST, "UserRepositoryTest", "tests.UserRepositoryTest", "namespace", "module", "test"),
    ]
    doc, sig = query(root, "SELECT doc, signature FROM symbols WHERE id = ?", [f"{USER}::User"])[0]
    assert (doc, sig) == ("A registered customer.", "class User implements JsonSerializable")
    doc, sig = query(
        root, "SELECT doc, signature FROM symbols WHERE id = ?", [f"{REPO}::UserRepository.users"]
    )[0]
    assert (doc, sig) == ("@var array<string, User>", "private array $users = [];")


def test_contains_edges(root):
    contains = {e for e in edges(root, "contains") if e[0].startswith(USER)}
    m = USER
    assert contains == {
        (m, f"{m}::App\\Models"),
        (m, f"{m}::User"),
        (m, f"{m}::Admin"),
        (f"{m}::User", f"{m}::User.ROLE"),
        (f"{m}::User", f"{m}::User.name"),
        (f"{m}::User", f"{m}::User.tags"),
        (f"{m}::User", f"{m}::User.notes"),
        (f"{m}::User", f"{m}::User.__construct"),
        (f"{m}::User", f"{m}::User.rename"),
        (f"{m}::User", f"{m}::User.validate"),
        (f"{m}::User", f"{m}::User.jsonSerialize"),
        (f"{m}::Admin", f"{m}::Admin.promote"),
        (f"{m}::Admin", f"{m}::Admin.make"),
    }


def test_imports_edges(root):
    assert edges(root, "imports") == {
        (USER, "dep::JsonSerializable"),  # a global class: no file
        (REPO, USER),  # use App\Models\User -> app/Models/User.php (App\ -> app/)
        (REPO, HELPERS),  # require_once __DIR__ . '/../Support/helpers.php'
        (ORDERS, USER),  # use App\Models\{Admin, User}: User has its own file...
        (ORDERS, "dep::App\\Models"),  # ...Admin has none (it sits in User.php): not guessed
        (ORDERS, REPO),  # use App\Repositories\UserRepository as Users
        (ORDERS, "dep::Psr\\Log"),
        (INDEX, "dep::/vendor/autoload.php"),  # vendor/ is excluded
        (INDEX, HELPERS),  # require 'app/Support/helpers.php'
        (INDEX, REPO),
        (INDEX, ORDERS),
        (TEST, REPO),
        (TEST, "dep::PHPUnit\\Framework"),
    }


def test_certain_calls_are_resolved(root):
    calls = {e for e in edges(root, "call") if not e[1].startswith("ext::")}
    assert calls == {
        (f"{USER}::Admin.make", f"{USER}::Admin"),  # new Admin(): a class in scope
        (f"{USER}::User.rename", f"{USER}::User.validate"),  # $this->validate()
        (f"{REPO}::UserRepository.register", f"{USER}::User"),  # new User() via use
        (f"{REPO}::UserRepository.register", f"{REPO}::UserRepository.add"),  # $this->add()
        (f"{ORDERS}::OrderService.forAdmin", f"{ORDERS}::OrderService"),
        (f"{ORDERS}::OrderService.forAdmin", f"{REPO}::UserRepository"),  # alias Users
        (f"{HELPERS}::format_name", f"{HELPERS}::format_name.squeeze"),  # nested function
        (INDEX, f"{INDEX}::main"),  # a script-level call
        (f"{INDEX}::main", f"{REPO}::UserRepository"),
        (f"{INDEX}::main", f"{ORDERS}::OrderService"),
        (f"{TEST}::UserRepositoryTest.testRegisterAddsUser", f"{REPO}::UserRepository"),
        # new C() also runs __construct, C's own or its base's (new Admin: User's); new Users()
        # (UserRepository, which has none) gets no constructor edge
        (f"{USER}::Admin.make", f"{USER}::User.__construct"),
        (f"{REPO}::UserRepository.register", f"{USER}::User.__construct"),
        (f"{ORDERS}::OrderService.forAdmin", f"{ORDERS}::OrderService.__construct"),
        (f"{INDEX}::main", f"{ORDERS}::OrderService.__construct"),
    }
    assert edges(root, "inherits") == {
        (f"{USER}::Admin", f"{USER}::User"),
        (f"{TEST}::UserRepositoryTest", "ext::PHPUnit\\Framework.TestCase"),
    }
    assert edges(root, "implements") == {
        (f"{USER}::User", "ext::JsonSerializable"),
        (f"{ORDERS}::OrderService", f"{ORDERS}::Billing"),
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
    assert rows["format_name", "ext::slugify"] == "local"
    # A builtin called inside a method of the same name is not bound to the method.
    assert rows["UserRepository.count", "ext::count"] == "unresolved"
    # A function of an included file is not bound by name alone.
    assert rows["UserRepository.add", "ext::slugify"] == "unresolved"
    assert rows["main", "ext::slugify"] == "unresolved"
    assert rows["format_name.squeeze", "ext::preg_replace"] == "unresolved"
    # Calls on a property: `?->` is a separator like `->`.
    assert rows["OrderService.add", "ext::this.logger.info"] == "unresolved"
    assert rows["OrderService.add", "ext::this.users.get"] == "unresolved"
    # An inherited method called on $this, from a class outside the file.
    assert rows["UserRepositoryTest.testRegisterAddsUser", "ext::this.assertSame"] == "unresolved"
    # Methods called on a parameter or a local (`$other->rename()`, `$service->add()`,
    # `$repo->count()`) are never bound to a project method of that name.
    calls = edges(root, "call")
    for src, dst in [
        (f"{USER}::Admin.promote", f"{USER}::User.rename"),
        (f"{INDEX}::main", f"{ORDERS}::OrderService.add"),
        (f"{ORDERS}::OrderService.forAdmin", f"{ORDERS}::OrderService.add"),
        (f"{TEST}::UserRepositoryTest.testRegisterAddsUser", f"{REPO}::UserRepository.count"),
    ]:
        assert (src, dst) not in calls
