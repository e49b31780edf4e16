"""Every lecture with widgets, in JupyterLab as a user has it, in a real (headless) Chromium.

JupyterLab runs as `make lab` starts it (its command line, environment, config and settings
defaults; otherwise JupyterLab's defaults, autosave on) on a temporary copy of lectures/, in
one Lab tab kept open, from which each lecture notebook that uses ipywidgets is opened in turn
(as a student opens it from the file browser):

1. opened as stored, before any kernel has run, every widget cell shows a picture drawn at a
   non-zero size on screen (its default figure), never the widget's text repr or an error;
   the notebook is read-only (its toolbar says so, it cannot be saved) and not modified;
   its Check yourself answers are collapsed and open on a click; closed (only read), it
   asks nothing (no "Save changes?"), and it opens again;
2. Run > Run All Cells, clicked in the menu, runs without an error;
3. every interactive figure, scrolled into view, is drawn at a non-zero size on screen (its
   bounding box, not its natural size) and at its picture's own size (not stretched), and
   its "run this cell" notice is hidden;
4. each slider of each figure, moved by six arrow-key steps (away, back, ...), changes its
   readout and the picture (the pixels, not only the image's URL), still drawn at a non-zero
   size; the median key-press-to-new-image time per slider (timed in the page; the first
   step is a warm-up) is printed and merged into test-artifacts/browser_redraw_times.json
   (read by benchmarks/bench_widgets.py);
5. after a kernel restart, every interactive figure says "Run this cell to make the figure
   live", visibly, in the panel;
6. closed after the run, JupyterLab offers "Save as", not "Save" (the test discards);
   reopened, every widget cell shows its stored picture on screen and no controls (closed
   again, it asks nothing, and the tab is ready for the next lecture);
7. the page's console showed no error, from the first step to the last, and the lecture's
   file is byte for byte as it was, with no new file beside it (git status stays clean).
A screenshot goes to test-artifacts/browser/<lecture>.png (on failure too).
Also here: the server refuses, through its REST API, to write a lecture (saying how to keep a
run) and serves widget settings with saveState off; and at a 1280 px wide window with the
file browser open, lines of tests/test_line_lengths.py's LINE_LIMIT characters fit a code
cell and an output area.

Run alone:  .venv/bin/python -m pytest tests/browser -s
Fixtures, skip rules and the development override PANPRIV_BROWSER_ROOT: see conftest.py.
"""
from __future__ import annotations

import datetime as _dt
import fcntl
import importlib.util
import json
import os
import statistics
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from panpriv_teach.widgets import DEAD_NOTICE

from .conftest import ARTIFACTS_DIR, REPO_ROOT, VIEWPORT, require_browser

pytestmark = pytest.mark.browser

# Timeouts bound a hang, not speed: a lecture runs in under 60 s on two idle cores (its
# budget), and these leave room for three times that on a loaded machine.
KERNEL_READY_TIMEOUT_S = 120
RUN_ALL_TIMEOUT_S = 300
WIDGETS_TIMEOUT_S = 60
REDRAW_TIMEOUT_S = 60
PRESSES = 6                 # arrow-key steps per slider: the first warms up, the others are timed
POLL_MS = 50                # how often the test checks the page (redraws are timed in the page)
REDRAW_TIMES_JSON = ARTIFACTS_DIR / "browser_redraw_times.json"
SCREENSHOT_DIR = ARTIFACTS_DIR / "browser"
DIALOG_TIMEOUT_S = 30
# Closing a notebook or restarting its kernel cancels JupyterLab's own requests in flight (the
# debugger's state, a subshell): its console says so. Only these messages are allowed.
CANCELLED_REQUEST = "Canceled future for"

# ------------------------------------------------------------------ in-page helpers

