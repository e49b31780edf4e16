"""The house style and the widget panel: a panel draws once with its defaults (the static
view) and redraws with the new values whenever a control moves."""
import io
import json
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from panpriv_teach import plots, widgets  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_panel_draws_the_default_view_then_redraws_on_every_change():
    calls = []

    def draw(epsilon, n):
        calls.append((epsilon, n))
        fig, ax = plots.figure()
        ax.plot([0, 1], [0, epsilon])

    epsilon = widgets.float_slider("ε", 1.0, 0.1, 3.0, 0.1)
    n = widgets.int_slider("n", 10, 1, 100)
    open_before = plt.get_fignums()
    panel = widgets.parameter_panel(draw, epsilon=epsilon, n=n)
    notice, row, image, messages = panel.children  # one row of two controls, figure, messages
    assert notice is panel.notice and image is panel.image and messages is panel.messages
    assert calls == [(1.0, 10)]
    first = bytes(image.value)
    assert first.startswith(PNG_SIGNATURE)
    epsilon.value = 2.0
    n.value = 20
    assert calls == [(1.0, 10), (2.0, 10), (2.0, 20)]
    assert bytes(image.value).startswith(PNG_SIGNATURE) and bytes(image.value) != first
    assert plt.get_fignums() == open_before, "the panel must close the figures it rendered"
    assert messages.outputs == ()


def test_panel_renders_the_figure_at_its_own_size_on_white():
    def draw(width):
        plots.figure(width=width, height=2.0)

    panel = widgets.parameter_panel(draw, width=widgets.float_slider("width", 4.0, 2.0, 8.0, 1.0))
    image = panel.image
    dpi = matplotlib.rcParams["figure.dpi"]
    pixels = plt.imread(io.BytesIO(image.value))
    assert pixels.shape[:2] == (round(2.0 * dpi), round(4.0 * dpi))
    assert np.all(pixels[0, 0, :3] == 1.0) and pixels[0, 0, 3] == 1.0  # opaque white corner
    panel.controls["width"].value = 6.0
    assert plt.imread(io.BytesIO(image.value)).shape[1] == round(6.0 * dpi)


@pytest.mark.parametrize("figures", [0, 2])
def test_panel_says_when_draw_does_not_leave_exactly_one_figure(figures):
    def draw(n):
        for _ in range(figures):
            plots.figure()

    open_before = plt.get_fignums()
    with pytest.raises(ValueError, match=rf"draw: expected draw\(...\) to make exactly one "
                                         rf"matplotlib figure and leave it open, it made {figures}"):
        widgets.parameter_panel(draw, n=widgets.int_slider("n", 1, 0, 2))
    assert plt.get_fignums() == open_before


def test_the_notice_to_run_the_cell_shows_only_when_the_kernel_is_gone():
    # ipywidgets puts the class jupyter-widgets-disconnected on the view of a model without a
    # live kernel connection; the panel's notice is hidden but under that class (the browser
    # test restarts a kernel and sees it)
    panel = widgets.parameter_panel(lambda n: plots.figure(), n=widgets.int_slider("n", 1, 0, 2))
    assert panel.notice._dom_classes == ("panpriv-dead-notice",)
    style = panel.notice.value.split("</style>")[0]
    assert ".panpriv-dead-notice{display:none!important}" in style
    assert ".panpriv-dead-notice.jupyter-widgets-disconnected{display:block!important" in style
    assert widgets.DEAD_NOTICE in panel.notice.value.split("</style>")[1]
    plt.close("all")


def test_controls_redraw_on_release_not_while_dragging():
    for control in (widgets.float_slider("a", 1, 0, 2, 0.1), widgets.int_slider("b", 1, 0, 2),
                    widgets.log_slider("c", 100, 1, 4)):
        assert control.continuous_update is False


def test_house_style_and_helpers_label_the_figure():
    plots.setup()
    assert matplotlib.rcParams["axes.spines.top"] is False
    fig, (left, right) = plots.figure(ncols=2)
    grid = np.linspace(-3, 3, 61)
    density_a, density_b = np.exp(-np.abs(grid)) / 2, np.exp(-np.abs(grid - 1)) / 2
    plots.neighbouring_densities(left, grid, density_a, density_b, "on D", "on D'")
    plots.finish(left, "title", "x", "density", legend_loc="upper left")
    plots.privacy_loss(right, grid, density_a, density_b, epsilon=1.0)
    plots.finish(right, "loss")
    assert [t.get_text() for t in left.get_legend().get_texts()] == ["on D", "on D'"]
    assert left.get_xlabel() == "x" and right.get_title() == "loss"
    loss = right.get_lines()[0].get_ydata()
    assert np.all(np.abs(loss) <= 1.0 + 1e-12)  # Laplace at shift 1, scale 1: |loss| ≤ ε
    plt.close(fig)


