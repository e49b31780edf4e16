"""Where students work, and how `make lab` opens the course.

Students never write in `exercises/` (the generated handout): they work in their own
copies `my_work/NN_topic.ipynb`, made on first use and never overwritten by any command.
`lab` opens JupyterLab on the course with the course's environment first on PATH (so its
terminals run the course's `python` and `pytest`, and no variable of `make` leaks into them),
without the news pop-up, at the welcome lecture, with lectures/ read-only (see
`panpriv_teach.classroom.lab_contents`: opening, running and closing a lecture never changes
it; a run is kept with File › Save As… in my_work/).
"""
from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from panpriv_teach.classroom import main_without_iri_grammar

WORK_DIR = "my_work"
WELCOME = "lectures/00_welcome.ipynb"

# Defaults for JupyterLab's settings, installed in the environment's own settings folder
# (overrides.d): the user's settings still win over them.
# Widget state is not saved with notebooks: with it on, the widget manager marks a notebook
# modified as soon as it opens (before any cell runs). A stored notebook opened again shows
# each interactive figure's stored picture; a panel whose kernel is gone says so.
_LAB_DEFAULTS = {"@jupyterlab/apputils-extension:notification":
                 {"fetchNews": "false", "checkForUpdates": False},
                 "@jupyter-widgets/jupyterlab-manager:plugin": {"saveState": False}}
