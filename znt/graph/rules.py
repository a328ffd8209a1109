"""Architecture rules for ``znt check``: parse the ``check:`` section of ``znt.yaml`` and
evaluate it over the code graph.

The rules are pure functions over rows that ``fetch`` reads once from the index (edges with
their files, the files' modules and folders, test files), so the same evaluation runs on
the working index and on a baseline snapshot. Cycle detection hands networkx only the graph
reduced to the chosen granularity (files, modules or folders), never the symbol graph.
Every violation carries a ``key`` built from the rule and the symbols/files involved, never
from line numbers, so ``--baseline`` recognises a violation after unrelated edits move it.
See docs/check.md.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from znt.errors import UsageError

DEPENDENCY_KINDS = ("call", "imports", "inherits", "implements")
RULE_TYPES = (
    "layers",
    "forbidden",
    "no_cycles",
    "max_fan_out",
    "max_fan_in",
    "forbidden_external",
    "no_test_imports",
    "max_unresolved_ratio",
)
GRANULARITIES = ("file", "module", "package")
SEVERITIES = ("error", "warning")
DEFAULT_MIN_CONFIDENCE = 0.8
# Resolutions of a call that was not bound to one known target (docs/data-model.md).
UNBOUND = frozenset({"unresolved", "local", "ambiguous"})
# At most this many edges are listed per violation (a cycle lists one edge per hop).
MAX_EDGES_PER_VIOLATION = 20

DESCRIPTIONS = {
    "layers": "A lower layer must not depend on a higher one",
    "forbidden": "Forbidden dependency between paths or layers",
    "no_cycles": "No dependency cycles",
    "max_fan_out": "Maximum fan-out",
    "max_fan_in": "Maximum fan-in",
    "forbidden_external": "Forbidden use of an external module",
    "no_test_imports": "Non-test code must not depend on tests",
    "max_unresolved_ratio": "Maximum share of unresolved or ambiguous calls",
}


# -- configuration -------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    id: str
    type: str
    severity: str = "error"
    description: str = ""
    min_confidence: float = DEFAULT_MIN_CONFIDENCE
    edge_types: tuple[str, ...] = DEPENDENCY_KINDS
    from_: tuple[str, ...] = ()
    to: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    modules: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    granularity: str = "file"
    per: str = "symbol"
    max: float = 0
    include_external: bool = False
    allow_skip: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type,
            "severity": self.severity,
            "description": self.description or DESCRIPTIONS[self.type],
        }


@dataclass(frozen=True)
class CheckConfig:
    rules: tuple[Rule, ...]
    layers: tuple[tuple[str, tuple[str, ...]], ...] = ()
    source: str = "znt.yaml"

    def layer_names(self) -> list[str]:
        return [name for name, _ in self.layers]


_RULE_KEYS: dict[str, set[str]] = {
    "layers": {"allow_skip"},
    "forbidden": {"from", "to"},
    "no_cycles": {"granularity"},
    "max_fan_out": {"max", "per", "paths", "include_external"},
    "max_fan_in": {"max", "per", "paths"},
    "forbidden_external": {"modules", "from"},
    "no_test_imports": {"tests"},
    "max_unresolved_ratio": {"max", "paths"},
}
_COMMON_KEYS = {"id", "type", "severity", "description", "min_confidence", "edge_types"}
_DEFAULT_EDGES = {
    "no_cycles": ("imports",),
    "max_fan_out": ("call",),
    "max_fan_in": ("call",),
    "forbidden_external": ("imports", "call"),
    "max_unresolved_ratio": ("call",),
}
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def _strings(value: Any, where: str, *, allow_empty: bool = False) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise UsageError(f"{where} must be a string or a list of non-empty strings")
    if not value and not allow_empty:
        raise UsageError(f"{where} must not be empty")
    return tuple(v.strip() for v in value)


def _number(value: Any, where: str, *, lo: float, hi: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UsageError(f"{where} must be a number")
    if value < lo or (hi is not None and value > hi):
        bound = f"between {lo} and {hi}" if hi is not None else f">= {lo}"
        raise UsageError(f"{where} must be {bound}, got {value}")
    return float(value)


# What `znt check` runs in a project whose znt.yaml has no ``check:`` section (or that has
# no znt.yaml): no import cycles between modules (docs/check.md, "Default rules").
DEFAULT_SOURCE = "(default rules)"
DEFAULT_CHECK: dict[str, Any] = {
    "rules": [{"id": "no-import-cycles", "type": "no_cycles", "granularity": "module"}]
}


def parse_config(raw: dict[str, Any], source: str = "znt.yaml") -> CheckConfig:
    """Validate the ``check:`` mapping. Every mistake is a ``UsageError`` (exit 2) naming the
    rule and the key, so a CI log says what to fix."""
    known = {"min_confidence", "layers", "rules"}
    unknown = set(raw) - known
    if unknown:
        raise UsageError(f"{source}: check: unknown keys {sorted(unknown)}; known: {sorted(known)}")
    default_conf = DEFAULT_MIN_CONFIDENCE
    if "min_confidence" in raw:
        default_conf = _number(
            raw["min_confidence"], f"{source}: check.min_confidence", lo=0.0, hi=1.0
        )
    layers: list[tuple[str, tuple[str, ...]]] = []
    raw_layers = raw.get("layers") or {}
    if not isinstance(raw_layers, dict):
        raise UsageError(
            f"{source}: check.layers must be a mapping of layer name -> path globs, "
            "listed from the top layer to the bottom one"
        )
    for name, globs in raw_layers.items():
        if not isinstance(name, str) or not _ID.match(name):
            raise UsageError(f"{source}: check.layers: bad layer name {name!r}")
        layers.append((name, _strings(globs, f"{source}: check.layers.{name}")))
    layer_names = {n for n, _ in layers}
    raw_rules = raw.get("rules")
    if not isinstance(raw_rules, list) or not raw_rules:
        raise UsageError(f"{source}: check.rules must be a non-empty list of rules")
    rules: list[Rule] = []
    seen: set[str] = set()
    for i, item in enumerate(raw_rules):
        where = f"{source}: check.rules[{i}]"
        if not isinstance(item, dict):
            raise UsageError(f"{where} must be a mapping with at least 'type'")
        typ = item.get("type")
        if typ not in RULE_TYPES:
            raise UsageError(
                f"{where}: unknown type {typ!r}; choose one of {', '.join(RULE_TYPES)}"
            )
        rid = item.get("id", typ)
        if not isinstance(rid, str) or not _ID.match(rid):
            raise UsageError(f"{where}: id must be letters, digits, '_', '.', '-'")
        where = f"{source}: rule {rid!r}"
        if rid in seen:
            raise UsageError(f"{where}: duplicate rule id (give each rule its own 'id')")
        seen.add(rid)
        bad = set(item) - _COMMON_KEYS - _RULE_KEYS[typ]
        if bad:
            raise UsageError(
                f"{where}: unknown keys {sorted(bad)} for type {typ}; known: "
                f"{sorted(_COMMON_KEYS | _RULE_KEYS[typ])}"
            )
        kw: dict[str, Any] = {"id": rid, "type": typ}
        sev = item.get("severity", "error")
        if sev not in SEVERITIES:
            raise UsageError(f"{where}: severity must be error or warning")
        kw["severity"] = sev
        if "description" in item:
            if not isinstance(item["description"], str):
                raise UsageError(f"{where}: description must be a string")
            kw["description"] = item["description"]
        kw["min_confidence"] = (
            _number(item["min_confidence"], f"{where}: min_confidence", lo=0.0, hi=1.0)
            if "min_confidence" in item
            else default_conf
        )
        kinds = _strings(
            item.get("edge_types", list(_DEFAULT_EDGES.get(typ, DEPENDENCY_KINDS))),
            f"{where}: edge_types",
        )
        wrong = [k for k in kinds if k not in DEPENDENCY_KINDS]
        if wrong:
            raise UsageError(
                f"{where}: unknown edge_types {wrong}; choose from {', '.join(DEPENDENCY_KINDS)}"
            )
        kw["edge_types"] = kinds
        if typ == "layers":
            if len(layers) < 2:
                raise UsageError(f"{where}: needs at least two layers under check.layers")
            allow = item.get("allow_skip", True)
            if not isinstance(allow, bool):
                raise UsageError(f"{where}: allow_skip must be true or false")
            kw["allow_skip"] = allow
        elif typ == "forbidden":
            for key in ("from", "to"):
                if key not in item:
                    raise UsageError(f"{where}: needs '{key}' (path globs or layer names)")
            kw["from_"] = _strings(item["from"], f"{where}: from")
            kw["to"] = _strings(item["to"], f"{where}: to")
        elif typ == "no_cycles":
            gran = item.get("granularity", "file")
            if gran not in GRANULARITIES:
                raise UsageError(f"{where}: granularity must be one of {', '.join(GRANULARITIES)}")
            kw["granularity"] = gran
        elif typ in ("max_fan_out", "max_fan_in"):
            if "max" not in item:
                raise UsageError(f"{where}: needs 'max' (an integer >= 0)")
            if isinstance(item["max"], bool) or not isinstance(item["max"], int) or item["max"] < 0:
                raise UsageError(f"{where}: max must be an integer >= 0")
            kw["max"] = float(item["max"])
            per = item.get("per", "symbol")
            if per not in ("symbol", "file"):
                raise UsageError(f"{where}: per must be symbol or file")
            kw["per"] = per
            kw["paths"] = _strings(item.get("paths", []), f"{where}: paths", allow_empty=True)
            inc = item.get("include_external", False)
            if not isinstance(inc, bool):
                raise UsageError(f"{where}: include_external must be true or false")
            kw["include_external"] = inc
        elif typ == "forbidden_external":
            if "modules" not in item:
                raise UsageError(f"{where}: needs 'modules' (external module names or globs)")
            kw["modules"] = _strings(item["modules"], f"{where}: modules")
            kw["from_"] = _strings(item.get("from", []), f"{where}: from", allow_empty=True)
        elif typ == "no_test_imports":
            kw["tests"] = _strings(item.get("tests", []), f"{where}: tests", allow_empty=True)
        elif typ == "max_unresolved_ratio":
            if "max" not in item:
                raise UsageError(f"{where}: needs 'max' (a ratio between 0 and 1)")
            kw["max"] = _number(item["max"], f"{where}: max", lo=0.0, hi=1.0)
            kw["paths"] = _strings(item.get("paths", []), f"{where}: paths", allow_empty=True)
        for key in ("from_", "to"):
            for sel in kw.get(key, ()):
                if sel.startswith("layer:") and sel[6:] not in layer_names:
                    raise UsageError(
                        f"{where}: unknown layer {sel[6:]!r}; defined: {sorted(layer_names)}"
                    )
        rules.append(Rule(**kw))
    return CheckConfig(tuple(rules), tuple(layers), source)


# -- path selectors ------------------------------------------------------------------------


@lru_cache(maxsize=1024)
def _glob_re(pattern: str) -> re.Pattern[str]:
    """An anchored path glob: ``**`` crosses folders, ``*`` and ``?`` do not, and a pattern
    without wildcards also matches everything under it as a folder (``app/ui`` = ``app/ui/**``)."""
    pat = pattern.strip()
    if pat.startswith("./"):
        pat = pat[2:]
    pat = pat.lstrip("/")
    plain = not any(c in pat for c in "*?[")
    if plain:
        return re.compile(re.escape(pat.rstrip("/")) + r"(?:/.*)?\Z")
    if pat.endswith("/"):
        pat += "**"
    out = []
    i = 0
    while i < len(pat):
        if pat.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pat.startswith("**", i):
            out.append(".*")
            i += 2
        elif pat[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pat[i] == "?":
            out.append("[^/]")
            i += 1
        elif pat[i] == "[":
            j = pat.find("]", i + 1)
            if j < 0:
                out.append(re.escape(pat[i]))
                i += 1
            else:
                out.append("[" + pat[i + 1 : j].replace("\\", "\\\\") + "]")
                i = j + 1
        else:
            out.append(re.escape(pat[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def path_matches(path: str | None, globs: Iterable[str]) -> bool:
    return path is not None and any(_glob_re(g).match(path) for g in globs)


class Selector:
    """Files picked by a rule's ``from``/``to``: path globs and ``layer:NAME`` entries."""

    def __init__(self, entries: Sequence[str], config: CheckConfig) -> None:
        layers = dict(config.layers)
        self.globs: list[str] = []
        for e in entries:
            if e.startswith("layer:"):
                self.globs.extend(layers[e[6:]])
            else:
                self.globs.append(e)
        self._cache: dict[str, bool] = {}

    def __call__(self, path: str | None) -> bool:
        if path is None:
            return False
        hit = self._cache.get(path)
        if hit is None:
            hit = self._cache[path] = path_matches(path, self.globs)
        return hit


# -- graph rows ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Edge:
    src: str
    dst: str
    kind: str
    confidence: float
    resolution: str
    src_file: str | None
    dst_file: str | None
    line: int | None
    count: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "from": self.src,
            "to": self.dst,
            "from_file": self.src_file,
            "to_file": self.dst_file,
            "kind": self.kind,
            "line": self.line,
            "confidence": self.confidence,
            "resolution": self.resolution,
        }


@dataclass
class GraphData:
    edges: list[Edge]
    files: dict[str, tuple[str, str]]  # path -> (folder, module name)
    test_files: set[str]
    symbol_lines: dict[str, int] = field(default_factory=dict)


def fetch(con: Any) -> GraphData:
    """Read what the rules need from an open index (one pass per table, no writes)."""
    rows = con.execute(
        """
        SELECT e.src, e.dst, e.kind, e.confidence, e.resolution,
               coalesce(s.file, e.file), d.file, e.line, e.count
        FROM edges e
        LEFT JOIN symbols s ON s.id = e.src
        LEFT JOIN symbols d ON d.id = e.dst
        WHERE e.kind IN ('call', 'imports', 'inherits', 'implements')
        ORDER BY e.src, e.dst, e.kind
        """
    ).fetchall()
    edges = [
        Edge(
            r[0],
            r[1],
            r[2],
            float(r[3] if r[3] is not None else 0.0),
            r[4] or "",
            r[5],
            r[6],
            r[7],
            int(r[8] or 1),
        )
        for r in rows
    ]
    files = {
        r[0]: (r[1] or "", r[2] or r[0])
        for r in con.execute("SELECT path, dir, module_name FROM files").fetchall()
    }
    tests = {
        r[0]
        for r in con.execute(
            "SELECT file FROM symbols WHERE id = file AND role = 'test'"
        ).fetchall()
    }
    lines = {
        r[0]: int(r[1])
        for r in con.execute(
            "SELECT id, start_line FROM symbols WHERE type IN ('function', 'declaration')"
        ).fetchall()
        if r[1] is not None
    }
    return GraphData(edges, files, tests, lines)


# -- evaluation ----------------------------------------------------------------------------


def _edges(data: GraphData, rule: Rule, *, internal: bool = True) -> Iterable[Edge]:
    """The edges a rule looks at: its edge types, at or above its confidence, and (for
    dependency rules) with a project file at both ends."""
    kinds = set(rule.edge_types)
    for e in data.edges:
        if e.kind not in kinds or e.confidence < rule.min_confidence:
            continue
        if internal and (e.src_file is None or e.dst_file is None):
            continue
        yield e


def _violation(
    rule: Rule,
    message: str,
    key: str,
    edges: Sequence[Edge] = (),
    *,
    file: str | None = None,
    line: int | None = None,
    **extra: Any,
) -> dict[str, Any]:
    first = edges[0] if edges else None
    return {
        "rule": rule.id,
        "type": rule.type,
        "severity": rule.severity,
        "message": message,
        "key": f"{rule.type}:{rule.id}:{key}",
        "file": file if file is not None else (first.src_file if first else None),
        "line": line if line is not None else (first.line if first else None),
        "edges": [e.to_dict() for e in edges[:MAX_EDGES_PER_VIOLATION]],
        **extra,
    }


def _edge_key(e: Edge) -> str:
    return f"{e.src}->{e.dst}|{e.kind}"


def _layer_of(config: CheckConfig) -> Any:
    cache: dict[str, int | None] = {}

    def layer(path: str | None) -> int | None:
        if path is None:
            return None
        if path not in cache:
            cache[path] = next(
                (i for i, (_n, globs) in enumerate(config.layers) if path_matches(path, globs)),
                None,
            )
        return cache[path]

    return layer


def _check_layers(rule: Rule, config: CheckConfig, data: GraphData) -> list[dict[str, Any]]:
    layer = _layer_of(config)
    names = config.layer_names()
    out = []
    for e in _edges(data, rule):
        a, b = layer(e.src_file), layer(e.dst_file)
        if a is None or b is None or a == b:
            continue
        # Layers are listed top first: index 0 may depend on everything below it.
        if b < a:
            why = f"lower layer {names[a]!r} depends on higher layer {names[b]!r}"
        elif not rule.allow_skip and b > a + 1:
            why = f"layer {names[a]!r} skips {names[a + 1]!r} to reach {names[b]!r}"
        else:
            continue
        out.append(
            _violation(
                rule,
                f"{why}: {e.src} -> {e.dst} ({e.kind})",
                _edge_key(e),
                [e],
                from_layer=names[a],
                to_layer=names[b],
            )
        )
    return out


def _check_forbidden(rule: Rule, config: CheckConfig, data: GraphData) -> list[dict[str, Any]]:
    src_ok, dst_ok = Selector(rule.from_, config), Selector(rule.to, config)
    return [
        _violation(
            rule,
            f"forbidden dependency {e.src} -> {e.dst} ({e.kind}): "
            f"{', '.join(rule.from_)} must not depend on {', '.join(rule.to)}",
            _edge_key(e),
            [e],
        )
        for e in _edges(data, rule)
        if src_ok(e.src_file) and dst_ok(e.dst_file) and e.src_file != e.dst_file
    ]


def _unit(data: GraphData, granularity: str, path: str) -> str:
    if granularity == "file":
        return path
    folder, module = data.files.get(path, (path.rpartition("/")[0], path))
    return module if granularity == "module" else (folder or ".")


def _check_cycles(rule: Rule, config: CheckConfig, data: GraphData) -> list[dict[str, Any]]:
    # Reduce the symbol graph to one node per unit, keeping the first edge of each hop (by
    # file and line) as the evidence shown for it.
    hops: dict[tuple[str, str], list[Edge]] = {}
    for e in _edges(data, rule):
        assert e.src_file is not None and e.dst_file is not None
        a = _unit(data, rule.granularity, e.src_file)
        b = _unit(data, rule.granularity, e.dst_file)
        if a != b:
            hops.setdefault((a, b), []).append(e)
    if not hops:
        return []
    import networkx as nx

    g = nx.DiGraph()
    g.add_edges_from(hops)
    out = []
    for comp in nx.strongly_connected_components(g):
        if len(comp) < 2:
            continue
        members = sorted(comp)
        sub = g.subgraph(comp)
        cycle = [(a, b) for a, b in nx.find_cycle(sub, source=members[0])]
        evidence = [
            min(hops[h], key=lambda e: (e.src_file or "", e.line or 0, e.src, e.dst)) for h in cycle
        ]
        ring = " -> ".join([cycle[0][0], *(b for _a, b in cycle)])
        out.append(
            _violation(
                rule,
                f"{rule.granularity} dependency cycle ({', '.join(rule.edge_types)}): {ring}"
                + (
                    f" ({len(members)} {rule.granularity}s involved)"
                    if len(members) > len(cycle)
                    else ""
                ),
                "|".join(members),
                evidence,
                cycle=[a for a, _b in cycle],
                members=members,
            )
        )
    return sorted(out, key=lambda v: v["key"])


def _check_fan(rule: Rule, config: CheckConfig, data: GraphData) -> list[dict[str, Any]]:
    out_dir = rule.type == "max_fan_out"
    internal = not (out_dir and rule.include_external)
    groups: dict[str, dict[str, Edge]] = {}
    for e in _edges(data, rule, internal=False):
        if internal and (e.src_file is None or e.dst_file is None):
            continue
        if rule.per == "file":
            if e.src_file is None or (e.dst_file is None and not out_dir):
                continue
            subject, other = (
                (e.src_file, e.dst_file or e.dst) if out_dir else (e.dst_file, e.src_file)
            )
            if subject == other:
                continue
            assert subject is not None and other is not None
        else:
            subject, other = (e.src, e.dst) if out_dir else (e.dst, e.src)
            if subject == other:
                continue
        subject_file = e.src_file if out_dir else e.dst_file
        if rule.paths and not path_matches(subject_file, rule.paths):
            continue
        bucket = groups.setdefault(subject, {})
        if other not in bucket:
            bucket[other] = e
    out = []
    label = "fan-out" if out_dir else "fan-in"
    for subject in sorted(groups):
        peers = groups[subject]
        if len(peers) <= rule.max:
            continue
        evidence = sorted(peers.values(), key=lambda e: (e.src_file or "", e.line or 0, e.dst))
        sample = evidence[0]
        file: str | None
        if rule.per == "file":
            file, line = subject, (sample.line if out_dir else None) or 1
        else:
            file = sample.src_file if out_dir else sample.dst_file
            line = data.symbol_lines.get(subject) or (sample.line if out_dir else None) or 1
        what = "depends on" if out_dir else "is used by"
        unit = "files" if rule.per == "file" else "symbols"
        out.append(
            _violation(
                rule,
                f"{label} of {subject} is {len(peers)} (max {int(rule.max)}): it {what} "
                f"{len(peers)} {unit} over {', '.join(rule.edge_types)}",
                subject,
                evidence,
                file=file,
                line=line,
                subject=subject,
                count=len(peers),
                limit=int(rule.max),
            )
        )
    return out


def _external_matches(name: str, patterns: Sequence[str]) -> bool:
    for pat in patterns:
        if name == pat or name.startswith(pat + ".") or fnmatch.fnmatchcase(name, pat):
            return True
    return False


def _check_external(rule: Rule, config: CheckConfig, data: GraphData) -> list[dict[str, Any]]:
    src_ok = Selector(rule.from_, config) if rule.from_ else None
    out = []
    for e in _edges(data, rule, internal=False):
        if e.dst_file is not None or not (e.dst.startswith("dep::") or e.dst.startswith("ext::")):
            continue
        if e.resolution in UNBOUND:
            continue  # a name we could not bind is not known to be that module
        if src_ok is not None and not src_ok(e.src_file):
            continue
        name = e.dst[5:]
        if _external_matches(name, rule.modules):
            out.append(
                _violation(
                    rule,
                    f"{e.src} uses external {name} ({e.kind}), forbidden by this rule",
                    _edge_key(e),
                    [e],
                    module=name,
                )
            )
    return out


def _check_test_imports(rule: Rule, config: CheckConfig, data: GraphData) -> list[dict[str, Any]]:
    def is_test(path: str | None) -> bool:
        if path is None:
            return False
        return path_matches(path, rule.tests) if rule.tests else path in data.test_files

    return [
        _violation(
            rule,
            f"non-test code depends on test code: {e.src} -> {e.dst} ({e.kind})",
            _edge_key(e),
            [e],
        )
        for e in _edges(data, rule)
        if not is_test(e.src_file) and is_test(e.dst_file)
    ]


def _check_unresolved(rule: Rule, config: CheckConfig, data: GraphData) -> list[dict[str, Any]]:
    # A call site is (caller, line): each ambiguous candidate is an edge of its own, so
    # counting edges would weigh an ambiguous call once per candidate.
    sites: dict[tuple[str, int | None], str] = {}
    kinds = set(rule.edge_types)
    for e in data.edges:
        if e.kind not in kinds or e.src_file is None:
            continue
        if rule.paths and not path_matches(e.src_file, rule.paths):
            continue
        bad = e.resolution in UNBOUND
        site = (e.src, e.line)
        if not bad:
            sites[site] = "ok"
        else:
            sites.setdefault(site, e.resolution)
    if not sites:
        return []
    bad_sites = sum(1 for v in sites.values() if v != "ok")
    ratio = bad_sites / len(sites)
    if ratio <= rule.max:
        return []
    scope = ", ".join(rule.paths) if rule.paths else "the project"
    return [
        _violation(
            rule,
            f"{bad_sites} of {len(sites)} call sites in {scope} are unresolved or ambiguous "
            f"({ratio:.1%}, max {rule.max:.1%})",
            scope,
            [],
            file=None,
            line=None,
            ratio=round(ratio, 4),
            limit=rule.max,
            count=bad_sites,
            total=len(sites),
        )
    ]


_CHECKS = {
    "layers": _check_layers,
    "forbidden": _check_forbidden,
    "no_cycles": _check_cycles,
    "max_fan_out": _check_fan,
    "max_fan_in": _check_fan,
    "forbidden_external": _check_external,
    "no_test_imports": _check_test_imports,
    "max_unresolved_ratio": _check_unresolved,
}


def evaluate(config: CheckConfig, data: GraphData) -> list[dict[str, Any]]:
    """Every violation of every rule, in rule order then by file, line and key."""
    out: list[dict[str, Any]] = []
    for rule in config.rules:
        found = _CHECKS[rule.type](rule, config, data)
        found.sort(key=lambda v: (v["file"] or "", v["line"] or 0, v["key"]))
        seen: set[str] = set()
        for v in found:
            if v["key"] not in seen:  # one report per key keeps baselines exact
                seen.add(v["key"])
                out.append(v)
    return out


def new_since(
    current: list[dict[str, Any]], baseline: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], int]:
    """The violations of ``current`` whose key the baseline does not have, and how many
    were dropped as known."""
    known = {v["key"] for v in baseline}
    fresh = [v for v in current if v["key"] not in known]
    return fresh, len(current) - len(fresh)
