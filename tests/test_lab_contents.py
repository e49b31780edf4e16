"""Under `make lab` the lectures are read-only: JupyterLab's file server (the course's
contents manager) reports lectures/ as not writable and refuses every write there, with a
message that says how to keep a run; everything else stays writable. `make lab` configures
it (its students' config folder) and nothing else does. The browser test
(tests/browser/test_lectures_in_jupyterlab.py) opens, runs and closes every lecture under
`make lab`'s settings and finds the files unchanged."""
from __future__ import annotations

import asyncio
import json

import nbformat
import pytest
from tornado.web import HTTPError

from panpriv_teach.classroom import workspace
from panpriv_teach.classroom.lab_contents import CourseContentsManager


@pytest.fixture
def manager(tmp_path):
    for folder in ("lectures", "my_work", "exercises"):
        (tmp_path / folder).mkdir()
        nbformat.write(nbformat.v4.new_notebook(), tmp_path / folder / "01_x.ipynb")
    (tmp_path / "lectures" / "data").mkdir()
    return CourseContentsManager(root_dir=str(tmp_path))


def run(coroutine):
    return asyncio.run(coroutine)


def test_lectures_are_reported_read_only_and_everything_else_writable(manager):
    assert run(manager.get("lectures/01_x.ipynb"))["writable"] is False
    assert run(manager.get("lectures"))["writable"] is False
    listing = {entry["path"]: entry["writable"] for entry in run(manager.get(""))["content"]}
    assert listing == {"lectures": False, "my_work": True, "exercises": True}
    inside = {entry["name"]: entry["writable"] for entry in run(manager.get("lectures"))["content"]}
    assert inside == {"01_x.ipynb": False, "data": False}
    assert run(manager.get("my_work/01_x.ipynb"))["writable"] is True


def test_every_write_to_the_lectures_is_refused_saying_how_to_keep_a_run(manager, tmp_path):
    lecture = tmp_path / "lectures" / "01_x.ipynb"
    before = lecture.read_bytes()
    model = run(manager.get("lectures/01_x.ipynb"))
    model["content"].cells.append(nbformat.v4.new_code_cell("1 + 1"))
    attempts = {
        "save": lambda: manager.save(model, "lectures/01_x.ipynb"),
        "save a new file": lambda: manager.save(model, "lectures/new.ipynb"),
        "save below": lambda: manager.save(model, "/lectures/data/../01_x.ipynb"),
        "new untitled": lambda: manager.new_untitled("lectures", type="notebook"),
        "delete": lambda: manager.delete("lectures/01_x.ipynb"),
        "rename away": lambda: manager.rename("lectures/01_x.ipynb", "my_work/moved.ipynb"),
        "rename in": lambda: manager.rename("my_work/01_x.ipynb", "lectures/02_y.ipynb"),
        "copy beside": lambda: manager.copy("lectures/01_x.ipynb"),
        "copy in": lambda: manager.copy("my_work/01_x.ipynb", "lectures"),
    }
    for what, attempt in attempts.items():
        with pytest.raises(HTTPError) as refused:
            run(attempt())
        assert refused.value.status_code == 403, what
        assert "File › Save As… and save it in my_work/" in refused.value.log_message, what
    assert lecture.read_bytes() == before
    assert sorted(p.name for p in (tmp_path / "lectures").iterdir()) == ["01_x.ipynb", "data"]
    assert (tmp_path / "my_work" / "01_x.ipynb").exists()


def test_a_run_is_kept_by_saving_it_in_my_work(manager, tmp_path):
    model = run(manager.get("lectures/01_x.ipynb"))
    model["content"].cells.append(nbformat.v4.new_code_cell("1 + 1"))
    saved = run(manager.save(model, "my_work/01_x_run.ipynb"))
    assert saved["writable"] is True
    assert nbformat.read(tmp_path / "my_work" / "01_x_run.ipynb", as_version=4).cells[-1].source == "1 + 1"
    run(manager.copy("lectures/01_x.ipynb", "my_work"))                   # a copy out is fine
    assert (tmp_path / "my_work" / "01_x-Copy1.ipynb").exists()


def test_make_lab_and_only_make_lab_uses_it(tmp_path, monkeypatch):
    monkeypatch.setattr(workspace.sys, "prefix", str(tmp_path))
    folder = workspace.install_student_config()
    config = json.loads((folder / "jupyter_server_config.json").read_text())
    assert config["ServerApp"]["contents_manager_class"] == \
        "panpriv_teach.classroom.lab_contents.CourseContentsManager"
    defaults = json.loads(workspace.install_lab_defaults(tmp_path / "settings").read_text())
    assert defaults["@jupyter-widgets/jupyterlab-manager:plugin"] == {"saveState": False}
