"""Students' work is never destroyed, and the commands work where students type them.

Students work in my_work/NN_topic.ipynb (copies of exercises/, made on first use, never
overwritten). These tests build a miniature course in a temporary folder (the fixture
solution notebook 99_demo, a one-cell welcome lecture, the course's Makefile and a link to
its .venv), put a student's answers in my_work/ (and, as an old README told students, in
exercises/ too), run every command of the course from a fresh shell (a clean environment
without .venv on PATH), and check that the student's bytes are still there.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from panpriv_teach.classroom.notebooks import (EditedNotebooksError, content_hash, dumps, generate,
                                     is_unchanged_since_generated, staleness)
from panpriv_teach.classroom.workspace import make_workspace

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
CHECKS = FIXTURES / "demo_checks.py"
DEMO = "99_demo.ipynb"
ANSWER = 'raise NotImplementedError("Exercise 99.1: write your code here")'


def fresh_env(home: Path) -> dict:
    """A fresh terminal's environment: system PATH only, no virtualenv, a clean HOME."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8",
            "TERM": "xterm"}


def link_venv(root: Path) -> Path:
    """root/.venv: the course's environment seen through links (bin, lib, share, etc) with
    its own pyvenv.cfg and a fresh install stamp, so `make setup` finds nothing to do and
    could never reinstall the shared environment's package from the miniature course."""
    venv, real = root / ".venv", ROOT / ".venv"
    venv.mkdir()
    for name in ("bin", "lib", "include", "share", "etc"):
        if (real / name).exists():
            (venv / name).symlink_to(real / name)
    shutil.copy(real / "pyvenv.cfg", venv)
    os.utime(root / "pyproject.toml", (0, 0))
    (venv / ".installed").touch()
    return venv


def make_course(root: Path) -> Path:
    """A miniature course with the real Makefile and the course's environment."""
    root.mkdir(parents=True, exist_ok=True)
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, root / name)
    link_venv(root)
    for folder in ("solutions", "exercises", "lectures"):
        (root / folder).mkdir()
    shutil.copy(CHECKS, root / "solutions")
    shutil.copy(CHECKS, root / "exercises")
    shutil.copy(FIXTURES / "solutions" / f"{DEMO}.json", root / "solutions" / DEMO)
    welcome = new_notebook(cells=[new_code_cell("print('welcome')")])
    welcome.metadata.kernelspec = {"name": "python3", "display_name": "Python 3",
                                   "language": "python"}
    nbformat.write(welcome, root / "lectures" / "00_welcome.ipynb")
    generate(root / "solutions", root / "exercises")
    return root


def answered(path: Path) -> bytes:
    """The notebook at `path` with exercise 99.1 answered, as a student would save it."""
    nb = nbformat.read(path, as_version=4)
    [cell] = [c for c in nb.cells if ANSWER in c.source]
    cell.source = cell.source.replace(ANSWER, "return sum(xs)")
    return dumps(nb).encode("utf-8")


def sources(path: Path) -> str:
    return "\n".join(cell.source for cell in nbformat.read(path, as_version=4).cells)


def sh(command: str, cwd: Path, home: Path, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=fresh_env(home), text=True,
                          capture_output=True, timeout=timeout)


# ---------------------------------------------------------------- generation never overwrites

def test_generated_notebooks_carry_their_own_content_hash(tmp_path):
    course = make_course(tmp_path / "course")
    target = course / "exercises" / DEMO
    nb = nbformat.read(target, as_version=4)
    assert nb.metadata.panpriv_teach.content_hash == content_hash(nb)
    assert is_unchanged_since_generated(target)
    target.write_bytes(answered(target))
    assert not is_unchanged_since_generated(target)
    target.write_text("{not json", encoding="utf-8")          # unreadable: may hold work
    assert not is_unchanged_since_generated(target)


