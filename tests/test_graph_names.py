"""How `graph` (and `impact`, `similar`) read a symbol name: code before documentation
sections, and a name a package re-exports through its `__init__.py`."""

from __future__ import annotations

import pytest

from tests.conftest import scanned_copy
from znt import api
from znt.errors import NotFound


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return scanned_copy(tmp_path_factory, "graph_names")


def _start(project, name):
    doc = api.graph(name, depth=1, project_path=str(project))
    return [n["id"] for n in doc["nodes"] if n.get("start")]


def test_markdown_heading_never_makes_a_class_ambiguous(project):
    assert _start(project, "Request") == ["requests/models.py::Request"]
    # The heading is still a symbol: search finds it.
    hits = api.search("Request", project_path=str(project))["results"]
    assert {h["file"] for h in hits} >= {"README.md", "requests/models.py"}


def test_a_reexported_name_resolves_to_its_definition(project):
    # requests/sessions.py defines another `get`; the package imports api's.
    assert _start(project, "requests.get") == ["requests/api.py::get"]


def test_a_name_no_package_reexports_is_not_found(project):
    with pytest.raises(NotFound):
        api.graph("requests.post", depth=1, project_path=str(project))
