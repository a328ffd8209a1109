"""``znt similar`` on a fixture with planted near-duplicates (tests/fixtures/similar):
``shop/pricing.py::compute_invoice_total`` has a byte-for-byte copy in another module
(``reports/summary.py``), a renamed copy (``legacy/billing.py::calc_bill_sum``: other function
and variable names) and a copy with its statements reordered (``shop/orders.py::order_total``),
among unrelated code. One index embedded with the real local model (all-MiniLM-L6-v2), one
without embeddings (the bm25 test config); each is scanned once per test run and shared by
the xdist workers."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, local_model_config, run_znt
from znt import api
from znt.errors import Ambiguous, UsageError

TARGET = "shop/pricing.py::compute_invoice_total"
COPIES = {
    "reports/summary.py::compute_invoice_total",  # the same code in another module
    "legacy/billing.py::calc_bill_sum",  # renamed function and variables
    "shop/orders.py::order_total",  # statements reordered
}
FAMILY = COPIES | {TARGET}

# A pasted variant of util/text.py::parse_log_line: every name changed, statements reordered.
LOG_SNIPPET = textwrap.dedent(
    """
    def split_access_entry(entry):
        client, remainder = entry.split(" ", 1)
        req = remainder.split('"')[1]
        code = int(remainder.split('"')[2].split()[0])
        when = remainder[remainder.index("[") + 1 : remainder.index("]")]
        verb, url, _version = req.split(" ")
        return {"host": client, "method": verb, "path": url, "status": code, "time": when}
    """
)
# A variant of the invoice total: renamed, reordered, expressions folded together.
INVOICE_SNIPPET = textwrap.dedent(
    """
    def sum_order(entries, tax, off):
        total = 0.0
        for e in entries:
            total += e["qty"] * e["price"]
            validate_item(e)
        return round_money(apply_discount(total, off) * (1 + tax))
    """
)


def _shared_scan(tmp_path_factory: pytest.TempPathFactory, name: str, *, embed: bool) -> Path:
    """A scanned copy of the fixture, made once per test run (the first worker scans, the
    others wait on the lock and reuse it: the tests only read)."""
    base = tmp_path_factory.getbasetemp().parent / f"similar-{name}"
    base.mkdir(exist_ok=True)
    root = base / "similar"
    with open(base / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (base / ".done").exists():
            shutil.rmtree(root, ignore_errors=True)
            shutil.copytree(FIXTURES / "similar", root)
            doc = api.scan(str(root), no_embed=not embed)
            if embed:
                assert doc["embeddings"]["status"] == "completed", doc["embeddings"]
            (base / ".done").write_text("ok")
        fcntl.flock(lock, fcntl.LOCK_UN)
    return root


@pytest.fixture(scope="module")
def local_config(tmp_path_factory: pytest.TempPathFactory, cache_dir: Path) -> Iterator[Path]:
    """ZNT_CONFIG -> the real local model for this module (snippets and queries embed)."""
    config = local_model_config(tmp_path_factory.mktemp("similar-config"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ZNT_CONFIG", str(config))
        yield config


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory, local_config: Path) -> Path:
    return _shared_scan(tmp_path_factory, "embedded", embed=True)


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _shared_scan(tmp_path_factory, "bm25", embed=False)


def ids(doc: dict) -> list[str]:
    return [r["id"] for r in doc["results"]]


def check_scores(doc: dict) -> None:
    for r in doc["results"]:
        assert 0.0 < r["score"] <= 1.0
        parts = r["score_parts"]
        assert {"vector", "structure", "role_kind"} <= set(parts)
        assert sum(parts.values()) == pytest.approx(r["score"], abs=1e-3)
        assert all(0.0 <= v <= 1.0 for v in parts.values())
        assert set(r["callers"]) == set(r["callees"]) == {"internal", "external"}
    assert sum(doc["weights"].values()) == pytest.approx(1.0, abs=1e-3)
    scores = [r["score"] for r in doc["results"]]
    assert scores == sorted(scores, reverse=True)


def test_target_ranks_planted_copies_above_unrelated_code(embedded: Path) -> None:
    doc = api.similar("shop.pricing.compute_invoice_total", limit=50, project_path=str(embedded))
    check_scores(doc)
    assert doc["mode"] == "target" and doc["vectors"] is True and not doc["warnings"]
    assert doc["weights"] == {"vector": 0.6, "structure": 0.3, "role_kind": 0.1}
    got = ids(doc)
    assert TARGET not in got
    assert set(got[:3]) == COPIES, got[:6]
    by_id = {r["id"]: r for r in doc["results"]}
    worst_copy = min(by_id[c]["score"] for c in COPIES)
    unrelated = [r["score"] for r in doc["results"] if r["id"] not in FAMILY]
    assert unrelated and max(unrelated) < worst_copy
    exact = by_id["reports/summary.py::compute_invoice_total"]
    assert exact["signals"]["cosine"] == pytest.approx(1.0, abs=1e-3)
    renamed = by_id["legacy/billing.py::calc_bill_sum"]
    assert renamed["callees"] == {"internal": 3, "external": 0}
    pct = round(renamed["score"] * 100)
    assert renamed["similarity_percent"] == pct
    assert renamed["similarity_reason"].startswith(f"{pct}% similar: vector 0.")
    assert "callees apply_discount, round_money, validate_item" in renamed["similarity_reason"]
    assert "same role generic, same kind function" in renamed["similarity_reason"]

    # the renamed copy as the target finds the rest of the family first
    doc = api.similar("calc_bill_sum", limit=5, project_path=str(embedded))
    assert set(ids(doc)[:3]) == FAMILY - {"legacy/billing.py::calc_bill_sum"}
    # --path filters, --offset pages
    doc = api.similar(TARGET, path="legacy", project_path=str(embedded))
    assert ids(doc) == ["legacy/billing.py::calc_bill_sum"]
    first = api.similar(TARGET, limit=2, project_path=str(embedded))
    second = api.similar(TARGET, limit=2, offset=2, project_path=str(embedded))
    assert first["truncated"] and first["next_offset"] == 2
    assert not set(ids(first)) & set(ids(second))


def test_snippet_finds_the_function_it_was_pasted_from(embedded: Path) -> None:
    doc = api.similar(snippet=LOG_SNIPPET, project_path=str(embedded))
    check_scores(doc)
    assert doc["mode"] == "snippet" and doc["vectors"] is True
    assert doc["target"]["calls"] == ["index", "int", "split"]
    assert ids(doc)[0] == "util/text.py::parse_log_line"
    top = doc["results"][0]
    assert top["signals"]["jaccard"] == 1.0 and top["score"] > doc["results"][1]["score"] + 0.2

    doc = api.similar(snippet=INVOICE_SNIPPET, project_path=str(embedded))
    assert set(ids(doc)[:4]) == FAMILY


def test_snippet_from_stdin_on_the_cli(embedded: Path, local_config: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ZNT_PROJECT_ROOT"}
    env["ZNT_CONFIG"] = str(local_config)
    proc = subprocess.run(
        [sys.executable, "-m", "znt", "similar", "--snippet", "-", "--format", "json"],
        cwd=embedded,
        env=env,
        input=LOG_SNIPPET,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["schema_version"] == 1 and doc["kind"] == "similar"
    assert doc["results"][0]["id"] == "util/text.py::parse_log_line"
    check_scores(doc)


def test_query(embedded: Path) -> None:
    doc = api.similar(
        query="split an access log line into host, method, path and status",
        project_path=str(embedded),
    )
    check_scores(doc)
    assert doc["mode"] == "query" and doc["weights"] == {"vector": 1.0}
    assert ids(doc)[0] == "util/text.py::parse_log_line"
    # --role sets what the role/kind part agrees with: a soft boost, never a filter
    doc = api.similar(query="money", role="utility", limit=50, project_path=str(embedded))
    assert set(doc["weights"]) == {"vector", "role_kind"}
    roles = {r["role"] for r in doc["results"]}
    assert "generic" in roles and "utility" in roles


def test_without_embeddings_ranks_by_structure_and_says_so(plain: Path) -> None:
    doc = api.similar(TARGET, project_path=str(plain))
    check_scores(doc)
    assert doc["vectors"] is False
    assert doc["weights"] == {"structure": 0.75, "role_kind": 0.25}
    assert any("no embeddings" in w for w in doc["warnings"])
    assert set(ids(doc)) == COPIES  # only code sharing call-graph neighbours
    assert all(r["score_parts"]["vector"] == 0 for r in doc["results"])

    doc = api.similar(snippet=LOG_SNIPPET, project_path=str(plain))
    check_scores(doc)
    assert doc["candidate_sources"][0] == "lexical"
    assert any("lexical" in w for w in doc["warnings"])
    assert ids(doc)[0] == "util/text.py::parse_log_line"
    assert "lexical" in doc["results"][0]["score_parts"]

    doc = api.similar(query="access log line", project_path=str(plain))
    assert ids(doc)[0] == "util/text.py::parse_log_line"
    assert doc["weights"] == {"lexical": 1.0}

    proc = run_znt("similar", TARGET, cwd=plain)
    assert proc.returncode == 0, proc.stderr
    assert "no embeddings" in proc.stderr
    assert "reports/summary.py:6-14" in proc.stdout and "shares 3 of 4 neighbours" in proc.stdout


def test_cli_errors_and_exit_codes(plain: Path) -> None:
    proc = run_znt("similar", "compute_invoice_total", "--format", "json", cwd=plain)
    assert proc.returncode == 4
    err = json.loads(proc.stdout)["error"]
    assert err["code"] == "ambiguous"
    assert set(err["candidates"]) == {TARGET, "reports/summary.py::compute_invoice_total"}
    assert TARGET in proc.stderr
    # nothing found: exit 1 (text says so)
    proc = run_znt("similar", TARGET, "--path", "no/such/dir", cwd=plain)
    assert proc.returncode == 1 and "No similar code found." in proc.stdout
    # exactly one of TARGET, --query, --snippet
    assert run_znt("similar", cwd=plain).returncode == 2
    assert run_znt("similar", TARGET, "--query", "x", cwd=plain).returncode == 2
    assert run_znt("similar", "no_such_function_anywhere", cwd=plain).returncode == 4
    with pytest.raises(Ambiguous):
        api.similar("compute_invoice_total", project_path=str(plain))
    with pytest.raises(UsageError):
        api.similar(snippet="x = 1", snippet_language="klingon", project_path=str(plain))
    with pytest.raises(UsageError):
        api.similar(TARGET, edge_types="calls", project_path=str(plain))


def test_jsonl_lines_are_results(plain: Path) -> None:
    proc = run_znt("similar", TARGET, "--format", "jsonl", "--limit", "2", cwd=plain)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    assert len(lines) == 2 and {x["id"] for x in lines} <= COPIES
