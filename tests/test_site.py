"""The offline course site (`make site`) and slides (`make slides`).

Builds the whole-course site (Jupyter Book 1.x, stored outputs, nothing executed) and every
lecture's reveal.js deck into a temporary folder with course/build.py, then checks that

* the build succeeds with -W -n (no warning), prints only where the site is, and every
  notebook and course page has a page; solution pages are titled "Solutions NN"; a site
  staged with --no-solutions has no solution page;
* no page or stylesheet loads a script, style, font or image from the network (parsed HTML);
* MathJax and the widget renderer are vendored and present;
* in headless Chromium, over file://: every page of the site shows no console warning or
  error, and an axe-core audit (axe-playwright-python) finds no critical or serious
  violation; MathJax renders; every image has alt text and is drawn; no request leaves
  file:// or localhost (screenshot in test-artifacts/);
* the decks fit a 1280 x 720 projector: no slide taller than the screen (unless its cell is
  tagged `scroll`), no code line cut at the right edge, alt text on every image, math
  rendered, a slide or sub-slide for every section and subsection, a clean console.
The shaping of decks and site pages (course/nbconvert/shaping.py) is tested on small notebooks.

The work is done once and side by side (the `background` fixture): both builds start at the
module's first test, the decks are measured in background Chromiums while the site is
checked, and each site page is opened once for all the checks made on it (site_visits).

Without jupyter-book or nbconvert the tests are skipped (and without Chromium/Playwright the
browser checks), except under CI=true, where a missing tool is a failure.
"""
from __future__ import annotations

import concurrent.futures
import contextlib
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

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / "course" / "build.py"
ARTIFACTS = ROOT / "test-artifacts"
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "[::1]"}
BUILD_TIMEOUT_S = 600

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json"
PROJECTOR = {"width": 1280, "height": 720}
_spec = importlib.util.spec_from_file_location("course_build", BUILD)    # not PyPA's `build`
build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build)
shaping = build.shaping                                                  # course/nbconvert/shaping.py


def _missing(reason: str):
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: a missing tool is a failure, not a skip)", pytrace=False)
    pytest.skip(reason)


def require_build_tools() -> None:
    for module, package in (("jupyter_book", "jupyter-book<2"), ("nbconvert", "nbconvert")):
        if importlib.util.find_spec(module) is None:
            _missing(f"the site build needs {package}: .venv/bin/python -m pip install -e '.[test]'")


def chromium() -> str | None:
    """Debian's chromium, if it is installed."""
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else shutil.which("chromium")


def require_browser() -> str:
    exe = chromium()
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


def _run_build(*args: str) -> tuple[float, str]:
    """(seconds, what it printed on stdout and stderr)."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, str(BUILD), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=BUILD_TIMEOUT_S)
    seconds = time.perf_counter() - t0
    assert proc.returncode == 0, (
        f"course/build.py {args[0]} failed (exit {proc.returncode}) after {seconds:.0f} s:\n"
        f"{proc.stdout[-6000:]}\n{proc.stderr[-6000:]}")
    return seconds, proc.stdout + proc.stderr


# Chromiums measuring decks side by side, beside the one that checks the site: the decks are
# the module's largest share of browser work (about 700 slides, each laid out and its math
# re-rendered), split in two so that they end about when the site's checks do.
DECK_BROWSERS = 2


def _selected(request, fixture: str) -> list:
    """The tests of this module that this run will run and that use `fixture` (directly or not)."""
    return [item for item in request.session.items
            if item.module is request.module and fixture in item.fixturenames]


@pytest.fixture(scope="module")
def background(request, tmp_path_factory):
    """The module's slow work, started at its first test and run side by side (each part only
    when a selected test needs it): the site's build, the decks' build, and then, in a thread
    with its own Chromium, the measurement of each selected deck (measure_decks; DECK_BROWSERS
    threads, each on its share of the decks). Yields name -> Future (a list of them for the
    measurements); a Future's result() re-raises what went wrong."""
    require_build_tools()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2 + DECK_BROWSERS) as pool:
        work = {}
        if _selected(request, "site_build"):
            tmp = tmp_path_factory.mktemp("site")
            work["site"] = pool.submit(_run_build, "site", "--out", str(tmp / "html"),
                                       "--work", str(tmp / "work"))
            work["site_dir"] = tmp / "html"
        if _selected(request, "decks"):
            out = tmp_path_factory.mktemp("slides")
            work["slides"] = pool.submit(_run_build, "slides", "--out", str(out))
            work["decks"] = {nb: out / f"{nb.stem}.slides.html" for nb in notebooks("lectures")}
            lectures = [t.callspec.params["lecture"] for t in _selected(request, "deck_measures")]
            if lectures and chromium() and importlib.util.find_spec("playwright"):
                measured = [(nb, work["decks"][nb]) for nb in LECTURES if nb in lectures]
                shares = [dict(measured[k::DECK_BROWSERS]) for k in range(DECK_BROWSERS)]
                work["measures"] = [pool.submit(measure_decks, work["slides"], share, chromium())
                                    for share in shares if share]
        yield work
        for future in [work.get("site"), work.get("slides"), *work.get("measures", [])]:
            if future:
                future.cancel()            # a test stopped early: nothing new starts


