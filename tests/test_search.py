"""Lexical search through the real CLI on a small project: tokenizer, BM25F field weights,
filters, boosts, bounds, relations, exit codes, and incremental upkeep of the postings."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from tests.conftest import query, run_znt
from znt.index import lexical
from znt.index.lexical import mention_keys, mentioned_files, stem, tokenize
from znt.index.search import fuse, glob_regex, secondary_path

FILES = {
    "shop/users.py": '''
        """User accounts."""


        class UserRepository:
            """Stores users in the database."""

            def get_user_name(self, user_id):
                return self.db.fetch(user_id).name

            def save(self, user):
                self.db.write(user)


        def getUserName2(record):
            return record["name"]
    ''',
    "shop/http/client.py": '''
        class Client:
            def send(self, request):
                """Send an HTTP request and retry with exponential backoff."""
                for attempt in range(3):
                    response = self.transport.handle(request)
                    if response.ok:
                        return response
                    backoff_sleep(attempt)


        def backoff_sleep(attempt):
            import time

            time.sleep(2 ** attempt)


        def wait_all():
            backoff_sleep(1)


        def main():
            wait_all()
    ''',
    "shop/reports/parse_json.py": '''
        import json


        def load_report(path):
            """Read a JSON report file from disk."""
            with open(path) as fh:
                return json.load(fh)


        def test_load_report():
            assert load_report("x.json") is not None
    ''',
    "tools/retry_policy.py": """
        RETRY_LIMIT = 5


        def retry_policy(attempts):
            return min(attempts, RETRY_LIMIT)
    """,
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("searchproj")
    for rel, text in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    proc = run_znt("scan", cwd=root)
    assert proc.returncode == 0, proc.stderr
    return root


def search(root: Path, *args: str) -> tuple[int, dict, str]:
    proc = run_znt("search", *args, "--format", "json", cwd=root)
    return proc.returncode, json.loads(proc.stdout) if proc.stdout else {}, proc.stderr


def names(doc: dict) -> list[str]:
    return [r["qualified_name"] for r in doc["results"]]


def test_tokenizer_splits_code_and_keeps_whole_identifiers() -> None:
    terms = tokenize("getUserName2 parse_HTTPResponse os.path.join the Files")
    assert {"getusername2", "get", "user", "name"} <= set(terms)
    assert "2" not in terms  # one-character parts tell nothing apart
    assert {"parse_httpresponse", stem("parse"), "http", stem("response")} <= set(terms)
    assert {"os.path.join", "os", "path", "join"} <= set(terms)
    assert "file" in terms and "the" not in terms
    assert stem("parsing") == stem("parsed") == stem("parses")
    assert stem("queries") == "query" and stem("class") == "class"


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("client.py", "shop/http/client.py", True),
        ("http/client.py", "shop/http/client.py", True),
        ("shop/*.py", "shop/users.py", True),
        ("shop/*.py", "shop/http/client.py", False),
        ("shop/**/*.py", "shop/http/client.py", True),
        ("**/test_*.py", "a/b/test_x.py", True),
        ("shop", "shop/http/client.py", True),
        ("shop", "workshop/x.py", False),
        ("*.go", "shop/users.py", False),
    ],
)
def test_path_glob(pattern: str, path: str, matches: bool) -> None:
    assert bool(re.fullmatch(glob_regex(pattern), path)) is matches


def test_name_hits_rank_first(project: Path) -> None:
    code, doc, _ = search(project, "get_user_name", "--mode", "lexical")
    assert code == 0
    assert names(doc)[0] == "UserRepository.get_user_name"
    assert doc["results"][0]["found_by"] == ["lexical"]
    # the split parts find the camelCase twin too
    _, doc, _ = search(project, "user name", "--mode", "lexical")
    assert {"UserRepository.get_user_name", "getUserName2"} <= set(names(doc)[:3])


def test_qualified_and_doc_words(project: Path) -> None:
    _, doc, _ = search(project, "Client.send", "--mode", "lexical")
    assert names(doc)[0] == "Client.send"
    _, doc, _ = search(project, "exponential backoff retry", "--mode", "lexical")
    assert names(doc)[0] in {"Client.send", "backoff_sleep"}
    assert {"Client.send", "backoff_sleep"} <= set(names(doc)[:4])


def test_result_shape(project: Path) -> None:
    _, doc, _ = search(project, "load_report", "--mode", "lexical", "--limit", "1")
    item = doc["results"][0]
    for key in ("id", "name", "type", "kind", "role", "file", "start_line", "end_line", "score"):
        assert key in item
    assert item["id"] == "shop/reports/parse_json.py::load_report"
    assert (item["start_line"], item["end_line"]) == (4, 7)
    assert doc["schema_version"] == 1 and doc["kind"] == "search"
    assert doc["freshness"]["last_scan_at"]


def test_path_filter(project: Path) -> None:
    _, doc, _ = search(project, "retry", "--mode", "lexical", "--path", "tools")
    assert doc["results"] and all(r["file"].startswith("tools/") for r in doc["results"])
    _, doc, _ = search(project, "retry", "--mode", "lexical", "--path", "client.py")
    assert doc["results"] and all(r["file"] == "shop/http/client.py" for r in doc["results"])


def test_type_and_role_are_soft_boosts(project: Path) -> None:
    _, plain, _ = search(project, "retry policy", "--mode", "lexical")
    _, boosted, _ = search(project, "retry policy", "--mode", "lexical", "--type", "member")
    assert names(boosted)[0] == "RETRY_LIMIT"
    assert names(plain)[0] != "RETRY_LIMIT"
    assert boosted["results"][0]["boosted_by"] == ["type"]
    assert len(boosted["results"]) == len(plain["results"])  # a boost filters nothing
    _, doc, _ = search(project, "test load report", "--mode", "lexical")
    # test code ranks below the code it tests, even when the words fit it better
    assert names(doc).index("load_report") < names(doc).index("test_load_report")
    demoted = [r for r in doc["results"] if r["qualified_name"] == "test_load_report"]
    assert demoted and "demoted" in demoted[0]
    _, doc, _ = search(project, "test load report", "--mode", "lexical", "--role", "test")
    assert names(doc)[0] == "test_load_report" and "demoted" not in doc["results"][0]


def test_offset_limit_and_token_budget(project: Path) -> None:
    _, full, _ = search(project, "user", "--mode", "lexical", "--limit", "50")
    assert len(full["results"]) >= 3 and full["truncated"] is False
    _, page, _ = search(project, "user", "--mode", "lexical", "--limit", "1", "--offset", "1")
    assert names(page) == names(full)[1:2]
    assert page["truncated"] is True and page["next_offset"] == 2
    _, cut, _ = search(project, "user", "--mode", "lexical", "--limit", "50", "--max-tokens", "1")
    assert len(cut["results"]) == 1 and cut["truncated"] is True


def test_nothing_found_exits_1(project: Path) -> None:
    proc = run_znt("search", "zyxwvut", "--mode", "lexical", cwd=project)
    assert proc.returncode == 1
    assert proc.stdout.strip() == "No matching components found."
    code, doc, _ = search(project, "zyxwvut", "--mode", "lexical")
    assert code == 1 and doc["results"] == []


def test_relations_and_code(project: Path) -> None:
    _, doc, _ = search(
        project, "backoff_sleep", "--mode", "lexical", "--limit", "1", "--callers", "2"
    )
    top = doc["results"][0]
    assert top["qualified_name"] == "backoff_sleep"
    callers = {c["name"]: c for c in top["callers"]}
    assert set(callers) == {"send", "wait_all"}
    assert callers["send"]["edge_type"] == "call"
    assert [c["name"] for c in callers["wait_all"]["callers"]] == ["main"]  # second level
    _, doc, _ = search(
        project, "backoff_sleep", "--mode", "lexical", "--limit", "1", "--callers", "2", "--compact"
    )
    assert "callers" not in doc["results"][0]
    _, doc, _ = search(
        project,
        "Client.send",
        "--mode",
        "lexical",
        "--limit",
        "1",
        "--code",
        "--max-code-lines",
        "2",
    )
    assert doc["results"][0]["code"].splitlines() == [
        "    def send(self, request):",
        '        """Send an HTTP request and retry with exponential backoff."""',
    ]
    assert doc["results"][0]["code_truncated"] is True


def test_text_and_jsonl_formats(project: Path) -> None:
    proc = run_znt("search", "Client.send", "--mode", "lexical", "--limit", "2", cwd=project)
    assert proc.returncode == 0
    assert "Client.send" in proc.stdout and "shop/http/client.py:2-8" in proc.stdout
    proc = run_znt("search", "user", "--mode", "lexical", "--format", "jsonl", cwd=project)
    lines = proc.stdout.strip().splitlines()
    assert len(lines) >= 2 and all(json.loads(x)["id"] for x in lines)


def test_hybrid_without_vectors_says_so(project: Path) -> None:
    code, doc, err = search(project, "user name")
    assert code == 0 and doc["answered_by"] == "lexical"
    assert any("no embeddings" in w for w in doc["warnings"])
    assert "vector search unavailable" in err


def test_usage_errors(project: Path) -> None:
    assert run_znt("search", "  ", cwd=project).returncode == 2
    assert run_znt("search", "x", "--limit", "0", cwd=project).returncode == 2
    assert run_znt("search", "x", "--mode", "fuzzy", cwd=project).returncode == 2


def test_no_index_exits_3(tmp_path: Path) -> None:
    proc = run_znt("search", "x", cwd=tmp_path)
    assert proc.returncode == 3 and "znt scan" in proc.stderr


def test_postings_follow_edits(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (root / "a.py").write_text("def alpha_handler():\n    return 1\n")
    (root / "b.py").write_text("def beta_handler():\n    return 2\n")
    assert run_znt("scan", cwd=root).returncode == 0
    (root / "a.py").write_text("def gamma_handler():\n    return 1\n")
    (root / "b.py").unlink()
    assert run_znt("scan", cwd=root).returncode == 0
    _, doc, _ = search(root, "handler", "--mode", "lexical")
    assert names(doc)[0] == "gamma_handler"
    assert not {"alpha_handler", "beta_handler"} & set(names(doc))
    assert query(root, "SELECT count(*) FROM lex_postings WHERE file = 'b.py'") == [(0,)]
    assert query(root, "SELECT count(*) FROM lex_postings WHERE term = 'alpha_handler'") == [(0,)]


def test_each_posting_is_stored_with_its_documents_file(tmp_path: Path) -> None:
    # Postings are staged without their file (store.STAGED_COLUMNS); the load takes it from
    # the staged documents, on a full build and on a rescan of one file.
    root = tmp_path / "p"
    (root / "pkg, odd").mkdir(parents=True)
    (root / "a.py").write_text("def alpha_handler():\n    return 1\n")
    (root / "pkg, odd" / "b.py").write_text("class Beta:\n    def run(self):\n        pass\n")
    assert run_znt("scan", cwd=root).returncode == 0
    (root / "a.py").write_text("def alpha_handler():\n    return delta_value\n")
    assert run_znt("scan", cwd=root).returncode == 0
    by_file = query(root, "SELECT file, count(*) FROM lex_postings GROUP BY file ORDER BY file")
    assert [f for f, _n in by_file] == ["a.py", "pkg, odd/b.py"]
    assert query(root, "SELECT DISTINCT file FROM lex_postings WHERE term = 'delta_value'") == [
        ("a.py",)
    ]
    mismatched = (
        "SELECT count(*) FROM lex_postings p JOIN lex_docs d USING (sid) WHERE p.file <> d.file"
    )
    assert query(root, mismatched) == [(0,)]
    assert query(root, "SELECT count(*) FROM lex_postings WHERE file IS NULL") == [(0,)]


def test_each_symbols_card_is_what_search_shows_of_its_row(tmp_path: Path) -> None:
    # The load builds the card (store.SEARCH_CARD_SQL) from the row: the description is the
    # docstring's first paragraph, at most 300 characters (not bytes).
    root = tmp_path / "p"
    root.mkdir()
    first = "Déjà vu " + "é" * 400
    (root / "m.py").write_text(
        f'def handler(x, y=1):\n    """{first}\n\n    More."""\n\n\nclass K:\n    v = 1\n',
        encoding="utf-8",
    )
    assert run_znt("scan", cwd=root).returncode == 0
    rows = query(
        root,
        "SELECT name, qualified_name, type, kind, role, file, start_line, end_line, signature, "
        "doc, language, card FROM symbols ORDER BY id",
    )
    assert len(rows) == 4
    for name, qname, type_, kind, role, file, start, end, sig, doc, lang, card in rows:
        assert json.loads(card) == {
            "name": name,
            "qualified_name": qname,
            "type": type_,
            "kind": kind,
            "role": role,
            "file": file,
            "start_line": start,
            "end_line": end,
            "signature": sig or "",
            "description": (doc or "").split("\n\n")[0][:300],
            "language": lang,
        }
    (card,) = query(root, "SELECT card FROM symbols WHERE name = 'handler'")[0]
    assert json.loads(card)["description"] == first[:300]
    assert json.loads(card)["signature"] == "def handler(x, y=1)"


def test_docs_examples_and_vendored_code_rank_below_the_projects_own(tmp_path: Path) -> None:
    root = tmp_path / "p"
    # The same function three times: in the project, in a doc example, in a vendored copy.
    # The copies match the query better (their docstrings repeat its words), yet the
    # project's own code comes first; a --path into the docs asks for them.
    body = "def merge_settings(base, extra):\n    {doc}\n    return {{**base, **extra}}\n"
    texts = {
        "pkg/settings.py": body.format(doc='"""Combine two dicts."""'),
        "docs/examples/settings_demo.py": body.format(doc='"""Merge settings: merge settings."""'),
        "pkg/_vendor/cfglib/merge.py": body.format(doc='"""Merge settings, merge settings."""'),
    }
    for rel, text in texts.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    assert run_znt("scan", "--no-embed", cwd=root).returncode == 0
    _, doc, _ = search(root, "merge settings", "--mode", "lexical")
    files = [r["file"] for r in doc["results"] if r["name"] == "merge_settings"]
    assert files[0] == "pkg/settings.py" and len(files) == 3
    reasons = {r["file"]: r.get("demoted", "") for r in doc["results"]}
    assert "documentation" in reasons["docs/examples/settings_demo.py"]
    assert "documentation" in reasons["pkg/_vendor/cfglib/merge.py"]
    assert not reasons["pkg/settings.py"]
    _, doc, _ = search(root, "merge settings", "--mode", "lexical", "--path", "docs/**")
    assert {r["file"] for r in doc["results"]} == {"docs/examples/settings_demo.py"}
    assert not any("demoted" in r for r in doc["results"])


@pytest.mark.parametrize(
    ("path", "secondary"),
    [
        ("docs/conf.py", True),
        ("doc/usage/extensions/example_google.py", True),
        ("examples/advanced/relativity.py", True),
        ("src/pkg/vendor/six.py", True),
        ("third_party/zlib/zlib.h", True),
        ("web/node_modules/left-pad/index.js", True),
        ("src/docs_builder.py", False),
        ("pkg/examples_util.py", False),
        ("sympy/printing/docstring.py", False),
        ("src/pkg/doc/__init__.py", False),  # only a top-level doc/ folder is documentation
    ],
)
def test_secondary_paths(path: str, secondary: bool) -> None:
    assert secondary_path(path) is secondary


def test_fusion_prefers_what_both_lists_find() -> None:
    lexical = [("a", 10.0), ("b", 9.0), ("c", 1.0)]
    vector = [("c", 0.9), ("b", 0.8), ("d", 0.2)]
    fused = [c.id for c in fuse(lexical, vector)]
    assert fused[0] == "b"  # high in both
    assert set(fused) == {"a", "b", "c", "d"}
    assert fuse(lexical, [])[0].id == "a" and fuse([], vector)[0].id == "c"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # a traceback's absolute path: its suffixes, most specific first
        (
            'File "/venv/site-packages/pkg/io/card.py", line 3',
            [
                [
                    (k, False)
                    for k in (
                        "venv/site-packages/pkg/io/card.py",
                        "site-packages/pkg/io/card.py",
                        "pkg/io/card.py",
                        "io/card.py",
                        "card.py",
                    )
                ]
            ],
        ),
        # a dotted name: its prefixes of two components or more, as module keys
        (
            "see pkg.io.Card.image",
            [[("pkg/io/Card/image", True), ("pkg/io/Card", True), ("pkg/io", True)]],
        ),
        # ``x.y`` may be a file name or a two-part module name
        ("in cli.py", [[("cli.py", False), ("cli/py", True)]]),
        ("version 1.2.3 and plain words", []),
    ],
)
def test_mention_keys(query: str, expected: list[list[tuple[str, bool]]]) -> None:
    assert mention_keys(query) == expected


def test_mentioned_files_match_suffixes_and_skip_vague_mentions() -> None:
    import duckdb

    con = duckdb.connect()
    con.execute("CREATE TABLE files (path VARCHAR)")
    paths = [f"pkg/m{i}/__init__.py" for i in range(5)] + [
        "pkg/io/card.py",
        "pkg/io/__init__.py",
        "docs/card.py",
        "pkg/util.py",
    ]
    con.executemany("INSERT INTO files VALUES (?)", [[p] for p in paths])
    # the most specific suffix that fits wins: ``io/card.py``, not also ``docs/card.py``
    assert mentioned_files(con, 'File "/usr/lib/pkg/io/card.py", line 1') == ["pkg/io/card.py"]
    # a bare name that fits two files names both (at most MENTION_MAX_FILES)
    assert mentioned_files(con, "card.py breaks") == ["docs/card.py", "pkg/io/card.py"]
    # a name that fits five files says nothing
    assert mentioned_files(con, "__init__.py breaks") == []
    # dotted names: a module, a package (its ``__init__``), an attribute of a module
    assert mentioned_files(con, "pkg.util.helper() fails") == ["pkg/util.py"]
    assert mentioned_files(con, "import pkg.m3") == ["pkg/m3/__init__.py"]
    assert mentioned_files(con, "no mention here") == []


def test_named_file_is_boosted_not_filtered(project: Path) -> None:
    """A file the query names gets its symbols' BM25F scores multiplied by 1 + MENTION_BOOST;
    the other files keep theirs, and nothing is dropped."""
    import duckdb

    q = "retry backoff in shop/http/client.py"
    con = duckdb.connect(str(project / ".znt" / "index.duckdb"), read_only=True)
    try:
        boosted = dict(lexical.rank(con, q, 100))
        weights = lexical.query_terms(q)
        plain = {
            row[0]: row[1]
            for row in con.execute(lexical.bm25_sql(weights, filtered=False), [100]).fetchall()
        }
    finally:
        con.close()
    assert set(boosted) == set(plain) and lexical.MENTION_BOOST > 0
    assert {sid.startswith("shop/http/client.py") for sid in plain} == {True, False}
    for sid, score in plain.items():
        factor = 1 + lexical.MENTION_BOOST if sid.startswith("shop/http/client.py") else 1.0
        assert boosted[sid] == pytest.approx(score * factor)
    _, doc, _ = search(project, q, "--mode", "lexical")
    assert names(doc)[0] == "Client.send"
