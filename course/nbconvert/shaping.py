"""Shape a notebook for the course's slides and site (used by course/build.py, not by the course).

* `describe_figures`: every image output gets alternative text: the one the kernel stored
  (`panpriv_teach.plots.setup` stores each figure's titles), else the cell's `alt` metadata,
  else "Figure: <the heading it sits under>".
* `prefer_pictures`: an interactive figure's output (a widget view that also carries its
  default figure as PNG, `panpriv_teach.widgets.Panel`) shows the picture: there is no kernel
  behind a slide or a web page to redraw it, and the picture carries its alt text.
* `shape_deck`: slides an instructor can project at 1280 x 720. A new slide at every `#`/`##`
  heading and a sub-slide at every `###` (markdown cells are split at headings); a
  continuation sub-slide wherever the next cell would not fit (by an estimate of its height
  in the deck's CSS, course/nbconvert/reveal_offline/index.html.j2), and cells too tall for
  one slide split: markdown at paragraphs, code at blank lines, outputs on sub-slides of their
  own, long text outputs in pieces. A cell tagged `scroll` is kept whole on a slide that scrolls.
"""
from __future__ import annotations

import base64
import copy
import itertools
import math
import re
import struct

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
MARKDOWN_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")

# The deck's geometry (reveal.js at 1280 x 720, the CSS of reveal_offline/index.html.j2).
SLIDE_HEIGHT = 720
BUDGET = 610                     # px of content per slide: margins, and the estimate's error
TEXT_LINE, TEXT_CHARS = 30, 88   # markdown: 20 px font, line height 1.5, characters per line
CODE_LINE, CODE_CHARS = 22, 108  # code and text output: 15 px monospace, line height 1.45
HEADING_PX = {1: 70, 2: 60, 3: 50}
CELL_GAP = 14


def _source(cell) -> str:
    return "".join(cell.source) if isinstance(cell.source, list) else cell.source


def _plain(markdown: str) -> str:
    return re.sub(r"[*_`$\\]", "", MARKDOWN_LINK.sub(r"\1", markdown)).strip()


# ---------------------------------------------------------------- figures

def describe_figures(nb) -> None:
    """Give every image output its alternative text (in place), in its output metadata."""
    heading = nb.metadata.get("title", "")
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in _source(cell).splitlines():
                match = HEADING.match(line)
                if match:
                    heading = _plain(match.group(2))
            continue
        for output in cell.get("outputs", []):
            for mime in [m for m in output.get("data", {}) if m.startswith("image/")]:
                meta = output.setdefault("metadata", {}).setdefault(mime, {})
                if not meta.get("alt"):
                    meta["alt"] = cell.metadata.get("alt") or (f"Figure: {heading}" if heading else "Figure")


def prefer_pictures(nb) -> None:
    """Outputs that carry both a widget view and a PNG show the PNG (in place). The widget
    state goes too when no view is left to draw it."""
    views = 0
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW in data and "image/png" in data:
                del data[WIDGET_VIEW]
                data.pop("text/plain", None)
            views += WIDGET_VIEW in data
    if not views:
        nb.metadata.pop("widgets", None)


def alt_texts(cell) -> list[str]:
    return [output["metadata"][mime]["alt"] for output in cell.get("outputs", [])
            for mime in output.get("data", {}) if mime.startswith("image/")
            and output.get("metadata", {}).get(mime, {}).get("alt")]


# ---------------------------------------------------------------- heights

def _png_height(data: str) -> int:
    raw = base64.b64decode(data[:64] + "=" * (-len(data[:64]) % 4))
    if raw[:8] != b"\x89PNG\r\n\x1a\n":
        return 400
    width, height = struct.unpack(">II", raw[16:24])
    return height


def _wrapped(text: str, chars: int) -> int:
    return sum(max(1, math.ceil(len(line) / chars)) for line in text.splitlines()) if text else 0


