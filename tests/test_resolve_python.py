"""Python call resolution, one test per rule, each with the calls it must NOT bind.

The fixture (tests/fixtures/resolve_python) is a small package: models with a diamond of
bases across two modules, a service that calls them through imports, assignments,
annotations and attributes, handlers with a decorator, closures and a function passed as an
argument, and a module named like builtins.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, query, scanned_copy
from znt import api

NAME = "resolve_python"
B = "shop/models/base.py"
ORD = "shop/models/order.py"
S = "shop/service.py"
H = "shop/handlers.py"
T = "shop/util/text.py"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return scanned_copy(tmp_path_factory, NAME)


def calls(root: Path, src: str) -> dict[str, tuple[str, float]]:
    """dst -> (resolution, confidence) of the call edges leaving ``src``."""
    rows = query(
        root,
        "SELECT dst, resolution, confidence FROM edges WHERE kind = 'call' AND src = ?",
        [src],
    )
    return {dst: (res, conf) for dst, res, conf in rows}


def project_calls(root: Path, src: str) -> set[str]:
    return {dst for dst in calls(root, src) if not dst.startswith("ext::")}


def test_imports_absolute_relative_aliased_and_module_attributes(root):
    # `from .base import Audited as AuditedBase` and `from . import base; base.Entity`.
    inherits = set(query(root, "SELECT src, dst FROM edges WHERE kind = 'inherits'"))
    assert (f"{ORD}::Order", f"{B}::Audited") in inherits
    assert (f"{ORD}::Invoice", f"{B}::Entity") in inherits
    # `import shop.util.text; shop.util.text.slug()` and `from shop.util import text as t`.
    assert calls(root, f"{S}::modules")[f"{T}::slug"][0] == "import"
    # `len` is a builtin here: never bound to shop/util/text.py::len, which is not imported.
    assert f"{T}::len" not in calls(root, f"{S}::modules")
    assert calls(root, f"{S}::modules")["ext::len"] == ("unresolved", 0.0)


def test_reexport_through_package_init_and_wildcard_import(root):
    # `from shop.models import Entity`: shop/models/__init__.py imports it from .base.
    assert calls(root, f"{S}::entity")[f"{B}::Entity"][0] == "import"
    # `from shop.util.text import *`
    assert project_calls(root, "shop/util/fmt.py::title") == {f"{T}::slug"}


def test_self_calls_follow_the_method_resolution_order(root):
    # Order(AuditedBase, Named): C3 order is Order, Audited, Named, Entity. `label` is in
    # Named and Entity: Named wins (a depth-first walk would pick Entity).
    got = calls(root, f"{ORD}::Order.submit")
    assert got[f"{B}::Entity.save"] == ("self_method", 0.9)
    assert got[f"{B}::Named.label"] == ("self_method", 0.9)
    assert f"{B}::Entity.label" not in got
    # A self call defined in the class itself stays with that class.
    assert project_calls(root, f"{B}::Entity.save") == {f"{B}::Entity.validate"}


def test_super_calls_start_after_the_class(root):
    got = calls(root, f"{B}::Audited.validate")
    assert got[f"{B}::Entity.validate"] == ("super", 0.9)
    assert f"{B}::Audited.validate" not in got  # never itself


def test_constructors_call_init_through_bases(root):
    # Order has no __init__ of its own: Entity's, found through the bases.
    got = calls(root, f"{ORD}::make_order")
    assert got[f"{ORD}::Order"] == ("constructor", 1.0)
    assert got[f"{B}::Entity.__init__"] == ("constructor", 1.0)
    # A class without any __init__ in its bases gets the class edge only.
    assert project_calls(root, f"{S}::entity") == {f"{B}::Entity", f"{B}::Entity.__init__"}


def test_attribute_types_from_self_assignments(root):
    got = calls(root, f"{S}::Cart.checkout")
    assert got[f"{ORD}::Order.submit"] == ("assigned", 0.8)  # self.order = Order(7)
    # self.lines = [] then self.lines.append(): a list, not Order.append.
    assert f"{ORD}::Order.append" not in got
    assert project_calls(root, f"{S}::Cart.checkout") == {f"{ORD}::Order.submit"}


def test_annotations_and_simple_assignments(root):
    assert calls(root, f"{S}::annotated")[f"{ORD}::Order.submit"] == ("assigned", 0.8)
    got = calls(root, f"{S}::assigned")
    assert got[f"{ORD}::Order.submit"] == ("assigned", 0.8)  # order = Order(2)
    # cache = {} then cache.get(): a dict, never Entity.get.
    assert f"{B}::Entity.get" not in got
    # made = make_order() returns an Order, but across files the returned type is not
    # followed: no guess, an unresolved external node.
    assert f"{ORD}::Order.append" not in got
    assert got["ext::make_order.append"] == ("unresolved", 0.0)


def test_local_names_shadow_imports(root):
    # `def shadowed(Order): Order.submit()`: the parameter, not the imported class.
    assert calls(root, f"{S}::shadowed") == {"ext::Order.submit": ("local", 0.0)}


def test_ambiguous_bindings_keep_every_candidate(root):
    got = calls(root, f"{S}::ambiguous")
    assert got[f"{T}::slug"] == ("ambiguous", 0.5)
    assert got[f"{ORD}::make_order"] == ("ambiguous", 0.5)


def test_decorators_are_called_by_the_code_around_the_definition(root):
    # The module applies @route; the wrapper calls the function it was given.
    assert calls(root, H)[f"{H}::route"] == ("same_scope", 1.0)
    assert f"{H}::route" not in calls(root, f"{H}::index")
    assert project_calls(root, f"{H}::route.wrapper") == {f"{H}::index"}


def test_nested_functions_closures_and_function_arguments(root):
    assert project_calls(root, f"{H}::outer") == {f"{H}::outer.inner"}
    assert project_calls(root, f"{H}::outer.inner") == {f"{H}::outer.helper"}
    # run() passes `outer` to call_through_param(callback): callback() calls outer.
    assert calls(root, f"{H}::call_through_param")[f"{H}::outer"] == ("assigned", 0.8)


def test_lambdas_are_functions_named_in_order(tmp_path):
    project = tmp_path / "lam"
    project.mkdir()
    (project / "m.py").write_text(
        "def one():\n    pass\n\n"
        "def two():\n    pass\n\n"
        "first = lambda: one()\n"
        "second = lambda: two()\n"
        "first()\n"
    )
    api.scan(str(project))
    assert project_calls(project, "m.py") == {"m.py::<lambda1>"}
    assert project_calls(project, "m.py::<lambda1>") == {"m.py::one"}
    assert project_calls(project, "m.py::<lambda2>") == {"m.py::two"}


def test_same_method_name_in_two_classes(tmp_path):
    project = tmp_path / "two"
    project.mkdir()
    (project / "m.py").write_text(
        "class A:\n    def run(self):\n        pass\n\n"
        "class B:\n    def run(self):\n        pass\n\n"
        "def use(x):\n    a = A()\n    a.run()\n    x.run()\n"
    )
    api.scan(str(project))
    got = calls(project, "m.py::use")
    assert "m.py::A.run" in got
    assert "m.py::B.run" not in got  # neither for a.run() nor for the unknown x.run()
    assert got["ext::x.run"] == ("local", 0.0)


def _edges(root: Path) -> list[tuple]:
    return sorted(query(root, "SELECT * FROM edges"), key=repr)


def test_incremental_rescan_follows_a_base_class_in_another_module(tmp_path):
    """service.py never imports base.py, yet Cart.__init__ -> <base __init__> depends on
    it through Order's bases: editing base.py must rebuild service.py's edges."""
    work = tmp_path / "work"
    shutil.copytree(FIXTURES / NAME, work)
    api.scan(str(work))
    assert f"{B}::Entity.__init__" in calls(work, f"{S}::Cart.__init__")
    base = work / B
    base.write_text(
        base.read_text().replace(
            "class Named(Entity):\n    def label(self):",
            "class Named(Entity):\n    def __init__(self, ident):\n        pass\n\n"
            "    def label(self):",
        )
    )
    api.scan(str(work))
    got = calls(work, f"{S}::Cart.__init__")
    assert f"{B}::Named.__init__" in got and f"{B}::Entity.__init__" not in got
    clean = tmp_path / "clean"
    shutil.copytree(work, clean, ignore=shutil.ignore_patterns(".znt"))
    api.scan(str(clean))
    assert _edges(work) == _edges(clean)


F = "shop/flow.py"


def test_calls_of_what_a_call_returns(root):
    # pick()(1): pick returns double; maker()(): maker returns its nested made.
    got = calls(root, f"{F}::chained")
    assert got[f"{F}::double"] == ("assigned", 0.8)
    assert got[f"{F}::maker.made"] == ("assigned", 0.8)
    # The returned function is called, not a same-named or sibling one.
    assert f"{F}::triple" not in got
    assert project_calls(root, f"{F}::chained") == {
        f"{F}::pick",
        f"{F}::double",
        f"{F}::maker",
        f"{F}::maker.made",
    }


def test_decorated_names_hold_what_the_decorator_returns(root):
    got = calls(root, f"{F}::use_decorated")
    # @wrap returns wrapper: calling wrapped() runs wrap.wrapper, which calls wrapped.
    assert got[f"{F}::wrap.wrapper"] == ("assigned", 0.8)
    assert f"{F}::wrapped" not in got
    assert project_calls(root, f"{F}::wrap.wrapper") == {f"{F}::wrapped"}
    # @passthrough returns its parameter: plain() is plain, never the other function it
    # decorates (built, through @make_deco() -> passthrough).
    assert got[f"{F}::plain"] == ("assigned", 0.8)
    assert got[f"{F}::built"] == ("assigned", 0.8)
    # @make_deco() applies what make_deco() returns (passthrough), and @wrap wrap.
    module = calls(root, F)
    assert module[f"{F}::make_deco"][0] == "same_scope"
    assert {f"{F}::passthrough", f"{F}::wrap"} <= set(module)
    assert f"{F}::wrap.wrapper" not in module  # applying @wrap does not call wrapper


def test_stacked_decorators_wrap_each_other(tmp_path):
    project = tmp_path / "stack"
    project.mkdir()
    (project / "m.py").write_text(
        "def outer(f):\n    def inner():\n        return f()\n    return inner\n\n"
        "def lower(f):\n    def inner():\n        return f()\n    return inner\n\n"
        "@outer\n@lower\ndef job():\n    pass\n\n"
        "job()\n"
    )
    api.scan(str(project))
    assert project_calls(project, "m.py::outer.inner") == {"m.py::lower.inner"}
    assert project_calls(project, "m.py::lower.inner") == {"m.py::job"}
    assert "m.py::job" not in calls(project, "m.py")
    assert calls(project, "m.py")["m.py::outer.inner"] == ("assigned", 0.8)


def test_items_of_a_literal_container_by_a_variable_key_are_candidates(root):
    got = calls(root, f"{F}::dispatch")  # HANDLERS[key](1)
    assert got[f"{F}::double"] == ("ambiguous", 0.5)
    assert got[f"{F}::triple"] == ("ambiguous", 0.5)
    # A literal key names one item only.
    assert project_calls(root, f"{F}::literal_key") == {f"{F}::double"}


def test_builtins_that_call_their_function_arguments(root):
    # map(double, xs) and sorted(xs, key=triple) call them.
    assert project_calls(root, f"{F}::mapped") == {f"{F}::double", f"{F}::triple"}
    # print(triple) and sorted(..., reverse=double) do not; nor a local named map.
    assert project_calls(root, f"{F}::shown") == set()
    assert project_calls(root, f"{F}::shadowed") == set()


def test_default_parameter_values_are_bound(root):
    assert calls(root, f"{F}::defaults")[f"{F}::triple"] == ("assigned", 0.8)
    assert f"{F}::double" not in calls(root, f"{F}::defaults")


def test_items_of_nested_and_returned_literal_containers(root):
    # got = table() returns a dict literal: got["x"] is its "x" item, not "y".
    assert project_calls(root, f"{F}::through_return") == {f"{F}::table", f"{F}::double"}
    # NESTED[0][0] is the inner list's item, never the outer list's other one.
    assert project_calls(root, f"{F}::nested_item") == {f"{F}::double"}


C = "shop/consumer.py"


def test_what_an_imported_function_returns(root):
    got = calls(root, f"{C}::use_returned")
    assert got[f"{F}::double"] == ("assigned", 0.8)  # fn = pick(); fn()
    assert got[f"{F}::maker.made"] == ("assigned", 0.8)  # made = maker(); made()
    assert f"{F}::triple" not in got
    # What an outside function returns is unknown: unresolved, never a project symbol.
    assert calls(root, f"{C}::use_outside")["ext::getcwd()"] == ("unresolved", 0.0)
    assert project_calls(root, f"{C}::use_outside") == set()


def test_decorators_of_other_modules_keep_the_function(root):
    # @lru_cache (outside) and @passthrough (another module): what they return is not
    # known here, so the name still calls the function itself, never an unknown result.
    got = calls(root, f"{C}::use_decorated_elsewhere")
    assert got[f"{C}::cached"] == ("same_scope", 1.0)
    assert got[f"{C}::passed"] == ("same_scope", 1.0)
    assert "ext::lru_cache()" not in got and "ext::passthrough()" not in got


def test_incremental_rescan_follows_a_changed_return(tmp_path):
    work = tmp_path / "work"
    shutil.copytree(FIXTURES / NAME, work)
    api.scan(str(work))
    flow = work / F
    flow.write_text(
        flow.read_text().replace("def pick():\n    return double", "def pick():\n    return triple")
    )
    api.scan(str(work))
    got = calls(work, f"{C}::use_returned")
    assert f"{F}::triple" in got and f"{F}::double" not in got
    clean = tmp_path / "clean"
    shutil.copytree(work, clean, ignore=shutil.ignore_patterns(".znt"))
    api.scan(str(clean))
    assert _edges(work) == _edges(clean)
