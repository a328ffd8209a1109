"""Go type flow (docs/languages.md, "Call resolution"): the receiver type of a call from the
receiver, parameters, declared and inferred locals, a constructor's declared result, type
assertions and embedded-struct promotion; builtins and conversions are no calls at all.
Each rule has a negative case that must stay unbound."""

from __future__ import annotations

import pytest

from tests.conftest import internal_calls, query, scanned_copy

LANG = "lang/go_types"
CTX = "shop/context.go"
ENGINE = "shop/engine.go"
H = "shop/handlers.go"
CHAIN = "shop/chain.go"


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return scanned_copy(tmp_path_factory, LANG)


@pytest.fixture(scope="module")
def calls(root):
    return internal_calls(root)


@pytest.mark.parametrize(
    ("caller", "callee"),
    [
        (f"{H}::param", f"{CTX}::Context.Next"),  # a parameter's declared type
        (f"{H}::declared", f"{CTX}::Context.Abort"),  # var c Context
        (f"{H}::literal", f"{CTX}::Context.Next"),  # c := Context{}
        (f"{H}::pointer", f"{CTX}::Context.Abort"),  # c := &Context{}
        (f"{H}::constructed", f"{ENGINE}::Engine.Run"),  # New() declares *Engine
        (f"{H}::opened", f"{ENGINE}::Engine.Run"),  # Open() declares (*Engine, error)
        (f"{H}::named", f"{CTX}::Context.Abort"),  # Pair() declares (c *Context, e *Engine)
        (f"{H}::fielded", f"{ENGINE}::Engine.Run"),  # c.engine: the field's declared type
        (f"{H}::asserted", f"{CTX}::Context.Next"),  # c := v.(*Context)
        (f"{H}::promoted", f"{ENGINE}::RouterGroup.Handle"),  # embedded RouterGroup
        ("shop/handlers_test.go::TestAbort", f"{CTX}::Context.Abort"),
        # across packages: through the import, the declared result and promotion
        ("api/client.go::Serve", f"{ENGINE}::Engine.Run"),
        ("api/client.go::Serve", f"{ENGINE}::RouterGroup.Handle"),
        ("api/client.go::Serve", f"{CTX}::Context.Next"),  # var c *shop.Context
        # chains of declared types: a field's field, through a parameter or the receiver
        (f"{H}::chained", f"{CHAIN}::Pool.Get"),
        (f"{CHAIN}::Context.Reset", f"{CHAIN}::Pool.Get"),
        # rt := new(Router); rt.Handle().Name().Path(): each method's declared result,
        # the methods declared in another file of the package
        (f"{H}::routed", f"{CHAIN}::Router.Handle"),
        (f"{H}::routed", f"{CHAIN}::Route.Name"),
        (f"{H}::routed", f"{CHAIN}::Route.Path"),
        (f"{H}::routed", f"{CHAIN}::Router.Mount"),  # var Default = Router{}
        # rt.Handle().Name() inside a Router method: the receiver's method's result
        (f"{CHAIN}::Router.Named", f"{CHAIN}::Router.Handle"),
        (f"{CHAIN}::Router.Named", f"{CHAIN}::Route.Name"),
        # new(Router).Mount(), and a local holding what a chain of calls returns
        (f"{H}::allocated", f"{CHAIN}::Router.Mount"),
        (f"{H}::allocated", f"{CHAIN}::Router.Handle"),
        (f"{H}::allocated", f"{CHAIN}::Route.Name"),
        (f"{H}::allocated", f"{CHAIN}::Route.Path"),
    ],
)
def test_typed_receiver_is_bound(calls, caller, callee):
    assert (caller, callee) in calls


def test_same_named_method_of_another_type_is_never_bound(calls):
    assert not {e for e in calls if e[1] == "shop/other.go::Other.Next"}
    assert not {e for e in calls if e[1] == "shop/other.go::Other.Get"}
    assert not {e for e in calls if e[1] == "shop/other.go::Other.Handle"}
    assert not {e for e in calls if e[1] == "shop/other.go::Other.Name"}


def test_a_chain_from_an_untyped_value_stays_unbound(calls):
    # rt is an interface literal's value: its Handle is nobody's method of the project, and
    # what it returns is not followed (sub.Name stays unresolved).
    assert not {e for e in calls if e[0] == f"{H}::untypedChain"}


def test_a_chain_through_an_unstated_type_stays_unresolved(root, calls):
    # c.engine.extra["k"]: a map's element is no declared type, so Get is nobody's.
    assert not {e for e in calls if e[0] == f"{H}::unstated"}


def test_untyped_receiver_stays_local(root, calls):
    assert not {e for e in calls if e[0] == f"{H}::untyped"}
    rows = query(
        root,
        "SELECT dst, resolution FROM edges WHERE kind = 'call' AND src = ?",
        [f"{H}::untyped"],
    )
    assert rows == [("ext::c.Next", "local")]


def test_embedding_interface_has_the_embedded_methods(root):
    # Runner embeds Stepper: Context (Next, Abort, Run) implements both; Engine has a Run
    # but not Runner's other methods.
    impl = query(root, "SELECT src, dst FROM edges WHERE kind = 'implements'")
    assert (f"{CTX}::Context", "shop/runner.go::Runner") in impl
    assert (f"{ENGINE}::Engine", "shop/runner.go::Runner") not in impl
    rows = query(
        root,
        "SELECT dst, resolution FROM edges WHERE kind = 'call' AND src = ? ORDER BY dst",
        ["shop/runner.go::drive"],
    )
    assert rows == [
        (f"{CHAIN}::Context.Run", "ambiguous"),
        (f"{CTX}::Context.Next", "ambiguous"),
        ("shop/iface.go::Stepper.Next", "assigned"),  # the embedded interface's method
        ("shop/runner.go::Runner.Run", "assigned"),
    ]


def test_builtins_and_conversions_are_no_calls(root):
    rows = query(root, "SELECT dst FROM edges WHERE kind = 'call' AND src = ?", [f"{H}::builtins"])
    assert rows == []


def test_interface_call_binds_the_method_and_each_implementation(root):
    rows = query(
        root,
        "SELECT dst, resolution FROM edges WHERE kind = 'call' AND src = ? ORDER BY dst",
        ["shop/iface.go::ping"],
    )
    assert rows == [
        ("shop/context.go::Context.Next", "ambiguous"),  # Context implements Stepper
        ("shop/iface.go::Stepper.Next", "assigned"),
    ]


def test_outline_lists_go_methods_as_top_level(root):
    from znt import api

    doc = api.outline(str(root / CTX), project_path=str(root))
    assert [s["qualified_name"] for s in doc["symbols"]] == [
        "Context",
        "Context.Next",
        "Context.Abort",
    ]
    # An interface's methods are its members, not declarations of the file.
    doc = api.outline(str(root / "shop/iface.go"), project_path=str(root))
    assert [s["qualified_name"] for s in doc["symbols"]] == ["Stepper", "ping"]


def test_outline_members_nests_fields_and_interface_methods(root):
    from znt import api

    doc = api.outline(str(root / "shop/iface.go"), members=True, project_path=str(root))
    assert [(s["qualified_name"], s["depth"]) for s in doc["symbols"]] == [
        ("Stepper", 0),
        ("Stepper.Next", 1),
        ("Stepper.Abort", 1),
        ("ping", 0),
    ]
    doc = api.outline(str(root / CTX), members=True, project_path=str(root))
    assert ("Context.engine", 1) in [(s["qualified_name"], s["depth"]) for s in doc["symbols"]]
