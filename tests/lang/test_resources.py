"""Resource files (markdown, YAML, JSON, TOML, SQL, proto, Dockerfile, make) on a fixture
project: exact symbols, kinds, lines, roles, nesting and imports.

A symbol's end line is the last line holding its text: a markdown section or a make rule
does not extend over the blank lines that follow it.
"""

from __future__ import annotations

import pytest

from tests.conftest import edges, query, scanned_copy, symbols

LANG = "lang/resources"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return scanned_copy(tmp_path_factory, LANG)


def test_languages_by_extension_and_file_name(root):
    rows = query(root, "SELECT path, language, status FROM files ORDER BY path")
    assert rows == [
        ("Dockerfile", "dockerfile", "ok"),
        ("Makefile", "make", "ok"),
        ("README.md", "markdown", "ok"),
        ("api.proto", "proto", "ok"),
        ("config.yaml", "yaml", "ok"),
        ("data.json", "json", "ok"),
        ("mk/common.mk", "make", "ok"),
        ("procedures.sql", "sql", "parse_error"),  # CREATE PROCEDURE: not in the grammar
        ("protos/common/types.proto", "proto", "ok"),
        ("protos/common/units.proto", "proto", "ok"),
        ("schema.sql", "sql", "ok"),
        ("settings.toml", "toml", "ok"),
    ]


def test_markdown_sections(root):
    assert symbols(root, "README.md") == [
        ("Project", "namespace", "section", 1, 19, "generic"),
        ("Project.Install", "namespace", "section", 5, 15, "generic"),
        ("Project.Install.Linux", "namespace", "section", 9, 11, "generic"),
        ("Project.Install.macOS", "namespace", "section", 13, 15, "generic"),
        ("Project.Usage", "namespace", "section", 17, 19, "generic"),
        ("Appendix", "namespace", "section", 21, 23, "generic"),
    ]
    sig = query(root, "SELECT signature FROM symbols WHERE id = 'README.md::Project.Install'")
    assert sig == [("## Install",)]


def test_markdown_contains_edges(root):
    contains = {e for e in edges(root, "contains") if e[0].startswith("README.md")}
    m = "README.md"
    assert contains == {
        (m, f"{m}::Project"),
        (m, f"{m}::Appendix"),
        (f"{m}::Project", f"{m}::Project.Install"),
        (f"{m}::Project", f"{m}::Project.Usage"),
        (f"{m}::Project.Install", f"{m}::Project.Install.Linux"),
        (f"{m}::Project.Install", f"{m}::Project.Install.macOS"),
    }


def test_yaml_keys(root):
    # Both documents of the stream; two levels of keys; a quoted key keeps its quotes.
    assert symbols(root, "config.yaml") == [
        ("server", "member", "key", 2, 4, "state"),
        ("server.host", "member", "key", 3, 3, "state"),
        ("server.port", "member", "key", 4, 4, "state"),
        ("database", "member", "key", 5, 8, "state"),
        ("database.url", "member", "key", 6, 6, "state"),
        ("database.pool", "member", "key", 7, 8, "state"),
        ("features", "member", "key", 9, 9, "state"),
        ("quoted key", "member", "key", 10, 10, "state"),
        ("second", "member", "key", 12, 12, "state"),
    ]


def test_json_keys(root):
    assert symbols(root, "data.json") == [
        ("name", "member", "key", 2, 2, "state"),
        ("version", "member", "key", 3, 3, "state"),
        ("scripts", "member", "key", 4, 7, "state"),
        ("dependencies", "member", "key", 8, 10, "state"),
    ]


def test_toml_tables_and_keys(root):
    assert symbols(root, "settings.toml") == [
        ("title", "member", "key", 1, 1, "state"),
        ("version", "member", "key", 2, 2, "state"),
        ("project", "declaration", "table", 4, 6, "generic"),
        ("project.name", "member", "key", 5, 5, "state"),
        ("project.requires-python", "member", "key", 6, 6, "state"),
        ("tool.ruff", "declaration", "table", 8, 9, "generic"),
        ("tool.ruff.line-length", "member", "key", 9, 9, "state"),
        ("tool.ruff.lint", "declaration", "table", 11, 12, "generic"),
        ("tool.ruff.lint.select", "member", "key", 12, 12, "state"),
        ("servers", "declaration", "table", 14, 15, "generic"),
        ("servers.host", "member", "key", 15, 15, "state"),
    ]


def test_sql_definitions(root):
    assert symbols(root, "schema.sql") == [
        ("users", "declaration", "table", 2, 5, "generic"),
        ("users.id", "member", "field", 3, 3, "state"),
        ("users.email", "member", "field", 4, 4, "state"),
        ("app.orders", "declaration", "table", 7, 11, "generic"),
        ("app.orders.id", "member", "field", 8, 8, "state"),
        ("app.orders.user_id", "member", "field", 9, 9, "state"),
        ("app.orders.total", "member", "field", 10, 10, "state"),
        ("active_users", "declaration", "view", 13, 14, "generic"),
        ("order_total", "function", "function", 16, 18, "generic"),
    ]
    assert symbols(root, "procedures.sql") == []
    doc = query(root, "SELECT name, doc FROM symbols WHERE id = 'schema.sql::users'")
    assert doc == [("users", "Accounts and their orders.")]
    name = query(root, "SELECT name FROM symbols WHERE id = 'schema.sql::app.orders'")
    assert name == [("orders",)]