@pytest.mark.parametrize("change", ["answer", "run", "corrupt", "no hash"])
def test_generate_refuses_a_changed_exercise_notebook_and_writes_nothing(tmp_path, change):
    course = make_course(tmp_path / "course")
    target = course / "exercises" / DEMO
    nb = nbformat.read(target, as_version=4)
    if change == "answer":
        data = answered(target)
    elif change == "run":                                     # outputs stored, no edit
        nb.cells[1].execution_count = 1
        data = dumps(nb).encode()
    elif change == "corrupt":
        data = b'{"cells": [ ... half a notebook'
    else:                                        # answered, never run, from before hashes
        nb = nbformat.reads(answered(target).decode(), as_version=4)
        del nb.metadata.panpriv_teach["content_hash"]
        data = dumps(nb).encode()
    target.write_bytes(data)
    solution = nbformat.read(course / "solutions" / DEMO, as_version=4)
    solution.cells[0].source += "\n\nA changed solution."       # generate WOULD rewrite
    nbformat.write(solution, course / "solutions" / DEMO)
    with pytest.raises(EditedNotebooksError) as info:
        generate(course / "solutions", course / "exercises")
    assert str(target) in str(info.value) and "BACKUP=1" in str(info.value)
    assert target.read_bytes() == data
    assert staleness(course / "solutions", course / "exercises")[str(target)].startswith("edited")


def test_generate_backup_moves_the_changed_notebook_to_my_work_then_regenerates(tmp_path,
                                                                                capsys):
    course = make_course(tmp_path / "course")
    target = course / "exercises" / DEMO
    work = answered(target)
    target.write_bytes(work)
    generate(course / "solutions", course / "exercises", backup=True)
    [moved] = (course / "my_work").glob(f"backup-*/{DEMO}")
    assert moved.read_bytes() == work
    assert f"moved {target} to {moved}" in capsys.readouterr().out
    assert is_unchanged_since_generated(target) and ANSWER in sources(target)
    target.write_bytes(work)                                  # again, in the same second
    generate(course / "solutions", course / "exercises", backup=True)
    assert sorted(p.read_bytes() for p in (course / "my_work").glob(f"backup-*/{DEMO}")) \
        == [work, work]


def test_generate_updates_a_pristine_notebook_and_one_from_before_hashes(tmp_path):
    course = make_course(tmp_path / "course")
    target = course / "exercises" / DEMO
    solution = nbformat.read(course / "solutions" / DEMO, as_version=4)
    old = nbformat.read(target, as_version=4)        # what the generator wrote before hashes,
    del old.metadata.panpriv_teach["content_hash"]   # before the solution gained a sentence
    target.write_bytes(dumps(old).encode())
    solution.cells[0].source += "\n\nA changed solution."
    nbformat.write(solution, course / "solutions" / DEMO)
    assert staleness(course / "solutions", course / "exercises") == {
        str(target): f"out of date with {course / 'solutions' / DEMO}"}
    generate(course / "solutions", course / "exercises")
    assert is_unchanged_since_generated(target) and "A changed solution." in sources(target)
    solution.cells[0].source += " Twice."
    nbformat.write(solution, course / "solutions" / DEMO)
    generate(course / "solutions", course / "exercises")     # unchanged since generated
    assert "A changed solution. Twice." in sources(target)


# ---------------------------------------------------------------- my_work/

def test_workspace_copies_once_and_never_overwrites(tmp_path):
    course = make_course(tmp_path / "course")
    created, kept = make_workspace(course)
    mine = course / "my_work" / DEMO
    assert created == [mine] and kept == []
    assert mine.read_bytes() == (course / "exercises" / DEMO).read_bytes()
    mine.write_bytes(answered(mine))
    before = (mine.read_bytes(), mine.stat().st_mtime_ns)
    assert make_workspace(course) == ([], [mine])
    assert (mine.read_bytes(), mine.stat().st_mtime_ns) == before


def test_my_work_is_git_ignored():
    assert "my_work/" in (ROOT / ".gitignore").read_text().splitlines()


# ---------------------------------------------------------------- every command, fresh shell

@pytest.fixture(scope="module")
def student_course(tmp_path_factory):
    """A course where a student has answers in my_work/ and (following an old README) in
    exercises/ too; returns (course, home, {path: bytes of the student's work})."""
    base = tmp_path_factory.mktemp("student")
    course, home = make_course(base / "course"), base / "home"
    home.mkdir()
    make_workspace(course)
    shutil.copy(CHECKS, course / "my_work")
    mine, in_place = course / "my_work" / DEMO, course / "exercises" / DEMO
    mine.write_bytes(answered(mine))
    in_place.write_bytes(answered(in_place))
    return course, home, {mine: mine.read_bytes(), in_place: in_place.read_bytes()}


