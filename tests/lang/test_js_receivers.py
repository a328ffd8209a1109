"""JavaScript calls on untyped locals read by their names (docs/languages.md, resolution
`receiver_name`), and one function under several names (`res.set = res.header = function`).

Express's handlers are `function (req, res) { res.send() }` for the objects its
`lib/request.js` and `lib/response.js` define as `req` and `res`: no type says so, the
convention does. A call on an untyped local binds, at confidence 0.4, to the member of the
one module-level object of the project with that name. Negative cases that must stay
unbound: a member the object lacks, a name two files' objects have, a name no object has,
a parameter named otherwise, a global of the object's name, and a TypeScript parameter
(its declared type is the reader's word, not its name). A parameter of a callback at the
top of a file is a `local`, not an unresolved global."""

from __future__ import annotations

import pytest

from tests.conftest import query, rescans_equal_clean, scanned_copy

LANG = "lang/js_receivers"
APP = "test/app.js"
RES = "lib/response.js"
REQ = "lib/request.js"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return scanned_copy(tmp_path_factory, LANG)


def _calls(root, file):
    return set(
        query(
            root,
            "SELECT src, dst, resolution, confidence FROM edges WHERE kind = 'call' AND file = ?",
            [file],
        )
    )


def test_a_callback_parameter_named_like_one_object_binds_to_its_member(root):
    bound = {(s, d, r, c) for s, d, r, c in _calls(root, APP) if not d.startswith("ext::")}
    assert bound == {
        (APP, f"{RES}::res.status", "receiver_name", 0.4),
        (APP, f"{RES}::res.send", "receiver_name", 0.4),
        (APP, f"{RES}::res.header", "receiver_name", 0.4),  # res.set, an alias
        (APP, f"{REQ}::req.header", "receiver_name", 0.4),  # req.get, an alias
    }


@pytest.mark.parametrize(
    ("file", "dst", "resolution"),
    [
        (APP, "ext::res.missing", "local"),  # a member the object lacks
        (APP, "ext::view.render", "local"),  # two files have an object named view
        (APP, "ext::ctx.send", "local"),  # no object is named ctx
        (APP, "ext::response.send", "local"),  # named otherwise than the object
        ("test/global.js", "ext::res.send", "unresolved"),  # a global, not a local
        ("test/typed.ts", "ext::res.send", "local"),  # TypeScript: not read by name
    ],
)
def test_other_untyped_calls_stay_unbound(root, file, dst, resolution):
    assert {(d, r) for _s, d, r, _c in _calls(root, file) if d == dst} == {(dst, resolution)}
    assert not {d for _s, d, _r, _c in _calls(root, file) if not d.startswith("ext::")} - {
        f"{RES}::res.status",
        f"{RES}::res.send",
        f"{RES}::res.header",
        f"{REQ}::req.header",
    }


def test_a_parameter_of_a_top_level_callback_is_local(root):
    # `describe('done', function (done) { done(); })`: not a global named done.
    calls = {(d, r) for _s, d, r, _c in _calls(root, APP)}
    assert ("ext::done", "local") in calls
    assert ("ext::describe", "unresolved") in calls


def test_aliases_name_the_innermost_function(root):
    assert query(root, "SELECT expr, target FROM refs WHERE kind = 'aliases' ORDER BY expr") == [
        ("req.get", f"{REQ}::req.header"),
        ("res.set", f"{RES}::res.header"),
    ]
    # `res.cookie = cookies.add = function`: not a name of res's.
    assert query(
        root, "SELECT count(*) FROM refs WHERE kind = 'aliases' AND expr = 'res.cookie'"
    ) == [(0,)]
    # In its own file, `this.set()` is the function `res.set` names.
    assert (f"{RES}::res.send", f"{RES}::res.header", "self_method", 0.9) in _calls(root, RES)
    # Aliases are facts for the resolver, never edges of their own.
    assert query(root, "SELECT count(*) FROM edges WHERE resolution = 'aliases'") == [(0,)]


def test_graph_finds_a_function_by_its_alias(root):
    from znt import api

    doc = api.graph("res.set", direction="up", project_path=str(root))
    assert (doc["start"]["matched_by"], doc["start"]["ids"]) == ("alias", [f"{RES}::res.header"])
    assert {e["from"] for e in doc["edges"]} == {f"{RES}::res.send", APP}


def test_check_leaves_name_read_edges_out_by_default():
    from znt.graph.resolve import CONFIDENCE
    from znt.graph.rules import DEFAULT_MIN_CONFIDENCE

    assert CONFIDENCE["receiver_name"] < DEFAULT_MIN_CONFIDENCE


RES_SOURCE = (
    "var res = Object.create(null);\nmodule.exports = res;\n"
    "res.status = function status(code) { return this; };\n"
    "res.send = function send(body) { return this.set('x', body); };\n"
    "res.set = res.header = function header(field, value) { return this; };\n"
)


def test_rescans_follow_the_objects_of_other_files(tmp_path_factory, tmp_path):
    """Whether a call binds by its receiver's name depends on every object of that name in
    the project: an edit of another file must re-derive it, as a clean scan would."""
    root = scanned_copy(tmp_path_factory, LANG)
    steps = [
        # a body-only edit: the file's names are what they were
        (RES, RES_SOURCE.replace("return this;", "return this || null;", 1)),
        # res.send removed: the test's call to it goes
        (RES, RES_SOURCE.replace("res.send = function", "res.reply = function")),
        # res.send back, and a second object named res: neither binds
        (RES, RES_SOURCE),
        ("lib/other.js", "var res = {};\nres.send = function send() {};\n"),
        # the second object gone: the calls bind again
        ("lib/other.js", None),
    ]
    seen = list(rescans_equal_clean(root, tmp_path, steps))
    to_send = [
        {(e[0], e[1]) for e in edges if e[0] == APP and e[1] == f"{RES}::res.send"}
        for edges in seen
    ]
    assert [bool(s) for s in to_send] == [True, False, True, False, True]