@pytest.fixture(scope="module")
def site_build(background) -> tuple[Path, str]:
    seconds, printed = background["site"].result()
    print(f"\nsite built in {seconds:.1f} s")
    return background["site_dir"], printed


@pytest.fixture(scope="module")
def site(site_build) -> Path:
    return site_build[0]


@pytest.fixture(scope="module")
def decks(background) -> dict[Path, Path]:
    """lecture notebook -> its deck, for every lecture."""
    seconds, printed = background["slides"].result()
    print(f"\ndecks built in {seconds:.1f} s:\n{printed}")
    return background["decks"]


@pytest.fixture(scope="module")
def deck_measures(background, decks) -> dict[Path, tuple]:
    """lecture notebook -> its deck measured (measure_decks), or what stopped the measurement."""
    require_browser()
    return {lecture: measured for share in background["measures"] for lecture, measured in share.result().items()}


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


def test_make_site_prints_only_where_the_site_is(site_build):
    site, printed = site_build
    assert printed.strip().splitlines() == [f"site in {site}: open {site / 'index.html'}"], printed[-3000:]


def test_solution_pages_are_titled_as_solutions(site):
    for nb in notebooks("solutions"):
        title = re.search(r"<title>(.*?)</title>", (site / "solutions" / f"{nb.stem}.html").read_text(encoding="utf-8"))
        assert title and title.group(1).startswith(f"Solutions {nb.stem[:2]}"), (nb.name, title and title.group(1))
    for nb in notebooks("exercises"):
        title = re.search(r"<title>(.*?)</title>", (site / "exercises" / f"{nb.stem}.html").read_text(encoding="utf-8"))
        assert title and not title.group(1).startswith("Solution"), (nb.name, title.group(1))


def test_a_site_without_solutions_has_no_solution_page(tmp_path):
    build.stage_site(tmp_path, solutions=False)
    toc = (tmp_path / "_toc.yml").read_text()
    assert "solutions/" not in toc and "lectures/" in toc and "exercises/" in toc
    assert not (tmp_path / "solutions").exists()
    assert "**Solutions**" not in (tmp_path / "intro.md").read_text()


def test_lecture_pages_show_the_stored_outputs(site):
    for nb in notebooks("lectures"):
        text = (site / "lectures" / f"{nb.stem}.html").read_text(encoding="utf-8")
        stored = json.loads(nb.read_text(encoding="utf-8"))
        outputs = [o.get("data") or {} for c in stored["cells"] for o in c.get("outputs", [])]
        if any("image/png" in data for data in outputs):
            assert "<img" in text, f"{nb.name}: its stored figures are not on its page"
        if any(WIDGET_VIEW_MIME in data and "image/png" not in data for data in outputs):   # stored before
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
    for page in site_pages(site):
        text = page.read_text(encoding="utf-8")
        scripts = [url.split("?")[0] for tag, url in parse(page).urls if tag == "script"]
        if re.search(r'class="math[ "]', text):
            assert any(u.endswith("_static/mathjax3/es5/tex-chtml-full.js") for u in scripts), page
        if 'type="application/vnd.jupyter.widget-state+json"' in text:
            assert any(u.endswith("_static/html-manager/dist/embed.js") for u in scripts), page


def test_the_decks_are_offline(decks):
    for deck in decks.values():
        assert deck.is_file()
        assert not remote_resources(deck), remote_resources(deck)
        assert not missing_local_resources(deck), missing_local_resources(deck)
        text = deck.read_text(encoding="utf-8")
        assert "mermaid" not in text  # the CDN import nbconvert always emits is left out
        assets = ["vendor/reveal.js/dist/reveal.js", "vendor/reveal.js/plugin/notes/notes.js",
                  "vendor/mathjax2/MathJax.js"]
        if "application/vnd.jupyter.widget-state+json" in text:     # widgets left to draw
            assets.append("vendor/html-manager/dist/embed.js")
        for asset in assets:
            assert asset in text, f"the deck does not load {asset}"
            assert (deck.parent / asset).is_file(), f"{asset} was not copied next to the deck"


# ---------------------------------------------------------------- in a real browser

class _InFlight:
    """The page's requests that have started and not yet finished or failed.

    Playwright's own "networkidle" wait hung twice under load (120 s) on pages that had long
    finished loading; counting requests ourselves is as strict and names what is still out."""

    QUIET_MS, LIMIT_S = 500, 120

    def __init__(self, page):
        self.page, self.pending, self.last = page, set(), time.monotonic()
        page.on("request", self._start)
        page.on("requestfinished", self._end)
        page.on("requestfailed", self._end)

    def _start(self, request):
        self.pending.add(request)
        self.last = time.monotonic()

    def _end(self, request):
        self.pending.discard(request)
        self.last = time.monotonic()

    def settle(self):
        """Wait until no request has been out for QUIET_MS; fail naming them after LIMIT_S."""
        deadline = time.monotonic() + self.LIMIT_S
        while self.pending or time.monotonic() - self.last < self.QUIET_MS / 1000:
            if time.monotonic() > deadline:
                pytest.fail(f"{self.page.url}: still loading after {self.LIMIT_S} s: "
                            f"{sorted(r.url[-80:] for r in self.pending)}", pytrace=False)
            self.page.wait_for_timeout(100)


