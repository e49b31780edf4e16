"""The project's own files agree: pyproject.toml and environment.yml list the same packages,
README starts with the two set-up commands, and CI runs README's test command."""
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")


def _normalise(requirement: str) -> tuple[str, str]:
    name, spec = re.match(r"\s*([A-Za-z0-9_.\-]+)\s*(.*)", requirement).groups()
    return name.lower().replace("_", "-"), spec.replace(" ", "")


def pyproject_requirements() -> set:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    listed = project["dependencies"] + project["optional-dependencies"]["test"]
    return {_normalise(r) for r in listed if ";" not in r} | {("python", project["requires-python"])}


def conda_requirements() -> set:
    lines = (ROOT / "environment.yml").read_text().splitlines()
    start = lines.index("dependencies:") + 1
    entries = [line.strip()[2:] for line in lines[start:]
               if line.startswith("  - ") and not line.strip().startswith("- pip")]
    return {_normalise(entry) for entry in entries if entry}


def test_pyproject_and_environment_list_the_same_packages():
    only_pip, only_conda = pyproject_requirements() - conda_requirements(), conda_requirements() - pyproject_requirements()
    assert not only_pip and not only_conda, (
        f"only in pyproject.toml: {sorted(only_pip)}; only in environment.yml: {sorted(only_conda)}")


def test_environment_installs_the_course_itself():
    assert "- -e ." in (ROOT / "environment.yml").read_text()


def test_readme_starts_with_the_two_commands():
    head = (ROOT / "README.md").read_text().split("\n## ")[0]
    assert "make lab" in head and "make test" in head


def test_ci_runs_the_readme_test_command():
    script = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^make test\b", script, re.M)