def unchanged(work: dict) -> bool:
    return all(path.read_bytes() == data for path, data in work.items())


@pytest.mark.parametrize("command, code", [
    ("make workspace", 0),
    (".venv/bin/python -m panpriv_teach workspace", 0),
    ("make exercises", 2),                                   # make's code: generate refused
    ("make notebooks", 2),                                   # refused before executing
    (".venv/bin/python -m panpriv_teach generate", 1),
    (".venv/bin/python -m panpriv_teach stale", 1),
    (".venv/bin/python -m panpriv_teach release ../student-copy", 0),
    (".venv/bin/python -m panpriv_teach nbgrader ../nbgrader-course", 0),
    ("make release OUT=../student-copy", 0),                 # an earlier release: updated
    ("make nbgrader OUT=../nbgrader-course", 0),
])
def test_no_command_touches_the_students_notebooks(student_course, command, code):
    course, home, work = student_course
    result = sh(command, course, home)
    assert result.returncode == code, result.stdout + result.stderr
    assert unchanged(work)
    if "exercises" in command or "notebooks" in command or "generate" in command:
        assert f"exercises/{DEMO}" in result.stderr and "BACKUP=1" in result.stderr
        assert "executed in" not in result.stdout               # nothing was run first


def test_checking_and_grading_never_write_the_students_notebooks(student_course, tmp_path):
    pytest.importorskip("panpriv_teach.classroom.grading")
    course, home, work = student_course
    submissions = tmp_path / "submissions" / "ada"
    submissions.mkdir(parents=True)
    shutil.copy(course / "my_work" / DEMO, submissions / DEMO)
    work = {**work, submissions / DEMO: (submissions / DEMO).read_bytes()}
    for command in (f"make check NB=my_work/{DEMO}", "make check",
                    f".venv/bin/python -m panpriv_teach check my_work/{DEMO}",
                    f"make grade SUBMISSIONS={tmp_path / 'submissions'} OUT={tmp_path / 'g'}"):
        result = sh(command, course, home)
        assert "Traceback" not in result.stderr, (command, result.stderr)
        assert unchanged(work), command


def test_make_exercises_backup_keeps_the_in_place_answers(tmp_path):
    course, home = make_course(tmp_path / "course"), tmp_path / "home"
    home.mkdir()
    target = course / "exercises" / DEMO
    work = answered(target)
    target.write_bytes(work)
    result = sh("make exercises BACKUP=1", course, home)
    assert result.returncode == 0, result.stdout + result.stderr
    [moved] = (course / "my_work").glob(f"backup-*/{DEMO}")
    assert moved.read_bytes() == work and "to my_work/backup-" in result.stdout
    assert is_unchanged_since_generated(target)


def test_make_test_collects_nothing_in_my_work():
    """`make test` runs pytest on tests/ only (and testpaths is tests/; the lectures and
    solutions are run by tests/test_notebook_determinism.py), so a student's my_work/
    notebooks are never collected, run or written."""
    dry = subprocess.run(["make", "-n", "test"], cwd=ROOT, capture_output=True, text=True,
                         env=fresh_env(Path.home()))
    [pytest_line] = [line for line in dry.stdout.splitlines() if "pytest" in line]
    assert pytest_line.endswith(" tests") and "my_work" not in pytest_line
    assert 'testpaths = ["tests"]' in (ROOT / "pyproject.toml").read_text()


# ---------------------------------------------------------------- make lab and its terminal

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str):
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.geturl(), response.read().decode()