@contextlib.contextmanager
def offline_chromium(exe: str, viewport: dict):
    """One headless Chromium (a fresh profile) that aborts and records every request to a
    remote host. Yields visit(url, act), which opens the URL in a new page, waits for its
    requests (_InFlight) and returns (act(page, url), the remote requests, the console
    problems): the page's uncaught errors and every error or warning its console showed
    while it loaded and `act` ran."""
    from playwright.sync_api import sync_playwright

    remote: list[str] = []

    def guard(route):
        if is_remote(route.request.url):
            remote.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    def visit(url: str, act) -> tuple:
        remote.clear()
        problems: list[str] = []
        page = context.new_page()
        # Generous: under `make test` the other worker drives Chromium too; this bounds a
        # hang, not speed.
        page.set_default_timeout(120_000)
        page.on("pageerror", lambda e: problems.append(f"uncaught: {e}"[:300]))
        page.on("console", lambda m: problems.append(f"{m.type}: {m.text}"[:300])
                if m.type in ("error", "warning") else None)
        loading = _InFlight(page)
        try:
            page.goto(url)
            loading.settle()
            return act(page, url), sorted(set(remote)), problems
        finally:
            page.close()

    with tempfile.TemporaryDirectory() as profile, sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=exe, headless=True, args=CHROMIUM_ARGS, viewport=viewport)
        try:
            context.route("**/*", guard)
            context.on("request", lambda r: remote.append(r.url) if is_remote(r.url) else None)
            yield visit
        finally:
            context.close()


