"""What each MCP tool does: check the arguments, confine the paths, call ``znt.api``, lay
the answer out. Plain synchronous Python (the server runs a call in a worker thread), so it
holds no index handle between calls: every ``api`` function opens DuckDB read-only for the
one question and closes it (DESIGN §8).
"""

from __future__ import annotations

import gc
import os
import re
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from znt import api
from znt.errors import IndexMissing, UsageError, ZntError
from znt.mcp import containment, layouts, metrics
from znt.mcp.background import ScanJobs
from znt.mcp.monitor import Supervisor
from znt.mcp.schemas import PROFILES, TOOLS, ToolDef
from znt.project import Project, find_root

# The original's JSON-RPC codes where it had one (reference §2), for agents written for it.
RPC_CODES = {
    "invalid_params": -32602,
    "path_outside_project": -32602,
    "not_found": -32004,
    "ambiguous": -32009,
    "busy": -32001,
    "index_missing": -32003,
    "index_incompatible": -32003,
    "index_corrupt": -32003,
    "timeout": -32000,
    "cancelled": -32800,
    "internal_error": -32603,
}
HINTS = {
    "index_missing": "call scan (then poll status until it is done), or run `znt scan`",
    "index_incompatible": "the user must run `znt scan --restart` (MCP never deletes an index)",
    "index_corrupt": "call scan (it rebuilds a damaged index), or run `znt scan`",
    "busy": "wait for the scan to finish (status), then retry",
    "ambiguous": "retry with one of the candidates (a qualified name or node id)",
    "not_found": "find the exact name with search mode lexical first",
}


class IoFailure(ZntError):
    """The file system refused (permissions, a vanished file): reported, not a crash."""

    code = "io_error"


@dataclass
class Reply:
    text: str
    structured: dict[str, Any]
    is_error: bool = False
    files: list[str] = field(default_factory=list)
    error_code: str | None = None


def error_reply(exc: ZntError) -> Reply:
    payload = exc.to_dict()
    payload["rpc_code"] = RPC_CODES.get(exc.code, -32000)
    if exc.code in HINTS:
        payload.setdefault("hint", HINTS[exc.code])
    return Reply(layouts.error(payload), {"error": payload}, True, error_code=exc.code)


def workspace() -> Path:
    """The folder the server works for: ``ZNT_PROJECT_ROOT``, else its working directory."""
    raw = os.environ.get("ZNT_PROJECT_ROOT") or os.getcwd()
    path = Path(raw).expanduser()
    if not path.is_dir():
        raise UsageError(f"ZNT_PROJECT_ROOT is not a directory: {raw}")
    return path.resolve()


def tool_names(profile: str) -> list[str]:
    """The profile's tools that this znt has (``check``/``impact`` need their api)."""
    if profile not in PROFILES:
        raise UsageError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    return [n for n in PROFILES[profile] if n not in ("check", "impact") or hasattr(api, n)]


# Fields whose text comes from the repository's files: an agent must treat it as data, never
# as instructions (docs/security.md, hostile repository).
UNTRUSTED_FIELDS = ("code", "signature", "description", "doc")


def _mark_untrusted(doc: dict[str, Any]) -> dict[str, Any]:
    """Each result that carries source text names those fields in ``untrusted``."""
    for key in ("results", "symbols"):
        items = doc.get(key)
        if not isinstance(items, list):
            continue
        for item in items:
            if isinstance(item, dict):
                spans = [f for f in UNTRUSTED_FIELDS if item.get(f)]
                if spans:
                    item["untrusted"] = spans
    return doc


_MODEL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?(:[\w.-]+)?$")


def _model_name(value: str) -> str:
    """A model given through MCP is a name (``org/name``, ``name:tag``), never a path: an
    agent must not make znt load files from the disk as a model."""
    value = value.strip()
    if not _MODEL_NAME.match(value) or ".." in value or os.path.exists(value):
        raise UsageError(
            "setup: model must be a model name such as sentence-transformers/all-MiniLM-L6-v2, "
            "not a path",
            argument="model",
        )
    return value