def terminal_output(port: int, token: str, lines: list, until: str, timeout=60) -> str:
    """Open a JupyterLab terminal through its REST and websocket API, type `lines` one at a
    time, each when the shell shows its prompt again (as a user does: typed ahead, the
    terminal's echo of the next line can land inside the previous command's output), and
    return what it printed up to the line starting with `until`, without escape codes."""
    from tornado.httpclient import HTTPRequest
    from tornado.ioloop import IOLoop
    from tornado.websocket import websocket_connect

    request = urllib.request.Request(f"http://127.0.0.1:{port}/api/terminals?token={token}",
                                     method="POST", data=b"")
    with urllib.request.urlopen(request, timeout=10) as response:
        name = json.loads(response.read())["name"]

    def clean(text: str) -> str:
        return re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", text.replace("\r", ""))

    def prompt_shown(text: str) -> bool:
        return re.search(r"[#$] $", text) is not None

    async def talk():
        ws = await websocket_connect(HTTPRequest(
            f"ws://127.0.0.1:{port}/terminals/websocket/{name}?token={token}"))
        raw = ""

        async def read_until(done):
            nonlocal raw
            while not done(clean(raw)):
                message = await ws.read_message()
                if message is None:
                    return
                kind, *payload = json.loads(message)
                if kind == "stdout":
                    raw += payload[0]

        await read_until(prompt_shown)
        for line in lines:
            typed = len(clean(raw))
            ws.write_message(json.dumps(["stdin", line + "\r"]))
            await read_until(lambda text: "\n" in text[typed:] and prompt_shown(text))
        await read_until(lambda text: re.search(rf"^{until}", text, re.MULTILINE))
        ws.close()
        return clean(raw)

    return IOLoop.current().run_sync(talk, timeout=timeout)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """`make lab` started from a fresh shell in a miniature course, with a user whose own
    JupyterLab settings choose the dark theme and whose ~/.bashrc resets PATH."""
    base = tmp_path_factory.mktemp("lab")
    course, home = make_course(base / "course"), base / "home"
    shutil.copy(course / "exercises" / DEMO, course / "exercises" / "98_other.ipynb")
    (course / "my_work").mkdir()
    (course / "my_work" / DEMO).write_bytes(answered(course / "exercises" / DEMO))
    shutil.copy(CHECKS, course / "my_work")
    settings = home / ".jupyter" / "lab" / "user-settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "themes.jupyterlab-settings").write_text('{"theme": "JupyterLab Dark"}')
    (home / ".bashrc").write_text("export PATH=/usr/bin:/bin\n")
    port, token = free_port(), "panpriv-test-token"
    process = subprocess.Popen(
        ["make", "lab", f"LAB_ARGS=--no-browser --port={port} --ServerApp.token={token} "
                        "--ServerApp.ip=127.0.0.1"],
        cwd=course, env=fresh_env(home), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, start_new_session=True)
    deadline = time.monotonic() + 90
    while True:
        try:
            get(f"http://127.0.0.1:{port}/api/status?token={token}")
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                os.killpg(process.pid, signal.SIGTERM)
                pytest.fail("make lab did not start: " + process.stdout.read())
            time.sleep(0.5)
    yield course, port, token
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)


def test_make_lab_creates_missing_my_work_copies_and_keeps_the_students(lab):
    course, port, token = lab
    assert (course / "my_work" / "98_other.ipynb").read_bytes() == \
        (course / "exercises" / "98_other.ipynb").read_bytes()
    assert (course / "my_work" / DEMO).read_bytes() == answered(course / "exercises" / DEMO)


def test_make_lab_opens_at_the_welcome_lecture(lab):
    course, port, token = lab
    status, url, _ = get(f"http://127.0.0.1:{port}/?token={token}")
    assert status == 200 and url.split("?")[0].endswith("/lab/tree/lectures/00_welcome.ipynb")


def test_make_lab_has_no_news_popup_and_keeps_the_users_settings(lab):
    """The news question ("Would you like to get notified about official Jupyter news?")
    appears while fetchNews is "none"; the course makes "false" the default, below the
    user's own settings, which still apply (here: the dark theme)."""
    course, port, token = lab
    base = f"http://127.0.0.1:{port}/lab/api/settings/@jupyterlab/apputils-extension"
    _, _, text = get(f"{base}:notification?token={token}")
    notification = json.loads(text)
    defaults = {k: v.get("default") for k, v in notification["schema"]["properties"].items()}
    assert defaults["fetchNews"] == "false" and defaults["checkForUpdates"] is False
    assert notification["settings"] == {}              # the user chose nothing: defaults hold
    _, _, text = get(f"{base}:themes?token={token}")
    assert json.loads(text)["settings"]["theme"] == "JupyterLab Dark"
    _, _, news = get(f"http://127.0.0.1:{port}/lab/api/news?token={token}")
    assert json.loads(news)["news"] == []