def markdown_height(text: str) -> int:
    height, in_fence, in_math, paragraphs = 0, False, False, 0
    previous_blank = True
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
            height += CODE_LINE
            continue
        if in_fence:
            height += CODE_LINE * max(1, math.ceil(len(line) / CODE_CHARS))
            continue
        if stripped.startswith("$$"):
            in_math = not (in_math or stripped.count("$$") > 1)
            height += 45
            continue
        if in_math:
            height += 40
            continue
        heading = HEADING.match(line)
        if heading:
            height += HEADING_PX.get(len(heading.group(1)), 45)
        elif not stripped:
            previous_blank = True
            continue
        elif stripped.startswith("|"):
            height += 0 if set(stripped) <= set("|-: ") else 40
        else:
            height += TEXT_LINE * max(1, math.ceil(len(_plain(line)) / TEXT_CHARS))
        if previous_blank:
            paragraphs += 1
        previous_blank = False
    return height + 14 * paragraphs


def output_height(output) -> int:
    if output.get("output_type") == "stream":
        return CODE_LINE * _wrapped(output.get("text", ""), CODE_CHARS) + 10
    if output.get("output_type") == "error":
        return CODE_LINE * len(output.get("traceback", [])) + 10
    data = output.get("data", {})
    if "image/png" in data:
        return _png_height(data["image/png"]) + 10
    if WIDGET_VIEW in data:
        return 520
    if "text/html" in data:
        html = "".join(data["text/html"]) if isinstance(data["text/html"], list) else data["text/html"]
        return 38 * max(1, html.count("<tr")) + 20
    if "text/latex" in data or "text/markdown" in data:
        return 60
    text = data.get("text/plain", "")
    return CODE_LINE * _wrapped("".join(text) if isinstance(text, list) else text, CODE_CHARS) + 10


def cell_height(cell) -> int:
    if cell.cell_type == "markdown":
        return markdown_height(_source(cell)) + CELL_GAP
    if cell.cell_type != "code":
        return 0
    shown = not cell.metadata.get("transient", {}).get("remove_source")
    source = CODE_LINE * _wrapped(_source(cell), CODE_CHARS) + 24 if shown and _source(cell).strip() else 0
    return source + sum(output_height(o) for o in cell.get("outputs", [])) + CELL_GAP


# ---------------------------------------------------------------- splitting

def _slide_type(cell) -> str:
    return cell.metadata.get("slideshow", {}).get("slide_type", "-")


def _set_slide_type(cell, slide_type: str) -> None:
    cell.metadata.setdefault("slideshow", {})["slide_type"] = slide_type


def _blocks(text: str, at_headings: bool) -> list[str]:
    """Split markdown at headings (at_headings) or at blank lines, never inside a fenced
    code block or a $$ display."""
    blocks, current, in_fence, in_math = [], [], False, False
    for line in text.splitlines():
        stripped = line.strip()
        boundary = not in_fence and not in_math and (
            HEADING.match(line) if at_headings else not stripped)
        if boundary and any(part.strip() for part in current):
            blocks.append("\n".join(current).strip("\n"))
            current = []
        if stripped.startswith("```"):
            in_fence = not in_fence
        elif stripped.startswith("$$") and stripped.count("$$") == 1:
            in_math = not in_math
        if at_headings or stripped or in_fence or in_math:
            current.append(line)
    if any(part.strip() for part in current):
        blocks.append("\n".join(current).strip("\n"))
    return blocks


_PIECES = itertools.count(1)


def _copy(cell, **changes):
    """A copy of `cell` (a piece of it: a new cell id) with `changes`."""
    new = copy.deepcopy(cell)
    new["id"] = f"{cell.get('id', 'cell')[:50]}-{next(_PIECES)}"
    for key, value in changes.items():
        new[key] = value
    return new