def test_what_draw_prints_shows_below_the_figure_until_the_next_redraw():
    import sys

    def draw(n):
        plots.figure()
        if n == 1:
            print("n is one")
            print("a warning for n = 1", file=sys.stderr)   # where a kernel shows warnings

    panel = widgets.parameter_panel(draw, n=widgets.int_slider("n", 1, 0, 2))
    messages = panel.messages
    shown = {out["name"]: out["text"] for out in messages.outputs}
    assert shown["stdout"] == "n is one\n" and "a warning for n = 1" in shown["stderr"]
    panel.controls["n"].value = 2
    assert messages.outputs == ()


def test_panel_is_displayed_with_its_default_figure_as_png_and_alt_text(monkeypatch):
    """The browser never sees an empty Image widget (Chromium collapses a broken <img>, and in
    JupyterLab's windowed notebook it stayed 0 x 0 after Run All), and the display bundle
    carries the default figure as PNG with its titles as alt text: what JupyterLab shows for
    an untrusted (not yet run) notebook, instead of the widget's text repr."""
    shown = []
    monkeypatch.setattr(widgets, "display", lambda panel: shown.append(
        (bytes(panel.image.value), panel._repr_mimebundle_())))

    def draw(epsilon):
        fig, ax = plots.figure()
        ax.plot([0, 1], [0, epsilon])
        plots.finish(ax, rf"Loss at $\varepsilon = {epsilon:.1f}$", "r", "loss")

    panel = widgets.parameter_panel(draw, epsilon=widgets.float_slider("ε", 1.0, 0.1, 3.0, 0.1))
    [(value_when_displayed, (data, metadata))] = shown
    assert value_when_displayed.startswith(PNG_SIGNATURE)
    shown_size = plt.imread(io.BytesIO(value_when_displayed)).shape[:2]       # what the widget shows
    still = plt.imread(io.BytesIO(data["image/png"])).shape[:2]             # the default, for slides
    assert still == (2 * shown_size[0], 2 * shown_size[1])
    assert metadata == {"image/png": {"alt": "Loss at ε = 1.0", "width": shown_size[1],
                                      "height": shown_size[0], "text_px": 13.1}}
    assert data["text/plain"].startswith("Interactive figure: Loss at ε = 1.0")
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == panel.model_id
    panel.controls["epsilon"].value = 2.0
    assert panel.alt == "Loss at ε = 2.0"
    data, metadata = panel._repr_mimebundle_()          # displayed again: what it shows now
    assert data["image/png"] == bytes(panel.image.value) and metadata["image/png"]["alt"] == panel.alt
    assert panel.image.layout.align_self == "flex-start"    # its own size, not stretched


def test_a_failing_draw_still_shows_the_panel_with_its_error(monkeypatch):
    shown = []
    monkeypatch.setattr(widgets, "display", shown.append)

    def draw(n):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        widgets.parameter_panel(draw, n=widgets.int_slider("n", 1, 0, 2))
    [panel] = shown
    assert not panel.image.value and "image/png" not in panel._repr_mimebundle_()


def test_alt_text_reads_titles_with_math_as_plain_characters():
    assert plots.plain_text(r"error $\leq \sqrt{T}\log T / \varepsilon$ at $2^{14}$") == \
        "error ≤ √T log T / ε at 2^14"
    fig, (left, right) = plots.figure(ncols=2)
    fig.suptitle("Two views")
    left.set_title(r"$\pm\varepsilon$ band")
    right.set(xlabel="time t", ylabel="count")
    assert plots.alt_text(fig) == "Two views; ±ε band; count against time t"
    plt.close(fig)


def test_house_style_never_tells_series_apart_by_colour_alone():
    plots.setup()
    cycle = list(matplotlib.rcParams["axes.prop_cycle"])
    looks = {(entry["linestyle"], entry["marker"]) for entry in cycle}
    assert len(cycle) >= 8 and len(looks) == len(cycle), cycle
    assert plots.LINESTYLES["a"] != plots.LINESTYLES["b"]
    fig, ax = plots.figure()
    [line] = ax.plot(range(5), marker="o")          # a marker asked for shows on every point
    assert line.get_markevery() is None
    ax.lines[0].remove()
    plots.neighbouring_densities(ax, [0, 1], [0.5, 0.5], [0.4, 0.6], "A", "B")
    assert len({line.get_linestyle() for line in ax.get_lines()}) == 2
    plt.close(fig)


def test_setup_gives_inline_figures_sharp_pixels_alt_text_and_text_size():
    import base64

    from IPython.core.interactiveshell import InteractiveShell
    from IPython.core.pylabtools import select_figure_formats

    shell = InteractiveShell.instance()
    try:
        select_figure_formats(shell, {"png"}, bbox_inches="tight")   # what `%matplotlib inline` does
        plots.setup()
        plots.setup()                           # twice: still one wrapper, not nested
        fig, ax = plots.figure()
        ax.plot([0, 1], [0, 1], label="a line")
        plots.finish(ax, "A histogram")
        data, metadata = shell.display_formatter.format(fig)
        facts = metadata["image/png"]
        pixels = plt.imread(io.BytesIO(base64.b64decode(data["image/png"])))
        assert pixels.shape[:2] == (2 * facts["height"], 2 * facts["width"])   # shown at half
        assert {k: facts[k] for k in ("alt", "text_px")} == {"alt": "A histogram", "text_px": 13.1}
        assert "legend_covers" not in facts                     # outside the axes by default
        place = ax.get_legend()
        place.remove()
        ax.axhline(0.95, label="high")
        plots.place_legend(ax, "upper left")
        _, metadata = shell.display_formatter.format(fig)
        assert metadata["image/png"]["legend_covers"] == [
            "the legend of axes 'A histogram' covers line 'high'"]
        plt.close(fig)
    finally:
        InteractiveShell.clear_instance()