_LAB_FLAGS = ["--LabApp.news_url=None",
              "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
# A config folder of its own, on JUPYTER_CONFIG_PATH (below the user's ~/.jupyter, above
# the environment's): lectures/ is read-only (lab_contents.CourseContentsManager), and
# nbgrader (an instructor's tool, installed with the test tools) stays out of the students'
# JupyterLab: no Nbgrader menu, Validate button or Create Assignment panel.
CONTENTS_MANAGER = "panpriv_teach.classroom.lab_contents.CourseContentsManager"
_STUDENT_CONFIG = {   # (a .d folder holds extension switches only, not other settings)
    "jupyter_server_config.json": {"ServerApp": {"contents_manager_class": CONTENTS_MANAGER}},
    "jupyter_server_config.d/panpriv-teach.json": {"ServerApp": {"jpserver_extensions": {
        f"nbgrader.server_extensions.{name}": False
        for name in ("formgrader", "validate_assignment", "assignment_list", "course_list")}}},
    "labconfig/page_config.json": {"disabledExtensions": {"@jupyter/nbgrader": True}},
}


def make_workspace(course=".", work_dir=WORK_DIR) -> tuple[list, list]:
    """Copy each `exercises/NN_topic.ipynb` to `work_dir/NN_topic.ipynb` unless that file
    exists; return (paths created, paths already there). An existing file is never
    opened for writing, whatever it holds (the copy is made with exclusive creation)."""
    course = Path(course)
    exercises = sorted((course / "exercises").glob("*.ipynb"))
    if not exercises:
        raise FileNotFoundError(f"no exercise notebooks in {course / 'exercises'}")
    work = course / work_dir
    work.mkdir(exist_ok=True)
    created, kept = [], []
    for source in exercises:
        target = work / source.name
        try:
            with open(target, "xb") as out:
                out.write(source.read_bytes())
        except FileExistsError:
            kept.append(target)
        else:
            created.append(target)
    return created, kept


def modules(course=".") -> list:
    """The course's exercise modules, e.g. ["01_dp_basics", ...], from exercises/."""
    return [p.stem for p in sorted((Path(course) / "exercises").glob("*.ipynb"))]


def install_lab_defaults(settings_dir=None) -> Path:
    """Write the course's JupyterLab defaults (no news, no update check, widget state not
    saved) as an overrides.d file of the environment's app settings folder; return its path."""
    if settings_dir is None:
        from jupyterlab.commands import get_app_dir
        settings_dir = Path(get_app_dir()) / "settings"
    path = Path(settings_dir) / "overrides.d" / "panpriv-teach.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(_LAB_DEFAULTS, indent=2) + "\n"
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return path


def install_student_config() -> Path:
    """Write the students' Jupyter config folder (see _STUDENT_CONFIG) in the environment
    and return it."""
    folder = Path(sys.prefix) / "etc" / "panpriv-teach-lab"
    for name, data in _STUDENT_CONFIG.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(data, indent=2) + "\n"
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    return folder


# What `make` puts in its recipes' environment. `make lab` would pass it on to JupyterLab's
# terminals, where every `make` would then print "make[1]: Entering directory ...".
MAKE_VARIABLES = ("MAKELEVEL", "MAKEFLAGS", "MFLAGS", "MAKEOVERRIDES", "MAKE_TERMOUT",
                  "MAKE_TERMERR")


def course_environment(env=None) -> dict:
    """`env` (default os.environ) with this Python's environment activated: its scripts
    folder first on PATH and VIRTUAL_ENV set, as `source .venv/bin/activate` does; without
    the variables `make` sets for its recipes (MAKE_VARIABLES)."""
    env = {k: v for k, v in (os.environ if env is None else env).items() if k not in MAKE_VARIABLES}
    scripts = str(Path(sys.executable).parent)
    parts = [p for p in env.get("PATH", "").split(os.pathsep) if p and p != scripts]
    env["PATH"] = os.pathsep.join([scripts, *parts])
    if sys.prefix != sys.base_prefix:
        env["VIRTUAL_ENV"] = sys.prefix
    env.pop("PYTHONHOME", None)
    return env


def terminal_command() -> list:
    """The shell JupyterLab's terminals start: bash reading the user's ~/.bashrc, then
    activating the course environment (a login shell would reset PATH from
    /etc/profile). It starts in the folder JupyterLab asks for (the course folder, or the
    file browser's). Without bash (or on Windows, PowerShell) the shell inherits the
    server's PATH."""
    if os.name == "nt" or not shutil.which("bash"):
        return [os.environ.get("SHELL") or ("powershell.exe" if os.name == "nt" else "sh")]
    rc = Path(sys.prefix) / "panpriv-teach-terminal.bashrc"
    activate = Path(sys.prefix) / "bin" / "activate"
    lines = ['[ -f "$HOME/.bashrc" ] && . "$HOME/.bashrc"',
             f'. "{activate}"' if activate.exists() else
             f'export PATH="{Path(sys.executable).parent}:$PATH"']
    text = "\n".join(lines) + "\n"
    if not rc.exists() or rc.read_text(encoding="utf-8") != text:
        rc.write_text(text, encoding="utf-8")
    return ["bash", "--rcfile", str(rc), "-i"]


# `python -m jupyterlab`, without rfc3987_syntax's IRI grammar, which jsonschema (imported by
# the server's event system) compiles when it loads: 1.5 s of CPU at every start. No schema the
# server validates has an IRI format (see classroom/__init__.py); kernels and terminals are
# processes of their own, which this does not touch.
_JUPYTERLAB = main_without_iri_grammar("jupyterlab.labapp")


def lab_command(course: Path, extra=()) -> list:
    """The JupyterLab command line `lab` runs."""
    settings = {"shell_command": terminal_command()}
    root = ["--allow-root"] if os.name != "nt" and os.geteuid() == 0 else []
    return [sys.executable, "-c", _JUPYTERLAB, *root, f"--ServerApp.root_dir={course}",
            f"--LabApp.default_url=/lab/tree/{WELCOME}",
            f"--ServerApp.terminado_settings={json.dumps(settings)}", *_LAB_FLAGS, *extra]


def lab(course=".", extra=()) -> int:
    """Make the student's copies, then run JupyterLab on the course (on POSIX the process
    becomes JupyterLab; on Windows it waits for it and returns its exit code)."""
    course = Path(course).resolve()
    created, _ = make_workspace(course)
    for path in created:
        print(f"created {path.relative_to(course)} (your copy: work there)")
    install_lab_defaults()
    command, env = lab_command(course, extra), course_environment()
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(
        [str(install_student_config()), *filter(None, [env.get("JUPYTER_CONFIG_PATH")])])
    os.chdir(course)
    if os.name == "nt":
        import subprocess
        return subprocess.call(command, env=env)
    os.execve(command[0], command, env)   # JupyterLab takes over: Ctrl+C behaves as usual
