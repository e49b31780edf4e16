"""Fixtures for the real-browser tests: a private JupyterLab server and headless Chromium.

* `lab_server` (module scope) starts JupyterLab as `make lab` does: the launcher's own
  command line (`panpriv_teach.classroom.workspace.lab_command`), environment, students'
  config folder (lectures/ read-only, no nbgrader) and settings defaults (no news pop-up,
  widget state not saved), with the venv's Python on 127.0.0.1, a free port and a random
  token, and otherwise JupyterLab's defaults (windowed notebook, autosave, trust: as a user
  has them) in fresh settings, workspaces, config, runtime and IPython dirs. Its root is a
  temporary copy of LAB_ROOT/lectures (under lectures/, read-only as in the course), so
  nothing can ever write to the repository. It shuts the kernels down through the REST API,
  then stops the server by the PID of that Python process (terminate, then kill), then kills
  any kernel still alive.
* `browser_context` (module scope) is a persistent Chromium context on a fresh profile, using
  Debian's /usr/bin/chromium (never `playwright install`).
* `lab_page` (module scope) is one JupyterLab tab, loaded once, from which the lectures are
  opened one after another (as a student keeps Lab open).
* Without Chromium or Playwright the tests are skipped, except under CI=true, where they fail.
* `lecture` is parametrized over every lecture notebook that uses ipywidgets.

LAB_ROOT is the repository root; for development only, the environment variable
PANPRIV_BROWSER_ROOT points the tests at another tree (e.g. /tmp/bt with a throwaway
lectures/99_demo.ipynb). Artifacts go to LAB_ROOT/test-artifacts/.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from panpriv_teach.classroom import workspace          # the launcher of `make lab`

REPO_ROOT = Path(__file__).resolve().parents[2]
LAB_ROOT = Path(os.environ.get("PANPRIV_BROWSER_ROOT") or REPO_ROOT).resolve()
LECTURES_DIR = LAB_ROOT / "lectures"
ARTIFACTS_DIR = LAB_ROOT / "test-artifacts"

CHROMIUM_MISSING = "browser tests need Debian's chromium: apt-get install chromium chromium-driver"
PLAYWRIGHT_MISSING = ("browser tests need the playwright Python package: "
                      ".venv/bin/python -m pip install -e '.[test]' (it drives Debian's chromium; "
                      "never run `playwright install`)")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1400, "height": 1000}

SERVER_READY_TIMEOUT_S = 60
SERVER_STOP_TIMEOUT_S = 10

# ---------------------------------------------------------------- which notebooks

# A code cell that mentions any of these uses ipywidgets (`from panpriv_teach import plots,
# widgets` included); a stored widget view counts too.
WIDGET_PATTERNS = [re.compile(p) for p in (
    r"ipywidgets",
    r"panpriv_teach\.widgets",
    r"from\s+panpriv_teach\s+import\s+(\([^)]*|[^\n]*)\bwidgets\b",
    r"\binteract",
)]
WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json"


def _uses_widgets(cell: dict) -> bool:
    source = cell.get("source", "")
    source = "".join(source) if isinstance(source, list) else source
    if any(p.search(source) for p in WIDGET_PATTERNS):
        return True
    return any(WIDGET_VIEW_MIME in (out.get("data") or {}) for out in cell.get("outputs", []))


def widget_lectures(lectures_dir: Path = LECTURES_DIR) -> list[Path]:
    """Lecture notebooks (lectures/*.ipynb) with a code cell that uses ipywidgets."""
    found = []
    for path in sorted(lectures_dir.glob("*.ipynb")):
        try:
            nb = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            found.append(path)  # unreadable: let the test report it rather than hide it
            continue
        if any(_uses_widgets(c) for c in nb.get("cells", []) if c.get("cell_type") == "code"):
            found.append(path)
    return found


def pytest_generate_tests(metafunc):
    if "lecture" not in metafunc.fixturenames:
        return
    lectures = widget_lectures()
    if lectures:
        metafunc.parametrize("lecture", lectures, ids=[p.stem for p in lectures])
    else:
        metafunc.parametrize("lecture", [pytest.param(None, marks=pytest.mark.skip(
            reason=f"no lecture with widgets yet (looked in {LECTURES_DIR})"))], ids=["none"])


# ---------------------------------------------------------------- browser availability

def find_chromium() -> str | None:
    if os.path.isfile("/usr/bin/chromium") and os.access("/usr/bin/chromium", os.X_OK):
        return "/usr/bin/chromium"
    return shutil.which("chromium")


def _missing(reason: str):
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: a missing browser is a failure, not a skip)", pytrace=False)
    pytest.skip(reason)


def require_browser() -> str:
    """Path of Debian's chromium. Skip when it or Playwright is missing; fail under CI=true.

    The test calls this first thing, so under CI the test itself FAILS (not a fixture error).
    """
    executable = find_chromium()
    if executable is None:
        _missing(CHROMIUM_MISSING)
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        _missing(PLAYWRIGHT_MISSING)
    return executable


@pytest.fixture(scope="module")
def chromium_executable() -> str:
    return require_browser()


# ---------------------------------------------------------------- JupyterLab server

def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LabServer:
    root: Path
    workdir: Path
    port: int = 0
    token: str = ""
    proc: subprocess.Popen | None = None
    log_path: Path | None = None
    start_seconds: float = 0.0
    _log_file: object = field(default=None, repr=False)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str, workspace: str | None = None) -> str:
        """URL opening `path` (relative to root) in Lab, optionally in a named workspace."""
        prefix = f"/lab/workspaces/{workspace}" if workspace else "/lab"
        return f"{self.base_url}{prefix}/tree/{path}?token={self.token}"

    # -- REST
    def api(self, method: str, path: str, timeout: float = 5.0):
        req = urllib.request.Request(f"{self.base_url}{path}", method=method,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def kernel_display_name(self, kernel_name: str | None) -> str:
        specs = self.api("GET", "/api/kernelspecs")
        name = kernel_name if kernel_name in specs["kernelspecs"] else specs["default"]
        return specs["kernelspecs"][name]["spec"]["display_name"]

    def log_tail(self, chars: int = 3000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except (OSError, AttributeError):
            return "(no log)"

    # -- life cycle
    def _command(self) -> list[str]:
        """`make lab`'s command line, with this test's port, token and fresh folders."""
        settings, workspaces = self.workdir / "settings", self.workdir / "workspaces"
        return workspace.lab_command(self.root, [
            "--no-browser", "--ip=127.0.0.1", f"--port={self.port}", "--ServerApp.port_retries=0",
            f"--ServerApp.token={self.token}", f"--LabApp.user_settings_dir={settings}",
            f"--LabApp.workspaces_dir={workspaces}", "--LabApp.expose_app_in_browser=True"])

    def _env(self) -> dict:
        """`make lab`'s environment (the course's, with its students' config folder)."""
        workspace.install_lab_defaults()
        env = workspace.course_environment()
        env["JUPYTER_CONFIG_PATH"] = str(workspace.install_student_config())
        env.pop("MPLBACKEND", None)  # Agg would drop the inline figures
        for var, sub in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_RUNTIME_DIR", "runtime"),
                         ("JUPYTER_DATA_DIR", "data"), ("IPYTHONDIR", "ipython")):
            (self.workdir / sub).mkdir(parents=True, exist_ok=True)
            env[var] = str(self.workdir / sub)
        return env

    def start(self, attempts: int = 3) -> None:
        for folder in ("settings", "workspaces"):
            (self.workdir / folder).mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        for attempt in range(1, attempts + 1):
            self.port, self.token = _free_port(), secrets.token_hex(24)
            self.log_path = self.workdir / f"server-{attempt}.log"
            self._log_file = open(self.log_path, "wb")
            self.proc = subprocess.Popen(self._command(), cwd=self.root, env=self._env(),
                                         stdin=subprocess.DEVNULL, stdout=self._log_file,
                                         stderr=subprocess.STDOUT)
            deadline = time.monotonic() + SERVER_READY_TIMEOUT_S
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    break  # died (e.g. the port was taken meanwhile): try another port
                try:
                    self.api("GET", "/api/status", timeout=2)
                    self.start_seconds = time.perf_counter() - t0
                    return
                except (urllib.error.URLError, ConnectionError, OSError, ValueError):
                    time.sleep(0.1)
            else:
                self.stop()
                pytest.fail(f"JupyterLab did not answer /api/status within {SERVER_READY_TIMEOUT_S} s "
                            f"(port {self.port}); server log:\n{self.log_tail()}", pytrace=False)
            log = self.log_tail()
            self.stop()
        pytest.fail(f"JupyterLab exited before it was ready ({attempts} attempts); last log:\n{log}",
                    pytrace=False)

    def shutdown_kernels(self) -> None:
        """Delete every session and kernel through the REST API (best effort)."""
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            for session in self.api("GET", "/api/sessions"):
                self.api("DELETE", f"/api/sessions/{session['id']}", timeout=10)
            for kernel in self.api("GET", "/api/kernels"):
                self.api("DELETE", f"/api/kernels/{kernel['id']}", timeout=10)
        except (urllib.error.URLError, OSError, ValueError):
            pass

    def _descendants(self) -> list:
        try:
            import psutil
            return psutil.Process(self.proc.pid).children(recursive=True)
        except Exception:  # psutil missing or the process is gone
            return []

    def stop(self) -> None:
        if self.proc is None:
            return
        self.shutdown_kernels()
        leftovers = self._descendants()  # kernels the REST API did not reach
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(SERVER_STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(SERVER_STOP_TIMEOUT_S)
        for child in leftovers:  # by PID, only processes this server started
            try:
                child.wait(timeout=3)
            except Exception:
                try:
                    child.kill()
                except Exception:
                    pass
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        self.proc = None


@pytest.fixture(scope="module")
def lab_server(chromium_executable, tmp_path_factory):
    root = tmp_path_factory.mktemp("lab-root")
    shutil.copytree(LECTURES_DIR, root / "lectures", ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    server = LabServer(root=root, workdir=tmp_path_factory.mktemp("jupyterlab"))
    server.start()
    print(f"\nJupyterLab ready on port {server.port} in {server.start_seconds:.1f} s (root {server.root})")
    try:
        yield server
    finally:
        server.stop()


# ---------------------------------------------------------------- Chromium

@pytest.fixture(scope="module")
def browser_context(chromium_executable, tmp_path_factory):
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile), executable_path=chromium_executable, headless=True,
            args=CHROMIUM_ARGS, viewport=VIEWPORT)
        try:
            yield context
        finally:
            context.close()


def _new_page(browser_context):
    """A new tab; `page.console_errors` collects every error the page's console shows and
    every uncaught page error, `page.console_warnings` the console's warnings."""
    page = browser_context.new_page()
    page.console_errors, page.console_warnings = [], []
    page.on("console", lambda m: (page.console_errors if m.type == "error" else page.console_warnings)
            .append(m.text[:400]) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: page.console_errors.append(f"uncaught: {e}"[:400]))
    return page


LAB_READY_TIMEOUT_S = 120   # bounds a hang: JupyterLab loads in about 3 s on two idle cores


class LabPage:
    """One JupyterLab tab showing lectures/ in the file browser, shared by a module's tests:
    JupyterLab loads once (about half of what opening a lecture in a new tab costs), and each
    test opens its lecture from it, as a student with Lab open does. `get()` returns the tab,
    loaded, with its console lists emptied; `discard()` closes it (after a failure, which may
    leave a dialog or a notebook open), so the next `get()` loads a fresh tab."""

    def __init__(self, browser_context, server: LabServer):
        self._context, self._server, self._page = browser_context, server, None

    def get(self):
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        if self._page is None or self._page.is_closed():
            self._page = _new_page(self._context)
            self._page.goto(self._server.url("lectures", workspace="browser-test-lectures"))
            try:
                self._page.wait_for_function("() => window.jupyterapp", timeout=LAB_READY_TIMEOUT_S * 1000)
                self._page.evaluate("async () => { await window.jupyterapp.restored; }")
            except PlaywrightTimeout:
                self.discard()
                pytest.fail(f"JupyterLab did not load within {LAB_READY_TIMEOUT_S} s", pytrace=False)
        self._page.console_errors.clear()
        self._page.console_warnings.clear()
        return self._page

    def discard(self) -> None:
        if self._page is not None and not self._page.is_closed():
            self._page.close()
        self._page = None


@pytest.fixture(scope="module")
def lab_page(browser_context, lab_server):
    holder = LabPage(browser_context, lab_server)
    try:
        yield holder
    finally:
        holder.discard()
