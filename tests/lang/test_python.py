"""Python extraction on a fixture project: exact symbols, kinds, lines, roles and edges."""

from __future__ import annotations

import pytest

from tests.conftest import edges, scanned_copy, symbols

LANG = "lang/python"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return scanned_copy(tmp_path_factory, LANG)


def test_models_symbols(root):
    assert symbols(root, "app/core/models.py") == [
        ("DEFAULT_NAME", "member", "constant", 5, 5, "state"),
        ("User", "declaration", "class", 9, 20, "model"),  # @dataclass -> model
        ("User.name", "member", "field", 12, 12, "model"),
        ("User.active", "member", "field", 13, 13, "model"),
        ("User.rename", "function", "method", 15, 17, "model"),
        ("User.validate", "function", "method", 19, 20, "model"),
        ("Admin", "declaration", "class", 23, 26, "generic"),
        ("Admin.promote", "function", "method", 24, 26, "generic"),
    ]


def test_store_and_main_symbols(root):
    assert symbols(root, "app/core/store.py") == [
        ("UserRepository", "declaration", "class", 6, 15, "repository"),
        ("UserRepository.__init__", "function", "constructor", 7, 8, "repository"),
        ("UserRepository.add", "function", "method", 10, 12, "repository"),
        ("UserRepository.make", "function", "method", 14, 15, "repository"),
        ("load_admin", "function", "function", 18, 21, "generic"),
        ("shadowed", "function", "function", 24, 26, "generic"),
    ]
    assert symbols(root, "app/main.py") == [
        ("main", "function", "function", 5, 8, "entrypoint"),
        ("helper", "function", "function", 11, 15, "generic"),
        ("helper.inner", "function", "function", 12, 13, "generic"),
    ]
    assert symbols(root, "tests/test_store.py") == [
        ("test_add", "function", "function", 4, 5, "test")
    ]


def test_module_nodes_and_docstrings(root):
    from tests.conftest import query

    rows = query(
        root,
        "SELECT id, name, qualified_name, type, kind, doc FROM symbols WHERE id = file ORDER BY id",
    )
    assert rows == [
        ("app/__init__.py", "app", "app", "namespace", "module", "The sample application."),
        ("app/core/__init__.py", "core", "app.core", "namespace", "module", None),
        (
            "app/core/models.py",
            "models",
            "app.core.models",
            "namespace",
            "module",
            "Domain models.",
        ),
        ("app/core/store.py", "store", "app.core.store", "namespace", "module", None),
        ("app/main.py", "main", "app.main", "namespace", "module", None),
        ("tests/test_store.py", "test_store", "tests.test_store", "namespace", "module", None),
    ]
    doc, sig = query(
        root, "SELECT doc, signature FROM symbols WHERE id = 'app/core/models.py::User'"
    )[0]
    assert (doc, sig) == ("A person with an account.", "class User")


def test_contains_edges(root):
    contains = {e for e in edges(root, "contains") if e[0].startswith("app/core/models.py")}
    m = "app/core/models.py"
    assert contains == {
        (m, f"{m}::DEFAULT_NAME"),
        (m, f"{m}::User"),
        (m, f"{m}::Admin"),
        (f"{m}::User", f"{m}::User.name"),
        (f"{m}::User", f"{m}::User.active"),
        (f"{m}::User", f"{m}::User.rename"),
        (f"{m}::User", f"{m}::User.validate"),
        (f"{m}::Admin", f"{m}::Admin.promote"),
    }


def test_imports_edges(root):
    assert edges(root, "imports") == {
        ("app/core/models.py", "dep::dataclasses"),
        ("app/core/store.py", "dep::json"),
        ("app/core/store.py", "app/core/models.py"),
        ("app/main.py", "dep::os.path"),
        ("app/main.py", "app/core/store.py"),
        ("tests/test_store.py", "app/core/store.py"),
    }


def test_certain_calls_are_resolved(root):
    calls = {e for e in edges(root, "call") if not e[1].startswith("ext::")}
    assert calls == {
        ("app/core/models.py::User.rename", "app/core/models.py::User.validate"),  # self
        ("app/core/store.py::UserRepository.make", "app/core/models.py::User"),  # alias U
        ("app/core/store.py::load_admin", "app/core/models.py::Admin"),
        ("app/core/store.py::load_admin", "app/core/models.py::User"),  # models.User
        ("app/main.py::main", "app/core/store.py::UserRepository"),
        ("app/main.py::main", "app/core/store.py::UserRepository.__init__"),  # constructor
        ("app/main.py::main", "app/core/store.py::UserRepository.add"),  # repo = ...()
        ("app/main.py::main", "app/core/store.py::load_admin"),
        ("app/main.py::helper", "app/main.py::helper.inner"),
        ("app/main.py::helper.inner", "app/main.py::main"),
        ("tests/test_store.py::test_add", "app/core/store.py::UserRepository"),
        ("tests/test_store.py::test_add", "app/core/store.py::UserRepository.__init__"),
    }
    assert edges(root, "inherits") == {("app/core/models.py::Admin", "app/core/models.py::User")}


def test_uncertain_calls_are_never_bound(root):
    from tests.conftest import query

    rows = dict(
        query(
            root,
            "SELECT dst, resolution FROM edges WHERE kind = 'call' AND starts_with(dst, 'ext::')",
        )
    )
    # A parameter named like the imported class shadows it: no edge to the class.
    assert rows["ext::U"] == "local"
    # A method called on a parameter: the receiver's type is unknown.
    assert rows["ext::other.rename"] == "local"
    # Calls into the standard library are external, with the full dotted name.
    assert rows["ext::os.path.join"] == "external"
    assert rows["ext::json.dumps"] == "external"
    assert rows["ext::len"] == "unresolved"


def test_a_comment_after_the_header_is_no_part_of_the_signature(tmp_path):
    # httpx's `class ClientState(enum.Enum):` opens its body with comments; outline showed
    # them as the signature. A comment inside the parameter list stays where it is.
    from tests.conftest import query
    from znt import api

    (tmp_path / "m.py").write_text(
        "class State(object):\n    # UNOPENED: not used yet\n    UNOPENED = 1\n\n\n"
        "def f(x):  # noqa: E1\n    return x\n"
    )
    api.scan(str(tmp_path))
    rows = dict(query(tmp_path, "SELECT name, signature FROM symbols WHERE file = 'm.py'"))
    assert rows["State"] == "class State(object)"
    assert rows["f"] == "def f(x)"