# Every slide of a deck (each vertical sub-slide), shown in turn at 1280 x 720 (reveal.js draws
# it 1:1, no margin) and measured at rest: its math re-rendered (the deck re-renders a slide's
# math when the slide is shown, with MathJax.Hub.Rerender, whose queue MathJax.Hub.Queue does
# not wait for: the slide is measured after MathJax's "End Rerender" for it), with the fonts it
# uses loaded, the navigation arrows taken over their whole move. Measured: its content height, whether it scrolls, code
# blocks wider than their box, images without alt text or not drawn; each figure's box
# (centred? 80 % of the width or 70 % of the height?) and the size its smallest text is drawn
# at (its data-text-px, the size at its data-logical-width, scaled to the width it is drawn
# at); the font size of every code block and text output; the characters of prose (markdown
# text but headings, math counted by its source); and what lies under the navigation arrows --
# all with every answer (<details>) of the slide opened too. On the first slide with an answer: collapsed at first, opened by a
# click on its summary.
MEASURE_SLIDES_JS = r"""async () => {
  const frames = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const Reveal = await new Promise(r => require(['vendor/reveal.js/dist/reveal.js'], r));
  await new Promise(r => MathJax.Hub.Queue(r));
  // At rest, sooner: no slide transition, MathJax without its 50 ms pauses between the stages
  // of a re-render (the same output), no history entry (a URL change) per slide.
  Reveal.configure({transition: 'none', backgroundTransition: 'none', history: false});
  MathJax.Hub.processSectionDelay = 0;
  let rerendered = () => {};
  MathJax.Hub.Register.MessageHook('End Rerender', m => rerendered(m[1]));
  const show = async (h, v, s) => {  // slide s shown, its math re-rendered
    if (Reveal.getCurrentSlide() === s) return;        // the first slide: typeset at load
    const done = new Promise(r => { rerendered = e => { if (e === s) r(true); }; });
    let timer;
    const late = new Promise(r => { timer = setTimeout(() => r(false), 30000); });
    Reveal.slide(h, v);
    const rendered = await Promise.race([done, late]);
    clearTimeout(timer);
    if (!rendered) throw new Error(`slide ${h + 1}.${v + 1}: its math was not re-rendered within 30 s`);
  };
  const laidOut = async (s) => {    // s laid out with the fonts it uses (each loads when first
    s.getBoundingClientRect();      // needed: this layout starts its load)
    await document.fonts.ready;
  };
  const W = 1280, H = 720;
  const shown = (e) => { const r = e.getBoundingClientRect();    // (a closed <details> keeps its
    return r.width > 0 && r.height > 0 && e.checkVisibility(); };  // body laid out, but hidden)
  const arrows = () => {            // the union of the navigation arrows' boxes, each box taken
    const boxes = [...document.querySelectorAll('.reveal .controls button.enabled')].flatMap(b => {
      const moving = b.getAnimations();  // where its 0.2 s transition (if any) starts and ends
      moving.forEach(a => { a.currentTime = 0; });
      const from = b.getBoundingClientRect();
      moving.forEach(a => a.finish());
      return [from, b.getBoundingClientRect()];
    }).filter(r => r.width > 0);
    if (!boxes.length) return null;
    return {left: Math.min(...boxes.map(r => r.left)), top: Math.min(...boxes.map(r => r.top)),
            right: Math.max(...boxes.map(r => r.right)), bottom: Math.max(...boxes.map(r => r.bottom))};
  };
  const under = (s, box) => {       // text lines and pictures of slide s inside box
    if (!box) return [];
    const hit = r => r.width > 0 && r.height > 0 && r.left < box.right && r.right > box.left
                     && r.top < box.bottom && r.bottom > box.top;
    const found = [];
    const walker = document.createTreeWalker(s, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim() || node.parentElement.closest('aside.notes, script, style')) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      if ([...range.getClientRects()].some(hit)) found.push(node.textContent.trim().slice(0, 40));
    }
    for (const e of s.querySelectorAll('img, svg, canvas'))
      if (hit(e.getBoundingClientRect())) found.push(`<${e.tagName.toLowerCase()}>`);
    return found;
  };
  const source = (e) => {           // a copy of e with its math as TeX source, not as rendered
    const copy = e.cloneNode(true);
    copy.querySelectorAll('.MathJax_Preview, .MathJax_CHTML, .MathJax_CHTML_Display, .MJX_Assistive_MathML, .MathJax_Display')
      .forEach(e => e.remove());
    copy.querySelectorAll('script[type^="math/tex"]').forEach(e => e.replaceWith(document.createTextNode(e.textContent)));
    return copy;
  };
  const prose = (s) => {            // characters of markdown text, headings left out, math as source
    let chars = 0;
    for (const md of s.querySelectorAll('.jp-MarkdownOutput, .jp-RenderedMarkdown')) {
      const copy = source(md);
      copy.querySelectorAll('h1, h2, h3, h4, h5, h6').forEach(e => e.remove());
      chars += copy.textContent.replace(/[*_`$\\]/g, '').replace(/\s+/g, ' ').trim().length;
    }
    return chars;
  };
  const slides = [];
  let clicked = null;
  const stacks = [...document.querySelectorAll('.reveal .slides > section')];
  for (let h = 0; h < stacks.length; h++) {
    const inner = [...stacks[h].querySelectorAll(':scope > section')];
    const leaves = inner.length ? inner : [stacks[h]];
    for (let v = 0; v < leaves.length; v++) {
      const s = leaves[v];
      await show(h, v, s);
      await laidOut(s);
      const heading = s.querySelector('h1, h2, h3, h4');
      const details = [...s.querySelectorAll('details')];
      const answers = details.map(d => ({open: d.open, body: [...d.children].filter(c => c.tagName !== 'SUMMARY').some(shown)}));
      if (details.length && !clicked) {
        details[0].querySelector('summary').click();
        await frames();
        clicked = {slide: `${h + 1}.${v + 1}`, open: details[0].open,
                   body: [...details[0].children].filter(c => c.tagName !== 'SUMMARY').some(shown)};
      }
      details.forEach(d => { d.open = true; });
      if (details.length) await laidOut(s);
      const figures = [...s.querySelectorAll('.jp-RenderedImage img')].map(i => {
        const r = i.getBoundingClientRect();
        const px = parseFloat(i.dataset.textPx), logical = parseFloat(i.dataset.logicalWidth);
        return {width: Math.round(r.width), height: Math.round(r.height), left: Math.round(r.left),
                right: Math.round(W - r.right), text: px && logical ? +(px * r.width / logical).toFixed(1) : null,
                alt: (i.getAttribute('alt') || '').slice(0, 50)};
      });
      const code = [...s.querySelectorAll('pre, code')].filter(shown)
        .map(e => parseFloat(getComputedStyle(e).fontSize));
      slides.push({
        slide: `${h + 1}.${v + 1}`, heading: heading ? source(heading).textContent.replace(/\s+/g, ' ').trim().slice(0, 60) : '',
        height: s.scrollHeight, width: s.scrollWidth, scroll: s.hasAttribute('data-scroll'),
        cut: [...s.querySelectorAll('pre')].filter(p => p.scrollWidth > p.clientWidth + 1)
               .map(p => p.innerText.split('\n')[0].slice(0, 60)),
        noAlt: [...s.querySelectorAll('img')].filter(i => !(i.getAttribute('alt') || '').trim()).length,
        undrawn: [...s.querySelectorAll('img')].filter(i => !(i.complete && i.naturalWidth > 0)).length,
        figures, codePx: code.length ? Math.min(...code) : null, prose: prose(s),
        underArrows: under(s, arrows()), answers,
      });
      details.forEach(d => { d.open = false; });
    }
  }
  return {slides, clicked, reveal: document.querySelector('.reveal').classList.contains('ready'),
          math: document.querySelectorAll('.MathJax_CHTML').length,
          mathErrors: document.querySelectorAll('.MathJax_Error, merror').length};
}"""

# What a projected slide must be (issue 23): figures centred and at least 80 % of the width or
# 70 % of the height (as tall as a slide leaves room for), their text at least 16 px as drawn,
# code at least 18 px, at most about 900 characters of prose, nothing under the arrows.
FIGURE_SHARE_W, FIGURE_SHARE_H, FIGURE_TEXT_PX, CODE_PX, PROSE_MAX = 0.8, 0.7, 16, 18, 900
CENTRED_PX = 8