# Attach to the notebook Lab shows. Track the kernel's work by message: every shell request
# sent is pending until the kernel's `idle` status with that parent arrives. (With ipykernel 7
# the status bar can read Idle while a widget callback still runs, because the idle of a
# concurrent comm message arrives first.) Record every IOPub `error` message: errors of cells
# and of widget callbacks that print into an Output widget. Also installs, once per page:
# redraw timing (key press -> load of the next image in that figure, both in the page) and
# `bt.hash(img)`, a hash of an image's pixels.
INSTALL_JS = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  if (!panel || !panel.content || !panel.content.model || !panel.sessionContext)
    throw new Error('the current Lab widget is not a notebook: ' + (panel && panel.title.label));
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  if (!kernel) throw new Error('the notebook has no kernel connection');
  const old = window.__bt || {};
  const bt = window.__bt = {panel, errors: [], pending: new Map(), last: performance.now(), run: null,
                            snap: null, press: null, hashes: old.hashes || new Map()};
  kernel.anyMessage.connect((_, {msg, direction}) => {
    if (window.__bt !== bt) return;
    bt.last = performance.now();
    if (direction === 'send') {
      if (msg.channel === 'shell') bt.pending.set(msg.header.msg_id, msg.header.msg_type);
    } else if (msg.channel === 'iopub' && msg.header.msg_type === 'status') {
      if (msg.content.execution_state === 'idle' && msg.parent_header) bt.pending.delete(msg.parent_header.msg_id);
    } else if (msg.channel === 'iopub' && msg.header.msg_type === 'error') {
      bt.errors.push(`${msg.content.ename}: ${msg.content.evalue}`.slice(0, 300));
    }
  });
  bt.settled = (ms) => bt.pending.size === 0 && performance.now() - bt.last >= ms;
  bt.hash = (img) => {          // FNV-1a over the pixels (blob: images are same-origin)
    if (!img.complete || !img.naturalWidth) return null;
    if (bt.hashes.has(img.src)) return bt.hashes.get(img.src);
    const c = document.createElement('canvas');
    c.width = img.naturalWidth; c.height = img.naturalHeight;
    const ctx = c.getContext('2d'); ctx.drawImage(img, 0, 0);
    const px = ctx.getImageData(0, 0, c.width, c.height).data;
    let h = 2166136261;
    for (let i = 0; i < px.length; i += 4) { h ^= px[i] | (px[i + 1] << 8) | (px[i + 2] << 16); h = Math.imul(h, 16777619); }
    const hex = (h >>> 0).toString(16) + ':' + c.width + 'x' + c.height;
    bt.hashes.set(img.src, hex);
    return hex;
  };
  if (!window.__btListening) {
    window.__btListening = true;
    document.addEventListener('keydown', e => {
      const fig = e.target.closest && e.target.closest('[data-bt-figure]');
      window.__bt.press = fig ? {figure: fig.getAttribute('data-bt-figure'), at: performance.now(), loaded: null} : null;
    }, true);
    document.addEventListener('load', e => {
      const p = window.__bt.press;
      if (p && p.loaded === null && e.target.tagName === 'IMG'
          && e.target.closest(`[data-bt-figure="${p.figure}"]`)) p.loaded = performance.now();
    }, true);
  }
  return panel.context.path;
}"""

STATUS_BAR_JS = """() => [...document.querySelectorAll('.jp-StatusBar-Item')]
  .map(e => e.innerText.replace(/\\s+/g, ' ').trim()).filter(t => t)"""

# Open a file as the file browser does (returns nothing: the widget is too large to serialize).
OPEN_JS = """async (path) => { await window.jupyterapp.commands.execute('docmanager:open', {path}); }"""

# Notebook `rel` is Lab's current widget, connected to its kernel, and the status bar shows
# `<kernel> | Idle` (the toolbar's idle indicator shows idle before a kernel exists).
OPENED_JS = """([rel, idle]) => {
  const w = window.jupyterapp.shell.currentWidget;
  return !!(w && w.context && w.context.path === rel && w.sessionContext.session
            && w.sessionContext.session.kernel)
    && [...document.querySelectorAll('.jp-StatusBar-Item')]
         .some(e => e.innerText.replace(/\\s+/g, ' ').trim() === idle);
}"""

STATUS_JS = """() => {
  const status = [...document.querySelectorAll('.jp-StatusBar-Item')]
    .map(e => e.innerText.replace(/\\s+/g, ' ').trim()).filter(t => t.includes(' | '));
  const running = [...window.__bt.panel.content.node.querySelectorAll('.jp-InputPrompt')]
    .map((e, i) => [i + 1, e.innerText.trim()]).filter(([, t]) => t.includes('[*]')).map(([i]) => i);
  return {run: window.__bt.run, status, running, pending: [...window.__bt.pending.values()],
          quietMs: Math.round(performance.now() - window.__bt.last)};
}"""

# Run All is done: every execute request sent since the click is answered, 300 ms without a
# kernel message, no [*] prompt, and the status bar shows `<kernel> | Idle`.
RUN_DONE_JS = """(idle) => {
  const bt = window.__bt;
  if (!bt.settled(300)) return false;
  if ([...bt.panel.content.node.querySelectorAll('.jp-InputPrompt')].some(e => e.innerText.includes('[*]')))
    return false;
  return [...document.querySelectorAll('.jp-StatusBar-Item')]
    .some(e => e.innerText.replace(/\\s+/g, ' ').trim() === idle);
}"""

# Every code cell ran: each has an execution count.
ALL_RAN_JS = """() => {
  const cells = window.__bt.panel.content.model.cells;
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type === 'code' && cell.sharedModel.getSource().trim() && !cell.executionCount) return false;
  }
  return true;
}"""

# Errors: error outputs in the cell models, IOPub error messages (also those of widget
# callbacks), error-typed outputs in the DOM, and widget views that failed to render.
# JupyterLab 4.6 renders error outputs with data-mime-type application/vnd.jupyter.stderr,
# like plain stderr, so the DOM alone cannot tell an error from a warning; the model can.
ERRORS_JS = """() => {
  const bt = window.__bt, cells = bt.panel.content.model.cells, found = [];
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type !== 'code') continue;
    for (let j = 0; j < cell.outputs.length; j++) {
      const out = cell.outputs.get(j).toJSON();
      if (out.output_type === 'error') {
        const first = cell.sharedModel.getSource().split('\\n')[0].slice(0, 80);
        found.push(`cell ${i + 1} (${first}): ${out.ename}: ${out.evalue}`.slice(0, 300));
      }
    }
  }
  const node = bt.panel.content.node;
  const dom = [...node.querySelectorAll('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"]')]
    .map(e => e.innerText.slice(0, 300));
  const widget = [...node.querySelectorAll('.jp-OutputArea-output')]
    .filter(e => (e.innerText || '').includes('Error displaying widget')).map(e => e.innerText.slice(0, 200));
  return {cells: found, iopub: bt.errors.slice(), dom, widget};
}"""

# The widget cells (code cells with a widget-view output), each scrolled into view in turn:
# what its output area shows. A cell whose outputs hold a slider and an image is an
# interactive figure; it gets data-bt-figure="k" for the locators. For each image: its
# natural width, its bounding box on screen after scrolling it into view, its pixels' hash.
# `text` is what the cell shows instead of a picture: the widget's text repr or an error.
# An image or notice already wholly in the window is not scrolled (nor two frames awaited):
# scrolling it would not change what is measured.
FIGURES_JS = """async () => {
  const bt = window.__bt, nb = bt.panel.content, cells = nb.model.cells;
  const frames = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const inView = e => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; };
  const show = async e => { if (!inView(e)) { e.scrollIntoView({block: 'center'}); await frames(); } };
  const cellsOut = [];
  nb.node.querySelectorAll('[data-bt-figure]').forEach(e => e.removeAttribute('data-bt-figure'));
  let k = 0;
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type !== 'code') continue;
    let views = 0;
    for (let j = 0; j < cell.outputs.length; j++)
      if ((cell.outputs.get(j).data || {})['application/vnd.jupyter.widget-view+json']) views++;
    if (!views) continue;
    await nb.scrollToItem(i, 'auto');
    await frames();
    const area = nb.widgets[i].node.querySelector('.jp-Cell-outputArea');
    const images = [];
    for (const img of area.querySelectorAll('img')) {
      await show(img);
      const r = img.getBoundingClientRect();
      const onScreen = r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < window.innerHeight;
      images.push({natural: img.naturalWidth, width: Math.round(r.width), height: Math.round(r.height),
                   onScreen, hash: bt.hash(img)});
    }
    const sliders = area.querySelectorAll('.widget-slider').length;
    const isFigure = sliders > 0 && area.querySelector('.jupyter-widgets img');
    const n = area.querySelector('.panpriv-dead-notice');
    if (n && n.getBoundingClientRect().height > 0) await show(n);   // display:none while live
    const notice = n ? {height: Math.round(n.getBoundingClientRect().height),
                        text: n.innerText.replace(/\\s+/g, ' ').trim().slice(0, 120)} : null;
    if (isFigure) area.setAttribute('data-bt-figure', String(k++));
    const text = (area.innerText || '').includes('VBox(') || (area.innerText || '').includes('Error displaying widget')
      ? area.innerText.slice(0, 200) : null;
    cellsOut.push({cell: i + 1, views, figure: isFigure ? k - 1 : null, sliders, images, text, notice,
                   rendered: area.querySelectorAll('.jupyter-widgets').length});
  }
  return cellsOut;
}"""

# The notebook's document: modified (the ● on its tab), savable, and the toolbar's read-only sign.
DOCUMENT_JS = """() => {
  const panel = window.__bt.panel;
  return {dirty: panel.context.model.dirty, canSave: panel.context.canSave,
          writable: panel.context.contentsModel && panel.context.contentsModel.writable,
          readOnlySign: !!panel.node.querySelector('[data-jp-item-name="read-only-indicator"]'),
          tabModified: panel.title.className.includes('jp-mod-dirty')};
}"""

# The answers of the Check yourself questions (<details> in markdown cells), each markdown
# cell scrolled into view (the windowed notebook renders only what is near the screen): closed,
# their body hidden; a click on the summary opens them.
ANSWERS_JS = """async () => {
  const frames = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const nb = window.__bt.panel.content, cells = nb.model.cells, found = [];
  const body = d => [...d.children].filter(c => c.tagName !== 'SUMMARY')
    .some(c => c.getBoundingClientRect().height > 0 && c.checkVisibility());
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type !== 'markdown' || !cell.sharedModel.getSource().includes('<details')) continue;
    await nb.scrollToItem(i, 'center');
    await frames();
    for (const d of nb.widgets[i].node.querySelectorAll('details')) {
      const before = {open: d.open, body: body(d)};
      d.querySelector('summary').click();
      await frames();
      found.push({cell: i + 1, before, after: {open: d.open, body: body(d)}});
    }
  }
  return found;
}"""

# Close the notebook (as its tab's close button does); true once it is gone.
CLOSE_JS = """() => { window.__bt.panel.close(); }"""
CLOSED_JS = """() => window.__bt.panel.isDisposed"""
# Closed, or asking. JupyterLab's document manager (DocumentWidgetManager.onClose) awaits
# every dialog of a close ("Save changes?", "Save as?", "Close without saving?") before it
# disposes the notebook, and disposes it only when the answer lets it close: once the
# notebook is disposed, its close can no longer ask anything.
CLOSED_OR_ASKING_JS = """() => window.__bt.panel.isDisposed || !!document.querySelector('.jp-Dialog')"""
DIALOG_JS = """() => { const d = document.querySelector('.jp-Dialog');
  return d ? {text: d.innerText.replace(/\\s+/g, ' ').trim(),
              buttons: [...d.querySelectorAll('.jp-Dialog-button')].map(b => b.innerText.trim())} : null; }"""

# Slider `k` of figure `f`: remember its readout and the figure's pictures; scroll its
# handle into view if needed and focus it, as Playwright's scroll_into_view_if_needed() and
# focus() do (one round trip instead of several before each key press).
SNAP_JS = """([f, k]) => {
  const bt = window.__bt, fig = document.querySelector(`[data-bt-figure="${f}"]`);
  const slider = fig.querySelectorAll('.widget-slider')[k];
  const handle = slider.querySelector('.noUi-handle'), readout = slider.querySelector('.widget-readout');
  const label = slider.querySelector('.widget-label');
  const snap = {
    label: label ? label.innerText.trim() : `slider ${k + 1}`,
    readout: readout ? readout.innerText.trim() : handle.getAttribute('aria-valuenow'),
    now: parseFloat(handle.getAttribute('aria-valuenow')),
    max: parseFloat(handle.getAttribute('aria-valuemax')),
    hashes: [...fig.querySelectorAll('.jupyter-widgets img')].map(bt.hash),
  };
  bt.snap = snap;
  handle.scrollIntoViewIfNeeded();
  handle.focus();
  if (document.activeElement !== handle) throw new Error(`slider ${k + 1} of figure ${f + 1}: its handle takes no focus`);
  return {label: snap.label, readout: snap.readout, now: snap.now, max: snap.max, images: snap.hashes.length};
}"""

# What changed since SNAP_JS: the readout, and the pictures (all loaded, one with new pixels),
# and each picture's size on screen.
CHANGED_JS = """([f, k]) => {
  const bt = window.__bt, snap = bt.snap, fig = document.querySelector(`[data-bt-figure="${f}"]`);
  if (!fig) return {readoutChanged: false, imageChanged: false, readout: null, sizes: []};
  const slider = fig.querySelectorAll('.widget-slider')[k];
  const readout = slider.querySelector('.widget-readout');
  const value = readout ? readout.innerText.trim() : slider.querySelector('.noUi-handle').getAttribute('aria-valuenow');
  const imgs = [...fig.querySelectorAll('.jupyter-widgets img')];
  const hashes = imgs.map(bt.hash);
  const imageChanged = imgs.length >= snap.hashes.length && hashes.every(h => h !== null)
    && hashes.some((h, i) => h !== snap.hashes[i]);
  const sizes = imgs.map(i => { const r = i.getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)]; });
  return {readoutChanged: value !== snap.readout, imageChanged, readout: value, sizes};
}"""

# Once both changed and the new picture's load event was timed: that timing and the
# pictures' sizes on screen; else false.
CHANGED_PREDICATE_JS = f"""(fk) => {{ const c = ({CHANGED_JS})(fk), press = window.__bt.press;
  return c.readoutChanged && c.imageChanged && press && press.loaded !== null && {{press, sizes: c.sizes}}; }}"""

# ------------------------------------------------------------------ helpers


def _record_times(name: str, entry: dict) -> None:
    """Merge `entry` under `name` into browser_redraw_times.json (locked, atomic)."""
    ARTIFACTS_DIR.mkdir(parents=True, exist_ok=True)
    with open(ARTIFACTS_DIR / ".browser_redraw_times.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            data = json.loads(REDRAW_TIMES_JSON.read_text())
            if not isinstance(data, dict):
                data = {}
        except (OSError, ValueError):
            data = {}
        data[name] = entry
        tmp = REDRAW_TIMES_JSON.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
        os.replace(tmp, REDRAW_TIMES_JSON)


def _wait(page, js: str, arg, timeout_s: float, message, polling=POLL_MS):
    """page.wait_for_function, failing with message() (evaluated at timeout) instead of a bare
    timeout; the truthy value the function returned."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        return page.wait_for_function(js, arg=arg, timeout=timeout_s * 1000, polling=polling).json_value()
    except PlaywrightTimeout:
        pytest.fail(message(), pytrace=False)


