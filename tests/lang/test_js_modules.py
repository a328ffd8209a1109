"""What a CommonJS module is (docs/languages.md, JavaScript): `module.exports = class C {}`,
an anonymous `module.exports = () => {}` (named `exports`), a re-export `module.exports =
require('./x')`, and `require()` of a folder through its package.json `main` (else its
index file). Each rule has a negative case that must stay unbound: a re-exported package, a
parameter shadowing the import, the same name defined in another file."""

from __future__ import annotations

import pytest

from tests.conftest import internal_calls, query, rescans_equal_clean, scanned_copy

LANG = "lang/js_modules"
TEST = "test/app.test.js"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return scanned_copy(tmp_path_factory, LANG)


@pytest.fixture(scope="module")
def calls(root):
    return internal_calls(root)


def test_exported_class_and_anonymous_function_are_symbols(root):
    rows = query(
        root,
        "SELECT id, kind FROM symbols WHERE file IN ('lib/application.js', "
        "'helpers/context.js') AND kind <> 'module' ORDER BY id",
    )
    assert rows == [
        ("helpers/context.js::exports", "function"),
        ("lib/application.js::Application", "class"),
        ("lib/application.js::Application.callback", "method"),
        ("lib/application.js::Application.constructor", "constructor"),
        ("lib/application.js::Application.use", "method"),
    ]


@pytest.mark.parametrize(
    "callee",
    [
        "lib/application.js::Application",  # new Koa(), Koa = require('..'): package.json main
        "lib/factory.js::createThing",  # require('../lib') -> lib/index.js -> re-export
        "helpers/context.js::exports",  # module.exports = (req, res) => ...
        "plugins/loose/index.js::loosePlugin",  # main names no file: the folder's index
        "plugins/entry/start.js::startPlugin",  # main "./start" -> start.js
    ],
)
def test_calls_of_what_a_module_exports_bind(calls, callee):
    assert (TEST, callee) in calls


def test_the_folders_index_loses_to_main_and_a_package_stays_outside(root, calls):
    assert not {e for e in calls if e[1] == "index.js::notTheEntry"}
    assert query(root, "SELECT dst, resolution FROM edges WHERE src = ? AND line = 17", [TEST]) == [
        ("ext::outside", "unresolved")
    ]  # lib/outside.js re-exports 'some-package'


def test_shadowing_parameters_and_another_files_name_stay_unbound(root, calls):
    assert not {e for e in calls if e[0] == f"{TEST}::run"}
    assert query(
        root,
        "SELECT dst, resolution FROM edges WHERE src = ? AND kind = 'call' ORDER BY 1",
        [f"{TEST}::run"],
    ) == [("ext::context", "local"), ("ext::createThing", "local")]
    assert ("lib/other.js::make", "lib/other.js::createThing") in calls
    assert not {
        e for e in calls if e[1] == "lib/other.js::createThing" and e[0] != "lib/other.js::make"
    }
    assert (f"{TEST}::createThingTwice", "lib/factory.js::createThing") in calls


def test_package_main_and_reexport_edits_rescan_like_a_clean_scan(tmp_path):
    from tests.conftest import copy_fixture
    from znt import api

    work = copy_fixture(LANG, tmp_path / "work")
    api.scan(str(work))
    edits: list[tuple[str, str | None]] = [
        # main now names the index: `new Koa()` reaches no class any more
        ("package.json", '{ "name": "x", "main": "index.js" }\n'),
        # the re-export now names another file's default export
        ("lib/index.js", "module.exports = require('./application');\n"),
        ("lib/index.js", None),  # the folder has no index: require('../lib') binds nothing
    ]
    found = []
    for rows in rescans_equal_clean(work, tmp_path, edits):
        found.append({(r[0], r[1]) for r in rows if r[0] == TEST and r[2] == "call"})
    assert (TEST, "index.js::notTheEntry") in found[0]
    assert (TEST, "lib/application.js::Application") not in found[0]
    assert (TEST, "lib/application.js::Application") in found[1]
    assert (TEST, "lib/factory.js::createThing") not in found[1]
    assert not {e for e in found[2] if e[1].startswith(("lib/factory.js", "lib/application.js"))}
