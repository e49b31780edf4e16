"""Every lecture with widgets, run in JupyterLab in a real (headless) Chromium.

For each lecture notebook that uses ipywidgets: open it in JupyterLab, wait for the kernel,
clear the stored outputs and run all cells, assert that nothing raised, wait for every widget
to render, then move each slider of every interactive figure by six arrow-key steps
(away, back, ...) and assert that its readout and the figure both change each time. The
median key-press-to-new-image time per slider (timed in the page; the first step is a
warm-up) is printed and merged into test-artifacts/browser_redraw_times.json (read by
benchmarks/bench_widgets.py); a screenshot goes to test-artifacts/browser/<lecture>.png
(on failure too).

Run alone:  .venv/bin/python -m pytest tests/browser -s
Fixtures, skip rules and the development override PANPRIV_BROWSER_ROOT: see conftest.py.
"""
from __future__ import annotations

import datetime as _dt
import fcntl
import json
import os
import statistics
import time
from pathlib import Path

import pytest

from .conftest import ARTIFACTS_DIR, LAB_ROOT, require_browser

pytestmark = pytest.mark.browser

KERNEL_READY_TIMEOUT_S = 60
RUN_ALL_TIMEOUT_S = 120
WIDGETS_TIMEOUT_S = 30
REDRAW_TIMEOUT_S = 30
PRESSES = 6                 # arrow-key steps per slider: the first warms up, the others are timed
POLL_MS = 50                # how often the test checks the page (redraws are timed in the page)
REDRAW_TIMES_JSON = ARTIFACTS_DIR / "browser_redraw_times.json"
SCREENSHOT_DIR = ARTIFACTS_DIR / "browser"

# ------------------------------------------------------------------ in-page helpers