def _covers(fig):
    return [what.split(" covers ")[1] if " covers " in what else what
            for what in plots.legend_overlaps(fig)]


def test_legend_overlaps_names_every_kind_of_data_under_a_legend():
    x = np.linspace(0, 1, 50)
    fig, axes = plots.figure(ncols=3)
    axes[0].plot(x, x, label="rising")
    axes[0].plot(x, 1 - x, label="falling")
    axes[0].plot([0.9], [0.95], "o", label="a point")
    axes[0].axhspan(0.4, 0.6, color="grey", alpha=0.2, label="band")   # background, not data
    plots.finish(axes[0], "lines", legend_loc="upper left")
    assert _covers(fig) == ["line 'falling'"]
    axes[0].get_legend().set_loc("upper right")
    assert _covers(fig) == ["line 'rising'", "line 'a point'"]
    axes[0].get_legend().set_loc("center")
    assert _covers(fig) == ["line 'rising'", "line 'falling'"]
    axes[1].bar([0, 1, 2], [3, 1, 3], label="counts")
    axes[1].scatter([2.3], [0.3], label="dots")
    plots.finish(axes[1], "bars", legend_loc="upper right")
    assert _covers(fig)[-1:] == ["bar 'counts'"]
    axes[1].get_legend().set_loc("lower right")
    assert "set of markers 'dots'" in _covers(fig)
    axes[2].fill_between(x, 0, 1 - x, label="area")
    axes[2].text(0.9, 0.9, "note")
    plots.finish(axes[2], "areas", legend_loc="lower left")
    assert _covers(fig)[-1:] == ["filled area 'area'"]
    axes[2].get_legend().set_loc("upper right")
    assert _covers(fig)[-1:] == ["text 'note'"]
    for ax in axes:
        plots.place_legend(ax)                  # outside, right of each axes
    plt.close(fig)


def test_outside_legends_cover_nothing_and_fit_the_figure_in_notebooks_and_panels():
    x = np.linspace(0, 1, 50)

    def draw(ncols, label):
        fig, axes = plots.figure(ncols=ncols)
        for ax in np.atleast_1d(axes):
            ax.plot(x, x, label=label)
            ax.plot(x, 1 - x, label="the other line")
            plots.finish(ax, "two lines", "x", "y")
        return fig

    for ncols in (1, 2):
        fig = draw(ncols, "a line with a long label")
        assert plots.legend_overlaps(fig) == []               # constrained layout makes room
        plt.close(fig)
    kept: dict = {}
    for label in ("a line with a longer label", "short", ""):
        with plots.panel_figures(kept) as made:
            draw(2, label)
        again = draw(2, label)
        with plots.panel_figures({}) as fresh:
            draw(2, label)
        assert plots.legend_overlaps(made[0]) == [], label   # no legend past the edge
        assert widgets.png(made[0]) == widgets.png(fresh[0]), label
        plt.close(again)
    fig, ax = plots.figure()
    ax.plot(x, x, label="far")
    ax.legend(loc="upper left", bbox_to_anchor=(1.5, 1))
    assert plots.legend_overlaps(fig) == ["the legend of axes 1 runs past the figure's edge"]
    assert plots.legend_overlaps(fig, figure_edges=False) == []
    plt.close(fig)


LECTURES = sorted(Path(__file__).resolve().parents[1].glob("lectures/*.ipynb"))


@pytest.mark.parametrize("path", LECTURES, ids=lambda p: p.stem)
def test_every_stored_lecture_figure_keeps_its_legends_off_the_data(path):
    """Each figure a lecture stores (inline, or an interactive figure's default picture) was
    drawn under the house style (`plots.setup` records its text size and, when a legend covers
    data, what it covers) and no legend of it covers data. A lecture executed before the house
    style recorded this fails here until it is executed again."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    problems = []
    for number, cell in enumerate(nb["cells"], 1):
        for output in cell.get("outputs", []):
            if "image/png" not in output.get("data", {}):
                continue
            facts = output.get("metadata", {}).get("image/png", {})
            if "text_px" not in facts:
                problems.append(f"cell {number}: a figure without the house style's facts (drawn "
                                "before `plots.setup()`, or not executed since the house style "
                                "records them)")
            problems += [f"cell {number}: {what}" for what in facts.get("legend_covers", [])]
    assert not problems, f"{path.name}:\n  " + "\n  ".join(problems)
