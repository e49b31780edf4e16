"""A fresh run of each lecture and solution notebook gives the outputs stored with it.

This is nbval's comparison made stricter, and `make test` runs it instead of running the
lectures and solutions under nbval as well (each run of all of them costs about two CPU-
minutes). Each notebook is executed once in a fresh kernel (in memory; nothing is written)
and compared with its stored outputs cell by cell on everything they hold: text, HTML,
figures (PNG bytes) and the widget state (slider values and the figures drawn into Image
widgets), with only the widget model ids renamed in order of appearance (they are random
by design) and memory addresses masked as tests/nbval_sanitize.cfg does. nbval ignores
images and the cells tagged nbval-ignore-output; this test does not, so it also shows that
- the nbval-ignore-output tag sits only on cells that display widgets, and hides nothing
  but their random model ids (DESIGN.md: "marked so nbval ignores them, and nothing else");
- the only figures allowed to differ are those of cells tagged `timing` (they plot times
  measured on the machine; their text is still compared);
- every interactive figure draws the same image in the figure its panel reuses as in a new
  one, at its defaults and with each control at its ends (PANEL_CHECK);
- and, in the same run, no legend of an interactive figure covers its data or runs past the
  figure's edge at any of those settings (`plots.legend_overlaps`), and every slider starts
  where one arrow-key step either way changes the figure (not at an end of its range).

Figures are compared byte for byte with the stored ones when the installed packages are
those the notebook was stored with (`executed_with` in its metadata, written by `make
notebooks`). Otherwise the stored figures come from other versions of matplotlib or Pillow:
the stored outputs are compared without images, and the figures of a second fresh run with
those of the first (the figures are still shown to be a function of the notebook alone).
The last test runs the instructor guide's own nbval command on one lecture.
"""
from __future__ import annotations

