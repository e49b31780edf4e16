"""The offline course site (`make site`) and slides (`make slides`).

Builds the whole-course site (Jupyter Book 1.x, stored outputs, nothing executed) and one
reveal.js deck into a temporary folder with course/build.py, then checks that

* the build succeeds with -W -n (no warning) and every notebook and course page has a page;
* no page or stylesheet loads a script, style, font or image from the network (parsed HTML);
* MathJax and the widget renderer are vendored, referenced and present;
* in headless Chromium, over file://, MathJax renders, the stored widgets and their figure
  render, and no request leaves file:// or localhost (screenshot in test-artifacts/).

Without jupyter-book or nbconvert the tests are skipped (and without Chromium/Playwright the
browser checks), except under CI=true, where a missing tool is a failure.
"""
from __future__ import annotations

import html.parser
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "course" / "build.py"
ARTIFACTS = ROOT / "test-artifacts"
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "[::1]"}
BUILD_TIMEOUT_S = 600

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json"


def _missing(reason: str):
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: a missing tool is a failure, not a skip)", pytrace=False)
    pytest.skip(reason)


def require_build_tools() -> None:
    for module, package in (("jupyter_book", "jupyter-book<2"), ("nbconvert", "nbconvert")):
        if importlib.util.find_spec(module) is None:
            _missing(f"the site build needs {package}: .venv/bin/python -m pip install -e '.[test]'")


def require_browser() -> str:
    exe = "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else shutil.which("chromium")
    if exe is None:
        _missing("the offline rendering checks need Debian's chromium: apt-get install chromium")
    if importlib.util.find_spec("playwright") is None:
        _missing("the offline rendering checks need the playwright Python package (test extra)")
    return exe


def notebooks(folder: str) -> list[Path]:
    return sorted((ROOT / folder).glob("*.ipynb"))


def widget_lecture() -> Path:
    """The lecture for the deck and the screenshot: 01 if it has stored widgets, else the first that has."""
    with_widgets = [nb for nb in notebooks("lectures")
                    if WIDGET_VIEW_MIME in nb.read_text(encoding="utf-8")]
    if not with_widgets:
        pytest.skip("no lecture stores a widget view yet")
    return next((nb for nb in with_widgets if nb.name.startswith("01")), with_widgets[0])


def _run_build(*args: str) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, str(BUILD), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=BUILD_TIMEOUT_S)
    seconds = time.perf_counter() - t0
    assert proc.returncode == 0, (
        f"course/build.py {args[0]} failed (exit {proc.returncode}) after {seconds:.0f} s:\n"
        f"{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}")
    return seconds


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    require_build_tools()
    tmp = tmp_path_factory.mktemp("site")
    seconds = _run_build("site", "--out", str(tmp / "html"), "--work", str(tmp / "work"))
    print(f"\nsite built in {seconds:.1f} s")
    return tmp / "html"


@pytest.fixture(scope="module")
def deck(tmp_path_factory) -> Path:
    require_build_tools()
    lecture = widget_lecture()
    out = tmp_path_factory.mktemp("slides")
    seconds = _run_build("slides", "--out", str(out), str(lecture))
    print(f"\ndeck of {lecture.name} built in {seconds:.1f} s")
    return out / f"{lecture.stem}.slides.html"


# ---------------------------------------------------------------- static HTML checks

class _Resources(html.parser.HTMLParser):
    """Every URL a page makes the browser fetch by itself, and the text of inline scripts."""

    FETCHED = {("script", "src"), ("link", "href"), ("img", "src"), ("iframe", "src"),
               ("source", "src"), ("video", "src"), ("audio", "src"), ("embed", "src"),
               ("object", "data"), ("input", "src")}
    NOT_FETCHED_LINKS = {"canonical", "alternate", "author", "license", "help", "search",
                         "index", "next", "prev", "top", "up", "contents", "start"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.urls: list[tuple[str, str]] = []
        self.inline_scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "link" and set((attrs.get("rel") or "").lower().split()) <= self.NOT_FETCHED_LINKS \
                and attrs.get("rel"):
            return
        for t, attr in self.FETCHED:
            if tag == t and attrs.get(attr):
                self.urls.append((tag, attrs[attr]))
        if tag == "script":
            self._in_script = not attrs.get("src") and "json" not in (attrs.get("type") or "")
            self.inline_scripts.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.inline_scripts[-1] += data


def parse(page: Path) -> _Resources:
    parser = _Resources()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def is_remote(url: str) -> bool:
    parts = urlsplit(url)
    if url.startswith("//"):
        return (parts.hostname or "") not in LOCAL_HOSTS
    return parts.scheme in ("http", "https") and (parts.hostname or "") not in LOCAL_HOSTS


# a URL that inline code hands to the browser: an import, a src/href/url assignment, require([...])
INLINE_REMOTE = re.compile(
    r"""(import\s[^;]*?|\b(?:src|href|url|Src|Url)\w*\s*[=:]\s*|require\(\s*\[[^\]]*?)["'](?:https?:)?//""")
CSS_REMOTE = re.compile(r"""(url\(\s*["']?|@import\s+["'])(https?:)?//""")


def remote_resources(page: Path) -> list[str]:
    parsed = parse(page)
    found = [f"<{tag}> {url}" for tag, url in parsed.urls if is_remote(url)]
    found += [f"inline script: ...{m.group(0)}..." for text in parsed.inline_scripts
              for m in INLINE_REMOTE.finditer(text)]
    return found


def missing_local_resources(page: Path) -> list[str]:
    missing = []
    for tag, url in parse(page).urls:
        parts = urlsplit(url)
        if parts.scheme or url.startswith("//") or not parts.path:
            continue  # remote (reported elsewhere), data: URIs, anchors
        target = (page.parent / unquote(parts.path)).resolve()
        if not target.exists():
            missing.append(f"<{tag}> {url}")
    return missing


def site_pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.parts)


