"""TypeScript extraction on a fixture project: exact symbols, kinds, lines, roles and edges."""

from __future__ import annotations

import pytest

from tests.conftest import edges, query, scanned_copy, symbols

LANG = "lang/typescript"
USER = "src/models/user.ts"
REPO = "src/repository.ts"
SERVICE = "src/user_service.ts"
CARD = "src/components/UserCard.tsx"
MAIN = "src/main.ts"
TEST = "tests/user_service.test.ts"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return scanned_copy(tmp_path_factory, LANG)


def test_model_symbols(root):
    assert symbols(root, USER) == [
        ("Role", "declaration", "enum", 3, 6, "model"),  # models/ folder
        ("Role.Reader", "member", "enum_member", 4, 4, "model"),
        ("Role.Editor", "member", "enum_member", 5, 5, "model"),
        ("UserId", "declaration", "type", 8, 8, "model"),
        ("Entity", "declaration", "interface", 10, 13, "contract"),
        ("Entity.id", "member", "field", 11, 11, "contract"),
        ("Entity.describe", "function", "method", 12, 12, "contract"),
        ("GUEST_NAME", "member", "constant", 15, 15, "state"),
        ("User", "declaration", "class", 17, 39, "model"),
        ("User.created", "member", "field", 18, 18, "model"),
        ("User.roles", "member", "field", 19, 19, "model"),
        ("User.constructor", "function", "constructor", 21, 23, "model"),
        ("User.describe", "function", "method", 25, 27, "model"),
        ("User.grant", "function", "method", 29, 34, "model"),
        ("User.can", "function", "method", 36, 38, "model"),
        ("Admin", "declaration", "class", 41, 45, "model"),
        ("Admin.describe", "function", "method", 42, 44, "model"),
        ("isAdmin", "function", "function", 47, 49, "model"),
    ]


def test_repository_and_service_symbols(root):
    assert symbols(root, REPO) == [
        ("Repository", "declaration", "interface", 6, 9, "contract"),
        ("Repository.get", "function", "method", 7, 7, "contract"),
        ("Repository.append", "function", "method", 8, 8, "contract"),
        ("UserRepository", "declaration", "class", 11, 25, "repository"),
        ("UserRepository.rows", "member", "field", 12, 12, "repository"),
        ("UserRepository.get", "function", "method", 14, 16, "repository"),
        ("UserRepository.append", "function", "method", 18, 20, "repository"),
        ("UserRepository.all", "function", "method", 22, 24, "repository"),
    ]
    assert symbols(root, SERVICE) == [
        ("BaseService", "declaration", "class", 6, 12, "service"),  # abstract class
        ("BaseService.name", "function", "method", 7, 7, "service"),  # abstract method
        ("BaseService.log", "function", "method", 9, 11, "service"),
        ("UserService", "declaration", "class", 14, 39, "service"),
        ("UserService.constructor", "function", "constructor", 15, 17, "service"),
        ("UserService.name", "function", "method", 19, 21, "service"),
        ("UserService.register", "function", "method", 23, 29, "service"),
        ("UserService.promote", "function", "method", 31, 34, "service"),
        ("UserService.guest", "function", "method", 36, 38, "service"),
        ("Defaults", "namespace", "namespace", 41, 47, "generic"),
        ("Defaults.PAGE_SIZE", "member", "constant", 42, 42, "state"),
        ("Defaults.service", "function", "function", 44, 46, "generic"),
    ]


def test_component_main_and_test_symbols(root):
    assert symbols(root, CARD) == [
        ("UserCardProps", "declaration", "interface", 4, 7, "contract"),
        ("UserCardProps.user", "member", "field", 5, 5, "contract"),
        ("UserCardProps.onSelect", "member", "field", 6, 6, "contract"),
        ("UserCard", "function", "function", 9, 12, "generic"),
        ("UserList", "function", "function", 14, 24, "generic"),  # const f = () => ...
    ]
    assert symbols(root, MAIN) == [
        ("parseArgs", "function", "function", 5, 7, "generic"),
        ("greet", "function", "function", 10, 13, "generic"),
        ("main", "function", "function", 15, 20, "entrypoint"),
    ]
    assert symbols(root, TEST) == [("freshService", "function", "function", 5, 7, "test")]