def _line_chunks(text: str, max_lines: int) -> list[str]:
    """Consecutive pieces of at most max_lines lines, cut at a blank line where one is near."""
    lines, chunks = text.splitlines(), []
    while len(lines) > max_lines:
        cut = max((i for i in range(max_lines // 2, max_lines) if not lines[i].strip()), default=max_lines)
        chunks.append("\n".join(lines[:cut]).rstrip("\n"))
        lines = lines[cut:]
        while lines and not lines[0].strip():
            lines = lines[1:]
    chunks.append("\n".join(lines))
    return [c for c in chunks if c.strip()]


def _split_tall(cell) -> list:
    """A cell too tall for one slide, as cells that each fit (the first keeps its slide type;
    the others are continuation sub-slides)."""
    if cell.cell_type == "markdown":
        pieces, current = [], []
        for block in _blocks(_source(cell), at_headings=False):
            if current and markdown_height("\n\n".join(current + [block])) > BUDGET:
                pieces.append("\n\n".join(current))
                current = []
            current.append(block)
        pieces.append("\n\n".join(current))
        return [_copy(cell, source=piece) for piece in pieces]
    max_lines = (BUDGET - 24) // CODE_LINE
    parts = [_copy(cell, source=chunk, outputs=[]) for chunk in _line_chunks(_source(cell), max_lines)]
    for output in cell.get("outputs", []):
        pieces = [output]
        if output.get("output_type") == "stream" and output_height(output) > BUDGET:
            pieces = [{**output, "text": chunk + "\n"} for chunk in _line_chunks(output["text"], max_lines)]
        for piece in pieces:
            part = _copy(cell, outputs=[piece])
            part.metadata["transient"] = {"remove_source": True}      # nbconvert: output only
            parts.append(part)
    return parts


def shape_deck(nb):
    """A copy of `nb` cut into slides that fit 1280 x 720 (see the module's docstring)."""
    nb = copy.deepcopy(nb)
    describe_figures(nb)
    prefer_pictures(nb)
    cells = []
    for cell in nb.cells:                                   # a markdown cell per heading
        if cell.cell_type != "markdown":
            cells.append(cell)
            continue
        for k, block in enumerate(_blocks(_source(cell), at_headings=True)):
            part = _copy(cell, source=block)
            heading = HEADING.match(block.splitlines()[0])
            if heading and _slide_type(part) not in ("notes", "skip"):
                level = len(heading.group(1))
                _set_slide_type(part, "slide" if level <= 2 or _slide_type(cell) == "slide" and k == 0
                                else "subslide")
            elif k:
                _set_slide_type(part, "-")
            cells.append(part)

    shaped, used = [], 0
    for cell in cells:
        kind = _slide_type(cell)
        if kind in ("notes", "skip"):
            shaped.append(cell)
            continue
        if "scroll" in cell.metadata.get("tags", []):        # kept whole, on a slide that scrolls
            if kind not in ("slide", "subslide"):
                _set_slide_type(cell, "subslide")
            cell.metadata["slideshow"]["data"] = {"scroll": "true"}
            shaped.append(cell)
            used = BUDGET + 1                                # what follows starts a new sub-slide
            continue
        height = cell_height(cell)
        parts = _split_tall(cell) if height > BUDGET else [cell]
        for k, part in enumerate(parts):
            height = cell_height(part)
            if k == 0 and kind in ("slide", "subslide"):
                used = 0
            elif used and used + height > BUDGET:
                _set_slide_type(part, "subslide")
                used = 0
            elif k:
                _set_slide_type(part, "-")
            used += height
            shaped.append(part)
    nb.cells = shaped
    return nb


def shape_site(nb):
    """A copy of `nb` for the site: pictures for interactive figures, alt text on every image
    (myst-nb reads a cell's `mystnb.image.alt`)."""
    nb = copy.deepcopy(nb)
    describe_figures(nb)
    prefer_pictures(nb)
    for cell in nb.cells:
        alts = alt_texts(cell)
        if alts:
            cell.metadata.setdefault("mystnb", {}).setdefault("image", {})["alt"] = "; ".join(dict.fromkeys(alts))
    return nb