def test_the_site_has_a_page_for_every_notebook_and_course_page(site):
    expected = ["intro.html", "course/syllabus.html"]
    for folder in ("lectures", "exercises", "solutions"):
        expected += [f"{folder}/{nb.stem}.html" for nb in notebooks(folder)]
    missing = [rel for rel in expected if not (site / rel).is_file()]
    assert not missing, f"no page for {missing} in {site}"
    assert notebooks("lectures"), "no lecture notebook found"
    # and the table of contents (generated from the folders) links every notebook
    intro = (site / "intro.html").read_text(encoding="utf-8")
    unlinked = [rel for rel in expected[1:] if f'href="{rel}"' not in intro]
    assert not unlinked, f"the site's navigation does not link {unlinked}"


def test_lecture_pages_show_the_stored_outputs_and_widget_state(site):
    for nb in notebooks("lectures"):
        text = (site / "lectures" / f"{nb.stem}.html").read_text(encoding="utf-8")
        stored = json.loads(nb.read_text(encoding="utf-8"))
        has_images = any("image/png" in (o.get("data") or {})
                         for c in stored["cells"] for o in c.get("outputs", []))
        if has_images:
            assert "<img" in text, f"{nb.name}: its stored figures are not on its page"
        if stored.get("metadata", {}).get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state"):
            assert 'type="application/vnd.jupyter.widget-state+json"' in text, \
                f"{nb.name}: the stored widget state is not on its page (widgets would not render)"


def test_no_page_loads_anything_from_the_network(site):
    offenders = {p.relative_to(site).as_posix(): found for p in site_pages(site)
                 if (found := remote_resources(p))}
    assert not offenders, f"pages that fetch from the network: {offenders}"
    css = {p.relative_to(site).as_posix(): sorted({m.group(0) for m in CSS_REMOTE.finditer(p.read_text(errors='replace'))})
           for p in site.rglob("*.css")}
    css = {k: v for k, v in css.items() if v}
    assert not css, f"stylesheets that import from the network: {css}"


def test_every_local_script_and_style_of_the_pages_exists(site):
    broken = {p.relative_to(site).as_posix(): m for p in site_pages(site) if (m := missing_local_resources(p))}
    assert not broken, f"pages referencing files that are not in the site: {broken}"


def test_math_and_widget_renderer_are_vendored(site):
    mathjax = site / "_static" / "mathjax3" / "es5" / "tex-chtml-full.js"
    renderer = site / "_static" / "html-manager" / "dist" / "embed.js"
    fonts = list((site / "_static" / "mathjax3" / "es5" / "output" / "chtml" / "fonts" / "woff-v2").glob("*.woff"))
    assert mathjax.is_file() and renderer.is_file() and fonts, "vendored MathJax 3 / html-manager missing"
    assert (site / "_static" / "widgets-mathjax3.js").is_file()
    lecture = site / "lectures" / f"{widget_lecture().stem}.html"
    scripts = [url for tag, url in parse(lecture).urls if tag == "script"]
    assert any(u.split("?")[0].endswith("_static/mathjax3/es5/tex-chtml-full.js") for u in scripts), scripts
    assert any(u.split("?")[0].endswith("_static/html-manager/dist/embed.js") for u in scripts), scripts


def test_the_deck_is_offline(deck):
    assert deck.is_file()
    assert not remote_resources(deck), remote_resources(deck)
    assert not missing_local_resources(deck), missing_local_resources(deck)
    text = deck.read_text(encoding="utf-8")
    assert "mermaid" not in text  # the CDN import nbconvert always emits is left out
    for asset in ("vendor/reveal.js/dist/reveal.js", "vendor/reveal.js/plugin/notes/notes.js",
                  "vendor/mathjax2/MathJax.js", "vendor/html-manager/dist/embed.js"):
        assert asset in text, f"the deck does not load {asset}"
        assert (deck.parent / asset).is_file(), f"{asset} was not copied next to the deck"