def _screenshot(page, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        page.evaluate("""() => { const f = document.querySelector('[data-bt-figure="0"]');
                                 if (f) (f.closest('.jp-Cell') || f).scrollIntoView({block: 'start'}); }""")
        page.screenshot(path=str(path))
    except Exception as exc:  # the page may be gone; the test's own error matters more
        print(f"(screenshot failed: {exc})")


def _format_errors(errors: dict) -> str:
    lines = [f"  error output in {e}" for e in errors["cells"]]
    lines += [f"  error message from the kernel: {e}" for e in errors["iopub"]]
    lines += [f"  rendered error: {e}" for e in errors["dom"]]
    lines += [f"  widget failed to render: {e}" for e in errors["widget"]]
    return "\n".join(lines)


def _not_drawn(cells: list[dict], figures_only: bool) -> list[str]:
    """What FIGURES_JS saw that a user would not call a picture on screen."""
    problems = []
    for c in cells:
        if figures_only and c["figure"] is None:
            continue
        if c["text"]:
            problems.append(f"cell {c['cell']} shows text instead of a picture: {c['text']!r}")
        elif not c["images"]:
            problems.append(f"cell {c['cell']} shows no picture ({c['rendered']} widget views rendered)")
        for image in c["images"]:
            if not (image["width"] > 0 and image["height"] > 0 and image["onScreen"] and image["hash"]):
                problems.append(f"cell {c['cell']}: a picture drawn {image['width']} x {image['height']} px "
                                f"(natural width {image['natural']}, on screen: {image['onScreen']})")
    return problems


def _source(cell: dict) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def _stretched(cells: list[dict]) -> list[str]:
    """Pictures of interactive figures not drawn at their own size (one CSS pixel per pixel)."""
    return [f"cell {c['cell']}: a {image['natural']} px picture drawn {image['width']} px wide"
            for c in cells if c["figure"] is not None for image in c["images"]
            if abs(image["width"] - image["natural"]) > 1]


def _notices(cells: list[dict], shown: bool, expected: int = 1) -> list[str]:
    """Interactive figures whose "run this cell" notice is not as expected (shown or hidden),
    or a complaint when fewer than `expected` interactive figures are on the page."""
    found = sum(c["figure"] is not None for c in cells)
    wrong = [f"{found} interactive figures on the page, expected {expected}"] if found < expected else []
    for c in cells:
        if c["figure"] is None:
            continue
        notice = c["notice"] or {"height": 0, "text": "(no notice in the panel)"}
        visible = notice["height"] > 0 and DEAD_NOTICE in notice["text"]
        if visible != shown:
            wrong.append(f"cell {c['cell']}: notice {'hidden' if shown else 'shown'}: {notice}")
    return wrong


def _close(page, name: str):
    """Close the notebook as its tab's close button does and wait until it is closed or
    JupyterLab asks (see CLOSED_OR_ASKING_JS); the dialog shown (its text and buttons), or
    None when the notebook closed without asking."""
    page.evaluate(CLOSE_JS)
    _wait(page, CLOSED_OR_ASKING_JS, None, DIALOG_TIMEOUT_S,
          lambda: f"{name}: closed, the notebook neither closed nor showed a dialog within "
                  f"{DIALOG_TIMEOUT_S} s")
    return page.evaluate(DIALOG_JS)


def _open(page, rel: str, idle: str, name: str) -> None:
    """Open `rel` from the Lab tab as the file browser does (with a new kernel, or the one
    still running when it is reopened); wait until it is the current widget, connected to its
    kernel, with `<kernel> | Idle` in the status bar; attach INSTALL_JS."""
    page.evaluate(OPEN_JS, rel)
    _wait(page, OPENED_JS, [rel, idle], KERNEL_READY_TIMEOUT_S,
          lambda: f"{name}: expected {rel} open with its kernel and the status bar showing '{idle}' within "
                  f"{KERNEL_READY_TIMEOUT_S} s; status bar shows {page.evaluate(STATUS_BAR_JS)}")
    path = page.evaluate(INSTALL_JS)
    assert path == rel, f"expected Lab to open {rel}, its current notebook is {path}"


def _new_files(folder: Path, before: set) -> list[str]:
    """Files in `folder` that were not there before, but for git-ignored checkpoints."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                  if p.is_file() and ".ipynb_checkpoints" not in p.parts and p not in before)


def _figures_when_drawn(page, name: str, what: str, figures_only: bool) -> list[dict]:
    """FIGURES_JS once every widget cell shows its pictures (polling up to WIDGETS_TIMEOUT_S);
    fails naming what is not drawn."""
    deadline = time.monotonic() + WIDGETS_TIMEOUT_S
    while True:
        cells = page.evaluate(FIGURES_JS)
        problems = _not_drawn(cells, figures_only)
        if cells and not problems:
            return cells
        if time.monotonic() > deadline:
            pytest.fail(f"{name} {what}: expected every {'interactive figure' if figures_only else 'widget cell'} "
                        f"drawn at a non-zero size on screen within {WIDGETS_TIMEOUT_S} s; "
                        f"{problems or 'no widget cell found'}", pytrace=False)
        time.sleep(POLL_MS / 1000)


def _time_one_redraw(page, name: str, f: int, k: int, key: str, snap: dict) -> float:
    """Press `key` on slider `k` of figure `f` (SNAP_JS took `snap` and focused its handle);
    wait for a new readout, new pixels and the new image's load event (failing with what was
    seen); check the picture's size on screen; return the milliseconds from the key press to
    that load event, both timed in the page."""
    page.keyboard.press(key)
    after = _wait(page, CHANGED_PREDICATE_JS, [f, k], REDRAW_TIMEOUT_S,
                  lambda: f"{name}: after {key} on slider '{snap['label']}' of figure {f + 1} (readout "
                          f"{snap['readout']!r}) expected the readout and the picture to change and the new "
                          f"image's load to be recorded within {REDRAW_TIMEOUT_S} s; seen "
                          f"{page.evaluate(CHANGED_JS, [f, k])}, key press "
                          f"{page.evaluate('() => window.__bt.press')}; errors:\n"
                          f"{_format_errors(page.evaluate(ERRORS_JS))}",
                  polling="raf")
    press = after["press"]
    if not all(w > 0 and h > 0 for w, h in after["sizes"]):
        pytest.fail(f"{name}: after {key} on slider '{snap['label']}' of figure {f + 1} the picture is drawn "
                    f"at {after['sizes']} px", pytrace=False)
    return round(press["loaded"] - press["at"], 1)


def _run_all_from_the_menu(page) -> None:
    page.locator(".lm-MenuBar-item", has_text="Run").first.click()
    page.locator(".lm-Menu-item", has_text="Run All Cells").first.click()


def _console_errors(page) -> str:
    return "\n".join(f"  {e}" for e in page.console_errors)


def _no_console_errors(page, name: str) -> None:
    page.console_errors[:] = [e for e in page.console_errors if CANCELLED_REQUEST not in e]
    if page.console_errors:
        pytest.fail(f"{name}: expected no error in the page's console, got:\n{_console_errors(page)}",
                    pytrace=False)


# ------------------------------------------------------------------ the test


def test_lecture_figures_are_drawn_and_redraw_in_jupyterlab(lecture: Path, request):
    require_browser()  # skip, or fail under CI=true, before starting anything
    lab_server = request.getfixturevalue("lab_server")
    lab_page = request.getfixturevalue("lab_page")
    page = lab_page.get()
    name = lecture.stem
    rel = f"lectures/{lecture.name}"
    shot = SCREENSHOT_DIR / f"{name}.png"
    stored = json.loads(lecture.read_text(encoding="utf-8"))
    kernel_name = stored.get("metadata", {}).get("kernelspec", {}).get("name")
    idle = f"{lab_server.kernel_display_name(kernel_name)} | Idle"
    timings: dict = {"server_start_s": round(lab_server.start_seconds, 2)}
    served = lab_server.root / rel                      # the copy JupyterLab serves
    served_bytes, files_before = served.read_bytes(), {p for p in served.parent.rglob("*") if p.is_file()}
    t_test = time.perf_counter()
    try:
        # 1. the notebook as stored: widget cells show their default figure as a picture; it
        #    is read-only and unmodified, and closing it asks nothing
        t0 = time.perf_counter()
        _open(page, rel, idle, name)
        timings["kernel_ready_s"] = round(time.perf_counter() - t0, 2)
        t0 = time.perf_counter()
        _figures_when_drawn(page, name, "as stored, before running", figures_only=False)
        document = page.evaluate(DOCUMENT_JS)
        assert document == {"dirty": False, "canSave": False, "writable": False, "readOnlySign": True,
                            "tabModified": False}, f"{name}: opened, expected a read-only, unmodified " \
                                                   f"notebook; got {document}"
        answers = page.evaluate(ANSWERS_JS)
        expected = sum(_source(c).count("<details") for c in stored["cells"] if c["cell_type"] == "markdown")
        wrong = [a for a in answers if a["before"] != {"open": False, "body": False}
                 or a["after"] != {"open": True, "body": True}]
        assert len(answers) == expected and not wrong, \
            f"{name}: expected {expected} answers, collapsed and opened by a click; got {answers}"
        dialog = _close(page, name)
        assert dialog is None and page.evaluate(CLOSED_JS), \
            f"{name}: closing a lecture only read showed a dialog: {dialog}"
        _open(page, rel, idle, name)
        timings["as_stored_s"] = round(time.perf_counter() - t0, 2)    # read, closed, reopened

        # 2. Run > Run All Cells, from the menu; wait for every cell and its widgets
        t0 = time.perf_counter()
        _run_all_from_the_menu(page)
        _wait(page, f"(idle) => ({ALL_RAN_JS})() && ({RUN_DONE_JS})(idle)", idle, RUN_ALL_TIMEOUT_S,
              lambda: f"{name}: Run All did not finish within {RUN_ALL_TIMEOUT_S} s (expected every code cell "
                      f"run, no request pending, no [*] prompt and '{idle}'); seen {page.evaluate(STATUS_JS)}")
        timings["run_all_s"] = round(time.perf_counter() - t0, 2)
        errors = page.evaluate(ERRORS_JS)
        if any(errors.values()):
            pytest.fail(f"{name}: expected Run All to produce no errors, got:\n{_format_errors(errors)}",
                        pytrace=False)

        # 3. every interactive figure drawn on screen at a non-zero size
        t0 = time.perf_counter()
        cells = _figures_when_drawn(page, name, "after Run All", figures_only=True)
        figures = [c for c in cells if c["figure"] is not None]
        timings["widgets_s"] = round(time.perf_counter() - t0, 2)
        assert not _stretched(cells), f"{name}: pictures not at their own size: {_stretched(cells)}"
        assert not _notices(cells, shown=False, expected=len(figures)), \
            f"{name}: live figures: {_notices(cells, shown=False)}"
        panels = sum("".join(c["source"]).count("parameter_panel(") for c in stored["cells"]
                     if c["cell_type"] == "code")
        assert len(figures) >= max(panels, 1), \
            f"{name}: expected {panels} interactive figures (parameter_panel calls), found {cells}"

        # 4. each slider of each figure: an arrow-key step redraws the figure (PRESSES steps,
        #    alternately away and back; the median of all but the first is recorded)
        t0 = time.perf_counter()
        redraws = {}
        for figure in figures:
            f = figure["figure"]
            entry = redraws.setdefault(f"figure {f + 1}", {})
            for k in range(figure["sliders"]):
                times = []
                snap = page.evaluate(SNAP_JS, [f, k])
                away = "ArrowLeft" if snap["now"] >= snap["max"] else "ArrowRight"
                back = "ArrowRight" if away == "ArrowLeft" else "ArrowLeft"
                for press in range(PRESSES):
                    if press:
                        snap = page.evaluate(SNAP_JS, [f, k])
                    times.append(_time_one_redraw(page, name, f, k, back if press % 2 else away, snap))
                times = times[1:]
                entry[snap["label"]] = {"median": statistics.median(times), "max": max(times)}
                print(f"{name}: figure {f + 1}, slider '{snap['label']}': new image after "
                      f"{statistics.median(times):.0f} ms (median of {len(times)} arrow-key steps; "
                      f"slowest {max(times):.0f} ms)")
        _wait(page, RUN_DONE_JS, idle, REDRAW_TIMEOUT_S,  # callbacks done, their errors arrived
              lambda: f"{name}: expected the kernel to finish the callbacks and show '{idle}' within "
                      f"{REDRAW_TIMEOUT_S} s after the slider redraws; seen {page.evaluate(STATUS_JS)}")
        errors = page.evaluate(ERRORS_JS)
        if any(errors.values()):
            pytest.fail(f"{name}: expected the slider callbacks to raise nothing, got:\n"
                        f"{_format_errors(errors)}", pytrace=False)
        timings["redraw_ms"] = redraws
        timings["sliders_s"] = round(time.perf_counter() - t0, 2)
        _screenshot(page, shot)

        # 5. the kernel restarted: every interactive figure says, in its panel, to run its cell
        #    again
        _no_console_errors(page, name)
        t0 = time.perf_counter()
        page.evaluate("async () => { await window.__bt.panel.sessionContext.restartKernel(); }")
        deadline = time.monotonic() + WIDGETS_TIMEOUT_S
        while _notices(cells := page.evaluate(FIGURES_JS), shown=True, expected=len(figures)):
            if time.monotonic() > deadline:
                pytest.fail(f"{name}: after a kernel restart, expected every interactive figure to say "
                            f"'{DEAD_NOTICE}'; {_notices(cells, shown=True, expected=len(figures))}",
                            pytrace=False)
            time.sleep(POLL_MS / 1000)
        timings["restart_s"] = round(time.perf_counter() - t0, 2)
        page.evaluate("() => document.querySelector('.panpriv-dead-notice').scrollIntoView({block: 'center'})")
        page.screenshot(path=str(SCREENSHOT_DIR / f"{name}-restarted.png"))

        # 6. closed after the run: JupyterLab offers "Save as", not "Save" (the lecture is
        #    read-only); the test discards. Reopened, the lecture shows its stored pictures
        #    and no controls until it is run again
        t0 = time.perf_counter()
        dialog = _close(page, name)
        assert dialog and dialog["buttons"][-1] == "Save as" and "Save" not in dialog["buttons"], \
            f"{name}: closing the run lecture, expected a dialog offering 'Save as' only; got {dialog}"
        page.locator(".jp-Dialog-button", has_text="Discard").click()
        _wait(page, CLOSED_JS, None, DIALOG_TIMEOUT_S, lambda: f"{name}: the notebook did not close")
        _open(page, rel, idle, name)
        cells = _figures_when_drawn(page, name, "closed and reopened", figures_only=False)
        controls = [c["cell"] for c in cells if c["sliders"]]
        assert not controls, f"{name}: reopened, cells {controls} show controls with no figure behind them"
        timings["reopen_s"] = round(time.perf_counter() - t0, 2)
        dialog = _close(page, name)          # the Lab tab is left as it was found, for the next lecture
        assert dialog is None, f"{name}: closing the reopened lecture showed a dialog: {dialog}"

        # 7. nothing went wrong in the page's console; the lecture is as it was
        _no_console_errors(page, name)
        assert served.read_bytes() == served_bytes, \
            f"{name}: the lecture's file changed while it was opened, run and closed"
        assert not _new_files(served.parent, files_before), \
            f"{name}: new files beside the lectures: {_new_files(served.parent, files_before)}"
    except BaseException:
        _screenshot(page, shot)
        print(f"{name}: screenshot of the failure in {shot}; console errors:\n{_console_errors(page)}")
        lab_page.discard()                   # a dialog or a notebook may be left open: a fresh tab next
        raise
    finally:
        lab_server.shutdown_kernels()

    timings["test_s"] = round(time.perf_counter() - t_test, 2)
    timings["measured_at"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    _record_times(name, timings)
    print(f"{name}: {json.dumps(timings)}; screenshot {shot}")


# ------------------------------------------------------------------ the server and the screen


def test_make_lab_serves_the_lectures_read_only_and_saves_no_widget_state(request):
    """Through JupyterLab's REST API, as any client (autosave included) writes: a lecture is
    served as not writable, writing it is refused with a message that says how to keep a run,
    and the widget manager's saveState is off (it would mark every notebook modified on open)."""
    require_browser()
    lab_server = request.getfixturevalue("lab_server")
    rel = f"lectures/{sorted(p.name for p in (lab_server.root / 'lectures').glob('*.ipynb'))[0]}"
    model = lab_server.api("GET", f"/api/contents/{rel}")
    assert model["writable"] is False
    put = urllib.request.Request(f"{lab_server.base_url}/api/contents/{rel}", method="PUT",
                                 data=json.dumps({"type": "notebook", "format": "json",
                                                  "content": model["content"]}).encode(),
                                 headers={"Authorization": f"token {lab_server.token}"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(put, timeout=10)
    assert refused.value.code == 403
    assert "File › Save As… and save it in my_work/" in json.loads(refused.value.read())["message"]
    settings = lab_server.api("GET", "/lab/api/settings/@jupyter-widgets/jupyterlab-manager:plugin")
    assert json.loads(settings["raw"] or "{}").get("saveState") is None          # the user chose nothing
    assert settings["schema"]["properties"]["saveState"]["default"] is False       # make lab's default


def _line_limit() -> int:
    spec = importlib.util.spec_from_file_location("line_lengths", REPO_ROOT / "tests" / "test_line_lengths.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.LINE_LIMIT


# How many characters of the notebook's monospace font fit the first text output and the first
# code editor, and how wide the file browser is.
FIT_JS = """() => {
  const pre = document.querySelector('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stdout"] pre');
  const editor = document.querySelector('.jp-CodeCell .cm-content');
  const fit = (node) => {
    const probe = document.createElement('span');
    probe.textContent = '0'.repeat(100);
    probe.style.font = getComputedStyle(node).font;
    probe.style.whiteSpace = 'pre';
    document.body.appendChild(probe);
    const width = probe.getBoundingClientRect().width / 100;
    probe.remove();
    const style = getComputedStyle(node);
    const inner = node.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return {chars: Math.floor(inner / width), px: Math.round(inner), charPx: width, font: style.font};
  };
  const browser = document.querySelector('#filebrowser');
  return {output: pre ? fit(pre) : null, code: editor ? fit(editor) : null,
          fileBrowser: browser ? Math.round(browser.getBoundingClientRect().width) : 0};
}"""


def test_lines_of_the_line_limit_fit_jupyterlab_at_1280px_with_the_file_browser_open(request):
    """Measured once per run: what tests/test_line_lengths.py's rule assumes."""
    require_browser()
    lab_server = request.getfixturevalue("lab_server")
    lab_page = request.getfixturevalue("lab_page")
    page = lab_page.get()                     # no notebook open in it: the lecture tests close theirs
    with_output = next(p for p in sorted((lab_server.root / "lectures").glob("*.ipynb"))
                       if '"name": "stdout"' in p.read_text(encoding="utf-8"))
    page.set_viewport_size({"width": 1280, "height": 720})
    try:
        page.evaluate(OPEN_JS, f"lectures/{with_output.name}")
        page.wait_for_selector('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stdout"] pre',
                               timeout=KERNEL_READY_TIMEOUT_S * 1000)
        fits = page.evaluate(FIT_JS)
        page.evaluate("() => window.jupyterapp.shell.currentWidget.close()")   # unmodified: asks nothing
        page.wait_for_function("() => !document.querySelector('.jp-NotebookPanel')",
                               timeout=DIALOG_TIMEOUT_S * 1000)
        page.set_viewport_size(VIEWPORT)
    except BaseException:
        lab_page.discard()
        raise
    print(f"\nat 1280 px with the file browser open ({fits['fileBrowser']} px): {fits}")
    limit = _line_limit()
    assert fits["fileBrowser"] > 0, "the file browser is not open"
    assert fits["output"]["chars"] >= limit and fits["code"]["chars"] >= limit, \
        f"lines of {limit} characters do not fit at 1280 px: {fits}"
    lab_server.shutdown_kernels()
