"""House style for every figure of the course: one place for colours, line styles, sizes and
labels, the alternative text of figures, and the few plotting helpers that more than one
lecture uses.

Legends sit outside the data: `finish` puts them to the right of the axes by default (a
corner such as "upper left" where the data leave it free), and `legend_overlaps` names what a
legend covers (lines, markers, bars, filled areas, images, texts), so a test can check every
figure. `setup` stores, with every inline figure, its alternative text, its smallest text
size in pixels (`text_px`) and what its legends cover (`legend_covers`, only when they cover
something), and draws inline figures at twice their pixels (shown at their size, sharp on a
projector or a high-density screen).
"""
from __future__ import annotations

import contextlib
import contextvars
import re

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PathCollection, PolyCollection
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox

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
    inline`). In IPython, figures the inline backend displays are drawn at twice their
    pixels (shown at their size) and carry, in the output's metadata, their alternative
    text (`alt_text`), their smallest text size (`text_px`) and, if any, what their legends
    cover (`legend_covers`): the course's slides, site and tests read them there."""
    mpl.rcParams.update(_STYLE)
    _store_figure_facts_with_inline_figures()


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


def figure_facts(fig, figure_edges: bool = True) -> dict:
    """What the course records with a figure it shows (call after the figure is drawn): its
    alternative text, its smallest text size in pixels at the figure's own resolution
    (`text_px`; a slide that shows the figure s times larger shows that text s times
    larger) and, when its legends cover anything, `legend_covers` (see `legend_overlaps`)."""
    facts = {"alt": alt_text(fig) or "figure", "text_px": smallest_text_px(fig)}
    covers = legend_overlaps(fig, figure_edges=figure_edges)
    if covers:
        facts["legend_covers"] = covers
    return facts


def smallest_text_px(fig) -> float:
    """The size of the smallest visible text of `fig` in pixels at its dpi (font size in
    points × dpi/72), rounded to 0.1 px."""
    sizes = [t.get_fontsize() for t in fig.findobj(Text)
             if t.get_visible() and t.get_text().strip()]
    return round(min(sizes, default=0.0) * fig.dpi / 72, 1)


def _store_figure_facts_with_inline_figures() -> None:
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
    if getattr(inner, "stores_figure_facts", False):
        return
    from IPython.core.pylabtools import retina_figure
    kwargs = dict(getattr(inner, "keywords", {}), base64=True)     # the backend's print kwargs
    kwargs.pop("fmt", None)

    def with_facts(fig):
        made = retina_figure(fig, **kwargs)       # None for an empty figure
        if made is None:
            return None
        data, metadata = made
        return data, {**metadata, **figure_facts(fig, figure_edges=False)}  # tight bbox: all shown

    with_facts.stores_figure_facts = True
    png.for_type(Figure, with_facts)


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
        kept[key] = fig, axes
    _panel_margins(fig)             # again on reuse: an earlier drawing's legend may have moved them
    made.append(fig)
    return fig, axes


def _panel_margins(fig, legend_inches: float = 0.0) -> None:
    """The fixed margins of a panel figure, with room on the right of each column of axes
    for a legend `legend_inches` wide (placed by `finish` outside the axes)."""
    width, height = fig.get_size_inches()
    ncols = fig.axes[0].get_gridspec().ncols if fig.axes and fig.axes[0].get_gridspec() else 1
    m = _MARGINS_INCHES
    right = m["right"] + legend_inches
    usable = width - m["left"] - m["right"]
    gap = 0.3 * usable / (ncols + 0.3 * (ncols - 1)) + legend_inches   # wspace 0.3 without legends
    axes_width = max((width - m["left"] - right - (ncols - 1) * gap) / ncols, 0.5)
    fig.subplots_adjust(left=m["left"] / width, right=1 - right / width,
                        bottom=m["bottom"] / height, top=1 - m["top"] / height,
                        wspace=gap / axes_width, hspace=0.5)


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


OUTSIDE = "outside"
_LEGEND_GAP_INCHES = 0.15


def finish(ax, title: str = "", xlabel: str = "", ylabel: str = "", legend: bool = True,
           legend_loc: str = OUTSIDE) -> None:
    """Title, axis labels and (if anything is labelled) a legend: by default outside the data,
    to the right of the axes, top-aligned (`legend_loc="outside"`); or at a matplotlib
    location ("upper left", ...) where the data leave that corner free (`legend_overlaps`
    checks it). A figure of `figure` makes room for an outside legend: constrained layout
    does in a notebook, and in a panel the right margin and the gap between columns widen."""
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    if legend and ax.get_legend_handles_labels()[0]:
        place_legend(ax, legend_loc)


def place_legend(ax, loc: str = OUTSIDE, **kwargs):
    """`ax.legend(**kwargs)` at `loc`: "outside" (right of the axes) or a matplotlib location.
    Returns the legend."""
    if loc != OUTSIDE:
        return ax.legend(loc=loc, **kwargs)
    fig = ax.get_figure()
    gap = _LEGEND_GAP_INCHES / max(ax.get_position().width * fig.get_size_inches()[0], 0.1)
    legend = ax.legend(loc="upper left", bbox_to_anchor=(1 + gap, 1.0), borderaxespad=0.0, **kwargs)
    panel = _PANEL.get()
    if panel is not None and any(fig is made for made in panel[1]):
        widest = max(other.get_legend().get_window_extent(fig.canvas.get_renderer()).width
                     for other in fig.axes if other.get_legend() is not None)
        _panel_margins(fig, widest / fig.dpi + 2 * _LEGEND_GAP_INCHES)
    return legend


def legend_overlaps(fig, figure_edges: bool = True) -> list[str]:
    """What the legends of `fig` cover when it is drawn: for each legend, every visible line,
    marker, bar, filled area, image or text of any axes that reaches under its box, and
    (with `figure_edges`) whether the box runs past the figure's edge. Empty when every
    legend sits clear of the data, the house style's rule. Spans across a whole axes
    (`axhspan`, `axvspan`) are background, not data. Lays the figure out (a draw without
    rendering) as a display or `savefig` would."""
    fig.draw_without_rendering()        # the layout and legend positions as drawn
    renderer = fig.canvas.get_renderer()
    found = []
    owners = [(ax, ax.get_legend()) for ax in fig.axes] + [(None, f) for f in fig.legends]
    for owner, legend in owners:
        if legend is None or not legend.get_visible():
            continue
        box = legend.get_window_extent(renderer)
        name = "the figure legend" if owner is None else f"the legend of {_axes_name(owner, fig)}"
        if figure_edges and not _within(box, fig.bbox):
            found.append(f"{name} runs past the figure's edge")
        for ax in fig.axes:
            area = Bbox.intersection(box, ax.bbox)
            if area is not None and area.width > 0 and area.height > 0:
                where = "" if ax is owner else f" in {_axes_name(ax, fig)}"
                found += [f"{name} covers {what}{where}" for what in _covered(ax, area, renderer)]
    return found


def _axes_name(ax, fig) -> str:
    title = plain_text(ax.get_title() or ax.get_title("left") or "")
    return f"axes '{title}'" if title else f"axes {fig.axes.index(ax) + 1}"


def _within(inner, outer, slack: float = 1.0) -> bool:
    return (inner.x0 >= outer.x0 - slack and inner.y0 >= outer.y0 - slack
            and inner.x1 <= outer.x1 + slack and inner.y1 <= outer.y1 + slack)


def _label(artist, kind: str) -> str:
    label = artist.get_label() or ""
    if label and not label.startswith("_"):
        return f"{kind} {plain_text(label)!r}"
    return f"an unlabelled {kind}"


def _covered(ax, area, renderer) -> list[str]:
    """The artists of `ax` that reach into `area` (a box in display pixels)."""
    found = []
    for line in ax.get_lines():
        if not line.get_visible():
            continue
        path = line.get_transform().transform_path(line.get_path())
        if line.get_linestyle() in ("None", "", " ", "none"):
            hit = bool(area.count_contains(path.vertices[np.isfinite(path.vertices).all(axis=1)]))
        else:
            hit = path.intersects_bbox(area, filled=False)
        if hit:
            found.append(_label(line, "line"))
    for collection in ax.collections:
        if not collection.get_visible():
            continue
        offsets = collection.get_offsets()
        if isinstance(collection, PathCollection) and len(offsets):
            hit = bool(area.count_contains(collection.get_offset_transform().transform(offsets)))
        else:
            transform = collection.get_transform()
            filled = isinstance(collection, PolyCollection)
            hit = any(transform.transform_path(path).intersects_bbox(area, filled=filled)
                      for path in collection.get_paths())
        if hit:
            found.append(_label(collection, "filled area" if isinstance(collection, PolyCollection)
                                else "set of markers"))
    bars = {id(patch): container for container in ax.containers for patch in container
            if hasattr(patch, "get_window_extent")}        # a bar chart's label is its container's
    for patch in ax.patches:
        extent = patch.get_window_extent(renderer)
        span = extent.width >= 0.98 * ax.bbox.width or extent.height >= 0.98 * ax.bbox.height
        if patch.get_visible() and not span and extent.overlaps(area):
            found.append(_label(bars.get(id(patch), patch), "bar"))
    others = [(image, "image") for image in ax.images] + [(text, "text") for text in ax.texts]
    for artist, kind in others:
        if artist.get_visible() and artist.get_window_extent(renderer).overlaps(area):
            found.append(f"{kind} {artist.get_text()!r}" if kind == "text" else _label(artist, kind))
    return list(dict.fromkeys(found))           # each bar of a chart, once


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
