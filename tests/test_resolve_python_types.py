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
