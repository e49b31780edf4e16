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
  in the deck's CSS, course/nbconvert/reveal_offline/index.html.j2, above the corner kept for
  the navigation arrows) or would bring the slide's prose above PROSE_CHARS characters; cells
  too tall or too wordy for one slide split: markdown at paragraphs (a `<details>` answer
  kept whole; a single paragraph still too long, at sentences), code at blank lines, outputs
  on sub-slides of their own, long text outputs in pieces. Every figure is shown centred at
  80 % of the slide's width (FIGURE_WIDTH), or as tall as a slide allows when that is too
  tall. A cell tagged `scroll` is kept whole on a slide that scrolls.
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

# The deck's geometry (reveal.js at 1280 x 720 drawn 1:1, the CSS of reveal_offline/index.html.j2).
SLIDE_WIDTH, SLIDE_HEIGHT = 1280, 720
CONTROLS = 112                   # px at the bottom right: reveal.js's navigation arrows
BUDGET = 540                     # px of content: 720 - 16 (top) - CONTROLS - the estimate's error
FIGURE_WIDTH = 1024              # px: 80 % of the slide's width
FIGURE_HEIGHT = BUDGET - 24      # px: the tallest a figure alone on a slide is shown (its cell fits)
PROSE_CHARS = 850                # characters of prose per slide (the test allows 900)
TEXT_LINE, TEXT_CHARS = 30, 110  # markdown: 20 px font, line height 1.5, characters per line
CODE_LINE, CODE_CHARS = 26, 104  # code and text output: 18 px monospace, line height 1.45
HEADING_PX = {1: 70, 2: 60, 3: 50}
CELL_GAP = 14
DETAILS_OPEN, DETAILS_CLOSE = re.compile(r"<details\b", re.I), re.compile(r"</details\s*>", re.I)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(*\[])")


def _source(cell) -> str:
    return "".join(cell.source) if isinstance(cell.source, list) else cell.source


def _plain(markdown: str) -> str:
    return re.sub(r"[*_`$\\]", "", MARKDOWN_LINK.sub(r"\1", markdown)).strip()


def prose_chars(markdown: str) -> int:
    """The characters of prose a markdown text shows, headings and markup left out (an
    answer in `<details>` counted as if open, math by its source)."""
    text = re.sub(r"</?[A-Za-z][^<>]*>", " ", markdown)
    lines = [line for line in text.splitlines() if not HEADING.match(line)
             and not set(line.strip()) <= set("|-: ")]
    return len(re.sub(r"\s+", " ", _plain(" ".join(lines))).strip())


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

def _png_size(data: str) -> tuple[int, int]:
    """(width, height) of a base64 PNG, from its header ((675, 400) if it is not a PNG)."""
    raw = base64.b64decode(data[:64] + "=" * (-len(data[:64]) % 4))
    if raw[:8] != b"\x89PNG\r\n\x1a\n":
        return 675, 400
    width, height = struct.unpack(">II", raw[16:24])
    return width, height


def size_figures(nb) -> None:
    """Show every PNG figure at FIGURE_WIDTH, or FIGURE_HEIGHT tall if that is taller (in place:
    its output's width and height metadata, which the deck's <img> takes). Its logical width
    (the stored `width`, a figure drawn at twice its pixels for sharpness, else its pixels)
    is kept as `logical_width`: the figure's text is shown width/logical_width times larger."""
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if "image/png" not in data:
                continue
            meta = output.setdefault("metadata", {}).setdefault("image/png", {})
            width, height = _png_size(data["image/png"])
            logical = meta.get("logical_width") or meta.get("width") or width
            aspect = height / width
            shown = min(FIGURE_WIDTH, round(FIGURE_HEIGHT / aspect))
            meta.update(width=shown, height=round(shown * aspect), logical_width=logical)


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
        shown = output.get("metadata", {}).get("image/png", {}).get("height")
        return (shown or _png_size(data["image/png"])[1]) + 10
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
    code block, a $$ display or a <details> block."""
    blocks, current, in_fence, in_math, details = [], [], False, False, 0
    for line in text.splitlines():
        stripped = line.strip()
        boundary = not in_fence and not in_math and not details and (
            HEADING.match(line) if at_headings else not stripped)
        if boundary and any(part.strip() for part in current):
            blocks.append("\n".join(current).strip("\n"))
            current = []
        if stripped.startswith("```"):
            in_fence = not in_fence
        elif stripped.startswith("$$") and stripped.count("$$") == 1:
            in_math = not in_math
        elif not in_fence:
            details = max(0, details + len(DETAILS_OPEN.findall(line)) - len(DETAILS_CLOSE.findall(line)))
        if at_headings or stripped or in_fence or in_math or details:
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


def _fits(markdown: str) -> bool:
    return markdown_height(markdown) <= BUDGET and prose_chars(markdown) <= PROSE_CHARS


def _sentences(block: str) -> list[str]:
    """A paragraph too long for a slide, cut at sentence ends outside math and code into
    pieces that fit (a block with a code fence, an answer or a table stays whole)."""
    if _fits(block) or re.search(r"```|<details|^\s*\|", block, re.M):
        return [block]
    cuts = [m.start() for m in SENTENCE_END.finditer(block) if _outside_math_and_code(block, m.start())]
    sentences = [block[a:b].strip() for a, b in zip([0, *cuts], [*cuts, len(block)])]
    pieces, current = [], ""
    for sentence in sentences:
        if current and not _fits(f"{current} {sentence}"):
            pieces.append(current)
            current = ""
        current = f"{current} {sentence}".strip()
    return pieces + [current]


def _outside_math_and_code(text: str, index: int) -> bool:
    """Whether text[index] lies outside $...$, $$...$$ and `...`."""
    open_with = None
    for token in re.finditer(r"\\\$|\$\$|\$|`", text[:index]):
        mark = token.group(0)
        if mark == "\\$":
            continue                                    # an escaped dollar
        if open_with is None:
            open_with = mark
        elif mark == open_with:
            open_with = None
    return open_with is None


def _split_tall(cell) -> list:
    """A cell too tall (or, markdown, too wordy) for one slide, as cells that each fit (the
    first keeps its slide type; the others are continuation sub-slides)."""
    if cell.cell_type == "markdown":
        pieces, current = [], []
        for block in (piece for block in _blocks(_source(cell), at_headings=False)
                      for piece in _sentences(block)):
            if current and not _fits("\n\n".join(current + [block])):
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
    size_figures(nb)
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

    shaped, used, prose = [], 0, 0                          # the current slide's height and prose
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
        wordy = cell.cell_type == "markdown" and prose_chars(_source(cell)) > PROSE_CHARS
        parts = _split_tall(cell) if cell_height(cell) > BUDGET or wordy else [cell]
        for k, part in enumerate(parts):
            height = cell_height(part)
            words = prose_chars(_source(part)) if part.cell_type == "markdown" else 0
            if k == 0 and kind in ("slide", "subslide"):
                used = prose = 0
            elif used and (used + height > BUDGET or prose + words > PROSE_CHARS):
                _set_slide_type(part, "subslide")
                used = prose = 0
            elif k:
                _set_slide_type(part, "-")
            used += height
            prose += words
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
