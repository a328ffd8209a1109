"""Python type flow through `with X() as y` and return annotations (issue 16), each with
a case that must stay unbound."""

from __future__ import annotations

import pytest

from tests.conftest import query, scanned_copy

APP = "pkg/app.py"
CTX = "pkg/ctx.py"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return scanned_copy(tmp_path_factory, "resolve_python_types")


def calls(root, src):
    rows = query(root, "SELECT dst, resolution FROM edges WHERE kind = 'call' AND src = ?", [src])
    return dict(rows)


def test_return_annotation_flows_into_the_local(root):
    # ctx = self.request_context(environ); ctx.push() with `-> RequestContext`.
    assert calls(root, f"{APP}::Flask.wsgi_app")[f"{CTX}::RequestContext.push"] == "assigned"


def test_with_item_holds_the_instance(root):
    assert calls(root, f"{APP}::get")[f"{CTX}::Session.request"] == "assigned"


def test_builtin_context_manager_and_builtin_annotation_stay_unbound(root):
    out = calls(root, f"{APP}::negatives")
    assert f"{CTX}::Session.read" not in out
    assert f"{CTX}::RequestContext.push" not in out
    assert {dst for dst in out if not dst.startswith("ext::")} == {f"{APP}::counted"}


STUBS = "pkg/stubs.py"


def test_a_stub_method_binds_to_its_overrides(root):
    # self.dumps() where Provider.dumps raises NotImplementedError: Default's runs.
    out = calls(root, f"{STUBS}::Provider.dump")
    assert out == {f"{STUBS}::Default.dumps": "override"}
    # a docstring-only hook
    assert calls(root, f"{STUBS}::Provider.notify") == {f"{STUBS}::Default.hook": "override"}
    # `def close(self): ...` on one line is a stub too; nothing overrides it, so its
    # callers keep it
    assert calls(root, f"{STUBS}::Provider.shut") == {f"{STUBS}::Provider.close": "self_method"}
    rows = query(root, "SELECT src FROM refs WHERE kind = 'abstract' ORDER BY src")
    assert [r[0] for r in rows if r[0].startswith(STUBS)] == [
        f"{STUBS}::Provider.close",
        f"{STUBS}::Provider.dumps",
        f"{STUBS}::Provider.hook",
    ]


def test_a_stub_keeps_its_other_callers_and_others_stay_unbound(root):
    # A method with a body is no stub: its overrides get no edge.
    assert calls(root, f"{STUBS}::Provider.run") == {f"{STUBS}::Provider.greet": "self_method"}
    # super() names the base's method itself.
    assert calls(root, f"{STUBS}::Default.base")[f"{STUBS}::Provider.dumps"] == "super"
    # A subclass that overrides the caller (Quiet.dump) and a same-named method of an
    # unrelated class (Other.dumps) are never targets; an untyped receiver stays unbound.
    targets = {dst for src, dst in query(root, "SELECT src, dst FROM edges WHERE kind = 'call'")}
    assert f"{STUBS}::Quiet.dumps" not in targets
    assert f"{STUBS}::Other.dumps" not in targets
    assert not [d for d in calls(root, f"{STUBS}::untyped") if not d.startswith("ext::")]


DEC = "pkg/decorators.py"
DECO = "pkg/decorated.py"
WRAPPER = f"{DEC}::setupmethod.wrapper_func"


def test_a_decorator_from_another_file_that_returns_a_wrapper(root):
    # self.add_rule() of a method decorated with the imported @setupmethod calls the
    # wrapper, which calls the method; the edge to the method itself stays.
    out = calls(root, f"{DECO}::Scaffold.route")
    assert out[WRAPPER] == "wrapper"
    assert out[f"{DECO}::Scaffold.add_rule"] == "self_method"
    assert calls(root, f"{DECO}::build")[WRAPPER] == "wrapper"
    assert calls(root, WRAPPER)[f"{DECO}::Scaffold.add_rule"] == "wrapped"
    rows = query(root, "SELECT src, expr FROM refs WHERE kind = 'wraps' ORDER BY src")
    assert [r for r in rows if r[0].startswith(DEC)] == [
        (f"{DEC}::setupmethod", "setupmethod.wrapper_func")
    ]


