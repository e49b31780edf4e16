"""Interactive figures for the lectures: a row of controls bound to a plotting function.

`parameter_panel(draw, epsilon=float_slider(...))` shows the controls above an output area
and redraws `draw(**values)` whenever a control changes. The first drawing uses the
default values, so the stored notebook shows a good static figure.
"""
from __future__ import annotations

import ipywidgets as w
import matplotlib.pyplot as plt
from IPython.display import display

from panpriv_teach.plots import fixed_margins

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
    """Display `controls` above a figure drawn by `draw(**values)`; redraw on every change.

    `draw` makes its own figure (e.g. with `panpriv_teach.plots.figure`, which lays it out
    with fixed margins here, for a fast redraw). Returns the panel
    (already displayed) so a test or a later cell can move its controls.
    """
    output = w.Output()

    def redraw(change=None):
        with output, fixed_margins():
            output.clear_output(wait=True)
            draw(**{name: control.value for name, control in controls.items()})
            plt.show()

    for control in controls.values():
        control.observe(redraw, names="value")
    rows = [w.HBox(list(controls.values())[i:i + 2]) for i in range(0, len(controls), 2)]
    panel = w.VBox([*rows, output])
    panel.redraw = redraw
    display(panel)
    redraw()
    return panel
