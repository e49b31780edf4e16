"""House style for every figure of the course: one place for colours, line styles, sizes and
labels, the alternative text of figures, and the few plotting helpers that more than one
lecture uses.
"""
from __future__ import annotations

import contextlib
import contextvars
import re

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
# Series are told apart by line style (and, after the fourth, by marker) as well as by
# colour, so that no figure relies on colour alone (colour-vision deficiencies, grey print).
LINESTYLES = {"a": "-", "b": "--", "truth": "-", "bound": "--", "estimate": "-.", "muted": ":"}
_CYCLE = [  # colour, line style, marker (the markers of the cycle every tenth of the axes' diagonal)
    (COLORS["a"], "-", "None"), (COLORS["b"], "--", "None"), (COLORS["estimate"], "-.", "None"),
    (COLORS["bound"], ":", "None"), ("#8172B3", "-", "o"), ("#937860", "--", "s"),
    ("#DA8BC3", "-.", "^"), ("#333333", ":", "D"),
]
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
    "lines.linewidth": 1.8,
    "lines.markersize": 5,
    "axes.prop_cycle": (mpl.cycler(color=[c for c, _, _ in _CYCLE])
                        + mpl.cycler(linestyle=[ls for _, ls, _ in _CYCLE])
                        + mpl.cycler(marker=[m for _, _, m in _CYCLE])
                        + mpl.cycler(markevery=[None if m == "None" else 0.1 for _, _, m in _CYCLE])),
}


def setup() -> None:
    """Apply the house style (call once, in a notebook's setup cell, after `%matplotlib
    inline`). In IPython it also gives every figure the inline backend displays its
    alternative text (`alt_text`), stored in the output's metadata, where the course's
    slides and site read it."""
    mpl.rcParams.update(_STYLE)
    _store_alt_text_with_inline_figures()


_TEX = {r"\varepsilon": "ε", r"\epsilon": "ε", r"\delta": "δ", r"\Delta": "Δ", r"\alpha": "α",
        r"\beta": "β", r"\sigma": "σ", r"\mu": "μ", r"\lambda": "λ", r"\pi": "π", r"\sqrt": "√",
        r"\pm": "±", r"\leq": "≤", r"\le": "≤", r"\geq": "≥", r"\ge": "≥", r"\approx": "≈",
        r"\cdot": "·", r"\times": "×", r"\infty": "∞", r"\ln": " ln ", r"\log": " log ",
        r"\mathrm": "", r"\mathbf": "", r"\mathit": "", r"\text": "", r"\,": " ", r"\;": " ",
        r"\!": "", r"\left": "", r"\right": ""}
_TEX_COMMAND = re.compile("|".join(re.escape(k) for k in sorted(_TEX, key=len, reverse=True)))


def plain_text(text: str) -> str:
    """A figure text with its mathtext ($...$) turned into plain characters (for alt text)."""
    def plain(math: re.Match) -> str:
        inner = _TEX_COMMAND.sub(lambda m: _TEX[m.group(0)], math.group(1))
        inner = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/(\2)", inner)
        return inner.replace("{", "").replace("}", "").replace("\\", "")
    return re.sub(r"\s+", " ", re.sub(r"(?<!\\)\$(.*?)(?<!\\)\$", plain, text)).strip()


def alt_text(fig) -> str:
    """A one-line description of `fig` for screen readers: its suptitle and the titles of its
    axes (else their axis labels), math as plain characters. Empty if it has no text."""
    parts = [fig.get_suptitle()]
    for ax in fig.axes:
        title = " ".join(t for t in (ax.get_title("left"), ax.get_title(), ax.get_title("right")) if t)
        if not title and (ax.get_xlabel() or ax.get_ylabel()):
            title = f"{ax.get_ylabel() or 'values'} against {ax.get_xlabel() or 'position'}"
        parts.append(title)
    return "; ".join(plain_text(p) for p in parts if p.strip())


def _store_alt_text_with_inline_figures() -> None:
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    png = shell.display_formatter.formatters["image/png"]
    try:
        inner = png.lookup_by_type(Figure)
    except KeyError:
        return                      # not the inline backend: nothing displays figures as PNG
    if getattr(inner, "stores_alt_text", False):
        return

    def with_alt_text(fig):
        data = inner(fig)
        return (data, {"alt": alt_text(fig) or "figure"}) if data is not None else None

    with_alt_text.stores_alt_text = True
    png.for_type(Figure, with_alt_text)


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
        ax.plot(grid, density, color=COLORS[key], linestyle=LINESTYLES[key], label=label)
        ax.fill_between(grid, density, color=COLORS[key], alpha=0.15)


def privacy_loss(ax, grid, density_a, density_b, epsilon: float) -> None:
    """The privacy loss ln(p_a/p_b) along the output axis, with the ±ε band it must stay in."""
    ax.plot(grid, np.log(density_a) - np.log(density_b), color=COLORS["estimate"],
            linestyle=LINESTYLES["estimate"], label="privacy loss")
    ax.axhspan(-epsilon, epsilon, color=COLORS["bound"], alpha=0.08)
    bound_line(ax, epsilon, rf"$\pm\varepsilon = \pm{epsilon:.2f}$")
    ax.axhline(-epsilon, color=COLORS["bound"], linestyle="--", linewidth=1.3)
