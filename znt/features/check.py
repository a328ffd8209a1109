"""``znt check``: the architecture rules of znt.yaml (znt/graph/rules.py) over the index,
optionally only what is new since a git ref (znt/features/baseline.py)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from znt.errors import IndexStale, UsageError
from znt.features.baseline import baseline_index
from znt.features.status import freshness
from znt.project import Project

if TYPE_CHECKING:
    from znt.results import CheckBody


def check(
    project: Project, *, rules_file: str | None, baseline: str | None, stale_policy: str
) -> CheckBody:
    """The violations of the rules over the index; with ``baseline``, only the new ones."""
    from znt.graph import rules as rules_mod
    from znt.index import store

    config = _config(project, rules_file)
    fresh = freshness(project, check_files=True)
    warnings: list[str] = []
    if fresh.get("stale") and stale_policy != "ignore":
        msg = (
            f"the index is older than the working tree ({fresh.get('files_changed', 0)} changed, "
            f"{fresh.get('files_added', 0)} added, {fresh.get('files_deleted', 0)} deleted "
            "files since the last scan); run `znt scan` first"
        )
        if stale_policy == "error":
            raise IndexStale(msg, freshness=fresh)
        warnings.append(msg)
    with store.open_index(project.index_path, read_only=True) as con:
        data = rules_mod.fetch(con)
    violations = rules_mod.evaluate(config, data)
    base_info: dict[str, Any] | None = None
    if baseline is not None:
        commit, snapshot, reused = baseline_index(project, baseline)
        with store.open_index(snapshot, read_only=True) as con:
            old = rules_mod.evaluate(config, rules_mod.fetch(con))
        violations, known = rules_mod.new_since(violations, old)
        base_info = {
            "ref": baseline,
            "commit": commit,
            "known_violations": known,
            "baseline_violations": len(old),
            "snapshot_reused": reused,
        }
    counts = {rule.id: 0 for rule in config.rules}
    for v in violations:
        counts[v["rule"]] += 1
    rules_out = [{**rule.to_dict(), "violations": counts[rule.id]} for rule in config.rules]
    errors = sum(1 for v in violations if v["severity"] == "error")
    return {
        "project_root": str(project.root),
        "rules_file": config.source,
        "default_rules": config.source == rules_mod.DEFAULT_SOURCE,
        "passed": errors == 0,
        "summary": {
            "rules": len(config.rules),
            "violations": len(violations),
            "errors": errors,
            "warnings": len(violations) - errors,
            "edges_checked": len(data.edges),
        },
        "rules": rules_out,
        "violations": violations,
        "baseline": base_info,
        "warnings": warnings,
        "freshness": fresh,
    }


def _config(project: Project, rules_file: str | None) -> Any:
    """The validated ``check:`` section of ``rules_file`` or of the project's znt.yaml, or
    the default rule set when the project has neither a znt.yaml nor a ``check:`` in it."""
    from znt.graph import rules as rules_mod
    from znt.settings import read_check_section

    if rules_file is not None:
        path = Path(rules_file).expanduser()
        if not path.is_absolute() and not path.exists():
            path = project.root / rules_file
        if not path.is_file():
            raise UsageError(f"rules file not found: {rules_file}")
    else:
        path = project.config_path
        if not path.is_file() or read_check_section(path) is None:
            # As linters do: without rules of the project's own, the default set runs.
            return rules_mod.parse_config(rules_mod.DEFAULT_CHECK, rules_mod.DEFAULT_SOURCE)
    raw = read_check_section(path)
    if raw is None:
        raise UsageError(f"{path.name} has no 'check:' section (see docs/check.md)")
    try:
        source = path.resolve().relative_to(project.root).as_posix()
    except ValueError:
        source = str(path)
    return rules_mod.parse_config(raw, source)
