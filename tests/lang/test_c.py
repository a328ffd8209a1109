"""C extraction on a fixture project: exact symbols, kinds, lines, roles and edges."""

from __future__ import annotations

import pytest

from tests.conftest import edges, scanned_copy, symbols

LANG = "lang/c"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return scanned_copy(tmp_path_factory, LANG)


def test_header_symbols(root):
    assert symbols(root, "include/user.h") == [
        # the include guard `#define USER_H` has no value: no symbol
        ("NAME_MAX_LEN", "member", "constant", 6, 6, "state"),
        ("IS_ADMIN", "function", "macro", 7, 7, "generic"),
        ("role", "declaration", "enum", 10, 14, "generic"),
        ("role.ROLE_GUEST", "member", "enum_member", 11, 11, "state"),
        ("role.ROLE_MEMBER", "member", "enum_member", 12, 12, "state"),
        ("role.ROLE_ADMIN", "member", "enum_member", 13, 13, "state"),
        # typedef struct user {...} user_t: the struct is named by its typedef
        ("user_t", "declaration", "struct", 16, 20, "generic"),
        ("user_t.id", "member", "field", 17, 17, "state"),
        ("user_t.role", "member", "field", 18, 18, "state"),
        ("user_t.name", "member", "field", 19, 19, "state"),
        ("user_count", "member", "variable", 22, 22, "state"),
        # prototypes are declarations, not definitions: no symbols
    ]
    assert symbols(root, "src/store.h") == [
        ("UserRepository", "declaration", "struct", 7, 11, "repository"),
        ("UserRepository.items", "member", "field", 8, 8, "repository"),
        ("UserRepository.len", "member", "field", 9, 9, "repository"),
        ("UserRepository.get", "member", "field", 10, 10, "repository"),  # function pointer
    ]


def test_source_symbols(root):
    assert symbols(root, "src/user.c") == [
        ("user_count", "member", "variable", 5, 5, "state"),
        ("valid_name", "function", "function", 7, 9, "generic"),
        ("user_rename", "function", "function", 11, 17, "generic"),
        ("user_create", "function", "function", 19, 25, "generic"),  # returns a pointer
        ("user_free", "function", "function", 27, 29, "generic"),
    ]
    assert symbols(root, "src/store.c") == [
        ("last_repo", "member", "variable", 3, 3, "state"),
        ("len", "function", "function", 5, 7, "generic"),
        ("repo_init", "function", "function", 9, 13, "generic"),
        ("repo_add", "function", "function", 15, 21, "generic"),
        ("repo_get", "function", "function", 23, 30, "generic"),
        ("repo_count", "function", "function", 33, 39, "generic"),
    ]
    assert symbols(root, "src/main.c") == [("main", "function", "function", 4, 10, "entrypoint")]
    assert symbols(root, "tests/test_store.c") == [
        ("test_repo_add", "function", "function", 4, 8, "test")
    ]


def test_module_nodes_and_docs(root):
    from tests.conftest import query

    rows = query(
        root,
        "SELECT id, name, qualified_name, type, kind, role FROM symbols WHERE id = file "
        "ORDER BY id",
    )
    assert rows == [
        ("include/user.h", "user", "include.user", "namespace", "module", "generic"),
        ("src/main.c", "main", "src.main", "namespace", "module", "entrypoint"),
        ("src/store.c", "store", "src.store", "namespace", "module", "generic"),
        ("src/store.h", "store", "src.store", "namespace", "module", "generic"),
        ("src/user.c", "user", "src.user", "namespace", "module", "generic"),
        ("tests/test_store.c", "test_store", "tests.test_store", "namespace", "module", "test"),
    ]
    doc, sig = query(root, "SELECT doc, signature FROM symbols WHERE id = 'include/user.h::role'")[
        0
    ]
    assert (doc, sig) == ("The access level of a user.", "enum role")
    sig = query(root, "SELECT signature FROM symbols WHERE id = 'src/user.c::user_create'")
    assert sig == [("user_t *user_create(int id, const char *name)",)]
    sig = query(root, "SELECT signature FROM symbols WHERE id = 'include/user.h::IS_ADMIN'")
    assert sig == [("#define IS_ADMIN(u) ((u)->role == ROLE_ADMIN)",)]


def test_contains_edges(root):
    h = "include/user.h"
    assert {e for e in edges(root, "contains") if e[0].startswith(h)} == {
        (h, f"{h}::NAME_MAX_LEN"),
        (h, f"{h}::IS_ADMIN"),
        (h, f"{h}::role"),
        (h, f"{h}::user_t"),
        (h, f"{h}::user_count"),
        (f"{h}::role", f"{h}::role.ROLE_GUEST"),
        (f"{h}::role", f"{h}::role.ROLE_MEMBER"),
        (f"{h}::role", f"{h}::role.ROLE_ADMIN"),
        (f"{h}::user_t", f"{h}::user_t.id"),
        (f"{h}::user_t", f"{h}::user_t.role"),
        (f"{h}::user_t", f"{h}::user_t.name"),
    }


def test_imports_edges(root):
    assert edges(root, "imports") == {
        # <...> headers are external dependencies
        ("include/user.h", "dep::stddef.h"),
        ("src/user.c", "dep::stdlib.h"),
        ("src/user.c", "dep::string.h"),
        ("src/main.c", "dep::stdio.h"),
        ("tests/test_store.c", "dep::assert.h"),
        # "user.h" is not next to the includer: the one project file ending in user.h
        ("src/user.c", "include/user.h"),
        ("src/store.h", "include/user.h"),
        # "store.h" next to the includer; "../src/store.h" relative to tests/
        ("src/main.c", "src/store.h"),
        ("src/store.c", "src/store.h"),
        ("tests/test_store.c", "src/store.h"),
    }


