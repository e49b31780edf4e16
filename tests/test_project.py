"""The capstone template (course/project_template.ipynb) runs on a fresh kernel and its worked example supports
its claim: the audit stays below the claimed ε and flags the broken variant, and the errors match the bound and the
predicted standard deviation (the notebook's last cell asserts both)."""
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "course" / "project_template.ipynb"
BRIEFS = ROOT / "course" / "project.md"


@pytest.mark.notebooks
def test_the_template_runs_and_its_worked_example_supports_the_claim():
    nb = nbformat.read(TEMPLATE, as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    text = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)
    assert "stays below the claim and flags the broken variant" in text
    assert "audit below the claim and broken variant flagged: True" in text


def test_the_briefs_name_the_rubric_parts_and_link_the_template():
    text = BRIEFS.read_text()
    assert text.count("\n### ") >= 4 and "project_template.ipynb" in text
    for part in ("privacy argument", "audit", "accuracy experiment"):
        assert f"| {part} |" in text
