"""Interactive figures for the lectures: a row of controls bound to a plotting function.

`parameter_panel(draw, epsilon=float_slider(...))` shows the controls above the figure that
`draw(**values)` makes, and redraws it whenever a control changes. The first drawing uses the
default values, so the stored notebook shows a good static figure.
"""
from __future__ import annotations

import contextlib
import io

import ipywidgets as w
import matplotlib.pyplot as plt
from IPython.display import display

from panpriv_teach.plots import panel_figures

_LAYOUT = {"width": "340px"}
_STYLE = {"description_width": "110px"}


def float_slider(description: str, value: float, min: float, max: float, step: float,
                 readout_format: str = ".2f") -> w.FloatSlider:
    """A float slider in the house layout; redraws on release and on arrow keys."""
    return w.FloatSlider(value=value, min=min, max=max, step=step, description=description,
                         readout_format=readout_format, continuous_update=False,
                         layout=_LAYOUT, style=_STYLE)


def log_slider(description: str, value: float, min_exp: float, max_exp: float,
               step: float = 0.1) -> w.FloatLogSlider:
    """A slider over 10**min_exp .. 10**max_exp (for sizes such as n or T)."""
    return w.FloatLogSlider(value=value, base=10, min=min_exp, max=max_exp, step=step,
                            description=description, continuous_update=False,
                            layout=_LAYOUT, style=_STYLE)


def int_slider(description: str, value: int, min: int, max: int, step: int = 1) -> w.IntSlider:
    """An integer slider in the house layout."""
    return w.IntSlider(value=value, min=min, max=max, step=step, description=description,
                       continuous_update=False, layout=_LAYOUT, style=_STYLE)


def choice(description: str, options, value=None) -> w.Dropdown:
    """A drop-down list of options (a list, or a dict label → value)."""
    return w.Dropdown(options=options, value=value, description=description,
                      layout=_LAYOUT, style=_STYLE)


def parameter_panel(draw, **controls) -> w.VBox:
    """Display `controls` above the figure that `draw(**values)` makes; redraw on every change.

    `draw` makes one matplotlib figure, best with `panpriv_teach.plots.figure`, which here
    lays it out with fixed margins and reuses the panel's figure from the last redraw (see
    `plots.panel_figures`; `draw` must then set again whatever it sets, as it does anyway
    when it draws from scratch). The panel renders the figure to PNG into an Image widget
    (and closes it if pyplot made it): one message to the browser per redraw, no
    tight-bounding-box pass, no output area to rebuild. Anything `draw` prints or warns, and any error it raises, appears below
    the figure.
    Returns the panel, already displayed, with `draw`, `controls` (name → widget) and
    `redraw()` as attributes, so that a test or a later cell can move its controls.
    """
    image = w.Image(format="png")
    messages = w.Output()
    kept: dict = {}                 # the figures of `plots.figure`, reused from redraw to redraw

    def redraw(change=None):
        out, err, before = io.StringIO(), io.StringIO(), set(plt.get_fignums())
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                    panel_figures(kept) as made:
                draw(**{name: control.value for name, control in controls.items()})
                made = made + [plt.figure(n) for n in plt.get_fignums() if n not in before]
                if len(made) != 1:
                    raise ValueError(f"draw: expected {draw.__name__}(...) to make exactly one "
                                     f"matplotlib figure and leave it open, it made {len(made)} "
                                     "(the panel shows the figure: no plt.show() inside draw)")
                image.value = png(made[0])
        except Exception:
            _show(messages, out, err)
            with messages:
                raise           # IPython shows the traceback in `messages`; elsewhere it propagates
        else:
            _show(messages, out, err)
        finally:
            for n in set(plt.get_fignums()) - before:
                plt.close(n)

    for control in controls.values():
        control.observe(redraw, names="value")
    rows = [w.HBox(list(controls.values())[i:i + 2]) for i in range(0, len(controls), 2)]
    panel = w.VBox([*rows, image, messages])
    panel.draw, panel.controls, panel.redraw = draw, controls, redraw
    display(panel)
    redraw()
    return panel


def _show(messages: w.Output, out: io.StringIO, err: io.StringIO) -> None:
    """Replace what `messages` shows by what the last drawing printed (no message to the
    browser when there is nothing to clear or show: capturing with `with messages:` would
    cost two on every redraw)."""
    if messages.outputs:
        messages.outputs = ()
    if out.getvalue():
        messages.append_stdout(out.getvalue())
    if err.getvalue():
        messages.append_stderr(err.getvalue())


def png(fig) -> bytes:
    """The figure as PNG bytes at its own size and resolution, on white (readable in any theme)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi="figure", facecolor="white",
                pil_kwargs={"compress_level": 1})            # a third faster, about as small
    return buffer.getvalue()