def test_module_nodes_docs_and_signatures(root):
    rows = query(
        root,
        "SELECT id, qualified_name, type, kind, role FROM symbols WHERE id = file ORDER BY id",
    )
    assert rows == [
        (CARD, "src.components.UserCard", "namespace", "module", "generic"),
        (MAIN, "src.main", "namespace", "module", "entrypoint"),
        (USER, "src.models.user", "namespace", "module", "model"),
        (REPO, "src.repository", "namespace", "module", "generic"),
        (SERVICE, "src.user_service", "namespace", "module", "generic"),
        (TEST, "tests.user_service.test", "namespace", "module", "test"),
    ]
    names = dict(query(root, "SELECT id, name FROM symbols WHERE id = file AND id <> ?", [TEST]))
    assert names == {
        CARD: "UserCard",
        MAIN: "main",
        USER: "user",
        REPO: "repository",
        SERVICE: "user_service",
    }
    # Every file parsed cleanly, .tsx with the tsx grammar.
    assert query(root, "SELECT DISTINCT language, status FROM files") == [("typescript", "ok")]
    doc, sig = query(
        root, "SELECT doc, signature FROM symbols WHERE id = ?", [f"{REPO}::Repository"]
    )[0]
    assert (doc, sig) == ("Storage for entities with an id.", "interface Repository<T>")
    doc, sig = query(root, "SELECT doc, signature FROM symbols WHERE id = ?", [f"{MAIN}::greet"])[0]
    assert (doc, sig) == (
        "A local arrow function named like the top-level function shadows it.",
        "function greet(service: UserService, text: string): string",
    )


def test_contains_edges(root):
    contains = {e for e in edges(root, "contains") if e[0].startswith(SERVICE)}
    s = SERVICE
    assert contains == {
        (s, f"{s}::BaseService"),
        (s, f"{s}::UserService"),
        (s, f"{s}::Defaults"),
        (f"{s}::BaseService", f"{s}::BaseService.name"),
        (f"{s}::BaseService", f"{s}::BaseService.log"),
        (f"{s}::UserService", f"{s}::UserService.constructor"),
        (f"{s}::UserService", f"{s}::UserService.name"),
        (f"{s}::UserService", f"{s}::UserService.register"),
        (f"{s}::UserService", f"{s}::UserService.promote"),
        (f"{s}::UserService", f"{s}::UserService.guest"),
        (f"{s}::Defaults", f"{s}::Defaults.PAGE_SIZE"),
        (f"{s}::Defaults", f"{s}::Defaults.service"),
    }


def test_imports_edges(root):
    assert edges(root, "imports") == {
        (REPO, USER),  # import type + export type ... from
        (SERVICE, "dep::node:crypto"),
        (SERVICE, USER),  # named and namespace imports of the same file
        (SERVICE, REPO),  # { UserRepository, type Repository }
        (CARD, "dep::react"),
        (CARD, USER),
        (MAIN, "dep::node:path"),  # import path = require("node:path")
        (MAIN, SERVICE),
        (MAIN, USER),
        (TEST, "dep::vitest"),
        (TEST, SERVICE),
        (TEST, REPO),
    }


def test_certain_calls_are_resolved(root):
    calls = {e for e in edges(root, "call") if not e[1].startswith("ext::")}
    assert calls == {
        # same file: this.m(), bare names, a class in scope, a JSX component
        (f"{USER}::User.grant", f"{USER}::User.can"),  # this.can(role)
        (f"{SERVICE}::BaseService.log", f"{SERVICE}::BaseService.name"),  # this.name()
        (f"{SERVICE}::Defaults.service", f"{SERVICE}::UserService"),
        (f"{CARD}::UserList", f"{CARD}::UserCard"),  # <UserCard user={u} />
        (f"{MAIN}::main", f"{MAIN}::parseArgs"),
        (f"{MAIN}::main", f"{MAIN}::greet"),
        (MAIN, f"{MAIN}::main"),  # top-level main()
        (TEST, f"{TEST}::freshService"),
        # through imports: named, namespace (models.User), a namespace's member
        (f"{SERVICE}::UserService.constructor", f"{REPO}::UserRepository"),
        (f"{SERVICE}::UserService.register", f"{USER}::Admin"),
        (f"{SERVICE}::UserService.register", f"{USER}::User"),
        (f"{SERVICE}::UserService.promote", f"{USER}::isAdmin"),
        (f"{SERVICE}::UserService.guest", f"{USER}::User"),
        (f"{MAIN}::main", f"{SERVICE}::Defaults.service"),  # Defaults.service()
        (f"{TEST}::freshService", f"{SERVICE}::UserService"),
        (f"{TEST}::freshService", f"{REPO}::UserRepository"),
        # new C() also runs C's constructor
        ("src/user_service.ts::UserService.guest", "src/models/user.ts::User.constructor"),
        ("src/user_service.ts::UserService.register", "src/models/user.ts::User.constructor"),
        ("src/user_service.ts::Defaults.service", "src/user_service.ts::UserService.constructor"),
        (
            "tests/user_service.test.ts::freshService",
            "src/user_service.ts::UserService.constructor",
        ),
    }
    assert edges(root, "inherits") == {
        (f"{USER}::Admin", f"{USER}::User"),
        (f"{SERVICE}::UserService", f"{SERVICE}::BaseService"),
    }
    assert edges(root, "implements") == {
        (f"{USER}::User", f"{USER}::Entity"),
        (f"{REPO}::UserRepository", f"{REPO}::Repository"),  # Repository<User>
    }


