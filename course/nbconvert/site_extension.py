"""Sphinx extension of the course site (course/build.py stages it; course/_config.yml loads it).

The navigation of every page lists the lectures' titles, and some titles hold math (lecture
07's "... err by $\\sqrt{|X|}$"): MathJax must load on every page, not only on those whose own
text has math (Sphinx's default), or the navigation shows raw TeX.
"""


def setup(app):
    app.set_html_assets_policy("always")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