import base64
import copy
import functools
import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from panpriv_teach.classroom.notebooks import EXECUTED_WITH, notebook_client, output_environment

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "lectures").glob("[0-9]*.ipynb")) + sorted((ROOT / "solutions").glob("[0-9]*.ipynb"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
IGNORE, TIMING = "nbval-ignore-output", "timing"
ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")      # as tests/nbval_sanitize.cfg
REFERENCE = re.compile(r"IPY_MODEL_([0-9a-f]+)")


# Appended to a lecture's run: every parameter panel redraws at its defaults and with each
# control at its ends (dropdowns: every option), once in a new figure and once in the
# figure the panel reuses (emptied of an earlier drawing, `plots.panel_figures`); the PNGs
# must be identical. When they are not, a second new figure tells why: a draw that is not a
# function of its parameters alone (a fresh simulation at every move) is listed as such and
# not compared further.
PANEL_CHECK = """
import json as _json, math as _math, ipywidgets as _w, matplotlib.pyplot as _plt
from panpriv_teach import plots as _plots, widgets as _widgets

def _render(panel, values, kept, legends_of=None):
    before = set(_plt.get_fignums())
    with _plots.panel_figures(kept) as made:
        panel.draw(**values)
        made = made + [_plt.figure(n) for n in _plt.get_fignums() if n not in before]
    data = _widgets.png(made[0])
    if legends_of is not None:         # the panel's name: check its legends too
        _found["legends"] += [f"{legends_of} at {values}: {what}"
                              for what in _plots.legend_overlaps(made[0])]
    for n in set(_plt.get_fignums()) - before:
        _plt.close(n)
    return data

def _steps(control):    # one arrow-key step below and above the value, within the range
    if isinstance(control, _w.FloatLogSlider):
        exponent = _math.log(control.value, control.base)
        return [control.base ** max(control.min, exponent - control.step),
                control.base ** min(control.max, exponent + control.step)]
    return [max(control.min, control.value - control.step), min(control.max, control.value + control.step)]

def _ends(control):
    if isinstance(control, _w.Dropdown):        # options: a dict label -> value, or the values
        return list(control.options.values()) if isinstance(control.options, dict) else list(control.options)
    if isinstance(control, _w.FloatLogSlider):
        return [control.base ** control.min, control.base ** control.max]
    return [control.min, control.max]

_found = {"compared": 0, "impure": [], "differ": [], "legends": [], "still": []}
for _name, _panel in list(globals().items()):
    if not (isinstance(_panel, _w.VBox) and hasattr(_panel, "controls")):
        continue
    _defaults = {k: c.value for k, c in _panel.controls.items()}
    _grid = [_defaults] + [{**_defaults, k: v} for k, c in _panel.controls.items() for v in _ends(c)]
    _kept, _first = {}, None
    for _values in _grid:
        _new = _render(_panel, _values, {}, legends_of=_name)
        _first = _first or _new
        if _render(_panel, _values, _kept) != _new:      # a second new one tells why
            if _render(_panel, _values, {}) != _new:
                _found["impure"].append(_name)
                break
            _found["differ"].append(f"{_name} at {_values}")
        _found["compared"] += 1
    if _name in _found["impure"]:
        continue
    _default = _first                                  # the grid starts at the defaults
    for _key, _control in _panel.controls.items():   # a step each way from the default redraws
        if isinstance(_control, _w.Dropdown):
            continue
        for _arrow, _value in zip(("left", "right"), _steps(_control)):
            if _render(_panel, {**_defaults, _key: _value}, {}) == _default:
                _found["still"].append(f"{_name}: one step {_arrow} of slider '{_control.description}' "
                                       f"(from {_control.value} in [{_control.min}, {_control.max}]) "
                                       "leaves the figure as it is")
print("PANEL-CHECK " + _json.dumps(_found))
"""


def fresh_run(path: Path, extra_cell: str | None = None) -> nbformat.NotebookNode:
    nb = nbformat.read(path, as_version=4)
    if extra_cell:
        nb.cells.append(nbformat.v4.new_code_cell(extra_cell))
    notebook_client(nb, path, timeout=300, allow_errors=False).execute()
    return nb


def model_names(nb, state: dict) -> dict:
    """model id -> MODEL0, MODEL1, ...: numbered as met walking from the widget views of the
    cells, in cell order, through each model's references (properties in name order); any
    model not reached is numbered after them, in the order of its contents."""
    names: dict = {}

    def visit(model_id):
        if model_id in names or model_id not in state:
            return
        names[model_id] = f"MODEL{len(names)}"
        for key in sorted(state[model_id]["state"]):
            for reference in REFERENCE.findall(json.dumps(state[model_id]["state"][key])):
                visit(reference)

    for cell in nb.cells:
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view:
                visit(view["model_id"])
    for model_id in sorted(state, key=lambda m: json.dumps(state[m], sort_keys=True)):
        names.setdefault(model_id, f"MODEL{len(names)}")
    return names


def canonical(nb) -> tuple[list, str]:
    """(per code cell: its tags and outputs as JSON text, the widget state as JSON text), with
    the random model ids renamed by `model_names` and memory addresses masked."""
    state = nb.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    names = model_names(nb, state)

    def rename(text: str) -> str:
        for model_id, name in names.items():
            text = text.replace(model_id, name)
        return ADDRESS.sub("0xADDR", text)

    cells = []
    for cell in nb.cells:
        if cell.cell_type == "code":
            outputs = []
            for output in cell.outputs:             # stdout arrives in timing-dependent pieces
                output = {key: value for key, value in output.items() if key != "execution_count"}
                if outputs and output["output_type"] == "stream" == outputs[-1]["output_type"] \
                        and output["name"] == outputs[-1]["name"]:
                    outputs[-1] = {**outputs[-1], "text": outputs[-1]["text"] + output["text"]}
                else:
                    outputs.append(output)
            cells.append((cell.metadata.get("tags", []), rename(json.dumps(outputs, sort_keys=True))))
    return cells, rename(json.dumps({names[m]: model for m, model in state.items()}, sort_keys=True))


def without_images(outputs: str) -> str:
    return json.dumps([{**o, "data": {k: v for k, v in o.get("data", {}).items() if not k.startswith("image/")}}
                       for o in json.loads(outputs)], sort_keys=True)


def state_without_images(state: str) -> str:
    """The widget state without the models' binary buffers (an Image widget's picture)."""
    return json.dumps({name: {k: v for k, v in model.items() if k != "buffers"}
                       for name, model in json.loads(state).items()}, sort_keys=True)


def assert_same_outputs(path: Path, run, reference, what: str, images: bool = True) -> None:
    """`run` and `reference` hold the same outputs and widget state, cell by cell, up to
    widget model ids and memory addresses; figures of `timing` cells (and every figure
    when `images` is false) are left out. `what` names the two in the failure message."""
    (cells_a, state_a), (cells_b, state_b) = canonical(run), canonical(reference)
    assert len(cells_a) == len(cells_b), f"{path.name}: {what} have different numbers of code cells"
    for index, ((tags, a), (_, b)) in enumerate(zip(cells_a, cells_b)):
        where = f"{path.parent.name}/{path.name}, code cell {index + 1}"
        if IGNORE in tags:
            assert WIDGET_VIEW in a, f"{where} is tagged {IGNORE} but displays no widget: nbval would skip it for nothing"
        if TIMING in tags:
            assert "image/" in a, f"{where} is tagged {TIMING} but shows no figure"
        if TIMING in tags or not images:
            a, b = without_images(a), without_images(b)
        assert a == b, f"{where}: {what} differ (beyond widget model ids)"
    if not images:
        state_a, state_b = state_without_images(state_a), state_without_images(state_b)
    assert state_a == state_b, f"{path.name}: the widget state (slider values, panel figures) differs between {what}"


@functools.lru_cache(maxsize=None)        # one run serves both tests of a notebook
def checked_run(path: Path) -> tuple[nbformat.NotebookNode, dict | None]:
    """A fresh run of `path` (without the PANEL_CHECK cell) and PANEL_CHECK's report, None
    for a notebook without parameter panels."""
    if "parameter_panel(" not in path.read_text(encoding="utf-8"):
        return fresh_run(path), None
    checked = fresh_run(path, PANEL_CHECK)
    report = checked.cells.pop()
    [line] = [line for out in report.outputs if out.output_type == "stream"
              for line in out.text.splitlines() if line.startswith("PANEL-CHECK ")]
    return checked, json.loads(line[len("PANEL-CHECK "):])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_fresh_run_gives_the_stored_outputs(path):
    checked, found = checked_run(path)
    if found is not None:
        assert found["compared"] > 0 and not found["differ"], \
            f"{path.name}: a panel's reused figure differs from a new one: {found}"
    stored = nbformat.read(path, as_version=4)
    stale = "the stored outputs (re-run `make notebooks` if the change is intended)"
    if stored.metadata.get(EXECUTED_WITH) == output_environment():
        assert_same_outputs(path, checked, stored, f"a fresh run and {stale}")
    else:       # stored with other package versions: their figures may differ in bytes
        assert_same_outputs(path, checked, stored, f"a fresh run and {stale}", images=False)
        assert_same_outputs(path, checked, fresh_run(path), "two fresh runs")


PANEL_NOTEBOOKS = [p for p in NOTEBOOKS if "parameter_panel(" in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("path", PANEL_NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_panel_legends_stay_off_the_data_at_defaults_and_every_end(path):
    _, found = checked_run(path)
    assert found["compared"] > 0 and not found["legends"], \
        f"{path.name}: legends of interactive figures that cover data:\n  " + "\n  ".join(found["legends"])


@pytest.mark.parametrize("path", PANEL_NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_slider_starts_where_a_step_either_way_redraws(path):
    _, found = checked_run(path)
    assert found["compared"] > 0 and not found["still"], \
        f"{path.name}: sliders whose first step one way changes nothing (at an end of their " \
        f"range, or in a flat stretch):\n  " + "\n  ".join(found["still"])


def test_the_instructor_guides_nbval_command_passes_on_a_lecture():
    """course/instructor_guide.md: `pytest --nbval --nbval-sanitize-with
    tests/nbval_sanitize.cfg lectures/NN_*.ipynb` before class. nbval itself, on the lecture
    with a widget panel, a stream output and a figure that runs fastest."""
    lecture = ROOT / "lectures" / "00_welcome.ipynb"
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
                             "--nbval-sanitize-with", "tests/nbval_sanitize.cfg", str(lecture.relative_to(ROOT))],
                            cwd=ROOT, capture_output=True, text=True, timeout=600)
    cells = sum(cell.cell_type == "code" for cell in nbformat.read(lecture, as_version=4).cells)
    assert result.returncode == 0 and f"{cells} passed" in result.stdout, result.stdout[-3000:] + result.stderr[-2000:]


def test_the_comparison_sees_a_changed_figure_text_or_slider_value():
    """assert_same_outputs on a stored lecture and a copy changed in one place: one PNG byte of
    a figure, one character of a text output, one slider value."""
    path = ROOT / "lectures" / "02_randomized_response.ipynb"
    stored = nbformat.read(path, as_version=4)
    assert_same_outputs(path, stored, copy.deepcopy(stored), "a notebook and its copy")

    figure = copy.deepcopy(stored)
    first_png = next(o for c in figure.cells if c.cell_type == "code" and TIMING not in c.metadata.get("tags", [])
                     for o in c.outputs if "image/png" in o.get("data", {}))
    png = bytearray(base64.b64decode(first_png.data["image/png"]))
    png[-20] ^= 1
    first_png.data["image/png"] = base64.b64encode(bytes(png)).decode()
    with pytest.raises(AssertionError, match="differ"):
        assert_same_outputs(path, stored, figure, "the stored and the changed")
    assert_same_outputs(path, stored, figure, "the stored and the changed", images=False)

    text = copy.deepcopy(stored)
    stream = next(o for c in text.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "stream")
    stream.text = stream.text.replace("1", "2", 1)
    for images in (True, False):
        with pytest.raises(AssertionError, match="differ"):
            assert_same_outputs(path, stored, text, "the stored and the changed", images=images)

    slider = copy.deepcopy(stored)
    state = slider.metadata["widgets"][WIDGET_STATE]["state"]
    model = next(m for m in state.values() if m["model_name"].endswith("SliderModel"))
    model["state"]["value"] = model["state"]["value"] + model["state"]["step"]
    for images in (True, False):
        with pytest.raises(AssertionError, match="widget state"):
            assert_same_outputs(path, stored, slider, "the stored and the changed", images=images)


def test_the_panel_check_finds_a_reuse_bug_a_random_draw_and_a_dead_slider(tmp_path):
    """PANEL_CHECK on a notebook of four panels: one sound; one that draws differently into
    the figure it reuses; one that simulates afresh at every draw; one whose slider does
    nothing one step either way from its default."""
    source = '''
import numpy as np, ipywidgets as w
from panpriv_teach import plots
from panpriv_teach.widgets import parameter_panel

def line(ax, slope):
    ax.plot([0, 1], [0, slope])
    ax.set_ylim(-3, 3)

def sound(slope):
    fig, ax = plots.figure()
    line(ax, slope)

def reuse_bug(slope):
    fig, ax = plots.figure()
    line(ax, -slope if getattr(fig, "drawn_before", False) else slope)
    fig.drawn_before = True

def fresh_noise(slope):
    fig, ax = plots.figure()
    line(ax, slope + np.random.default_rng().normal())

def flat(slope):
    fig, ax = plots.figure()
    line(ax, round(slope))

slider = lambda: w.FloatSlider(value=1.0, min=0.0, max=2.0, step=0.1, description="slope")
panels = {name: parameter_panel(draw, slope=slider())
          for name, draw in (("sound", sound), ("reuse_bug", reuse_bug),
                             ("fresh_noise", fresh_noise), ("flat", flat))}
sound_panel, reuse_bug_panel, fresh_noise_panel, flat_panel = panels.values()
'''
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    path = tmp_path / "panels.ipynb"
    nbformat.write(nb, path)
    report = fresh_run(path, PANEL_CHECK).cells[-1]
    [line] = [line for out in report.outputs if out.output_type == "stream"
              for line in out.text.splitlines() if line.startswith("PANEL-CHECK ")]
    found = json.loads(line[len("PANEL-CHECK "):])
    assert found["impure"] == ["fresh_noise_panel"], found
    assert {entry.split(" at ")[0] for entry in found["differ"]} == {"reuse_bug_panel"}, found
    assert [entry.split(":")[0] for entry in found["still"]] == ["flat_panel", "flat_panel"], found
    assert found["compared"] == 3 * 3, found        # defaults and both ends, three pure panels