def _clean_text(value: str) -> str:
    """A string argument with lone surrogates (valid JSON escapes, not UTF-8) replaced."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace").decode("utf-8")
    return value


# -- arguments -------------------------------------------------------------------------------


def _check_type(tool: str, name: str, value: Any, spec: dict[str, Any]) -> Any:
    kind = spec["type"]
    bad = UsageError(f"{tool}: {name} must be a {kind}", argument=name)
    if kind == "string":
        if not isinstance(value, str):
            raise bad
        value = _clean_text(value)
        if "enum" in spec:
            value = value.strip().lower()
            if value not in spec["enum"]:
                raise UsageError(
                    f"{tool}: {name} must be one of {', '.join(spec['enum'])}",
                    argument=name,
                    allowed=spec["enum"],
                )
        return value
    if kind == "integer":
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad
        lo, hi = spec.get("minimum"), spec.get("maximum")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise UsageError(
                f"{tool}: {name} must be between {lo} and {hi if hi is not None else 'any'}",
                argument=name,
            )
        return value
    if kind == "boolean":
        if not isinstance(value, bool):
            raise bad
        return value
    raise bad  # pragma: no cover - every schema type is handled above


def normalize(tool: ToolDef, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """Legacy aliases mapped, unknown arguments refused, types and ranges checked, defaults
    filled. ``null`` counts as not given."""
    given = {k: v for k, v in (arguments or {}).items() if v is not None}
    for name, instead in tool.refused.items():
        if name in given:
            raise UsageError(
                f"{tool.name}: {name} is not a parameter of {tool.name} (as in the original); "
                f"give {instead}",
                argument=name,
                accepted=sorted(tool.properties),
            )
    for alias, canonical in tool.aliases.items():
        if alias in given:
            value = given.pop(alias)
            if canonical in given and given[canonical] != value:
                raise UsageError(
                    f"{tool.name}: {alias} is another name for {canonical}; give one of them",
                    argument=alias,
                )
            given[canonical] = value
    unknown = sorted(k for k in given if k not in tool.properties)
    if unknown:
        raise UsageError(
            f"{tool.name}: unknown argument{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}",
            unknown=unknown,
            accepted=sorted(tool.properties),
        )
    out: dict[str, Any] = {}
    for name, spec in tool.properties.items():
        if name in given:
            out[name] = _check_type(tool.name, name, given[name], spec)
        else:
            out[name] = spec.get("default")
    for name in tool.required:
        if out.get(name) in (None, ""):
            raise UsageError(f"{tool.name}: {name} is required", argument=name)
    if tool.one_of and all(out.get(n) in (None, "") for n in tool.one_of):
        raise UsageError(
            f"{tool.name}: give at least one of {', '.join(tool.one_of)}", argument=tool.one_of[0]
        )
    return out


# -- the tools ---------------------------------------------------------------------------------


def _files_of(doc: Mapping[str, Any]) -> list[str]:
    """The project files an answer touches (for the savings estimate)."""
    seen: dict[str, None] = {}
    for key in ("results", "nodes", "items"):
        for item in doc.get(key) or []:
            if isinstance(item, dict) and isinstance(item.get("file"), str):
                seen[item["file"]] = None
    if isinstance(doc.get("file"), str):
        seen[doc["file"]] = None
    return list(seen)


_modules_frozen = 0


def _freeze_new_modules() -> None:
    """After a call that imported modules (a tool's first call loads its libraries:
    networkx, numpy), move every object alive now out of the garbage collector's sight
    (``gc.freeze``). A long-lived server then never walks those objects again: on sympy a
    full collection over them took about 60 ms, and it fell on whichever call came next
    (the MCP graph case's p90 in docs/benchmarks/scan.md). Modules are imported a bounded
    number of times, so whatever garbage a freeze keeps is bounded too."""
    global _modules_frozen
    loaded = len(sys.modules)
    if loaded > _modules_frozen:
        _modules_frozen = loaded
        gc.freeze()


class Toolbox:
    """One server's tools: its workspace, the project its reads use, its scans, its usage."""

    def __init__(self, profile: str = "default", base: Path | None = None) -> None:
        self.base = base or workspace()
        self.current = self.base  # the folder whose index the reads use (scan may move it)
        self.names = tool_names(profile)
        self.profile = profile
        self.jobs = ScanJobs()
        # ZNT_MCP_MONITOR=0: no watcher after a scan (the index then goes stale until the
        # next scan call, as before monitoring existed)
        self.monitor = Supervisor(self.jobs, enabled=os.environ.get("ZNT_MCP_MONITOR", "1") != "0")
        self.session_id = f"mcp_{os.getpid()}_{time.time_ns()}"
        self.session_records: list[dict[str, Any]] = []

    # where things are
    def project_root(self) -> Path:
        return find_root(self.current) or self.current

    def _read_path(self) -> str:
        return str(self.current)

    def close(self) -> None:
        """The server is ending: stop this server's watcher (a first scan still running is
        left to finish: decision 0007)."""
        self.monitor.close()
        api.close_setup_url()

    def definitions(self) -> list[ToolDef]:
        return [TOOLS[n] for n in self.names]

    def call(self, name: str, arguments: dict[str, Any] | None) -> Reply:
        """One tool call, start to end; a ``ZntError`` becomes an error reply."""
        try:
            if name not in self.names:
                raise UsageError(
                    f"unknown tool {name!r}; this server has {', '.join(self.names)}",
                    tool=name,
                )
            args = normalize(TOOLS[name], arguments)
            reply: Reply = getattr(self, f"_tool_{name}")(args)
            return reply
        except ZntError as exc:
            return error_reply(exc)
        except OSError as exc:
            where = f": {exc.filename}" if exc.filename else ""
            return error_reply(IoFailure(f"{exc.strerror or exc}{where}"))
        finally:
            _freeze_new_modules()

    def _ok(self, doc: Mapping[str, Any], render: layouts.Renderer) -> Reply:
        text, bounded = layouts.bound(_mark_untrusted(dict(doc)), render)
        return Reply(text, bounded, files=_files_of(bounded))

    # search and similar
    def _tool_search(self, a: dict[str, Any]) -> Reply:
        root = self.project_root()
        path = containment.confine_glob(a["path"], root, what="path") if a["path"] else None
        doc = api.search(
            a["query"],
            mode=a["mode"],
            limit=a["limit"],
            offset=a["offset"],
            type=a["type"],
            role=a["role"],
            path=path,
            compact=a["compact"],
            code=a["include_code"],
            max_code_lines=a["max_code_lines"],
            callers=a["callers_level"],
            callees=a["callees_level"],
            max_tokens=a["max_tokens"],
            project_path=self._read_path(),
        )
        return self._ok(doc, layouts.search)

    def _tool_similar(self, a: dict[str, Any]) -> Reply:
        root = self.project_root()
        path = containment.confine_glob(a["path"], root, what="path") if a["path"] else None
        target = a["target"]
        if target:
            target = containment.confine_symbol_or_path(target, root, what="target")
        doc = api.similar(
            target,
            query=a["query"],
            snippet=a["snippet"],
            snippet_language=a["snippet_language"],
            limit=a["limit"],
            offset=a["offset"],
            edge_types=a["edge_types"],
            type=a["type"],
            role=a["role"],
            path=path,
            code=a["include_code"],
            max_code_lines=a["max_code_lines"],
            project_path=self._read_path(),
        )
        return self._ok(doc, layouts.pretty)

    # graph and outline
    def _tool_graph(self, a: dict[str, Any]) -> Reply:
        root = self.project_root()
        start = containment.confine_symbol_or_path(a["from"], root, what="from")
        to = containment.confine_symbol_or_path(a["to"], root, what="to") if a["to"] else None
        doc = api.graph(
            start,
            to=to,
            depth=a["depth"],
            direction=a["direction"],
            edge_types=a["edge_types"],
            include_external=not a["internal_only"],
            max_nodes=a["max_nodes"],
            project_path=self._read_path(),
        )
        fmt = a["format"]
        return self._ok(doc, lambda d: layouts.graph(d, fmt))

    def _tool_outline(self, a: dict[str, Any]) -> Reply:
        root = self.project_root()
        rel = containment.confine(a["file"], root, what="file")
        doc = api.outline(
            str(root / rel),
            code=a["include_code"],
            members=a["include_members"],
            project_path=self._read_path(),
        )
        return self._ok(doc, layouts.outline)

    def _tool_logs(self, a: dict[str, Any]) -> Reply:
        doc = api.logs(
            stream_id=a["stream_id"], after_id=a["after_id"], project_path=self._read_path()
        )
        return self._ok(doc, layouts.pretty)

    # status and scan
    def _tool_status(self, a: dict[str, Any]) -> Reply:
        target = containment.confine_dir(a["project_path"], self.base)
        doc: dict[str, Any] = {**api.status(str(target))}
        served = self.project_root()
        served_indexed = Project(served).index_path.exists()
        root = doc["project_root"]
        job = self.jobs.last()
        state = self._state(doc["status"])
        doc.update(
            {
                "current_project": doc["requested_path"],
                "daemon_project": str(served) if served_indexed else None,
                "is_current_project": bool(root) and served_indexed and root == str(served),
                "is_exact_project": doc["coverage"] == "exact"
                and served_indexed
                and root == str(served),
                # one state for both fields: an agent polling either one sees the same
                "status": state,
                "daemon_status": state,
                "background_scan": job.state() if job else None,
                "progress": self._progress(doc.get("progress")),
                "monitoring": self._monitoring(doc.get("watch")),
                # off / none / preparing / ready: whether reads come from this server's
                # private copy of the index (znt/index/readcopy.py)
                "read_copy": api.read_copy_state(Path(root)) if root else "none",
            }
        )
        return self._ok(doc, layouts.pretty)

    def _done(self) -> bool:
        """This server's running scan has finished its work (its progress is final) and its
        process is only exiting."""
        job = self.jobs.last()
        if job is None:
            return False
        p = api.scan_progress(job.root)
        return (
            p is not None
            and p.get("started_at", 0) >= job.started_at - 1
            and p.get("status") in ("completed", "error")
        )

    def _progress(self, progress: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        """The scan progress, with this server's ``scan_id`` on the scan it started; while
        that scan's child has not yet taken the lock (nothing of its own to report), the
        original's first phase at 0% rather than the previous scan's ``completed``."""
        job = self.jobs.last()
        if job is None:
            return progress
        mine = progress is not None and progress.get("started_at", 0) >= job.started_at - 1
        if mine:
            assert progress is not None
            return {**progress, "scan_id": job.scan_id}
        if job.running():
            return api.scan_starting(job.root, job.scan_id, job.started_at)
        return progress

    def _state(self, index_state: str) -> str:
        """``Scanning`` while this server's scan runs (its child may not have created the
        index folder yet, so the index alone would say ``Idle``) or any scan holds the
        project's lock; ``Monitoring`` while a watcher (this server's or another process's)
        keeps the index fresh; ``Idle`` otherwise."""
        self.monitor.tick()  # a scan that just ended starts its watcher now, not at the next tick
        if index_state == "Scanning" or (self.jobs.running() is not None and not self._done()):
            return "Scanning"
        if index_state == "Monitoring" or self.monitor.state()["active"]:
            return "Monitoring"
        return index_state

    def _monitoring(self, watch: dict[str, Any] | None) -> dict[str, Any]:
        """This server's watcher, plus what the project's watcher file says: when it last
        saw a change, its last re-index (and how long it held the index for writing)."""
        out = self.monitor.state()
        live = watch if watch and watch.get("alive") else None
        out["watcher_pid"] = live.get("pid") if live else None
        out["by_this_server"] = bool(live and live.get("pid") == out["pid"])
        for key in ("last_change_at", "last_scan_at", "last_scan", "last_error"):
            out[key] = live.get(key) if live else None
        out["last_reindex_at"] = out.pop("last_scan_at")
        out["last_reindex"] = out.pop("last_scan")
        return out

    def _tool_scan(self, a: dict[str, Any]) -> Reply:
        target = containment.confine_dir(a["project_path"], self.base)
        language = (a["language"] or "auto").strip().lower()
        if language != "auto" and language not in api.language_names():
            raise UsageError(
                f"scan: unknown language {language!r}; choose auto or one of: "
                + ", ".join(api.language_names()),
                argument="language",
            )
        running = self.jobs.running()
        base = {
            "schema_version": api.SCHEMA_VERSION,
            "kind": "mcp_scan",
            # which provider a scan embeds with, and whether the user chose it (znt does not
            # gate scan on setup as the original does: it uses its default and says so)
            "provider": api.provider_choice(),
        }
        if running is not None:
            return self._ok(
                {
                    **base,
                    "started": False,
                    "reason": "scan_in_progress",
                    "scan_id": running.scan_id,
                    "project_root": str(running.root),
                },
                layouts.pretty,
            )
        root = find_root(target)
        if root is not None and api.scanning(Project(root)):
            self.monitor.want(root, language)
            return self._ok(
                {
                    **base,
                    "started": False,
                    "reason": "scan_in_progress",
                    "scan_id": None,
                    "project_root": str(root),
                    "note": "another process (a `znt scan`) is indexing this project",
                },
                layouts.pretty,
            )
        if root is not None and root != target:
            self.current = target
            self.monitor.want(root, language)
            return self._ok(
                {
                    **base,
                    "started": False,
                    "reason": "already_covered",
                    "project_root": str(root),
                    "note": f"{target} is covered by the index of {root}",
                },
                layouts.pretty,
            )
        if root == target and Project(root).index_path.exists():
            fresh = api.freshness(Project(root), check_files=True)
            if fresh.get("stale") is False:
                self.current = target
                self.monitor.want(root, language)
                return self._ok(
                    {
                        **base,
                        "started": False,
                        "reason": "already_current_project",
                        "project_root": str(root),
                        "freshness": fresh,
                    },
                    layouts.pretty,
                )
        job = self.jobs.start(target, language)
        self.current = target
        self.monitor.want(target, language)
        return self._ok(
            {
                **base,
                "started": True,
                "scan_id": job.scan_id,
                "project_root": str(target),
                "note": "indexing in the background; poll status until status is Monitoring "
                "(or Idle): from then on the index follows file changes by itself",
            },
            layouts.pretty,
        )

    # stats
    def _tool_stats(self, a: dict[str, Any]) -> Reply:
        doc: dict[str, Any]
        try:
            doc = {**api.stats(project_path=self._read_path())}
        except IndexMissing as exc:
            doc = {
                "schema_version": api.SCHEMA_VERSION,
                "kind": "stats",
                "index_missing": exc.message,
            }
        doc["mcp"] = api.mcp_usage(self.metrics_path(), self.session_id, self.session_records)
        return self._ok(doc, layouts.pretty)

    def metrics_path(self) -> Path | None:
        return metrics.metrics_path(self.project_root())

    # setup
    def _tool_setup(self, a: dict[str, Any]) -> Reply:
        mode = a["mode"]
        if mode in (None, "bm25", "local"):
            model = _model_name(a["model"]) if a["model"] else None
            if mode is not None and not a["replace"]:
                config: Mapping[str, Any] = api.setup_status()["config"]
                current = config.get("provider") or {}
                same = current.get("mode") == mode and (
                    model is None or current.get("model") == model
                )
                if config.get("source") != "default" and current.get("mode") != "bm25" and not same:
                    # Never replace the user's choice of provider behind their back.
                    return self._ok(
                        {
                            "action": "confirm_required",
                            "written": None,
                            "current": current,
                            "requested_mode": mode,
                            "reason": "this would replace the user's configured provider "
                            f"({current.get('mode')}); ask the user, then call setup again "
                            "with replace=true",
                        },
                        layouts.pretty,
                    )
            doc: dict[str, Any] = {
                **api.setup(mode, model=model, check_provider=a["check_provider"])
            }
            doc["via"] = "mcp"
            return self._ok(doc, layouts.pretty)
        # A provider that sends source text to a server: the user's own decision and step,
        # in the one-time form at setup_url (or in a terminal); the key never passes here.
        show: dict[str, Any] = {**api.setup()}
        command = next(
            (r["command"] for r in show["recommendations"] if r["mode"] == mode), "znt setup"
        )
        if a["model"]:
            command = command.split(" --model")[0] + f" --model {a['model']}"
        try:
            opened = api.setup_url(mode, model=a["model"], check_provider=a["check_provider"])
            form: dict[str, Any] = {
                k: v for k, v in opened.items() if k not in ("schema_version", "kind")
            }
            how = (
                "Give the user setup_url to open in a browser (a one-time form on this machine, "
                f"valid {form['expires_in_s']} s), or the command for a terminal"
            )
        except UsageError as exc:  # ZNT_CONFIG is set: nothing a form could write
            form = {"setup_url": None, "error": exc.message}
            how = f"No form: {exc.message}"
        doc = {
            **show,
            "action": "user_step_required",
            "written": None,
            "requested_mode": mode,
            "setup_url": form["setup_url"],
            "setup_form": form,
            "command": command,
            "reason": f"the {mode} provider sends source text to a server and may need a key: "
            f"only the user can choose it. {how}; never ask for the key yourself. Then call "
            "setup_status.",
        }
        return self._ok(doc, layouts.pretty)

    def _tool_setup_status(self, a: dict[str, Any]) -> Reply:
        doc: dict[str, Any] = {**api.setup_status(check_provider=a["check_provider"])}
        doc["setup_form"] = api.setup_url_state()  # what became of the last setup_url
        return self._ok(doc, layouts.pretty)

    # the full profile
    def _tool_check(self, a: dict[str, Any]) -> Reply:
        root = self.project_root()
        rules = a["rules_file"]
        if rules:
            rules = str(root / containment.confine(rules, root, what="rules_file"))
        doc = api.check(
            rules_file=rules, stale_policy=a["stale_policy"], project_path=self._read_path()
        )
        return self._ok(doc, layouts.pretty)

    def _tool_impact(self, a: dict[str, Any]) -> Reply:
        root = self.project_root()
        paths = None
        if a["paths"]:
            paths = [
                containment.confine(p.strip(), root, what="paths")
                for p in a["paths"].split(",")
                if p.strip()
            ]
        ref = a["diff"]
        if ref is not None and (ref.startswith("-") or not ref.strip()):
            raise UsageError("impact: diff must be a git ref (a branch, tag or commit)")
        doc = api.impact(
            staged=a["staged"],
            diff=ref,
            paths=paths,
            depth=a["depth"],
            project_path=self._read_path(),
        )
        return self._ok(doc, layouts.pretty)

    def _tool_map(self, a: dict[str, Any]) -> Reply:
        root = self.project_root()

        def listed(value: str | None) -> list[str]:
            return [x.strip() for x in (value or "").split(",") if x.strip()]

        paths = [str(root / containment.confine(p, root, what="paths")) for p in listed(a["paths"])]
        doc = api.repo_map(
            paths,
            max_tokens=a["max_tokens"],
            focus=listed(a["focus"]),
            project_path=self._read_path(),
        )
        return self._ok(doc, layouts.repo_map)

    # usage metrics
    def record(self, name: str, reply: Reply | None, ms: float, error: str | None = None) -> None:
        """Append the call to the metrics file; never raises."""
        try:
            tokens = layouts.size(reply.text, reply.structured) if reply else 0
            root = self.project_root()
            files = reply.files if reply else []
            rec = metrics.record(
                session_id=self.session_id,
                tool=name,
                response_tokens=tokens,
                execution_ms=ms,
                alternative_tokens=metrics.file_tokens(root, files),
                files=len(files),
                is_error=bool(reply.is_error) if reply else True,
                error=error or (reply.error_code if reply else None),
            )
            self.session_records.append(rec)
            metrics.append(self.metrics_path(), rec)
        except Exception as exc:  # a metrics failure must never fail the call
            import sys

            print(f"znt mcp: metrics not recorded: {exc}", file=sys.stderr)