def slide_problems(s: dict) -> list[str]:
    """What is wrong with one measured slide (MEASURE_SLIDES_JS)."""
    where = f"slide {s['slide']}" + (f" ({s['heading']!r})" if s["heading"] else "")
    wrong = []
    if s["height"] > PROJECTOR["height"] and not s["scroll"]:
        wrong.append(f"{where} is {s['height']} px tall")
    if s["width"] > PROJECTOR["width"] + 1:
        wrong.append(f"{where} is {s['width']} px wide")
    wrong += [f"{where}: code cut at the right edge: {s['cut']}"] if s["cut"] else []
    wrong += [f"{where}: {s['noAlt']} image(s) without alt text"] if s["noAlt"] else []
    wrong += [f"{where}: {s['undrawn']} image(s) not drawn"] if s["undrawn"] else []
    for f in s["figures"]:
        name = f"{where}: figure {f['alt']!r}"
        if f["width"] < FIGURE_SHARE_W * PROJECTOR["width"] - 1 and f["height"] < FIGURE_SHARE_H * PROJECTOR["height"]:
            wrong.append(f"{name} is {f['width']} x {f['height']} px (needs {FIGURE_SHARE_W:.0%} of the width "
                         f"or {FIGURE_SHARE_H:.0%} of the height)")
        if abs(f["left"] - f["right"]) > CENTRED_PX:
            wrong.append(f"{name} is not centred ({f['left']} px left, {f['right']} px right)")
        if f["text"] is None:
            wrong.append(f"{name} has no recorded text size (drawn before the house style recorded it: "
                         "execute the lecture again)")
        elif f["text"] < FIGURE_TEXT_PX:
            wrong.append(f"{name}: its smallest text is drawn at {f['text']} px (at least {FIGURE_TEXT_PX})")
    if s["codePx"] is not None and s["codePx"] < CODE_PX:
        wrong.append(f"{where}: code at {s['codePx']} px (at least {CODE_PX})")
    if s["prose"] > PROSE_MAX:
        wrong.append(f"{where}: {s['prose']} characters of prose (at most about {PROSE_MAX})")
    if s["underArrows"]:
        wrong.append(f"{where}: under the navigation arrows: {s['underArrows'][:3]}")
    wrong += [f"{where}: an answer is not collapsed at first"
              for a in s["answers"] if a["open"] or a["body"]]
    return wrong


LECTURES = notebooks("lectures")


def measure_deck(page, url) -> dict:
    """MEASURE_SLIDES_JS on a deck, once reveal.js is ready."""
    page.wait_for_function("document.querySelector('.reveal').classList.contains('ready')", timeout=30_000)
    return page.evaluate(MEASURE_SLIDES_JS)


def measure_decks(slides_build: concurrent.futures.Future, decks: dict[Path, Path], exe: str) -> dict:
    """Every deck, once built, opened in turn in one Chromium at 1280 x 720 and measured:
    lecture -> (measure_deck's result, remote requests, console problems), or the exception
    that stopped its measurement (the other decks are measured all the same)."""
    slides_build.result()
    measured = {}
    with offline_chromium(exe, PROJECTOR) as visit:
        for lecture, deck in decks.items():
            try:
                measured[lecture] = visit(deck.as_uri(), measure_deck)
            except (Exception, pytest.fail.Exception) as exc:
                measured[lecture] = exc
    return measured


@pytest.mark.parametrize("lecture", LECTURES, ids=lambda p: p.stem)
def test_every_slide_projects_at_1280x720(deck_measures, lecture):
    """Every slide of the lecture's deck at 1280 x 720: no taller than the screen unless its
    cell is tagged `scroll`, no wider, no code line cut, every image drawn with alt text;
    figures centred, large, their text large (slide_problems); code large; prose short;
    nothing under the navigation arrows, answers opened or not; answers collapsed until a
    click opens them; each section and subsection starts a slide; math renders; a clean
    console. (The decks are measured in the background while the site is checked.)"""
    measured = deck_measures[lecture]
    if isinstance(measured, BaseException):
        raise measured
    info, remote, console = measured
    slides = info["slides"]
    sections = sum(1 for cell in nbformat.read(lecture, as_version=4).cells if cell.cell_type == "markdown"
                   for line in cell.source.splitlines() if re.match(r"#{1,3}\s", line))
    wrong = [problem for s in slides for problem in slide_problems(s)]
    if len(slides) < sections:
        wrong.append(f"{len(slides)} slides for {sections} sections and subsections")
    if info["clicked"] and not (info["clicked"]["open"] and info["clicked"]["body"]):
        wrong.append(f"slide {info['clicked']['slide']}: a click on 'Answer' did not open it: {info['clicked']}")
    if "<details" in lecture.read_text(encoding="utf-8") and not info["clicked"]:
        wrong.append("the lecture has answers in <details>, its deck shows none")
    if not info["reveal"] or info["mathErrors"]:
        wrong.append(f"reveal.js ready: {info['reveal']}, math errors: {info['mathErrors']}")
    if remote:
        wrong.append(f"requested remote URLs {remote}")
    if console:
        wrong.append(f"console: {console[:5]}")
    print(f"\n{lecture.stem}: {len(slides)} slides, {len(wrong)} problems")
    assert not wrong, f"{lecture.name}: {len(wrong)} problems at 1280 x 720:\n  " + "\n  ".join(wrong)