def test_certain_calls_are_resolved(root):
    calls = {e for e in edges(root, "call") if not e[1].startswith("ext::")}
    m, t = "src/main.c::main", "tests/test_store.c::test_repo_add"
    assert calls == {
        ("src/user.c::user_rename", "src/user.c::valid_name"),
        ("src/user.c::user_create", "src/user.c::user_rename"),
        ("src/store.c::repo_add", "src/store.c::len"),
        ("src/store.c::repo_get", "src/store.c::len"),
        # Through includes (store.h, and user.h that store.h includes): the prototype is a
        # declaration, the one project definition is the target.
        (m, "src/store.c::repo_init"),
        (m, "src/store.c::repo_add"),
        (m, "src/store.c::len"),
        (m, "src/user.c::user_create"),
        (t, "src/store.c::repo_init"),
        (t, "src/store.c::repo_add"),
        (t, "src/user.c::user_create"),
    }
    assert edges(root, "inherits") == set()


def test_uncertain_calls_are_never_bound(root):
    from tests.conftest import query

    rows = set(
        query(
            root,
            "SELECT src, dst, resolution FROM edges "
            "WHERE kind = 'call' AND starts_with(dst, 'ext::')",
        )
    )
    # A parameter named like the function len shadows it.
    assert ("src/store.c::repo_count", "ext::len", "local") in rows
    # A call through a function-pointer field of a parameter.
    assert ("src/store.c::repo_get", "ext::repo.get", "local") in rows
    # Library functions from <...> headers.
    assert ("src/user.c::valid_name", "ext::strlen", "unresolved") in rows
    assert ("src/main.c::main", "ext::printf", "unresolved") in rows


def test_call_through_include(root):
    from tests.conftest import query

    calls = edges(root, "call")
    assert ("src/main.c::main", "src/store.c::repo_init") in calls
    assert ("src/main.c::main", "src/user.c::user_create") in calls  # user.h via store.h
    res = dict(
        ((s, d), r)
        for s, d, r in query(root, "SELECT src, dst, resolution FROM edges WHERE kind = 'call'")
    )
    assert res["src/main.c::main", "src/store.c::repo_init"] == "import"
    # Prototypes are `declares` rows (facts for the resolver), never edges or symbols.
    assert query(
        root, "SELECT expr FROM refs WHERE kind = 'declares' AND file = 'src/store.h' ORDER BY 1"
    ) == [("len",), ("repo_add",), ("repo_get",), ("repo_init",)]


def _write(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_include_never_binds_an_uncertain_name(tmp_path):
    """Through an include a name binds only to the one project definition: never when two
    files define it, when only another file's `static` defines it, when no included header
    declares it, when a parameter shadows it, or through a `<...>` include."""
    from tests.conftest import query
    from znt import api

    root = tmp_path / "proj"
    _write(
        root,
        {
            "a.h": "int twice(int x);\nint solo(int x);\nint hidden(int x);\n",
            "a.c": '#include "a.h"\nint twice(int x) { return 2 * x; }\n'
            "int solo(int x) { return x; }\n",
            "b.c": "int twice(int x) { return x + x; }\n",
            "c.c": "static int hidden(int x) { return x; }\n",
            "d.c": "int undeclared(int x) { return x; }\n",
            "main.c": '#include "a.h"\n'
            "int shadow(int (*solo)(int)) { return solo(1); }\n"
            "int main(void) {\n"
            "    return twice(1) + solo(2) + hidden(3) + undeclared(4);\n"
            "}\n",
            "sys.c": "#include <a.h>\nint other(void) { return solo(1); }\n",
        },
    )
    api.scan(str(root))
    rows = set(query(root, "SELECT src, dst, resolution FROM edges WHERE kind = 'call'"))
    project = {(s, d) for s, d, _r in rows if not d.startswith("ext::")}
    assert project == {("main.c::main", "a.c::solo")}
    assert ("main.c::main", "ext::twice", "unresolved") in rows  # two definitions
    assert ("main.c::main", "ext::hidden", "unresolved") in rows  # c.c's static
    assert ("main.c::main", "ext::undeclared", "unresolved") in rows  # not in a.h
    assert ("main.c::shadow", "ext::solo", "local") in rows  # the parameter
    assert ("sys.c::other", "ext::solo", "unresolved") in rows  # <a.h> is a system header


def test_include_rescan_equals_clean_scan(tmp_path):
    """Calls through includes after edits of a header two includes away, of a second
    definition coming and going: an incremental scan equals a clean one."""
    from tests.conftest import copy_fixture, rescans_equal_clean
    from znt import api

    root = copy_fixture(LANG, tmp_path)
    api.scan(str(root))
    user_h = (root / "include/user.h").read_text()
    target = ("src/main.c::main", "src/user.c::user_create")
    steps = [
        # user.h (included by store.h, included by main.c) stops declaring user_create...
        ("include/user.h", user_h.replace("user_t *user_create(int id, const char *name);", "")),
        # ...declares it again...
        ("include/user.h", user_h),
        # ...a second file defines it (ambiguous), then goes.
        ("src/extra.c", "int user_create(int id, const char *name) { return id; }\n"),
        ("src/extra.c", None),
        # store.h stops including user.h.
        ("src/store.h", (root / "src/store.h").read_text().replace('#include "user.h"', "")),
    ]
    present = [
        target in {(r[0], r[1]) for r in got} for got in rescans_equal_clean(root, tmp_path, steps)
    ]
    # The edits did reach the rule.
    assert present == [False, True, False, True, False]
