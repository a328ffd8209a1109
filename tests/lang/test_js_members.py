"""JavaScript functions assigned to members (docs/languages.md): `obj.x = function () {}`,
`Foo.prototype.x = ...`, `exports.x = ...`, `module.exports = function f() {}` are symbols
under the names a reader calls them by; `this.x()` inside binds to the sibling member of the
same object; a CommonJS `require` of a file without a default export reaches its
`exports.x`. Each rule has a negative case that must stay unbound."""

from __future__ import annotations

import pytest

from tests.conftest import internal_calls, query, scanned_copy

LANG = "lang/js_members"
APP = "lib/application.js"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return scanned_copy(tmp_path_factory, LANG)


@pytest.fixture(scope="module")
def calls(root):
    return internal_calls(root)


def test_member_functions_are_top_level_symbols(root):
    rows = query(
        root,
        "SELECT qualified_name FROM symbols WHERE file = ? AND parent_id = file "
        "AND type = 'function' ORDER BY start_line",
        [APP],
    )
    assert [r[0] for r in rows] == [
        "app.init",
        "app.defaultConfiguration",
        "app.set",
        "other.reset",
        "Router",
        "Router.route",
        "Router.match",
        "handle",
    ]
    assert query(
        root,
        "SELECT qualified_name FROM symbols WHERE file = 'lib/helper.js' "
        "AND type = 'function' ORDER BY 1",
    ) == [("twice",), ("util",)]
    assert query(
        root, "SELECT qualified_name FROM symbols WHERE file = 'lib/main.js' AND type = 'function'"
    ) == [("createApplication",)]


@pytest.mark.parametrize(
    ("caller", "callee"),
    [
        (f"{APP}::app.init", f"{APP}::app.defaultConfiguration"),  # this.x() -> app.x
        (f"{APP}::app.defaultConfiguration", f"{APP}::app.set"),
        (f"{APP}::Router.route", f"{APP}::Router.match"),  # prototype siblings
        (f"{APP}::app.init", "lib/helper.js::util"),  # require('./helper').util
        (f"{APP}::app.init", "lib/main.js::createApplication"),  # module.exports = function
    ],
)
def test_member_calls_bind(calls, caller, callee):
    assert (caller, callee) in calls


def test_calls_inside_a_member_belong_to_it(root):
    # Not to the module: what the module's own code calls is the arrow's one call (the
    # arrow is no symbol), and `require` is no call.
    assert query(root, "SELECT dst FROM edges WHERE kind = 'call' AND src = ?", [APP]) == [
        ("ext::this.set",)
    ]


def test_another_objects_this_and_an_arrows_this_stay_unbound(root, calls):
    assert not {e for e in calls if e[0] == f"{APP}::other.reset"}
    assert not {
        e for e in calls if e[1] == f"{APP}::app.set" and e[0] != f"{APP}::app.defaultConfiguration"
    }
    assert query(root, "SELECT count(*) FROM symbols WHERE qualified_name = 'app.later'") == [(0,)]


def test_untyped_receiver_stays_local(root):
    rows = query(
        root,
        "SELECT dst, resolution FROM edges WHERE kind = 'call' AND src = ?",
        [f"{APP}::handle"],
    )
    assert rows == [("ext::req.use", "local")]


def test_outline_lists_member_functions(root):
    from znt import api

    doc = api.outline(str(root / APP), project_path=str(root))
    names = [s["qualified_name"] for s in doc["symbols"]]
    assert names[:4] == ["app.init", "app.defaultConfiguration", "app.set", "other.reset"]
