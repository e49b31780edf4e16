"""House style for every figure of the course: one place for colours, sizes and labels,
and the few plotting helpers that more than one lecture uses.
"""
from __future__ import annotations

import contextlib
import contextvars

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

COLORS = {
    "a": "#4C72B0",        # the algorithm on stream / database A (with the user)
    "b": "#DD8452",        # ... on the neighbouring stream / database B (without)
    "truth": "#333333",    # true values
    "bound": "#C44E52",    # theoretical bounds and claims
    "estimate": "#55A868", # estimates and audits
    "muted": "#AAAAAA",
}
WIDTH, HEIGHT = 7.5, 3.6

_STYLE = {
    "figure.figsize": (WIDTH, HEIGHT),
    "figure.dpi": 90,
    "savefig.dpi": 90,
    "font.size": 10.5,
    "axes.titlesize": 11.5,
    "axes.titley": 1.0,     # where auto-placement puts it anyway (no top ticks); saves a layout pass
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.frameon": False,
    "axes.prop_cycle": mpl.cycler(color=[COLORS[k] for k in ("a", "b", "estimate", "bound")]),
}


def setup() -> None:
    """Apply the house style (call once, in a notebook's setup cell)."""
    mpl.rcParams.update(_STYLE)


_PANEL = contextvars.ContextVar("panel_figures", default=None)
_MARGINS_INCHES = {"left": 0.75, "right": 0.2, "bottom": 0.55, "top": 0.4}


@contextlib.contextmanager
def panel_figures(kept: dict):
    """Within this block `figure` draws for an interactive panel: axes laid out with fixed
    margins (constrained layout costs about half of a redraw), in a figure outside pyplot
    (the inline backend does not show it), and for the same arguments as in an earlier block
    with the same `kept` dict it hands back that figure emptied of its artists instead of a
    new one: axes, ticks and tick labels are reused, a third of a redraw. Yields the list of
    the figures `figure` returned in the block."""
    made: list = []
    token = _PANEL.set((kept, made))
    try:
        yield made
    finally:
        _PANEL.reset(token)


def figure(ncols: int = 1, nrows: int = 1, width: float = WIDTH, height: float = HEIGHT, **kwargs):
    """A figure in the house size: returns (fig, ax) or (fig, axes). New, with constrained
    layout; inside `panel_figures`, with fixed margins and reused from the panel's last redraw."""
    panel = _PANEL.get()
    if panel is None:
        return plt.subplots(nrows, ncols, figsize=(width, height), constrained_layout=True, **kwargs)
    kept, made = panel
    key = repr((ncols, nrows, width, height, sorted(kwargs.items())))
    if key in kept:
        fig, axes = kept[key]
        for ax in fig.axes:
            _empty(ax)
    else:
        fig = Figure(figsize=(width, height))
        FigureCanvasAgg(fig)        # its own renderer, kept: text metrics are cached per renderer
        axes = fig.subplots(nrows, ncols, **kwargs)
        m = _MARGINS_INCHES
        fig.subplots_adjust(left=m["left"] / width, right=1 - m["right"] / width,
                            bottom=m["bottom"] / height, top=1 - m["top"] / height,
                            wspace=0.3, hspace=0.5)
        kept[key] = fig, axes
    made.append(fig)
    return fig, axes


def _empty(ax) -> None:
    """Remove what a drawing added to `ax` and let its limits follow the next drawing's data
    (what it set again, such as ticks or limits, it sets again)."""
    for artist in [*ax.lines, *ax.patches, *ax.collections, *ax.texts, *ax.images, *ax.tables]:
        artist.remove()
    if ax.legend_ is not None:
        ax.legend_.remove()
    ax.set(title="", xlabel="", ylabel="")
    ax.set_prop_cycle(None)                     # colours start again at the first
    ax.relim()
    ax.set_autoscale_on(True)


def finish(ax, title: str = "", xlabel: str = "", ylabel: str = "", legend: bool = True,
           legend_loc: str = "best") -> None:
    """Title, axis labels and (if anything is labelled) a legend."""
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    if legend and ax.get_legend_handles_labels()[0]:
        ax.legend(loc=legend_loc)


def bound_line(ax, y: float, label: str, horizontal: bool = True) -> None:
    """A dashed line for a theoretical bound or claim."""
    line = ax.axhline if horizontal else ax.axvline
    line(y, color=COLORS["bound"], linestyle="--", linewidth=1.3, label=label)


def neighbouring_densities(ax, grid, density_a, density_b, label_a: str, label_b: str) -> None:
    """Two output densities of one mechanism on neighbouring inputs, filled."""
    for density, label, key in ((density_a, label_a, "a"), (density_b, label_b, "b")):
        ax.plot(grid, density, color=COLORS[key], label=label)
        ax.fill_between(grid, density, color=COLORS[key], alpha=0.15)


def privacy_loss(ax, grid, density_a, density_b, epsilon: float) -> None:
    """The privacy loss ln(p_a/p_b) along the output axis, with the ±ε band it must stay in."""
    ax.plot(grid, np.log(density_a) - np.log(density_b), color=COLORS["estimate"],
            label="privacy loss")
    ax.axhspan(-epsilon, epsilon, color=COLORS["bound"], alpha=0.08)
    bound_line(ax, epsilon, f"±ε = ±{epsilon:.2f}")
    ax.axhline(-epsilon, color=COLORS["bound"], linestyle="--", linewidth=1.3)
