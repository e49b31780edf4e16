"""Interactive figures for the lectures: a row of controls bound to a plotting function.

`parameter_panel(draw, epsilon=float_slider(...))` shows the controls above the figure that
`draw(**values)` makes, and redraws it whenever a control changes. The first drawing uses the
default values, so the stored notebook shows a good static figure: the panel's output carries
that figure as a PNG too (at twice its pixels, for slides), which is what JupyterLab shows
before the notebook is trusted and run. The figure is shown at its own size, never stretched.
"""
from __future__ import annotations

import contextlib
import io

import ipywidgets as w
import matplotlib.pyplot as plt
from IPython.display import display

from panpriv_teach.plots import alt_text, figure_facts, panel_figures

_LAYOUT = {"width": "340px"}
_STYLE = {"description_width": "110px"}

# A panel whose kernel is gone (restarted or shut down, or a notebook reopened with its
# stored widgets) still shows its controls, and they still move their readouts, but nothing
# redraws the figure. ipywidgets marks the view of every widget whose model has no live
# kernel connection with the class `jupyter-widgets-disconnected`; this rule shows the
# notice only then (the <style> element applies to the page wherever it sits).
DEAD_NOTICE = "Run this cell to make the figure live"
_NOTICE_HTML = (
    "<style>.panpriv-dead-notice{display:none!important}"
    ".panpriv-dead-notice.jupyter-widgets-disconnected{display:block!important;height:auto;"
    "margin:4px 0;padding:6px 10px;border-left:4px solid #C44E52;background:#FBEAEA;"
    "color:#1a1a1a;font-size:14px;line-height:1.4}"
    ".panpriv-dead-notice.jupyter-widgets-disconnected::before{display:none}</style>"
    f"<b>{DEAD_NOTICE}.</b> Its kernel is gone (restarted, shut down, or the notebook was "
    "reopened): the controls move, the figure does not.")


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


class Panel(w.VBox):
    """An interactive figure: rows of controls, the figure (an Image widget), its messages, and
    a notice, shown only when the panel's kernel is gone, that says to run the cell again.

    Displayed, it offers the figure it shows as `image/png` beside the widget view, and a
    one-line `text/plain`. The PNG of the default figure has twice its pixels, with the
    metadata of `plots.figure_facts` (alternative text, smallest text size, what a legend
    covers) and its size: slides and the site show it sharp at 1.5 times. JupyterLab renders
    a widget view only in a trusted notebook whose widgets it can find; a notebook opened
    before it was run (stored outputs are untrusted) shows the PNG instead of the widget's
    text repr, and so do renderers without ipywidgets.
    """

    def __init__(self, draw, controls: dict, image: w.Image, messages: w.Output):
        rows = [w.HBox(list(controls.values())[i:i + 2]) for i in range(0, len(controls), 2)]
        self.notice = w.HTML(_NOTICE_HTML, _dom_classes=["panpriv-dead-notice"])
        super().__init__([self.notice, *rows, image, messages])
        self.draw, self.controls, self.image, self.messages = draw, controls, image, messages
        self.alt = "interactive figure"     # the figure's titles, set by each redraw
        self.still = None                   # (PNG at 2x, metadata) of the default figure

    def _repr_mimebundle_(self, **kwargs):
        data = super()._repr_mimebundle_(**kwargs)
        data["text/plain"] = f"Interactive figure: {self.alt} (run the notebook to move its controls)"
        if self.still is not None and self.still[0] == self.image.value:
            data["image/png"] = self.still[1]
            return data, {"image/png": self.still[2]}
        if self.image.value:
            data["image/png"] = bytes(self.image.value)
            return data, {"image/png": {"alt": self.alt}}
        return data


def parameter_panel(draw, **controls) -> Panel:
    """Display `controls` above the figure that `draw(**values)` makes; redraw on every change.

    `draw` makes one matplotlib figure, best with `panpriv_teach.plots.figure`, which here
    lays it out with fixed margins and reuses the panel's figure from the last redraw (see
    `plots.panel_figures`; `draw` must then set again whatever it sets, as it does anyway
    when it draws from scratch). The panel renders the figure to PNG into an Image widget
    (and closes it if pyplot made it): one message to the browser per redraw, no
    tight-bounding-box pass, no output area to rebuild. The panel's `alt` is the figure's
    titles (`plots.alt_text`): the alternative text of its static PNG. Anything `draw`
    prints or warns, and any error it raises, appears below the figure.

    The default figure is drawn before the panel is displayed: the browser never sees an
    empty Image widget. (Chromium collapses an `<img>` whose source is not an image, and in
    JupyterLab's default windowing mode a cell rendered off screen during Run All kept that
    collapsed 0 x 0 box after the real figure arrived, until a slider moved.)
    The Image widget keeps the PNG's own size (a flex column would stretch it to the
    output's width, 1.25 times and blurred in JupyterLab at 1280 px); a narrower output
    scales it down.
    Returns the panel, already displayed, with `draw`, `controls` (name → widget) and
    `redraw()` as attributes, so that a test or a later cell can move its controls.
    """
    image = w.Image(format="png", layout=w.Layout(align_self="flex-start", max_width="100%"))
    messages = w.Output()
    kept: dict = {}                 # the figures of `plots.figure`, reused from redraw to redraw

    def redraw(change=None, still: bool = False):
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
                panel.alt = alt_text(made[0]) or "interactive figure"
                if still:
                    size = {"width": round(made[0].bbox.width), "height": round(made[0].bbox.height)}
                    panel.still = (image.value, png(made[0], scale=2),
                                   {**size, **figure_facts(made[0])})
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
    panel = Panel(draw, controls, image, messages)
    panel.redraw = redraw
    try:
        redraw(still=True)
    finally:
        display(panel)
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


def png(fig, scale: int = 1) -> bytes:
    """The figure as PNG bytes at its own size and `scale` times its resolution, on white
    (readable in any theme)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=fig.dpi * scale, facecolor="white",
                pil_kwargs={"compress_level": 1})            # a third faster, about as small
    return buffer.getvalue()