def test_deck_shaping_cuts_sections_and_tall_cells_into_slides():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Lecture\n\nWhy.\n\n## Part A\n\nText.\n\n### A.1\n\nMore."),
        nbformat.v4.new_code_cell("\n".join(f"x{i} = {i}" for i in range(60)), outputs=[
            nbformat.v4.new_output("stream", name="stdout", text="".join(f"line {i}\n" for i in range(70)))]),
        nbformat.v4.new_markdown_cell("A long story. " * 40 + "\n\n" + "\n\n".join(["Paragraph. " * 60] * 6)),
        nbformat.v4.new_code_cell("print('kept whole')\n" * 80, metadata={"tags": ["scroll"]}),
        nbformat.v4.new_code_cell("y = 1"),
    ])
    cells = shaping.shape_deck(nb).cells
    kinds = [c.metadata.get("slideshow", {}).get("slide_type", "-") for c in cells]
    assert kinds[:3] == ["slide", "slide", "subslide"], kinds        # #, ## and ### headings
    assert [c.source.split("\n")[0] for c in cells[:3]] == ["# Lecture", "## Part A", "### A.1"]
    assert all(shaping.cell_height(c) <= shaping.BUDGET for c in cells if "scroll" not in c.metadata.get("tags", []))
    shown = "\n".join(c.source for c in cells if c.cell_type == "code" and c.source.startswith("x")
                       and not c.metadata.get("transient", {}).get("remove_source"))
    assert shown.splitlines() == [f"x{i} = {i}" for i in range(60)]          # every code line, once
    printed = "".join(o.get("text", "") for c in cells for o in c.get("outputs", []))
    assert printed.splitlines() == [f"line {i}" for i in range(70)]          # every output line, once
    [scroll] = [c for c in cells if "scroll" in c.metadata.get("tags", [])]
    assert scroll.metadata.slideshow == {"slide_type": "subslide", "data": {"scroll": "true"}}
    assert cells[-1].metadata["slideshow"]["slide_type"] == "subslide"            # after a scrolling slide
    assert len({c.id for c in cells}) == len(cells)


def _png(width: int, height: int) -> str:
    """A base64 PNG header of the given size (enough for the shaper, which reads the header)."""
    import base64
    import struct
    import zlib
    header = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return base64.b64encode(header + struct.pack(">I", zlib.crc32(header[12:]))).decode()


def test_deck_shaping_keeps_prose_short_answers_whole_and_figures_large():
    paragraph = "A sentence about privacy that goes on for a while. " * 6          # about 300 characters
    answer = "<details><summary>Answer</summary>\n\n" + "It is three. " * 10 + "\n\n</details>"
    math = ("Long text with $a. B$ inline math and a display $$x. Y$$ inside. " * 8).strip()
    wide, tall = _png(1370, 668), _png(1350, 1080)          # a figure at 2x, and a tall one at 2x
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("## Part\n\n" + "\n\n".join([paragraph] * 5) + "\n\n" + answer),
        nbformat.v4.new_markdown_cell(math * 2),
        nbformat.v4.new_code_cell("plot()", outputs=[
            nbformat.v4.new_output("display_data", data={"image/png": wide},
                                   metadata={"image/png": {"width": 685, "height": 334, "text_px": 13.1}}),
            nbformat.v4.new_output("display_data", data={"image/png": tall})]),
    ])
    cells = shaping.shape_deck(nb).cells
    slides, current = [], None
    for cell in cells:
        if cell.metadata.get("slideshow", {}).get("slide_type") in ("slide", "subslide") or current is None:
            current = []
            slides.append(current)
        current.append(cell)
    for slide in slides:
        prose = sum(shaping.prose_chars(c.source) for c in slide if c.cell_type == "markdown")
        assert prose <= shaping.PROSE_CHARS, [c.source[:60] for c in slide]
        assert sum(shaping.cell_height(c) for c in slide) <= shaping.BUDGET
    markdown = [c.source for c in cells if c.cell_type == "markdown"]
    assert sum(m.count(paragraph.strip()) for m in markdown) == 5            # cut between paragraphs
    assert [m for m in markdown if "<details>" in m][0].endswith(answer)       # an answer kept whole
    pieces = [m for m in markdown if m.startswith("Long text") or "inline math" in m]
    assert len(pieces) > 1 and " ".join(pieces).replace("  ", " ") == (math * 2).replace("  ", " ")
    assert all(p.count("$$") % 2 == 0 and p.count("$") % 2 == 0 for p in pieces)   # math never cut
    figures = [o.metadata["image/png"] for c in cells for o in c.get("outputs", []) if "image/png" in o.data]
    assert figures[0] == {"width": shaping.FIGURE_WIDTH, "height": round(shaping.FIGURE_WIDTH * 668 / 1370),
                          "text_px": 13.1, "logical_width": 685, "alt": "Figure: Part"}
    assert figures[1]["height"] == shaping.FIGURE_HEIGHT and figures[1]["width"] < shaping.FIGURE_WIDTH
    assert figures[1]["logical_width"] == 1350                                   # no size stored: its pixels
    assert nb.cells[2].outputs[0].metadata["image/png"]["width"] == 685          # the source is untouched


