"""The house style and the widget panel: a panel draws once with its defaults (the static
view) and redraws with the new values whenever a control moves."""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from panpriv_teach import plots, widgets  # noqa: E402


def test_panel_draws_the_default_view_then_redraws_on_every_change():
    calls = []

    def draw(epsilon, n):
        calls.append((epsilon, n))
        fig, ax = plots.figure()
        ax.plot([0, 1], [0, epsilon])

    epsilon = widgets.float_slider("ε", 1.0, 0.1, 3.0, 0.1)
    n = widgets.int_slider("n", 10, 1, 100)
    panel = widgets.parameter_panel(draw, epsilon=epsilon, n=n)
    assert calls == [(1.0, 10)]
    epsilon.value = 2.0
    n.value = 20
    assert calls == [(1.0, 10), (2.0, 10), (2.0, 20)]
    assert len(panel.children) == 2  # one row of two controls, then the figure
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