# Attach to the notebook that Lab opened. Track the kernel's work by message: every shell
# request sent is pending until the kernel's `idle` status with that parent arrives. (With
# ipykernel 7 the status bar can read Idle while a widget callback still runs, because the
# idle of a concurrent comm message arrives first.) Record every IOPub `error` message: errors
# of cells and of widget callbacks that print into an Output widget.
INSTALL_JS = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  if (!panel || !panel.content || !panel.content.model || !panel.sessionContext)
    throw new Error('the current Lab widget is not a notebook: ' + (panel && panel.title.label));
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  if (!kernel) throw new Error('the notebook has no kernel connection');
  const bt = window.__bt = {panel, errors: [], pending: new Map(), last: performance.now(), run: null, snap: null};
  kernel.anyMessage.connect((_, {msg, direction}) => {
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
  // Redraw timing in the page itself, independent of how often the test polls: the time of
  // the key press, and of the first image that then finishes loading in the figure pressed.
  bt.press = null;
  document.addEventListener('keydown', e => {
    const fig = e.target.closest && e.target.closest('[data-bt-figure]');
    bt.press = fig ? {figure: fig.getAttribute('data-bt-figure'), at: performance.now(), loaded: null} : null;
  }, true);
  document.addEventListener('load', e => {
    const p = bt.press;
    if (p && p.loaded === null && e.target.tagName === 'IMG'
        && e.target.closest(`[data-bt-figure="${p.figure}"]`)) p.loaded = performance.now();
  }, true);
  return panel.context.path;
}"""

RUN_ALL_JS = """async () => {
  const app = window.jupyterapp, bt = window.__bt;
  app.shell.activateById(bt.panel.id);
  await app.commands.execute('notebook:clear-all-cell-outputs');
  bt.run = {done: false};
  app.commands.execute('notebook:run-all-cells').then(
    r => { bt.run = {done: true, result: r}; },
    e => { bt.run = {done: true, error: String(e)}; });
}"""

STATUS_JS = """() => {
  const status = [...document.querySelectorAll('.jp-StatusBar-Item')]
    .map(e => e.innerText.replace(/\\s+/g, ' ').trim()).filter(t => t.includes(' | '));
  const running = [...window.__bt.panel.content.node.querySelectorAll('.jp-InputPrompt')]
    .map((e, i) => [i + 1, e.innerText.trim()]).filter(([, t]) => t.includes('[*]')).map(([i]) => i);
  return {run: window.__bt.run, status, running, pending: [...window.__bt.pending.values()],
          quietMs: Math.round(performance.now() - window.__bt.last)};
}"""

# Done: Run All resolved, every request answered and 300 ms without a kernel message, no [*]
# prompt, and the status bar shows `<kernel> | Idle`.
RUN_DONE_JS = """(idle) => {
  const bt = window.__bt;
  if (!bt.run || !bt.run.done || !bt.settled(300)) return false;
  if ([...bt.panel.content.node.querySelectorAll('.jp-InputPrompt')].some(e => e.innerText.includes('[*]')))
    return false;
  return [...document.querySelectorAll('.jp-StatusBar-Item')]
    .some(e => e.innerText.replace(/\\s+/g, ' ').trim() === idle);
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

# Widget views: how many the cell models hold, how many are rendered, and the interactive
# figures (a top-level widget view holding a slider and an image; failing that, a cell's
# output area holding both). The figures get data-bt-figure="k" for the locators.
WIDGETS_JS = """() => {
  const bt = window.__bt, cells = bt.panel.content.model.cells, node = bt.panel.content.node;
  let expected = 0;
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type !== 'code') continue;
    for (let j = 0; j < cell.outputs.length; j++)
      if ((cell.outputs.get(j).data || {})['application/vnd.jupyter.widget-view+json']) expected++;
  }
  const tops = [...node.querySelectorAll('.jp-Cell-outputArea > .jp-OutputArea-child > .jp-OutputArea-output')]
    .filter(e => e.querySelector(':scope > .jupyter-widgets'));
  const isFigure = e => e.querySelector('.widget-slider .noUi-handle') && e.querySelector('.jupyter-widgets img');
  let figures = tops.filter(isFigure);
  if (!figures.length) figures = [...node.querySelectorAll('.jp-Cell-outputArea')].filter(isFigure);
  node.querySelectorAll('[data-bt-figure]').forEach(e => e.removeAttribute('data-bt-figure'));
  figures.forEach((e, k) => e.setAttribute('data-bt-figure', String(k)));
  const imgs = figures.map(f => [...f.querySelectorAll('.jupyter-widgets img')]);
  return {
    expected, rendered: tops.length, figures: figures.length,
    sliders: figures.map(f => f.querySelectorAll('.widget-slider').length),
    imagesLoaded: imgs.length > 0 && imgs.every(i => i.length > 0 && i.every(img => img.complete && img.naturalWidth > 0)),
  };
}"""

# Slider `k` of figure `f`: remember its readout and the figure's images.
SNAP_JS = """([f, k]) => {
  const fig = document.querySelector(`[data-bt-figure="${f}"]`);
  const slider = fig.querySelectorAll('.widget-slider')[k];
  const handle = slider.querySelector('.noUi-handle'), readout = slider.querySelector('.widget-readout');
  const label = slider.querySelector('.widget-label');
  const snap = {
    label: label ? label.innerText.trim() : `slider ${k + 1}`,
    readout: readout ? readout.innerText.trim() : handle.getAttribute('aria-valuenow'),
    hasReadout: !!readout,
    now: parseFloat(handle.getAttribute('aria-valuenow')),
    max: parseFloat(handle.getAttribute('aria-valuemax')),
    imgs: [...fig.querySelectorAll('.jupyter-widgets img')].map(i => i.src),
  };
  window.__bt.snap = snap;
  return {label: snap.label, readout: snap.readout, hasReadout: snap.hasReadout, now: snap.now,
          max: snap.max, images: snap.imgs.length};
}"""

# What changed since SNAP_JS: the readout, and the images (a complete new set, all loaded).
CHANGED_JS = """([f, k]) => {
  const snap = window.__bt.snap, fig = document.querySelector(`[data-bt-figure="${f}"]`);
  if (!fig) return {readoutChanged: false, imageChanged: false, readout: null, images: 0};
  const slider = fig.querySelectorAll('.widget-slider')[k];
  const readout = slider.querySelector('.widget-readout');
  const value = readout ? readout.innerText.trim() : slider.querySelector('.noUi-handle').getAttribute('aria-valuenow');
  const imgs = [...fig.querySelectorAll('.jupyter-widgets img')];
  const imageChanged = imgs.length >= snap.imgs.length && imgs.every(i => i.complete && i.naturalWidth > 0)
    && imgs.some((img, i) => img.src !== snap.imgs[i]);
  return {readoutChanged: value !== snap.readout, imageChanged, readout: value, images: imgs.length};
}"""

CHANGED_PREDICATE_JS = f"(fk) => {{ const c = ({CHANGED_JS})(fk); return c.readoutChanged && c.imageChanged; }}"

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


def _wait(page, js: str, arg, timeout_s: float, message) -> None:
    """page.wait_for_function, failing with message() (evaluated at timeout) instead of a bare timeout."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(js, arg=arg, timeout=timeout_s * 1000, polling=POLL_MS)
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


def _time_one_redraw(page, name: str, f: int, k: int, key: str, snap: dict) -> float:
    """Press `key` on slider `k` of figure `f`; wait for a new readout and a new image
    (failing with what was seen); return the milliseconds from the key press to the new
    image's load event, both timed in the page."""
    handle = page.locator(f'[data-bt-figure="{f}"] .widget-slider').nth(k).locator(".noUi-handle").first
    handle.scroll_into_view_if_needed()
    handle.focus()
    page.keyboard.press(key)
    _wait(page, CHANGED_PREDICATE_JS, [f, k], REDRAW_TIMEOUT_S,
          lambda: f"{name}: after {key} on slider '{snap['label']}' of figure {f + 1} (readout {snap['readout']!r}) "
                  f"expected the readout and the figure image to change within {REDRAW_TIMEOUT_S} s; "
                  f"seen {page.evaluate(CHANGED_JS, [f, k])}; errors:\n{_format_errors(page.evaluate(ERRORS_JS))}")
    press = page.evaluate("() => window.__bt.press")
    assert press and press["loaded"] is not None, f"{name}: no image load recorded after {key}: {press}"
    ms = round(press["loaded"] - press["at"], 1)
    after = page.evaluate(CHANGED_JS, [f, k])
    if not (after["readoutChanged"] and after["imageChanged"]):
        pytest.fail(f"{name}: slider '{snap['label']}' of figure {f + 1}: expected readout and image to change, "
                    f"seen {after}", pytrace=False)
    return ms


# ------------------------------------------------------------------ the test


def test_lecture_widgets_redraw_in_jupyterlab(lecture: Path, request):
    require_browser()  # skip, or fail under CI=true, before starting anything
    lab_server = request.getfixturevalue("lab_server")
    page = request.getfixturevalue("page")
    name = lecture.stem
    rel = lecture.relative_to(LAB_ROOT).as_posix()
    shot = SCREENSHOT_DIR / f"{name}.png"
    before = lecture.read_bytes()
    kernel_name = json.loads(before).get("metadata", {}).get("kernelspec", {}).get("name")
    idle = f"{lab_server.kernel_display_name(kernel_name)} | Idle"
    timings: dict = {"server_start_s": round(lab_server.start_seconds, 2)}
    t_test = time.perf_counter()
    try:
        # 1. open the notebook in its own workspace and wait for a real kernel
        t0 = time.perf_counter()
        page.goto(lab_server.url(rel, workspace=f"browser-test-{name}"))
        status = page.locator(".jp-StatusBar-Item", has_text=idle)
        from playwright.sync_api import TimeoutError as PlaywrightTimeout
        try:
            status.first.wait_for(timeout=KERNEL_READY_TIMEOUT_S * 1000)
        except PlaywrightTimeout:
            seen = page.locator(".jp-StatusBar-Item").all_inner_texts()
            pytest.fail(f"{name}: expected the status bar to show '{idle}' within "
                        f"{KERNEL_READY_TIMEOUT_S} s; status bar shows {seen}", pytrace=False)
        path = page.evaluate(INSTALL_JS)
        assert path == rel, f"expected Lab to open {rel}, its current notebook is {path}"
        timings["kernel_ready_s"] = round(time.perf_counter() - t0, 2)

        # 2. clear the stored outputs, run all cells, wait for the end
        t0 = time.perf_counter()
        page.evaluate(RUN_ALL_JS)
        _wait(page, RUN_DONE_JS, idle, RUN_ALL_TIMEOUT_S,
              lambda: f"{name}: Run All did not finish within {RUN_ALL_TIMEOUT_S} s (expected the run "
                      f"promise done, no request pending, no [*] prompt and '{idle}'); seen {page.evaluate(STATUS_JS)}")
        timings["run_all_s"] = round(time.perf_counter() - t0, 2)
        errors = page.evaluate(ERRORS_JS)
        if any(errors.values()):
            pytest.fail(f"{name}: expected Run All to produce no errors, got:\n{_format_errors(errors)}",
                        pytrace=False)

        # 3. every widget rendered, at least one interactive figure
        t0 = time.perf_counter()
        _wait(page, f"() => {{ const s = ({WIDGETS_JS})(); return s.expected > 0 && s.rendered >= s.expected "
                    f"&& s.figures > 0 && s.sliders.every(n => n > 0) && s.imagesLoaded; }}", None, WIDGETS_TIMEOUT_S,
              lambda: f"{name}: expected every widget view to render and at least one interactive figure "
                      f"(a widget with a slider and an image) within {WIDGETS_TIMEOUT_S} s; seen "
                      f"{page.evaluate(WIDGETS_JS)}; errors:\n{_format_errors(page.evaluate(ERRORS_JS))}")
        widgets = page.evaluate(WIDGETS_JS)
        timings["widgets_s"] = round(time.perf_counter() - t0, 2)
        panels = sum(cell["source"].count("parameter_panel(") if isinstance(cell["source"], str)
                     else "".join(cell["source"]).count("parameter_panel(")
                     for cell in json.loads(before)["cells"] if cell["cell_type"] == "code")
        assert widgets["figures"] >= max(panels, 1), \
            f"{name}: expected {panels} interactive figures (parameter_panel calls), found {widgets}"

        # 4. each slider of each figure: an arrow-key step redraws the figure (PRESSES steps,
        #    alternately away and back; the median of all but the first is recorded)
        redraws = {}
        for f, sliders in enumerate(widgets["sliders"]):
            figure = redraws.setdefault(f"figure {f + 1}", {})
            for k in range(sliders):
                times = []
                snap = page.evaluate(SNAP_JS, [f, k])
                away = "ArrowLeft" if snap["now"] >= snap["max"] else "ArrowRight"
                back = "ArrowRight" if away == "ArrowLeft" else "ArrowLeft"
                for press in range(PRESSES):
                    if press:
                        snap = page.evaluate(SNAP_JS, [f, k])
                    times.append(_time_one_redraw(page, name, f, k, back if press % 2 else away, snap))
                times = times[1:]
                figure[snap["label"]] = {"median": statistics.median(times), "max": max(times)}
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
        _screenshot(page, shot)
    except BaseException:
        _screenshot(page, shot)
        print(f"{name}: screenshot of the failure in {shot}")
        raise
    finally:
        lab_server.shutdown_kernels()
        assert lecture.read_bytes() == before, f"{rel} was modified on disk by the browser test"

    timings["test_s"] = round(time.perf_counter() - t_test, 2)
    timings["measured_at"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    _record_times(name, timings)
    print(f"{name}: {json.dumps(timings)}; screenshot {shot}")