def test_every_figure_gets_alt_text_and_interactive_figures_their_picture():
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
    view = {"version_major": 2, "version_minor": 0, "model_id": "abc"}
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("## The *Laplace* mechanism"),
        nbformat.v4.new_code_cell("plot()", outputs=[nbformat.v4.new_output(
            "display_data", data={"image/png": png}, metadata={"image/png": {"alt": "Outputs, ε = 1"}})]),
        nbformat.v4.new_code_cell("plot()", metadata={"alt": "A histogram"}, outputs=[
            nbformat.v4.new_output("display_data", data={"image/png": png})]),
        nbformat.v4.new_code_cell("plot()", outputs=[nbformat.v4.new_output("display_data", data={"image/png": png})]),
        nbformat.v4.new_code_cell("panel", outputs=[nbformat.v4.new_output(
            "display_data", data={WIDGET_VIEW_MIME: view, "image/png": png, "text/plain": "Interactive figure"},
            metadata={"image/png": {"alt": "Loss"}})]),
    ])
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": {}}}
    site = shaping.shape_site(nb)
    alts = [o.metadata["image/png"]["alt"] for c in site.cells for o in c.get("outputs", [])]
    assert alts == ["Outputs, ε = 1", "A histogram", "Figure: The Laplace mechanism", "Loss"]
    assert [c.metadata.get("mystnb", {}).get("image", {}).get("alt") for c in site.cells[1:]] == alts
    assert list(site.cells[-1].outputs[0].data) == ["image/png"]            # the picture, not dead widgets
    assert "widgets" not in site.metadata
    assert nb.cells[-1].outputs[0].data.keys() >= {WIDGET_VIEW_MIME}       # the source is untouched


def test_solution_titles_never_read_like_exercise_titles():
    for source, title in (("# Exercises 03 — Density\n\ntext", "# Solutions 03 — Density\n\ntext"),
                          ("# Solutions 04 — Counting", "# Solutions 04 — Counting"),
                          ("# Density estimation", "# Solutions Density estimation")):
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(source)])
        build.solution_title(nb)
        assert nb.cells[0].source == title


# Every answer of a page (<details>): closed, its body hidden; a click on its summary opens it.
ANSWERS_JS = """async () => {
  const frames = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const body = d => [...d.children].filter(c => c.tagName !== 'SUMMARY')
    .some(c => c.getBoundingClientRect().height > 0 && c.checkVisibility());
  const found = [];
  for (const d of document.querySelectorAll('details')) {
    const before = {open: d.open, body: body(d)};
    d.querySelector('summary').scrollIntoView({block: 'center'});
    d.querySelector('summary').click();
    await frames();
    found.push({summary: d.querySelector('summary').innerText.trim(), before, after: {open: d.open, body: body(d)}});
  }
  return found;
}"""


def test_check_yourself_answers_are_collapsed_and_open_on_click_on_the_site(site_visits):
    """Every lecture's answers (<details><summary>Answer</summary> ...) on its site page:
    collapsed when the page opens, open on a click. (The decks: test_every_slide_projects;
    JupyterLab: tests/browser/test_lectures_in_jupyterlab.py.)"""
    pages = {Path("lectures") / f"{nb.stem}.html": nb for nb in notebooks("lectures")
             if "<details" in nb.read_text(encoding="utf-8")}
    if not pages:
        pytest.skip("no lecture has answers in <details> yet")

    problems = {}
    for rel, nb in pages.items():
        answers = site_visits[rel][0]["answers"]
        expected = nb.read_text(encoding="utf-8").count("<details")
        wrong = [] if len(answers) == expected else [f"{len(answers)} answers on the page, {expected} in the lecture"]
        wrong += [f"answer {k + 1} ({a['summary']!r}): {a}" for k, a in enumerate(answers)
                  if a["before"] != {"open": False, "body": False} or a["after"] != {"open": True, "body": True}]
        if wrong:
            problems[nb.name] = wrong
    assert not problems, f"answers not collapsed, or not opened by a click: {json.dumps(problems, indent=1)}"


AXE_SERIOUS = ("critical", "serious")
# axe's colour-contrast rule costs ten times all its other rules on a long lecture page (a
# minute on 2 loaded cores): it runs on one page of each kind (the theme, code highlighting
# and output styles are shared by every page of a kind), every other rule on every page.
CONTRAST_PAGES = {"intro.html", "course/syllabus.html", "lectures/00_welcome.html", "exercises/01_dp_basics.html"}
AXE_FAST = {"preload": False, "resultTypes": ["violations"], "rules": {"color-contrast": {"enabled": False}}}
AXE_ALL = {"preload": False, "resultTypes": ["violations"]}


def _axe():
    """axe-playwright-python's runner, or None when it is not installed."""
    try:
        from axe_playwright_python.sync_playwright import Axe
    except ImportError:
        return None
    return Axe()