def test_proto_definitions(root):
    assert symbols(root, "api.proto") == [
        ("sample.api.v1", "namespace", "package", 3, 3, "generic"),
        ("User", "declaration", "message", 9, 21, "generic"),
        ("User.id", "member", "field", 10, 10, "state"),
        ("User.email", "member", "field", 11, 11, "state"),
        ("User.status", "member", "field", 12, 12, "state"),
        ("User.Address", "declaration", "message", 13, 15, "generic"),
        ("User.Address.city", "member", "field", 14, 14, "state"),
        ("User.addresses", "member", "field", 16, 16, "state"),
        ("User.labels", "member", "field", 17, 17, "state"),
        ("User.phone", "member", "field", 19, 19, "state"),  # in a oneof
        ("Status", "declaration", "enum", 23, 26, "generic"),
        ("Status.STATUS_UNSPECIFIED", "member", "enum_member", 24, 24, "state"),
        ("Status.STATUS_ACTIVE", "member", "enum_member", 25, 25, "state"),
        ("UserService", "declaration", "service", 28, 31, "service"),
        ("UserService.GetUser", "function", "rpc", 29, 29, "service"),
        ("UserService.ListUsers", "function", "rpc", 30, 30, "service"),
        ("GetUserRequest", "declaration", "message", 33, 35, "generic"),
        ("GetUserRequest.id", "member", "field", 34, 34, "state"),
    ]
    assert symbols(root, "protos/common/types.proto") == [
        ("sample.common", "namespace", "package", 3, 3, "generic"),
        ("Money", "declaration", "message", 7, 10, "generic"),
        ("Money.cents", "member", "field", 8, 8, "state"),
        ("Money.unit", "member", "field", 9, 9, "state"),
    ]
    assert symbols(root, "protos/common/units.proto") == [
        ("sample.common", "namespace", "package", 3, 3, "generic"),
        ("Unit", "declaration", "enum", 5, 7, "generic"),
        ("Unit.UNIT_UNSPECIFIED", "member", "enum_member", 6, 6, "state"),
    ]
    doc = query(root, "SELECT doc FROM symbols WHERE id = 'api.proto::User'")
    assert doc == [("A user account.",)]


def test_dockerfile_stages_and_variables(root):
    # Instructions after FROM are its siblings, not its children: ARG/ENV names are
    # top-level, and UPPER_CASE names stay variables (uppercase_constants=False). `FROM build` names no new stage.
    assert symbols(root, "Dockerfile") == [
        ("PYTHON_VERSION", "member", "variable", 2, 2, "state"),
        ("build", "declaration", "stage", 4, 4, "generic"),
        ("PIP_INDEX", "member", "variable", 5, 5, "state"),
        ("APP_HOME", "member", "variable", 6, 6, "state"),
        ("PATH", "member", "variable", 7, 7, "state"),
        ("runtime", "declaration", "stage", 12, 12, "generic"),
        ("PORT", "member", "variable", 13, 13, "state"),
    ]


def test_make_targets_and_variables(root):
    # `.PHONY` is no target; UPPER_CASE make variables stay variables.
    assert symbols(root, "Makefile") == [
        ("PYTHON", "member", "variable", 2, 2, "state"),
        ("SRC", "member", "variable", 3, 3, "state"),
        ("objects", "member", "variable", 4, 4, "state"),
        ("all", "function", "target", 11, 11, "generic"),
        ("build", "function", "target", 13, 14, "generic"),
        ("test", "function", "target", 16, 17, "generic"),
        ("%.o", "function", "target", 19, 20, "generic"),
    ]
    assert symbols(root, "mk/common.mk") == [
        ("CC", "member", "variable", 1, 1, "state"),
        ("CFLAGS", "member", "variable", 2, 2, "state"),
        ("clean", "function", "target", 4, 5, "generic"),
    ]


def test_imports_edges(root):
    assert edges(root, "imports") == {
        # Base images are dependencies; so is a FROM naming an earlier stage.
        ("Dockerfile", "dep::python"),
        ("Dockerfile", "dep::gcr.io/distroless/python3"),
        ("Dockerfile", "dep::build"),
        # include: relative to the including makefile; a missing one is a dependency.
        ("Makefile", "mk/common.mk"),
        ("Makefile", "dep::local.mk"),
        # proto imports: from the project root, or next to the importing file.
        ("api.proto", "protos/common/types.proto"),
        ("api.proto", "dep::google/protobuf/timestamp.proto"),
        ("protos/common/types.proto", "protos/common/units.proto"),
    }
