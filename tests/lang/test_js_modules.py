"""What a CommonJS module is (docs/languages.md, JavaScript): `module.exports = class C {}`,
an anonymous `module.exports = () => {}` (named `exports`), a re-export `module.exports =
require('./x')`, `require()` of a folder through its package.json `main` (else its
index file), a local holding a member of a required module (`require('./m').x`), a
local holding `new C()`, `this` in the functions of an exported object literal of such a class (`app.use()`: C's method), and what a
function returns when it fills a local from module objects (`mixin(app, proto)`). Each rule has a negative case that must stay unbound: a re-exported package, a
parameter shadowing the import, the same name defined in another file, a same-named method
of another class, an untyped parameter."""

from __future__ import annotations

import pytest

from tests.conftest import internal_calls, query, rescans_equal_clean, scanned_copy

LANG = "lang/js_modules"
TEST = "test/app.test.js"
CHAINED = "test/chained.test.js"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """The fixture project, scanned once for the module's tests."""
    return scanned_copy(tmp_path_factory, LANG)


def test_exported_class_and_anonymous_function_are_symbols(root):
    rows = query(
        root,
        "SELECT id, kind FROM symbols WHERE file IN ('lib/application.js', "
        "'helpers/context.js') AND kind <> 'module' ORDER BY id",
    )
    assert rows == [
        ("helpers/context.js::exports", "function"),
        ("helpers/context.js::request", "function"),
        ("helpers/context.js::response", "function"),
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
def test_calls_of_what_a_module_exports_bind(root, callee):
    calls = internal_calls(root)
    assert (TEST, callee) in calls


def test_a_local_holding_a_member_of_a_required_module_calls_it(root):
    """`const request = require('../helpers/context').request` binds `request` to the
    member the module assigns (`module.exports.request = ...`), renamed too; a member the
    module does not define and a member of a package stay unbound."""
    rows = dict(
        query(
            root,
            "SELECT dst, resolution FROM edges WHERE kind = 'call' AND src = ?",
            [TEST],
        )
    )
    assert rows["helpers/context.js::request"] == "import"
    assert rows["helpers/context.js::response"] == "import"  # const respond = ....response
    assert rows["ext::absent"] == "unresolved"
    assert rows["ext::some-package.request"] == "external"


def test_this_in_a_function_of_the_exported_object_is_that_object(root):
    """`module.exports = { set() {}, type: function () { this.set() } }`: `this.set()` is
    the object's own `set`, also from an arrow inside a method; an arrow property, a
    function nested in a method and a plain function have another `this` and stay
    unbound, as does a member the object lacks."""
    f = "lib/response.js"
    rows = set(
        query(root, "SELECT src, dst, resolution FROM edges WHERE kind = 'call' AND file = ?", [f])
    )
    assert (f"{f}::type", f"{f}::set", "self_method") in rows  # type: function type() {}
    assert (f"{f}::vary", f"{f}::get", "self_method") in rows  # (f) => this.get(f)
    assert (f"{f}::reset", "ext::this.set", "unresolved") in rows  # reset: () => this.set()
    assert (f"{f}::later", "ext::this.set", "unresolved") in rows  # function () { this.set() }
    assert (f"{f}::helper", "ext::this.get", "unresolved") in rows  # function helper()
    assert (f"{f}::missing", "ext::this.absent", "unresolved") in rows


def test_the_folders_index_loses_to_main_and_a_package_stays_outside(root):
    calls = internal_calls(root)
    assert not {e for e in calls if e[1] == "index.js::notTheEntry"}
    # lib/outside.js re-exports 'some-package'
    assert query(
        root,
        "SELECT dst, resolution FROM edges WHERE src = ? AND kind = 'call' AND dst LIKE '%outside%'",
        [TEST],
    ) == [("ext::outside", "unresolved")]


def test_shadowing_parameters_and_another_files_name_stay_unbound(root):
    calls = internal_calls(root)
    assert not {e for e in calls if e[0] == f"{TEST}::run"}
    assert query(
        root,
        "SELECT dst, resolution FROM edges WHERE src = ? AND kind = 'call' ORDER BY 1",
        [f"{TEST}::run"],
    ) == [("ext::app.use", "local"), ("ext::context", "local"), ("ext::createThing", "local")]
    assert ("lib/other.js::make", "lib/other.js::createThing") in calls
    assert {e[0] for e in calls if e[1] == "lib/other.js::createThing"} == {
        "lib/other.js::make",
        "lib/other.js::Other.use",
    }
    assert (f"{TEST}::createThingTwice", "lib/factory.js::createThing") in calls


def test_a_local_holding_new_of_an_exported_class_calls_its_methods(root):
    calls = internal_calls(root)
    assert (TEST, "lib/application.js::Application.use") in calls
    assert (TEST, "lib/application.js::Application.callback") in calls
    assert query(
        root,
        "SELECT resolution FROM edges WHERE src = ? AND dst = ?",
        [TEST, "lib/application.js::Application.use"],
    ) == [("assigned",)]
    # `other = new Other()`: Other's own `use`, never Application's; a method Other lacks
    # binds nothing; an untyped parameter `app` in `run` stays local.
    assert (TEST, "lib/other.js::Other.use") in calls
    assert not {
        e for e in calls if e[1].endswith("::Application.use") and e[0] not in (TEST, CHAINED)
    }
    assert query(
        root, "SELECT resolution FROM edges WHERE src = ? AND dst = 'ext::Other.listen'", [TEST]
    ) == [("unresolved",)]
    assert query(
        root,
        "SELECT resolution FROM edges WHERE src = ? AND dst = 'ext::app.use'",
        [f"{TEST}::run"],
    ) == [("local",)]


SERVER = "test/server.test.js"


def call_rows(root, src):
    """(dst, resolution) of ``src``'s call edges, in line order."""
    return query(
        root,
        "SELECT dst, resolution FROM edges WHERE src = ? AND kind = 'call' ORDER BY line",
        [src],
    )


def test_what_a_function_returns_has_the_members_it_mixed_in(root):
    # createServer() fills its result with mixin(server, proto) and Object.assign(server,
    # shared): `start` is proto.js's `app.start`, `only` shared.js's `shared.only`.
    rows = call_rows(root, SERVER)
    assert ("lib/proto.js::app.start", "assigned") in rows
    assert ("lib/shared.js::shared.only", "assigned") in rows
    # Both objects define `stop`: neither is guessed; a member none defines, a function
    # that mixes nothing in (createThing), and a package's result stay unbound.
    assert ("ext::createServer.stop", "unresolved") in rows
    assert ("ext::createServer.missing", "unresolved") in rows
    assert ("ext::createThing.start", "unresolved") in rows
    assert not {
        d for d, _ in rows if d.startswith(("lib/proto.js::app.stop", "lib/shared.js::shared.stop"))
    }
    assert ("ext::supertest", "external") in rows


def _calls_after_edits(tmp_path, src: str, edits: list[tuple[str, str | None]]) -> list[set]:
    """The call edges of ``src`` after each edit of a scanned copy of the fixture, each step
    checked to equal a clean scan (``rescans_equal_clean``)."""
    from tests.conftest import copy_fixture
    from znt import api

    work = copy_fixture(LANG, tmp_path / "work")
    api.scan(str(work))
    return [
        {(r[0], r[1]) for r in rows if r[0] == src and r[2] == "call"}
        for rows in rescans_equal_clean(work, tmp_path, edits)
    ]


def test_mixed_in_members_follow_edits_of_the_mixed_module(tmp_path):
    edits: list[tuple[str, str | None]] = [
        # the module mixed in loses `start` and gains `missing` (server.js and the test
        # file are not edited: they are re-resolved through server.js's `mixes` facts)
        (
            "lib/proto.js",
            "var app = exports = module.exports = {};\napp.missing = function missing() {};\n",
        ),
    ]
    found = [{d for _, d in calls} for calls in _calls_after_edits(tmp_path, SERVER, edits)]
    assert "lib/proto.js::app.missing" in found[0]
    assert not {d for d in found[0] if d.startswith("lib/proto.js::app.start")}


def test_package_main_and_reexport_edits_rescan_like_a_clean_scan(tmp_path):
    edits: list[tuple[str, str | None]] = [
        # the class loses `use`: `app.use()` binds nothing (the test file is not edited)
        (
            "lib/application.js",
            "module.exports = class Application {\n  callback() {\n    return 1;\n  }\n};\n",
        ),
        # main now names the index: `new Koa()` reaches no class any more
        ("package.json", '{ "name": "x", "main": "index.js" }\n'),
        # the re-export now names another file's default export
        ("lib/index.js", "module.exports = require('./application');\n"),
        ("lib/index.js", None),  # the folder has no index: require('../lib') binds nothing
    ]
    found = _calls_after_edits(tmp_path, TEST, edits)
    assert (TEST, "lib/application.js::Application.callback") in found[0]
    assert (TEST, "lib/application.js::Application.use") not in found[0]
    found = found[1:]
    assert (TEST, "index.js::notTheEntry") in found[0]
    assert (TEST, "lib/application.js::Application") not in found[0]
    assert (TEST, "lib/application.js::Application") in found[1]
    assert (TEST, "lib/factory.js::createThing") not in found[1]
    assert not {e for e in found[2] if e[1].startswith(("lib/factory.js", "lib/application.js"))}


def test_a_chained_declaration_holds_the_right_side(root):
    """`var app = module.exports = createServer()` (express's examples) binds `app` as
    `var app = createServer()` does, and `const made = exports.made = new Application()` as
    `new` does; a chained number binds nothing, and a member none defines stays unbound."""
    rows = call_rows(root, CHAINED)
    assert ("lib/proto.js::app.start", "assigned") in rows
    assert ("lib/application.js::Application.use", "assigned") in rows
    assert ("ext::createServer.missing", "unresolved") in rows
    assert ("ext::plain.start", "unresolved") in rows
    # `plain.start()` is not `app.start()`: the edge to proto.js's `start` counts one call
    assert query(
        root,
        "SELECT count FROM edges WHERE src = ? AND kind = 'call' AND dst = ?",
        [CHAINED, "lib/proto.js::app.start"],
    ) == [(1,)]