def test_decorators_that_return_the_function_add_no_wrapper_edge(root):
    # @register returns f itself, and @logged's inner function never calls f: no wrapper;
    # the same-named method of another class, and its caller, get no wrapper edge either.
    wrapper_edges = query(
        root, "SELECT src, dst FROM edges WHERE resolution IN ('wrapper', 'wrapped') ORDER BY 1"
    )
    assert set(wrapper_edges) == {
        (WRAPPER, f"{DECO}::Scaffold.add_rule"),
        (f"{DECO}::Scaffold.route", WRAPPER),
        (f"{DECO}::build", WRAPPER),
    }
    out = calls(root, f"{DECO}::Scaffold.route")
    assert out[f"{DECO}::Scaffold.plain"] == "self_method"
    assert out[f"{DECO}::Scaffold.noted"] == "self_method"
    assert f"{DECO}::Other.add_rule" not in calls(root, WRAPPER)


def _wrapper_edges(root):
    return sorted(
        query(
            root, "SELECT src, dst, resolution FROM edges WHERE kind = 'call' AND src LIKE 'top%'"
        )
    )


def test_an_edit_of_the_decorators_file_reaches_the_callers_of_what_it_decorates(tmp_path):
    # dec.py's wrap returns a wrapper; mid.py decorates f with it; top.py calls f and imports
    # only mid.py. Making wrap hand back f itself changes top.py's edges, two imports away
    # from the edit: the incremental scan must hold what a clean scan of the same tree holds.
    import shutil

    from znt import api

    work = tmp_path / "work"
    work.mkdir()
    wrapping = "def wrap(f):\n    def inner(*a):\n        return f(*a)\n\n    return inner\n"
    (work / "dec.py").write_text(wrapping)
    (work / "mid.py").write_text("from dec import wrap\n\n\n@wrap\ndef f(x):\n    return x\n")
    (work / "top.py").write_text("from mid import f\n\n\ndef g():\n    return f(1)\n")
    api.scan(str(work))
    assert ("top.py::g", "dec.py::wrap.inner", "wrapper") in _wrapper_edges(work)
    (work / "dec.py").write_text("def wrap(f):\n    return f\n")
    api.scan(str(work))
    clean = tmp_path / "clean"
    shutil.copytree(work, clean, ignore=shutil.ignore_patterns(".znt"))
    api.scan(str(clean))
    assert _wrapper_edges(work) == _wrapper_edges(clean) == [("top.py::g", "mid.py::f", "import")]
    (work / "dec.py").write_text(wrapping)
    api.scan(str(work))
    assert ("top.py::g", "dec.py::wrap.inner", "wrapper") in _wrapper_edges(work)


STAR = "pkg/starpkg"


def test_names_a_package_takes_with_star_imports_resolve(root):
    # `import pkg.starpkg as sp; sp.Client()`: the package's __init__ has `from ._a import *`
    out = calls(root, "pkg/use_star.py::run")
    assert out[f"{STAR}/_a.py::Client"] == "import"
    assert out[f"{STAR}/_a.py::Client.get"] == "assigned"
    assert out[f"{STAR}/_a.py::only_a"] == "import"
    # two star imports give `shared`: the later one (_b) binds it, as in Python
    assert out[f"{STAR}/_b.py::shared"] == "import"
    assert f"{STAR}/_a.py::shared" not in out
    # through a nested package's own star import
    assert out[f"{STAR}/_sub/deep.py::Deep"] == "import"


def test_private_and_undefined_names_stay_unbound_through_star_imports(root):
    out = calls(root, "pkg/use_star.py::run")
    assert f"{STAR}/_a.py::_private" not in out
    assert not [d for d in out if "missing" in d and not d.startswith("ext::")]
    assert not [d for d in out if "private" in d and not d.startswith("ext::")]


def test_graph_names_a_star_re_export(root):
    from znt import api

    doc = api.graph("pkg.starpkg.only_a", project_path=str(root))
    assert doc["start"]["ids"] == [f"{STAR}/_a.py::only_a"]
    assert doc["start"]["matched_by"] == "re_export"
    with pytest.raises(Exception, match="not found"):
        api.graph("pkg.starpkg._private", project_path=str(root))
