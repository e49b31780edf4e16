"""Code and text that fit the screen: every code line of the lectures, exercises and solutions
is at most 88 characters, and so is every line of their stored text outputs.

Why 88: in JupyterLab 4 at a window 1280 px wide with the file browser open (its default
width, the right sidebar collapsed), an output area and a code editor are 840-846 px wide and
hold 107 characters of their 13 px monospace font (measured in Chromium with DejaVu Sans
Mono; tests/browser/test_lectures_in_jupyterlab.py measures it again on every run and checks
that LINE_LIMIT still fits). Outputs wrap with `word-break: break-all`, so a longer line is
cut mid-word; code lines run off to the right. 88 leaves a fifth of the width for a wider file
browser or a larger font, and it is the limit of the course's style (STYLE.md).

Text outputs are the lines a reader sees as text: stream outputs (stdout, stderr) and the
`text/plain` of results that have no richer form (images, HTML, widgets, Markdown, LaTeX are
laid out by the browser). One test per notebook and kind, so a failure names the notebook;
its message names each cell (numbered as JupyterLab's status bar counts, `Cell 5/21`) and line.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINE_LIMIT = 88
NOTEBOOKS = [nb for folder in ("lectures", "exercises", "solutions")
             for nb in sorted((ROOT / folder).glob("*.ipynb"))]
RICH = ("image/", "text/html", "text/markdown", "text/latex", "application/")
SHOWN = 12                      # long lines listed in a failure message


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else (value or "")


def code_lines(nb: dict):
    """(cell number, line number, line) of every code line."""
    for number, cell in enumerate(nb["cells"], 1):
        if cell["cell_type"] == "code":
            for k, line in enumerate(_text(cell["source"]).splitlines(), 1):
                yield number, k, line


def output_lines(nb: dict):
    """(cell number, line number in its text outputs, line) of every stored text-output line."""
    for number, cell in enumerate(nb["cells"], 1):
        blocks, stream = [], None       # consecutive pieces of one stream are one text
        for output in cell.get("outputs", []):
            if output["output_type"] == "stream":
                if output.get("name") == stream:
                    blocks[-1] += _text(output.get("text"))
                else:
                    blocks.append(_text(output.get("text")))
                stream = output.get("name")
                continue
            stream = None
            data = output.get("data", {})
            if "text/plain" in data and not any(m.startswith(RICH) for m in data):
                blocks.append(_text(data["text/plain"]))
        lines = [line for block in blocks for line in block.splitlines()]
        for k, line in enumerate(lines, 1):
            yield number, k, line.split("\r")[-1]          # a carriage return redraws the line


def too_long(lines, limit: int = LINE_LIMIT) -> list[str]:
    return [f"cell {cell}, line {k}: {len(line.expandtabs())} characters: {line.strip()[:60]!r}..."
            for cell, k, line in lines if len(line.expandtabs()) > limit]


def _report(path: Path, kind: str, found: list[str]) -> str:
    more = f"\n  ... and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
    return (f"{path.parent.name}/{path.name}: {len(found)} {kind} longer than {LINE_LIMIT} "
            f"characters (they do not fit JupyterLab at 1280 px with the file browser open):\n  "
            + "\n  ".join(found[:SHOWN]) + more)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_code_lines_fit_the_screen(path):
    found = too_long(code_lines(json.loads(path.read_text(encoding="utf-8"))))
    assert not found, _report(path, "code lines", found)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_stored_text_outputs_fit_the_screen(path):
    found = too_long(output_lines(json.loads(path.read_text(encoding="utf-8"))))
    assert not found, _report(path, "lines of stored text output", found)


def test_the_rule_counts_code_and_every_text_output_and_skips_rich_ones():
    long = "x" * (LINE_LIMIT + 1)
    nb = {"cells": [
        {"cell_type": "markdown", "source": long},
        {"cell_type": "code", "source": ["a = 1\n", f"b = '{long}'"], "outputs": [
            {"output_type": "stream", "name": "stdout", "text": ["ok\n", long[:9]]},
            {"output_type": "stream", "name": "stdout", "text": long[9:] + "\n"},
            {"output_type": "stream", "name": "stderr", "text": "\t" * 12 + "x"},
            {"output_type": "execute_result", "data": {"text/plain": [long]}},
            {"output_type": "display_data", "data": {"text/plain": long, "image/png": "..."}},
            {"output_type": "display_data", "data": {"text/plain": long, "text/html": "<b/>"}},
            {"output_type": "stream", "name": "stdout", "text": "0%" + "\r" * 3 + "100%\n"}]},
    ]}
    assert [(c, k) for c, k, line in code_lines(nb) if len(line) > LINE_LIMIT] == [(2, 2)]
    found = too_long(output_lines(nb))
    assert [f.split(":")[0] for f in found] == ["cell 2, line 2", "cell 2, line 3", "cell 2, line 4"]
    assert "97 characters" in found[1]                     # twelve tabs and an x, tabs of 8
    assert not too_long(code_lines(nb), limit=len(f"b = '{long}'"))
