"""Role rules of docs/roles.md, one case each, on a small project written here."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import query
from znt import api

FILES = {
    "app/services/billing.py": (
        "from dataclasses import dataclass\n\n"
        "class InvoiceService:\n"
        "    rate = 2\n\n"
        "    def total(self):\n"
        "        return 1\n\n\n"
        "@dataclass\n"
        "class Invoice:\n"
        "    amount: int = 0\n\n\n"
        "def compute():\n"
        "    return 0\n"
    ),
    "app/utils/text.py": "def slug(s):\n    return s\n",
    "app/store.py": "class OrderStore:\n    def get(self):\n        pass\n\n\nclass Plain:\n    pass\n",
    "main.py": "def main():\n    pass\n",
    "tests/test_billing.py": "def test_total():\n    pass\n\n\ndef helper():\n    pass\n",
    "web/Api.java": (
        "package web;\n\n"
        "@RestController\n"
        "public class Api {\n"
        "    public static void main(String[] args) {}\n"
        "    public void main() {}\n"
        "}\n\n"
        "interface Port {}\n"
    ),
    "web/Jobs.cs": "[Service]\npublic class Jobs {\n    public void Run() {}\n}\n",
}


@pytest.fixture(scope="module")
def roles(tmp_path_factory) -> dict[str, str]:
    root: Path = tmp_path_factory.mktemp("roles")
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    api.scan(str(root))
    return {r[0]: r[1] for r in query(root, "SELECT id, role FROM symbols")}


@pytest.mark.parametrize(
    ("node", "role"),
    [
        ("tests/test_billing.py::helper", "test"),  # 1: a test file
        ("app/services/billing.py::InvoiceService", "service"),  # 6: name suffix
        ("app/services/billing.py::InvoiceService.total", "service"),  # 7: its class's role
        ("app/services/billing.py::InvoiceService.rate", "service"),  # 7: members too
        ("app/services/billing.py::Invoice", "model"),  # 3: @dataclass
        ("app/services/billing.py::Invoice.amount", "model"),
        ("app/services/billing.py::compute", "service"),  # 9: the services/ folder
        ("app/utils/text.py::slug", "utility"),  # 9: the utils/ folder
        ("app/store.py::OrderStore", "repository"),  # 6: Store -> repository
        ("app/store.py::OrderStore.get", "repository"),
        ("app/store.py::Plain", "generic"),  # 10: nothing matched
        ("main.py", "entrypoint"),  # 4: an entry-point file
        ("main.py::main", "entrypoint"),  # 4: top-level main()
        ("web/Api.java::Api", "controller"),  # 3: @RestController annotation
        ("web/Api.java::Api.main", "entrypoint"),  # 4: static main
        ("web/Api.java::Api.main#2", "controller"),  # an instance main() is no entry point
        ("web/Api.java::Port", "contract"),  # 5: an interface
        ("web/Jobs.cs::Jobs", "service"),  # 3: a C# [Service] attribute
    ],
)
def test_role(roles, node, role):
    assert roles[node] == role


def test_test_names_outside_test_files(tmp_path):
    (tmp_path / "checks.py").write_text("def test_alpha():\n    pass\n\n\ndef alpha():\n    pass\n")
    api.scan(str(tmp_path))
    got = dict(
        query(
            tmp_path,
            "SELECT qualified_name, role FROM symbols WHERE file = 'checks.py' AND id <> file",
        )
    )
    assert got == {"test_alpha": "test", "alpha": "generic"}
