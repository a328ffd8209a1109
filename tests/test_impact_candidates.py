"""impact: when no resolved edge reaches a test, the tests whose unresolved calls carry a
changed symbol's name are listed as candidates (issue 16), never as callers."""

from __future__ import annotations

from tests.conftest import copy_fixture
from znt import api


def test_unresolved_test_calls_of_the_name_are_candidates(tmp_path):
    root = copy_fixture("impact_candidates", tmp_path)
    api.scan(str(root))
    doc = api.impact(paths=["pkg/core.py"], project_path=str(root))
    assert doc["tests"] == []
    names = [n["qualified_name"] for n in doc["candidate_tests"]]
    # test_abort and test_stop call abort()/stop() on values of unknown type; test_tick
    # calls nothing of core.py's.
    assert names == ["test_abort", "test_stop"]
    assert all(n["id"] not in {c["id"] for c in doc["callers"]} for n in doc["candidate_tests"])


def test_no_candidates_when_a_resolved_edge_reaches_a_test(tmp_path):
    root = copy_fixture("impact_candidates", tmp_path)
    api.scan(str(root))
    doc = api.impact(paths=["pkg/clock.py"], project_path=str(root))
    assert [n["qualified_name"] for n in doc["tests"]] == ["test_tick"]
    assert doc["candidate_tests"] == []
