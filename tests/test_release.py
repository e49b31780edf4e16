"""`python -m panpriv_teach release OUT`: a student copy of the course with no solutions
anywhere, that works from a fresh shell, and never overwrites a student's work."""
import json
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import nbformat
import pytest

from panpriv_teach.classroom.notebooks import BEGIN, END, is_unchanged_since_generated, make_exercise_notebook
from panpriv_teach.classroom.release import MANIFEST, ReleaseError, leaked_solutions, release

ROOT = Path(__file__).resolve().parents[1]
FRESH = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return release(ROOT, tmp_path_factory.mktemp("release") / "student-copy")


def files(folder: Path) -> list:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def solution_blocks() -> list:
    """(exercise, code) of every solution block, read here independently of release.py."""
    blocks = []
    for path in sorted((ROOT / "solutions").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            for body in re.findall(rf"{re.escape(BEGIN)}\n(.*?)\n[ \t]*{re.escape(END)}",
                                   cell.source, re.DOTALL):
                blocks.append((path.name, textwrap.dedent(body)))
    return blocks


def readable_text(path: Path) -> str:
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".ipynb":
        text += "\n".join(c.source for c in nbformat.read(path, as_version=4).cells)
    return text


def test_the_release_holds_lectures_exercises_library_and_a_student_readme(out):
    names = files(out)
    assert [n for n in names if n.startswith("lectures/")] == [
        f"lectures/{p.name}" for p in sorted((ROOT / "lectures").glob("*.ipynb"))]
    assert [n for n in names if n.startswith("exercises/")] == [
        f"exercises/{p.name}" for p in sorted((ROOT / "solutions").glob("*.ipynb"))]
    assert "panpriv_teach/__init__.py" in names and "panpriv_teach/exercises/harness.py" in names
    assert {"README.md", "Makefile", "pyproject.toml", MANIFEST} <= set(names)
    assert not any(n.startswith(("solutions/", "tests/")) or "__pycache__" in n for n in names)
    assert "course/instructor_guide.md" not in names
    readme = (out / "README.md").read_text()
    assert "my_work/" in readme and "make check" in readme and "solution" not in readme.lower()
    assert json.loads((out / MANIFEST).read_text())["files"] == [n for n in names if n != MANIFEST]


def test_released_exercises_are_generated_afresh_from_the_solutions(out):
    for solution in sorted((ROOT / "solutions").glob("*.ipynb")):
        released = out / "exercises" / solution.name
        assert is_unchanged_since_generated(released)
        expected = make_exercise_notebook(nbformat.read(solution, as_version=4))
        assert [c.source for c in nbformat.read(released, as_version=4).cells] == \
            [c.source for c in expected.cells]


def test_no_solution_code_anywhere_in_the_release(out):
    """Every solution block (whitespace-normalised) is absent from every file; the markers
    too. Three consecutive lines of a block are absent from the checker modules (a
    reference implementation equal to the answer would show here)."""
    blocks = solution_blocks()
    assert len(blocks) >= 40
    squeeze = lambda text: re.sub(r"\s+", " ", text).strip()  # noqa: E731
    texts = {name: squeeze(readable_text(out / name)) for name in files(out)
             if not name.endswith((".png", ".woff", ".woff2", ".ttf", ".ico"))}
    for notebook, block in blocks:
        for name, text in texts.items():
            assert squeeze(block) not in text, (notebook, name)
    assert not any(BEGIN in t or END in t for n, t in texts.items() if n.startswith(
        ("exercises/", "lectures/")))
    checkers = {name: texts[name] for name in texts if name.startswith("panpriv_teach/exercises/")}
    for notebook, block in blocks:
        lines = [line.strip() for line in block.splitlines() if line.strip()
                 and not line.strip().startswith("#")]
        for i in range(len(lines) - 2):
            window = squeeze(" ".join(lines[i:i + 3]))
            assert not any(window in text for text in checkers.values()), (notebook, window)


def test_leaked_solution_code_stops_the_release(tmp_path):
    course = tmp_path / "course"
    for folder in ("lectures", "solutions", "panpriv_teach", "course"):
        shutil.copytree(ROOT / folder, course / folder,
                        ignore=shutil.ignore_patterns("__pycache__", "_build"))
    notebook, block = solution_blocks()[3]
    (course / "panpriv_teach" / "exercises" / "reference.py").write_text(
        "def reference():\n" + textwrap.indent(block, "    ") + "\n")
    with pytest.raises(ReleaseError) as info:
        release(course, tmp_path / "out")
    assert "panpriv_teach/exercises/reference.py" in str(info.value)
    assert notebook in str(info.value) and not (tmp_path / "out").exists()
    assert leaked_solutions(course / "panpriv_teach", course / "solutions")


def test_release_refuses_a_folder_that_is_not_an_earlier_release(tmp_path):
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "thesis.tex").write_text("mine")
    result = subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "-m", "panpriv_teach",
                             "release", str(tmp_path / "taken")], cwd=ROOT, env=FRESH,
                            capture_output=True, text=True)
    assert result.returncode == 2 and "not empty" in result.stderr
    assert files(tmp_path / "taken") == ["thesis.tex"]
    with pytest.raises(ReleaseError, match="inside the course folder"):
        release(ROOT, ROOT / "build" / "release")
    (tmp_path / "forged").mkdir()
    (tmp_path / "forged" / MANIFEST).write_text(json.dumps({"files": ["../taken/thesis.tex"]}))
    with pytest.raises(ReleaseError, match="outside"):
        release(ROOT, tmp_path / "forged")
    assert files(tmp_path / "taken") == ["thesis.tex"]


def test_releasing_again_updates_only_the_releases_own_files(tmp_path):
    out = release(ROOT, tmp_path / "copy")
    mine = out / "my_work" / "01_dp_basics.ipynb"
    mine.parent.mkdir()
    mine.write_text("a student's answers")
    (out / "lectures" / "00_welcome.ipynb").write_text("damaged")
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["files"].append("lectures/99_withdrawn.ipynb")
    (out / "lectures" / "99_withdrawn.ipynb").write_text("{}")
    (out / MANIFEST).write_text(json.dumps(manifest))
    release(ROOT, out)
    assert mine.read_text() == "a student's answers"
    assert (out / "lectures" / "00_welcome.ipynb").read_bytes() == \
        (ROOT / "lectures" / "00_welcome.ipynb").read_bytes()
    assert not (out / "lectures" / "99_withdrawn.ipynb").exists()


def test_the_release_works_from_a_fresh_shell(out, tmp_path):
    """`make workspace` and `make help` in the student copy (with the course's
    environment linked in, as `make lab` would have installed it), running the release's
    own library."""
    from test_workspace import link_venv
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    link_venv(copy)
    env = {**FRESH, "HOME": str(tmp_path)}
    help_text = subprocess.run(["make", "help"], cwd=copy, env=env, capture_output=True,
                               text=True).stdout
    assert {"lab", "check", "workspace"} <= {line.split()[0] for line in help_text.splitlines()}
    result = subprocess.run(["make", "workspace"], cwd=copy, env=env, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert files(copy / "my_work") == files(copy / "exercises")
    where = subprocess.run([".venv/bin/python", "-c", "import panpriv_teach; "
                            "print(panpriv_teach.__file__)"], cwd=copy, env=env,
                           capture_output=True, text=True).stdout.strip()
    assert where == str(copy / "panpriv_teach" / "__init__.py")
