"""``znt graph --format mermaid`` checked by the real mermaid library.

Several graphs (real ones from a scanned project with non-ASCII, dunder and C++ names, and
synthetic ones with every character that could break Mermaid's syntax) are rendered to SVG
by ``mmdc`` (@mermaid-js/mermaid-cli, installed in tools/mermaid by ``npm ci``) in Debian's
chromium, in one run; each SVG must exist, carry no syntax-error diagram, and show every
node label as written.

Outside CI the test skips when the tools are missing; under ``CI`` it fails instead
(.ci/run installs them).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, run_znt

TOOLS = REPO / "tools" / "mermaid"
MMDC = TOOLS / "node_modules" / ".bin" / "mmdc"
CHROMIUM = Path("/usr/bin/chromium")

NASTY = [
    'say "hi"',
    "a[0] {b} (c)",
    "x < y > z & w",
    "operator+",
    "operator<<",
    "operator()",
    "operator==",
    "__init__",
    "größe 日本 😀",
    "with space",
    "end",
    "graph",
    "subgraph",
    "click",
    "style",
    "%% not a comment",
    "pipe | semi; hash #1",
    "back`tick` \\ slash",
    "A-->B",
    "-.->|x|",
    "<script>alert(1)</script>",
    "&amp; already escaped",
    "#quot; looks like an entity",
]


def _require_tools() -> None:
    missing = [str(p) for p in (MMDC, CHROMIUM) if not p.exists()]
    if shutil.which("node") is None:
        missing.append("node")
    if not missing:
        return
    why = (
        f"mermaid render tools missing: {', '.join(missing)} "
        "(apt-get install chromium; cd tools/mermaid && PUPPETEER_SKIP_DOWNLOAD=1 npm ci)"
    )
    if os.environ.get("CI"):
        pytest.fail(why)
    pytest.skip(why)


def _svg_text(svg: str) -> str:
    """The text a reader sees: tags dropped, entities decoded, white space collapsed."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", svg)))


def _labels(doc: dict[str, Any]) -> list[str]:
    return [str(n.get("qualified_name") or n.get("name")) for n in doc["nodes"]]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("mermaid") / "proj"
    (root / "src dir").mkdir(parents=True)
    (root / "src dir" / "shapes.py").write_text(
        "import math\n\n\n"
        "class Größe:\n"
        "    def __init__(self, wert):\n        self.wert = math.floor(wert)\n\n"
        "    def __add__(self, other):\n        return Größe(self.wert + other.wert)\n\n\n"
        "def 日本(x):\n    return Größe(x) + Größe(x)\n\n\n"
        "def caller():\n    return 日本(1)\n",
        encoding="utf-8",
    )
    (root / "vec.cpp").write_text(
        "struct Vec { int x; };\n\n"
        "Vec twice(const Vec& v) { return Vec{v.x * 2}; }\n\n"
        "int main() { Vec a{1}; Vec b = twice(a); return b.x; }\n",
        encoding="utf-8",
    )
    done = run_znt("scan", "-q", "--no-embed", cwd=root)
    assert done.returncode == 0, done.stderr
    return root


def _cli_graph(root: Path, *args: str) -> tuple[str, list[str]]:
    """The mermaid text of a real query, and the labels its json twin says it shows."""
    text = run_znt("graph", *args, "--format", "mermaid", cwd=root)
    assert text.returncode == 0, text.stderr
    doc = run_znt("graph", *args, "--format", "json", cwd=root)
    return text.stdout, _labels(json.loads(doc.stdout))


def _synthetic() -> list[tuple[str, list[str]]]:
    from znt.formats import mermaid

    nodes = [
        {
            "id": f"f.py::n{i}",
            "name": name,
            "qualified_name": name,
            "type": ("function", "declaration", "namespace", "member")[i % 4],
            "file": "odd dir/f [1].py",
            "start_line": i + 1,
            "start": i == 0,
        }
        for i, name in enumerate(NASTY)
    ]
    nodes.append({"id": "ext::x<y>", "name": "x<y>", "qualified_name": "x<y>", "external": True})
    edges = [
        {
            "from": nodes[i]["id"],
            "to": nodes[i + 1]["id"],
            "type": ("call", "inherits", "implements", "contains", "imports")[i % 5],
            "confidence": 1.0 if i % 2 else 0.5,
        }
        for i in range(len(nodes) - 1)
    ]
    big = {"nodes": nodes, "edges": edges, "completeness": {"complete": False}}
    lonely = {"nodes": nodes[:1], "edges": []}
    empty: dict[str, Any] = {"nodes": [], "edges": []}
    return [
        (mermaid.render(big), [*_labels(big), "odd dir/f [1].py:3"]),
        (mermaid.render(lonely), _labels(lonely)),
        (mermaid.render(empty), []),
    ]


def test_mermaid_renders_with_the_real_library(project: Path, tmp_path: Path) -> None:
    _require_tools()
    charts = [
        _cli_graph(project, "caller", "--depth", "3", "--direction", "down", "--all"),
        _cli_graph(project, "Größe.__add__"),
        _cli_graph(project, "caller", "--to", "Größe.__init__"),
        _cli_graph(project, "src dir/shapes.py", "--edge-types", "call,contains"),
        _cli_graph(project, "main", "--all", "--edge-types", "call,contains,imports"),
        *_synthetic(),
    ]
    assert all(chart.startswith("flowchart LR") for chart, _ in charts)
    assert "Größe.__init__" in charts[0][1] and "ext::math.floor" not in charts[0][0]
    source = tmp_path / "charts.md"
    source.write_text(
        "".join(f"```mermaid\n{chart}\n```\n\n" for chart, _ in charts), encoding="utf-8"
    )
    env = {**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1"}
    done = subprocess.run(
        [
            str(MMDC),
            "-p",
            str(TOOLS / "puppeteer-config.json"),
            "-i",
            str(source),
            "-o",
            str(tmp_path / "out.md"),
        ],
        cwd=TOOLS,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for k, (chart, labels) in enumerate(charts, 1):
        svg_path = tmp_path / f"out-{k}.svg"
        assert svg_path.exists(), f"chart {k} was not rendered:\n{chart}"
        svg = svg_path.read_text(encoding="utf-8")
        assert svg.lstrip().startswith("<svg"), chart
        text = _svg_text(svg)
        assert "Syntax error" not in text, chart
        for label in labels:
            assert label in text, f"chart {k}: label {label!r} not in the SVG\n{chart}"
        # an injected tag is shown as text, never parsed into the SVG
        assert "<script>alert" not in svg