def test_uncertain_calls_are_never_bound(root):
    def resolution(src: str, dst: str) -> str:
        rows = query(
            root,
            "SELECT resolution FROM edges WHERE kind = 'call' AND src = ? AND dst = ?",
            [src, dst],
        )
        assert len(rows) == 1, (src, dst)
        return str(rows[0][0])

    # A local arrow function named like the top-level function shadows it.
    assert resolution(f"{MAIN}::greet", "ext::parseArgs") == "local"
    # Methods called on locals and parameters: User.describe/Admin.describe and
    # Repository.get/UserRepository.get are never picked by name.
    assert resolution(f"{SERVICE}::UserService.register", "ext::user.describe") == "local"
    assert resolution(f"{SERVICE}::UserService.register", "ext::user.grant") == "local"
    assert resolution(f"{MAIN}::main", "ext::service.register") == "local"
    assert resolution(f"{CARD}::UserCard", "ext::onSelect") == "local"  # onSelect?.(...)
    # Through a field of this (a constructor parameter property): type unknown.
    assert resolution(f"{SERVICE}::UserService.promote", "ext::this.users.get") == "unresolved"
    assert resolution(f"{SERVICE}::UserService.register", "ext::this.users.append") == "unresolved"
    # An inherited method is not looked up in the base class.
    assert resolution(f"{SERVICE}::UserService.register", "ext::this.log") == "unresolved"
    assert resolution(f"{USER}::Admin.describe", "ext::super.describe") == "unresolved"
    # External packages keep their full name.
    assert (
        resolution(f"{SERVICE}::UserService.register", "ext::node:crypto.randomUUID") == "external"
    )
    assert resolution(f"{MAIN}::main", "ext::node:path.join") == "external"
    assert resolution(f"{CARD}::UserList", "ext::react.Fragment") == "external"
    assert resolution(TEST, "ext::vitest.describe") == "external"
    # Lower-case JSX tags are HTML elements, not references.
    tags = "SELECT count(*) FROM edges WHERE dst IN ('ext::button', 'ext::ul', 'ext::li')"
    assert query(root, tags) == [(0,)]


def test_import_candidates_and_grammar():
    from znt.index.lang.typescript import SPEC
    from znt.index.languages import Candidate, ImportRef

    assert SPEC.grammar_for("src/a.tsx") == "tsx"
    assert SPEC.grammar_for("src/a.ts") == "typescript"
    cands = SPEC.import_candidates

    # ESM style: ./x.js names the x.ts it is compiled from.
    assert cands("src/a.ts", ImportRef("./x.js", "X", None)) == [
        Candidate("src/x.js", member="X"),
        Candidate("src/x.ts", member="X"),
        Candidate("src/x.tsx", member="X"),
    ]
    # Extensionless: file with each extension, then a folder's index file.
    paths = [c.path for c in cands("src/a.ts", ImportRef("../lib", None, "lib"))]
    assert paths[:3] == ["lib.ts", "lib.tsx", "lib.d.ts"]
    assert "lib/index.ts" in paths and "lib/index.js" in paths
    # A default import looks up the `default` member, which no symbol is named.
    assert {c.member for c in cands("src/a.ts", ImportRef("./x", None, "X"))} == {"default"}
    assert {c.member for c in cands("src/a.ts", ImportRef("./x", "*", "ns"))} == {None}
    # Bare specifiers, aliases and paths leaving the project bind no project file.
    assert cands("src/a.ts", ImportRef("react", None, "React")) == []
    assert cands("src/a.ts", ImportRef("@/models/user", "User", None)) == []
    assert cands("src/a.ts", ImportRef("../../outside", "X", None)) == []