def screenshot_page(site: Path) -> Path | None:
    """The site page of the lecture with stored widgets (widget_lecture), if there is one."""
    try:
        return site / "lectures" / f"{widget_lecture().stem}.html"
    except pytest.skip.Exception:
        return None


@pytest.fixture(scope="module")
def site_visits(site) -> dict[Path, tuple]:
    """Every page of the site but index.html (a redirect) opened once in headless Chromium
    over file://, for the two tests below: site-relative path -> (info, remote requests,
    console problems). `info`, in this order: math, widgets and images awaited (a timeout
    fails); their counts, images without alt text or not drawn, the links of the navigation;
    a screenshot of the widget lecture's first figure (test-artifacts/); the axe-core audit
    (axe-playwright-python, if installed; colour contrast on CONTRAST_PAGES); on lecture
    pages, then, each answer's state before and after a click on it (ANSWERS_JS)."""
    exe = require_browser()
    axe = _axe()
    pages = {page.as_uri(): page for page in site_pages(site)
             if 'http-equiv="refresh"' not in page.read_text(encoding="utf-8")}    # index.html: a redirect
    shot_page = screenshot_page(site)

    def act(page, url):
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        try:
            if page.evaluate("document.querySelectorAll('.math').length > 0"):
                page.wait_for_function("document.querySelectorAll('mjx-container').length > 0", timeout=60_000)
            if page.evaluate("!!document.querySelector('script[type=\"application/vnd.jupyter.widget-view+json\"]')"):
                page.wait_for_selector(".jupyter-widgets", timeout=30_000)
            page.wait_for_function("[...document.images].every(i => i.complete)", timeout=30_000)
        except PlaywrightTimeout as exc:
            pytest.fail(f"{pages[url].relative_to(site)}: math, widgets or images did not render: {exc}", pytrace=False)
        info = page.evaluate("""() => ({
            math_source: document.querySelectorAll('.math').length,
            math: document.querySelectorAll('mjx-container').length,
            math_errors: document.querySelectorAll('mjx-merror').length,
            no_alt: [...document.images].filter(i => !(i.getAttribute('alt') || '').trim()).map(i => i.src.slice(-60)),
            undrawn: [...document.images].filter(i => !i.naturalWidth).map(i => i.src.slice(-60)),
            navigation: document.querySelectorAll('.bd-sidebar-primary a.reference').length})""")
        if pages[url] == shot_page:
            page.evaluate("""() => { const f = document.querySelector('.cell_output img');
                if (f) window.scrollTo(0, f.getBoundingClientRect().top + window.scrollY - 200); }""")
            page.wait_for_timeout(300)
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"site_lecture{shot_page.stem[:2]}.png"))
        if axe:
            # axe's own asset preloading (an XHR, which fails on file://) is off
            results = axe.run(page, options=AXE_ALL if pages[url].relative_to(site).as_posix() in CONTRAST_PAGES
                              else AXE_FAST)
            info["axe"] = [f"{v['impact']}: {v['id']} ({len(v['nodes'])}x: {v['nodes'][0]['target']})"
                           for v in results.response["violations"] if v["impact"] in AXE_SERIOUS]
            info["axe_other"] = sorted({v["id"] for v in results.response["violations"]} - {
                v.split(": ")[1].split(" ")[0] for v in info["axe"]})
        if pages[url].parent.name == "lectures":
            info["answers"] = page.evaluate(ANSWERS_JS)
        return info

    with offline_chromium(exe, {"width": 1400, "height": 1000}) as visit:
        return {path.relative_to(site): visit(url, act) for url, path in pages.items()}


def test_every_site_page_renders_offline_cleanly_and_accessibly(site, request):
    """Every page over file://: no console warning or error, no page error, no network; an
    axe-core audit finds no critical or serious violation (colour contrast on CONTRAST_PAGES);
    math renders; every image is drawn and has alt text; a screenshot of lecture 01's first
    figure goes to test-artifacts/ (site_visits)."""
    require_browser()
    if _axe() is None:
        _missing("the accessibility audit needs axe-playwright-python (test extra)")
    shot = ARTIFACTS / f"site_lecture{widget_lecture().stem[:2]}.png"
    visits = request.getfixturevalue("site_visits")
    problems, other = {}, set()
    lectures = notebooks("lectures")
    for path, (info, remote, console) in visits.items():
        wrong = []
        if remote:
            wrong.append(f"requested remote URLs {remote}")
        if console:
            wrong.append(f"console: {console[:5]}")
        if info["math_source"] and (not info["math"] or info["math_errors"]):
            wrong.append("MathJax did not render its math")
        if info["no_alt"] or info["undrawn"]:
            wrong.append(f"images without alt text {info['no_alt']}, not drawn {info['undrawn']}")
        if info["axe"]:
            wrong.append(f"axe: {info['axe']}")
        if info["navigation"] < len(lectures):
            wrong.append("the navigation does not list every lecture")
        other.update(info["axe_other"])
        if wrong:
            problems[path.as_posix()] = wrong
    print(f"\n{len(visits)} pages audited; minor or moderate axe findings: {sorted(other)}")
    assert not problems, f"site pages that are not clean offline: {json.dumps(problems, indent=1)}"
    assert shot.stat().st_size > 10_000