# ---------------------------------------------------------------- in a real browser

def _open_offline(urls: list[str], exe: str, act) -> list[tuple]:
    """Open each URL in one headless Chromium; abort and record every request to a remote host.

    Returns, per URL, (act(page, url), remote requests, page errors)."""
    from playwright.sync_api import sync_playwright

    remote: list[str] = []

    def guard(route):
        if is_remote(route.request.url):
            remote.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    results = []
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=exe, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 1000})
        try:
            context.route("**/*", guard)
            context.on("request", lambda r: remote.append(r.url) if is_remote(r.url) else None)
            for url in urls:
                remote.clear()
                errors: list[str] = []
                page = context.new_page()
                page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
                try:
                    page.goto(url)
                    page.wait_for_load_state("load")
                    results.append((act(page, url), sorted(set(remote)), errors))
                finally:
                    page.close()
        finally:
            context.close()
    return results


def test_a_deck_renders_math_and_widgets_from_file_urls(deck):
    exe = require_browser()

    def act(page, url):
        page.wait_for_selector(".reveal .slides section", state="attached", timeout=30_000)
        page.wait_for_selector(".widget-slider", state="attached", timeout=30_000)
        page.wait_for_function("document.querySelectorAll('.MathJax_CHTML, .MathJax_Display').length > 0",
                               timeout=30_000)
        return page.evaluate("""() => ({
            reveal: document.querySelector('.reveal').classList.contains('ready'),
            math: document.querySelectorAll('.MathJax_CHTML').length,
            math_errors: document.querySelectorAll('.MathJax_Error, merror').length,
            widget_figures: document.querySelectorAll('.widget-output img, img.widget-image').length})""")

    [(info, remote, errors)] = _open_offline([deck.as_uri()], exe, act)
    assert not remote, f"the deck requested remote URLs: {remote}"
    assert info["reveal"], "reveal.js did not start"
    assert info["math"] > 0 and not info["math_errors"], info
    assert info["widget_figures"] > 0, f"no stored widget figure rendered in the deck: {info}"
    assert not errors, f"page errors in the deck: {errors}"


def test_every_site_lecture_renders_offline_with_its_widgets(site):
    """Every lecture page over file://: math, stored widgets and their figures, no network, no
    page error; a screenshot of lecture 01's first widget goes to test-artifacts/."""
    exe = require_browser()
    lectures = notebooks("lectures")
    pages = {(site / "lectures" / f"{nb.stem}.html").as_uri(): nb for nb in lectures}
    shot_lecture = widget_lecture()
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"site_lecture{shot_lecture.stem[:2]}.png"

    def act(page, url):
        nb = pages[url]
        has_widgets = WIDGET_VIEW_MIME in nb.read_text(encoding="utf-8")
        if has_widgets:
            page.wait_for_selector(".widget-output img, img.widget-image, .jupyter-widgets-view img", timeout=30_000)
        if page.evaluate("document.querySelectorAll('.math').length > 0"):
            page.wait_for_function("document.querySelectorAll('mjx-container').length > 0", timeout=30_000)
        info = page.evaluate("""() => ({
            math_source: document.querySelectorAll('.math').length,
            math: document.querySelectorAll('mjx-container').length,
            math_errors: document.querySelectorAll('mjx-merror').length,
            widgets: document.querySelectorAll('.widget-slider, .widget-dropdown, .widget-toggle-buttons, .widget-checkbox').length,
            widget_figures: [...document.querySelectorAll('.widget-output img, img.widget-image')].filter(i => i.naturalWidth > 0).length,
            navigation: document.querySelectorAll('.bd-sidebar-primary a.reference').length})""")
        info["has_widgets"] = has_widgets
        if nb == shot_lecture:  # the first widget (controls + stored figure) in view
            page.evaluate("""() => { const w = document.querySelector('.widget-output img, img.widget-image')
                .closest('.cell_output, .output') || document.querySelector('.widget-output');
                window.scrollTo(0, w.getBoundingClientRect().top + window.scrollY - 200); }""")
            page.wait_for_timeout(300)
            page.screenshot(path=str(shot))
        return info

    problems = {}
    for (info, remote, errors), nb in zip(_open_offline(list(pages), exe, act), lectures):
        wrong = []
        if remote:
            wrong.append(f"requested remote URLs {remote}")
        if errors:
            wrong.append(f"page errors {errors}")
        if info["math_source"] and (not info["math"] or info["math_errors"]):
            wrong.append("MathJax did not render its math")
        if info["has_widgets"] and not (info["widgets"] and info["widget_figures"]):
            wrong.append("its stored widgets or their figure did not render")
        if info["navigation"] < len(lectures):
            wrong.append("the navigation does not list every lecture")
        if wrong:
            problems[nb.name] = (wrong, info)
    assert not problems, f"lecture pages that do not work offline: {problems}"
    assert shot.stat().st_size > 10_000
