"""The command line: formats, exit codes, errors without tracebacks, status coverage, logs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_znt


@pytest.fixture(scope="module")
def proj(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("cli")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "service.py").write_text(
        "class OrderService:\n"
        '    """Places orders."""\n\n'
        "    limit = 3\n\n"
        "    def place(self, order):\n"
        "        return self.check(order)\n\n"
        "    def check(self, order):\n"
        "        return True\n\n\n"
        "def helper():\n"
        "    return OrderService()\n"
    )
    proc = run_znt("scan", str(root))
    assert proc.returncode == 0, proc.stderr
    return root


def test_help_documents_exit_codes():
    proc = run_znt("--help")
    assert proc.returncode == 0
    for line in (
        "0  success",
        "2  usage error",
        "3  index missing",
        "4  symbol or file not found",
        "5  runtime failure",
    ):
        assert line in proc.stdout


def test_usage_errors_exit_2_without_traceback(proj):
    for args in (
        ["scan", "--bogus"],
        ["outline"],
        ["scan", str(proj), "--language", "cobol"],
        ["--format", "xml", "stats"],
    ):
        proc = run_znt(*args, cwd=proj)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Traceback" not in proc.stderr


def test_outline_text_and_json(proj):
    proc = run_znt("outline", "pkg/service.py", cwd=proj)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "[file_outline] pkg/service.py (2 symbols)",
        "L1-10 declaration/class OrderService: class OrderService",
        "L13-14 function/function helper: def helper()",
    ]
    doc = json.loads(
        run_znt("outline", "pkg/service.py", "--format", "json", "--code", cwd=proj).stdout
    )
    assert doc["schema_version"] == 1 and doc["total_symbols"] == 2
    assert doc["symbols"][1]["code"] == "def helper():\n    return OrderService()"
    assert doc["symbols"][0]["doc"] == "Places orders."
    # From a subfolder, and with an absolute path.
    assert run_znt("outline", "service.py", cwd=proj / "pkg").returncode == 0
    assert (
        run_znt("-C", str(proj), "outline", str(proj / "pkg" / "service.py"), cwd="/").returncode
        == 0
    )


def test_outline_missing_file_exits_4_with_close_paths(proj):
    proc = run_znt("outline", "pkg/servise.py", cwd=proj)
    assert proc.returncode == 4
    assert "pkg/service.py" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_znt("outline", "pkg/servise.py", "--format", "json", cwd=proj)
    assert proc.returncode == 4
    err = json.loads(proc.stdout)["error"]
    assert err["code"] == "not_found" and err["suggestions"][0] == "pkg/service.py"


def test_outline_outside_project_is_refused(proj, tmp_path):
    outside = tmp_path / "x.py"
    outside.write_text("def f():\n    pass\n")
    proc = run_znt("-C", str(proj), "outline", str(outside))
    assert proc.returncode == 2 and "outside the project" in proc.stderr


def test_missing_index_exits_3(tmp_path):
    for args in (["stats"], ["outline", "a.py"]):
        proc = run_znt(*args, cwd=tmp_path)
        assert proc.returncode == 3, args
        assert "znt scan" in proc.stderr and "Traceback" not in proc.stderr


def test_status_coverage(proj, tmp_path):
    exact = json.loads(run_znt("status", str(proj), "--format", "json").stdout)
    assert exact["coverage"] == "exact" and exact["has_index"] is True
    assert exact["stats"]["declarations"] == 1 and exact["stats"]["functions"] == 3
    assert exact["stats"]["members"] == 1 and exact["freshness"]["stale"] is False
    sub = json.loads(run_znt("status", str(proj / "pkg"), "--format", "json").stdout)
    assert sub["coverage"] == "ancestor" and sub["project_root"] == str(proj)
    none = json.loads(run_znt("status", str(tmp_path), "--format", "json").stdout)
    assert none["coverage"] == "none" and none["has_index"] is False
    assert run_znt("status", str(tmp_path / "nope")).returncode == 2


def test_status_reports_staleness_without_rescanning(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 1\n")
    run_znt("scan", str(tmp_path))
    (tmp_path / "a.py").write_text("x = 22\n")
    (tmp_path / "b.py").unlink()
    (tmp_path / "c.py").write_text("z = 1\n")
    fr = json.loads(run_znt("status", str(tmp_path), "--format", "json").stdout)["freshness"]
    assert (fr["stale"], fr["files_changed"], fr["files_added"], fr["files_deleted"]) == (
        True,
        1,
        1,
        1,
    )
    assert "Stale:     yes" in run_znt("status", str(tmp_path)).stdout


def test_stats(proj):
    doc = json.loads(run_znt("stats", "--format", "json", cwd=proj).stdout)
    assert doc["files"]["by_language"] == {"python": 2}
    assert doc["symbols"]["by_type"] == {
        "namespace": 2,
        "function": 3,
        "declaration": 1,
        "member": 1,
    }
    assert doc["edges"]["by_kind"]["contains"] == 5
    assert doc["edges"]["by_resolution"]["self_method"] == 1
    assert doc["edges"]["by_resolution"]["constructor"] == 1
    assert doc["index"]["bytes"] > 0
    assert "Edges by resolution" in run_znt("stats", cwd=proj).stdout


def test_logs_cursor_semantics(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    run_znt("scan", str(tmp_path))
    first = json.loads(run_znt("logs", "--format", "json", cwd=tmp_path).stdout)
    assert first["entries"] and first["truncated"] is False
    stream, cursor = first["stream_id"], first["next_cursor"]
    assert first["entries"][-1]["id"] == cursor
    # Nothing new: empty, cursor unchanged.
    same = json.loads(
        run_znt(
            "logs",
            "--stream-id",
            stream,
            "--after-id",
            str(cursor),
            "--format",
            "json",
            cwd=tmp_path,
        ).stdout
    )
    assert (same["entries"], same["next_cursor"], same["truncated"]) == ([], cursor, False)
    (tmp_path / "b.py").write_text("y = 1\n")
    run_znt("scan", str(tmp_path))
    newer = json.loads(
        run_znt(
            "logs",
            "--stream-id",
            stream,
            "--after-id",
            str(cursor),
            "--format",
            "json",
            cwd=tmp_path,
        ).stdout
    )
    assert newer["entries"] and all(e["id"] > cursor for e in newer["entries"])
    # A stale stream or a cursor ahead of the stream: the whole buffer, truncated.
    stale = json.loads(
        run_znt(
            "logs", "--stream-id", "stream_x", "--after-id", "1", "--format", "json", cwd=tmp_path
        ).stdout
    )
    assert stale["truncated"] is True and len(stale["entries"]) >= 2
    ahead = json.loads(
        run_znt(
            "logs", "--stream-id", stream, "--after-id", "99999", "--format", "json", cwd=tmp_path
        ).stdout
    )
    assert ahead["truncated"] is True
    # Half a cursor is a usage error.
    assert run_znt("logs", "--after-id", "3", cwd=tmp_path).returncode == 2
    jsonl = run_znt("logs", "--format", "jsonl", cwd=tmp_path).stdout.splitlines()
    assert all("message" in json.loads(line) for line in jsonl)


def test_log_ring_keeps_last_100(tmp_path):
    from znt.index.log import ScanLog

    log = ScanLog(tmp_path / "log.jsonl")
    for i in range(250):
        log.write([("info", f"m{i}")])
    doc = log.read()
    assert len(doc["entries"]) == 100
    assert doc["entries"][0]["message"] == "m150" and doc["next_cursor"] == 250
    evicted = log.read(doc["stream_id"], 10)
    assert evicted["truncated"] is True


def test_global_options_after_the_command(proj):
    proc = run_znt("stats", "-C", str(proj), "--format", "json", "-q")
    assert proc.returncode == 0 and json.loads(proc.stdout)["kind"] == "stats"


def test_scan_summary_goes_to_stdout_progress_never_when_piped(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    proc = run_znt("scan", str(tmp_path))
    assert proc.stdout.startswith("Indexed 1 file (full)")
    # No progress display when stderr is not a terminal: no words of it, no escape codes.
    assert "Parsing" not in proc.stderr and "\x1b" not in proc.stderr
    assert "\x1b" not in proc.stdout
    again = run_znt("scan", str(tmp_path), "--format", "json")
    assert json.loads(again.stdout)["mode"] == "noop"


def run_in_pty(
    args: list[str],
    env: dict[str, str] | None = None,
    *,
    stdout_too: bool = False,
    typed: bytes | None = None,
    cwd: Path | None = None,
):
    """Run znt with stderr (and, with ``stdout_too``, stdout; with ``typed``, stdin, which
    receives those bytes) on a pseudo-terminal; returns (exit code, what reached stdout,
    what reached the terminal)."""
    import os
    import pty

    master, slave = pty.openpty()
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "ZNT_PROJECT_ROOT")}
    full_env.update({"COLUMNS": "120", **(env or {})})
    proc = subprocess.Popen(
        [sys.executable, "-m", "znt", *args],
        stdout=slave if stdout_too else subprocess.PIPE,
        stderr=slave,
        stdin=slave if typed is not None else subprocess.DEVNULL,
        env=full_env,
        cwd=cwd,
        text=True,
    )
    os.close(slave)
    if typed is not None:
        os.write(master, typed)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    out = "" if stdout_too else (proc.stdout.read() if proc.stdout else "")
    proc.wait(timeout=120)
    os.close(master)
    return proc.returncode, out, b"".join(chunks).decode(errors="replace")


def test_progress_is_shown_on_a_terminal(tmp_path):
    for i in range(3):
        (tmp_path / f"m{i}.py").write_text(f"def f{i}():\n    pass\n")
    code, out, err = run_in_pty(["scan", str(tmp_path)])
    assert code == 0
    # rich's display on the terminal: the phases in words, a bar, counts, time left...
    for words in ("Finding files", "Parsing", "3/3", "━", "left", "Resolving references"):
        assert words in err, words
    # ...and never on stdout.
    assert "Parsing" not in out and out.startswith("Indexed 3 files")
    quiet = run_in_pty(["scan", str(tmp_path), "-q", "--restart"])
    assert quiet[0] == 0 and "Parsing" not in quiet[2]


def test_command_table_names_every_command_of_every_module():
    """The lazy command table (znt.cli.COMMAND_MODULES) must list exactly the commands the
    modules register on the one Typer app, or a command would be missing from `znt --help`
    or fail to load."""
    import importlib
    import pkgutil

    import znt.cli
    from znt.cli import COMMAND_MODULES
    from znt.cli.app import app

    for info in pkgutil.iter_modules(znt.cli.__path__):
        importlib.import_module(f"znt.cli.{info.name}")
    defined = {c.name: c.callback.__module__.rsplit(".", 1)[-1] for c in app.registered_commands}
    for g in app.registered_groups:
        callback = g.typer_instance.registered_callback
        module = callback.callback if callback else g.typer_instance.registered_commands[0].callback
        defined[g.name] = module.__module__.rsplit(".", 1)[-1]
    assert defined == COMMAND_MODULES


def _after_main(args: list[str], cwd: Path, *shown: str) -> list[str]:
    """``main(args)`` run in a fresh interpreter in ``cwd``: its exit code (``exit N``),
    then each expression of ``shown`` evaluated afterwards (``sys`` imported), a line each."""
    code = (
        "import sys\n"
        "from znt.cli import main\n"
        "try:\n"
        f"    main({args!r})\n"
        "except SystemExit as exc:\n"
        "    print('exit', exc.code)\n" + "".join(f"print({e})\n" for e in shown)
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True
    ).stdout
    return out.strip().splitlines()[-(len(shown) + 1) :]


def test_a_search_imports_only_its_own_command_module(tmp_path):
    """A search loads its own command module and nothing that only draws or walks graphs:
    no other command, no rich, no networkx, and not pydantic (Typer's own conversion would
    import it; znt.cli.app converts plain parameters itself)."""
    _, modules, heavy = _after_main(
        ["search", "x", "--limit", "5", "--mode", "lexical", "--path", "a/*"],
        tmp_path,
        "sorted(m for m in sys.modules if m.startswith('znt.cli.'))",
        "sorted(m for m in ('rich', 'networkx', 'pydantic') if m in sys.modules)",
    )
    assert modules == "['znt.cli.app', 'znt.cli.output', 'znt.cli.richhelp', 'znt.cli.search']"
    assert heavy == "[]"


def test_one_shot_answers_build_no_document_types_and_no_export_modules(tmp_path):
    """A search, a graph and an outline of an index answer without building the document
    types of znt/results.py (they are for the type checker) and without the export modules
    (only ``--dataset`` needs them): both cost every one-shot command milliseconds."""
    (tmp_path / "a.py").write_text(
        "def alpha():\n    return beta()\n\n\ndef beta():\n    return 1\n"
    )
    assert run_znt("scan", "--no-embed", "-q", str(tmp_path)).returncode == 0
    for args in (
        ["search", "alpha", "--mode", "lexical"],
        ["graph", "alpha", "--depth", "2"],
        ["outline", "a.py"],
    ):
        loaded = (
            "sorted(m for m in sys.modules if m == 'znt.results' or m.startswith('znt.export'))"
        )
        assert _after_main(args, tmp_path, loaded) == ["exit 0", "[]"], args


def test_a_no_op_rescan_loads_neither_the_parser_nor_the_embedder(tmp_path):
    """A scan that finds nothing changed (a git hook's commonest run) answers from the walk
    and the manifest: loading the parse stage (extractor, lexical and embedding rows) or the
    embedding stage would cost it milliseconds for nothing. A real rescan still loads them."""
    (tmp_path / "a.py").write_text("def alpha():\n    return 1\n")
    assert run_znt("scan", "--no-embed", "-q", str(tmp_path)).returncode == 0
    loaded = (
        "sorted(m for m in ('znt.index.parse', 'znt.index.extract', 'znt.index.embed.stage')"
        " if m in sys.modules)"
    )
    assert _after_main(["scan", "--no-embed", "-q"], tmp_path, loaded) == ["exit 0", "[]"]
    (tmp_path / "a.py").write_text("def alpha():\n    return 2\n")
    out = _after_main(["scan", "--no-embed", "-q"], tmp_path, loaded)
    assert out[0] == "exit 0" and "znt.index.parse" in out[1]


def test_one_shot_commands_load_duckdbs_engine_without_its_python_layer(tmp_path):
    """A rescan, a search and a graph query open the index through ``_duckdb``, the
    compiled engine, and never import the ``duckdb`` package's Python layer (relations,
    expressions, a version lookup through importlib.metadata): about 70 ms of every
    one-shot command (znt/index/engine.py)."""
    pytest.importorskip("_duckdb")
    (tmp_path / "a.py").write_text("def alpha():\n    return beta()\n\ndef beta():\n    return 1\n")
    assert run_znt("scan", "--no-embed", "-q", str(tmp_path)).returncode == 0
    (tmp_path / "a.py").write_text("def alpha():\n    return beta()\n\ndef beta():\n    return 2\n")
    loaded = "sorted(m for m in ('duckdb', '_duckdb') if m in sys.modules)"
    for args in (
        ["scan", "--no-embed", "-q"],
        ["search", "alpha", "--mode", "lexical"],
        ["graph", "a.alpha", "--depth", "1"],
        ["stats"],
    ):
        assert _after_main(args, tmp_path, loaded) == ["exit 0", "['_duckdb']"], args


def test_the_engine_module_raises_what_callers_of_duckdb_catch():
    """Callers of the Python API catch ``duckdb.Error``: the engine module's classes must
    be those very classes, and its connections those of ``duckdb.connect``."""
    import duckdb

    from znt.index.engine import duckdb as engine

    assert engine.Error is duckdb.Error and engine.IOException is duckdb.IOException
    con = engine.connect(":memory:")
    assert isinstance(con, duckdb.DuckDBPyConnection)
    with pytest.raises(duckdb.CatalogException):
        con.execute("SELECT * FROM no_such_table")


def test_mistyped_command_suggests_by_edit_distance():
    proc = run_znt("serach", "x")
    assert proc.returncode == 2 and "Did you mean 'search'?" in proc.stderr
    proc = run_znt("stast")
    assert proc.returncode == 2 and "'stats'" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_znt("zzzzzz")
    assert proc.returncode == 2 and "Did you mean" not in proc.stderr


def test_bad_option_values_exit_2_with_the_allowed_ones(proj):
    proc = run_znt("search", "x", "--limit", "0", cwd=proj)
    assert proc.returncode == 2 and "1<=x<=1000" in proc.stderr
    proc = run_znt("search", "x", "--mode", "fuzzy", cwd=proj)
    assert proc.returncode == 2 and "'lexical'" in proc.stderr


def test_stats_text_shows_mcp_usage_from_the_metrics_file(tmp_path):
    from znt.mcp import metrics

    root = tmp_path / "p"
    root.mkdir()
    (root / "a.py").write_text("def f():\n    return 1\n")
    assert run_znt("scan", str(root)).returncode == 0
    path = metrics.metrics_path(root)
    assert path is not None
    for tool, tokens in (("search", 120), ("search", 80), ("outline", 40)):
        rec = metrics.record(
            session_id="s1",
            tool=tool,
            response_tokens=tokens,
            execution_ms=10.0,
            alternative_tokens=1000,
            files=1,
            is_error=False,
            error=None,
        )
        assert metrics.append(path, rec)
    out = run_znt("stats", "-C", str(root)).stdout
    assert "MCP calls: 3 in 1 session, 0 errors" in out
    assert "MCP response tokens: 240; estimated saved: 2760" in out
    assert "Top tools: search 2, outline 1" in out
    path.unlink()
    assert "MCP" not in run_znt("stats", "-C", str(root)).stdout


def test_read_commands_leave_fast_with_all_output_and_the_exit_code(tmp_path):
    """``python -m znt`` (like the console script) skips the interpreter's teardown after a
    read command: a large JSON answer must still arrive whole through a pipe, and the exit
    codes must be the documented ones; a scan does too, after its ``atexit`` handlers."""
    src = tmp_path / "many.py"
    src.write_text(
        "".join(f"def handler_{i}(x):\n    return handle_item(x, {i})\n\n" for i in range(400))
    )
    scan = run_znt("scan", "--no-embed", "-q", "--format", "json", str(tmp_path))
    assert scan.returncode == 0, scan.stderr
    assert json.loads(scan.stdout)["symbols"] == 401
    assert not [p for p in (tmp_path / ".znt").iterdir() if p.is_dir() and "scan-" in p.name]
    bad = run_znt("scan", "--no-embed", "-q", "--language", "cobol", str(tmp_path))
    assert bad.returncode == 2, bad.stderr
    found = run_znt(
        "search",
        "handler",
        "--mode",
        "lexical",
        "--limit",
        "400",
        "--format",
        "json",
        cwd=tmp_path,
    )
    assert found.returncode == 0, found.stderr
    doc = json.loads(found.stdout)  # a truncated pipe would not parse
    assert len(doc["results"]) == 400 and len(found.stdout) > 65536
    missing = run_znt("search", "zzqqxx", "--mode", "lexical", cwd=tmp_path)
    assert missing.returncode == 1 and "No matching components found." in missing.stdout
    unknown = run_znt("graph", "no_such_symbol", cwd=tmp_path)
    assert unknown.returncode == 4 and "not found" in unknown.stderr


def test_setup_mode_choices_are_the_providers():
    from typing import get_args

    from znt.cli.setup import Mode
    from znt.index.embed import MODES

    assert get_args(Mode) == MODES


def test_help_draws_typer_panels_without_markdown_or_traceback_modules():
    """`znt --help` is Typer's rich help, but loads neither rich.markdown nor rich.traceback
    (nor what they pull in: markdown-it, pygments); znt.cli.richhelp defers them."""
    code = (
        "import sys\n"
        "from znt.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('rich.markdown', 'rich.traceback', 'markdown_it', 'pygments', 'attr')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
        "print('typer.rich_utils' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout
    lines = out.strip().splitlines()
    assert "╭─ Commands" in out and "search" in out
    assert lines[-2:] == ["[]", "True"]


def test_deferred_rich_classes_are_the_real_ones_when_used():
    """The stand-ins typer.rich_utils holds build the real rich objects, so markdown help and
    rich tracebacks still work if ever used; the modules then load for real."""
    code = (
        "import sys\n"
        "import znt.cli.app\n"
        "from typer import rich_utils\n"
        "assert 'rich.markdown' not in sys.modules\n"
        "md = rich_utils._make_rich_text(text='**bold**', markup_mode='markdown')\n"
        "from rich.markdown import Markdown\n"
        "print(type(md) is Markdown, sys.modules['rich.markdown'].Markdown is Markdown)\n"
        "try:\n"
        "    raise ValueError('x')\n"
        "except ValueError as exc:\n"
        "    tb = rich_utils.Traceback.from_exception(type(exc), exc, exc.__traceback__)\n"
        "from rich.traceback import Traceback\n"
        "print(type(tb) is Traceback)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "True", "True"]


def test_root_help_lists_commands_without_building_their_parameters():
    """`znt --help` lists every command with its summary line, as Typer would, but builds no
    command's parameters (znt.cli.app.LazyGroup.format_help); the commands built afterwards
    are the full ones."""
    code = (
        "import sys\n"
        "from znt.cli import app, main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "group = app.command()\n"
        "plain = [n for n, i in app.COMMAND_MODULES.items() if i not in ('hook', 'mcp', 'setup')]\n"
        "print(sorted(n for n in plain if n in group.commands))\n"
        "search = group.get_command(None, 'search')\n"
        "print(sorted(p.name for p in search.params if p.name in ('query', 'mode', 'limit')))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    lines = proc.stdout.strip().splitlines()
    assert lines[-2:] == ["[]", "['limit', 'mode', 'query']"], proc.stderr
    for name, summary in (
        ("search", "Symbols ranked for QUERY."),
        ("outline", "FILE's top-level symbols by line."),
        ("scan", "Index PATH (default: the current project) incrementally."),
    ):
        assert any(name in line and summary in line for line in proc.stdout.splitlines())


def test_a_command_imported_before_the_first_call_is_prepared_like_the_others():
    """A program (or test) that imports a command's module before the first ``main`` gets
    that command built by Typer itself; it still takes the global options after its name
    and converts its values without pydantic."""
    code = (
        "import sys\n"
        "import znt.cli.inspect\n"
        "from znt.cli import main\n"
        "try:\n"
        "    main(['stats', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('pydantic' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "Global options" in proc.stdout and "--project" in proc.stdout, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "False"