def test_commands_work_in_jupyterlabs_terminal(lab):
    """The commands README gives, typed in JupyterLab's terminal (File > New > Terminal),
    run the course's Python, even though the user's ~/.bashrc resets PATH."""
    course, port, token = lab
    text = terminal_output(port, token, [
        "which python pytest",
        "python -c 'import nbformat, panpriv_teach; print(\"IMPORTS\", \"OK\")'",
        "pytest --help | grep -c -- --nbval-lax",
        "python -m panpriv_teach workspace; echo WORKSPACE-EXIT=$?",
        f"pytest -p no:cacheprovider -q --nbval-lax my_work/{DEMO} | tail -1",
        "echo VENV=$VIRTUAL_ENV; pwd; echo DONE-$((40 + 2))",
    ], until="DONE-42")
    venv = ROOT / ".venv"           # what the linked bin/activate activates
    assert f"{venv}/bin/python\n{venv}/bin/pytest\n" in text, text
    assert "IMPORTS OK" in text and "\n1\n" in text, text
    assert "kept 2 notebook(s) already in my_work/" in text and "WORKSPACE-EXIT=0" in text, text
    # 99.1 answered, 99.2 and 99.3 not: the notebook's summary cell fails it
    assert re.search(r"^1 failed, \d+ passed", text, re.MULTILINE), text
    assert f"VENV={venv}\n{course}\n" in text, text


CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def toasts_after_opening(url: str, profile: Path) -> tuple[str, list, list]:
    """Open `url` in headless Chromium, wait for the notebook's kernel to be idle and the
    news question's usual delay, and return (the page title, the notification toasts, the
    menu bar's menus)."""
    chromium = shutil.which("chromium")
    if not chromium:
        if os.environ.get("CI") == "true":
            pytest.fail("CI needs Debian's chromium")
        pytest.skip("needs Debian's chromium: apt-get install chromium chromium-driver")
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        try:
            page = context.new_page()
            page.goto(url)
            page.wait_for_selector(".jp-Notebook", timeout=60_000)
            page.get_by_text(re.compile(r"\| Idle")).first.wait_for(timeout=60_000)
            page.wait_for_timeout(5_000)
            return (page.title(), page.locator(".Toastify__toast").all_inner_texts(),
                    page.locator(".lm-MenuBar-itemLabel").all_inner_texts())
        finally:
            context.close()


@pytest.mark.browser
def test_make_lab_shows_the_welcome_lecture_and_no_news_popup_or_nbgrader(lab, tmp_path):
    course, port, token = lab
    title, toasts, menus = toasts_after_opening(f"http://127.0.0.1:{port}/?token={token}",
                                                tmp_path / "profile")
    assert "00_welcome" in title and toasts == []
    # nbgrader (installed with the test tools) is an instructor's tool: not in this Lab
    assert menus[:5] == ["File", "Edit", "View", "Run", "Kernel"] and "Nbgrader" not in menus


# ---------------------------------------------------------------- commands in the docs

SHELL_BLOCK = re.compile(r"```(?:bash|sh|console)\n(.*?)```", re.DOTALL)
FRESH_TERMINAL_STARTS = ("make ", ".venv/bin/", "conda ", "docker ", "cd ", "source ", "git ")


@pytest.mark.parametrize("doc", ["README.md", "course/instructor_guide.md"])
def test_every_shell_command_in_the_docs_runs_from_a_fresh_terminal(doc):
    """Commands to type in a shell start with make, .venv/bin/... (or conda, docker, ...):
    a bare `python -m panpriv_teach` or `pytest` fails in a fresh terminal, where .venv is
    not on PATH. (The make targets and .venv/bin commands themselves are run by the tests
    above and in test_pipeline.py, test_release.py, test_nbgrader.py.)"""
    text = (ROOT / doc).read_text(encoding="utf-8")
    lines, continued = [], False
    for block in SHELL_BLOCK.findall(text):
        for line in block.splitlines():
            command = line.split("#", 1)[0].strip()
            if command and not continued:
                lines.append(command)
            continued = command.endswith("\\")
    assert lines, f"no shell commands in {doc}"
    bare = [line for line in lines if not line.startswith(FRESH_TERMINAL_STARTS)]
    assert bare == [], f"{doc}: commands that fail in a fresh terminal: {bare}"
