"""Build the course's offline slides and static site (`make slides`, `make site`).

    python course/build.py slides [--out build/slides] [NOTEBOOK ...]
    python course/build.py site   [--out build/site] [--work build/.site-work] [--no-solutions]

slides: one reveal.js deck per lecture for a 1280 x 720 projector (nbconvert's slides exporter,
    template course/nbconvert/reveal_offline, the notebook first shaped by
    course/nbconvert/shaping.py: a slide per section, a sub-slide per subsection, continuation
    sub-slides where content would not fit or would pass about 850 characters of prose,
    figures centred at 80 % of the slide's width, alt text on every figure, interactive
    figures as their default picture), written to OUT with a copy of the vendored reveal.js,
    MathJax 2, require.js, jQuery and widget renderer in OUT/vendor/, so the decks open from
    file:// with no network. Also writes OUT/index.html. Prints the number of slides of each deck.
site: a Jupyter Book 1.x (Sphinx) site of the whole course -- course/intro.md, course/*.md and
    course/*.ipynb, lectures/, exercises/ and (unless --no-solutions) solutions/ -- with the
    outputs stored in the notebooks (nothing is executed). The files are staged in WORK/src
    (same layout as the repository, so relative links keep working; notebooks shaped by
    shaping.shape_site: alt text on every figure, interactive figures as their default
    picture; solution pages titled "Solutions NN — ..."), with _toc.yml generated from the
    folders (a new module needs no configuration edit) and _assets/ =
    course/vendor/{mathjax3,html-manager} + course/site_static/. The build runs with
    -W -n --keep-going: any warning fails it (and its log is shown); otherwise the only line
    printed is where the site is. The HTML ends up in OUT; WORK keeps Sphinx's doctrees.

Needs only the packages of the `test` extra (nbconvert, jupyter-book<2) and course/vendor/;
never the network. Uses no code from panpriv_teach.
"""
from __future__ import annotations

import argparse
import filecmp
import html
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

# jsonschema, which nbformat and jupyter-book import, compiles rfc3987_syntax's IRI grammar when
# it loads: 1.3 s of CPU in each process of a build. Nothing they validate has an IRI format,
# so the build's processes do without it: importing it raises ImportError, which jsonschema
# expects of an optional format checker. (Imported as a module, by the tests, this file
# changes nothing.) JUPYTER_BOOK does the same for jupyter-book's process.
if __name__ == "__main__":
    sys.modules.setdefault("rfc3987_syntax", None)

import nbformat  # noqa: E402
import yaml  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "course"
VENDOR = COURSE / "vendor"
TEMPLATES = COURSE / "nbconvert"
SITE_STATIC = COURSE / "site_static"
sys.path.insert(0, str(TEMPLATES))
import shaping  # noqa: E402  (course/nbconvert/shaping.py)

NOTEBOOK_FOLDERS = [("Lectures", "lectures"), ("Exercises", "exercises"), ("Solutions", "solutions")]
SLIDES_VENDOR = ["reveal.js", "mathjax2", "requirejs", "jquery", "html-manager"]
SITE_VENDOR = ["mathjax3", "html-manager"]
# course/*.md that are not pages of the site
NOT_PAGES = {"intro.md", "README.md"}


def _copy_vendor(names: list[str], dest: Path) -> None:
    for name in names:
        src = VENDOR / name
        if not src.is_dir():
            raise SystemExit(f"missing vendored asset {src}: see course/vendor/README.md")
        shutil.copytree(src, dest / name, dirs_exist_ok=True)


# ---------------------------------------------------------------- slides

def slides_exporter():
    from nbconvert import SlidesExporter
    from traitlets.config import Config

    config = Config()
    config.TemplateExporter.extra_template_basedirs = [str(TEMPLATES)]
    config.SlidesExporter.template_name = "reveal_offline"
    config.SlidesExporter.reveal_url_prefix = "vendor/reveal.js"
    config.SlidesExporter.reveal_theme = "white"         # 'simple' (the default) imports Google fonts
    config.SlidesExporter.reveal_width = "1280"
    config.SlidesExporter.reveal_height = "720"
    config.SlidesExporter.reveal_scroll = False          # only cells tagged `scroll` scroll (shaping.py)
    config.SlidesExporter.mathjax_url = "vendor/mathjax2/MathJax.js?config=TeX-AMS_CHTML-full,Safe"
    config.SlidesExporter.require_js_url = "vendor/requirejs/require.js"
    config.SlidesExporter.jquery_url = "vendor/jquery/dist/jquery.min.js"
    config.SlidesExporter.widget_renderer_url = "vendor/html-manager/dist/embed.js"
    return SlidesExporter(config=config)


def build_slides(out: Path, notebooks: list[Path]) -> dict[Path, int]:
    """Write a deck per notebook; returns deck -> number of slides (sub-slides counted)."""
    if not notebooks:
        raise SystemExit("no lecture notebooks to convert")
    out.mkdir(parents=True, exist_ok=True)
    _copy_vendor(SLIDES_VENDOR, out / "vendor")
    exporter, decks = slides_exporter(), {}
    for notebook in notebooks:
        nb = shaping.shape_deck(nbformat.read(notebook, as_version=4))
        body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": notebook.stem}})
        deck = out / f"{notebook.stem}.slides.html"
        deck.write_text(body, encoding="utf-8")
        decks[deck] = sum(1 for cell in nb.cells
                          if cell.metadata.get("slideshow", {}).get("slide_type") in ("slide", "subslide"))
    items = "\n".join(f'  <li><a href="{html.escape(d.name)}">{html.escape(d.stem.removesuffix(".slides"))}</a></li>'
                      for d in sorted(out.glob("*.slides.html")))
    (out / "index.html").write_text(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>panpriv-teach slides</title>"
        "</head>\n<body>\n<main>\n<h1>panpriv-teach: lecture slides</h1>\n<p>Arrow keys move between slides "
        "(down: the next part of a section); <kbd>s</kbd> opens the speaker view.</p>\n<ul>\n" + items
        + "\n</ul>\n</main>\n</body></html>\n", encoding="utf-8")
    return decks


# ---------------------------------------------------------------- site

def course_pages() -> list[Path]:
    """course/*.md shown on the site, syllabus first."""
    pages = [p for p in sorted(COURSE.glob("*.md")) if p.name not in NOT_PAGES]
    return sorted(pages, key=lambda p: (p.stem != "syllabus", p.name))


def site_sources(solutions: bool = True) -> dict[str, Path]:
    """Staging-relative path -> source file, for every page of the site."""
    sources = {"_config.yml": COURSE / "_config.yml", "intro.md": COURSE / "intro.md",
               "_ext/site_extension.py": TEMPLATES / "site_extension.py"}
    for page in course_pages():
        sources[f"course/{page.name}"] = page
    for nb in sorted(COURSE.glob("*.ipynb")):
        sources[f"course/{nb.name}"] = nb
    for _, folder in NOTEBOOK_FOLDERS:
        if folder == "solutions" and not solutions:
            continue
        for nb in sorted((ROOT / folder).glob("*.ipynb")):
            sources[f"{folder}/{nb.name}"] = nb
    return sources


def make_toc(sources: dict[str, Path]) -> dict:
    parts = [{"caption": "Course",
              "chapters": [{"file": Path(rel).with_suffix("").as_posix()}
                           for rel in sources if rel.startswith("course/")]}]
    for caption, folder in NOTEBOOK_FOLDERS:
        chapters = [{"file": Path(rel).with_suffix("").as_posix()}
                    for rel in sources if rel.startswith(f"{folder}/")]
        if chapters:
            parts.append({"caption": caption, "chapters": chapters})
    parts = [p for p in parts if p["chapters"]]
    return {"format": "jb-book", "root": "intro", "parts": parts}


def _sync(src: Path, dest: Path) -> None:
    """Copy src to dest unless identical (keeps mtimes, so Sphinx rebuilds only what changed)."""
    if dest.exists() and filecmp.cmp(src, dest, shallow=False):
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src, dest)


def _write_if_changed(text: str, dest: Path) -> None:
    if dest.exists() and dest.read_text(encoding="utf-8") == text:
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(text, encoding="utf-8")


EXERCISES_TITLE = re.compile(r"^#\s+(?:Exercises?\b\s*)?(.*)$")


def solution_title(nb) -> None:
    """A solution page is titled "Solutions NN — topic", never like its exercise page (in place)."""
    for cell in nb.cells:
        if cell.cell_type == "markdown" and cell.source.lstrip().startswith("# "):
            first, _, rest = cell.source.lstrip().partition("\n")
            if not first[2:].lstrip().lower().startswith("solution"):
                first = "# Solutions " + EXERCISES_TITLE.match(first).group(1)
            cell.source = first + ("\n" + rest if rest else "")
            return


def stage_notebook(rel: str, src: Path, dest: Path) -> None:
    nb = shaping.shape_site(nbformat.read(src, as_version=4))
    if rel.startswith("solutions/"):
        solution_title(nb)
    _write_if_changed(nbformat.writes(nb) + "\n", dest)


def stage_intro(solutions: bool, dest: Path) -> None:
    lines = (COURSE / "intro.md").read_text(encoding="utf-8").splitlines(keepends=True)
    if not solutions:
        lines = [line for line in lines if "**Solutions**" not in line]
    _write_if_changed("".join(lines), dest)


def stage_site(stage: Path, solutions: bool = True) -> dict[str, Path]:
    sources = site_sources(solutions)
    for rel, src in sources.items():
        if src.suffix == ".ipynb":
            stage_notebook(rel, src, stage / rel)
        elif rel == "intro.md":
            stage_intro(solutions, stage / rel)
        else:
            _sync(src, stage / rel)
    keep = set(sources) | {"_toc.yml"}
    for old in [p for p in stage.rglob("*") if p.is_file() and p.relative_to(stage).parts[0] != "_assets"]:
        if old.relative_to(stage).as_posix() not in keep:
            old.unlink()  # a notebook removed from the repository leaves the site too
    toc = yaml.safe_dump(make_toc(sources), sort_keys=False)
    if not (stage / "_toc.yml").exists() or (stage / "_toc.yml").read_text() != toc:
        (stage / "_toc.yml").write_text(toc)
    assets = stage / "_assets"
    if assets.exists():
        shutil.rmtree(assets)
    _copy_vendor(SITE_VENDOR, assets)
    shutil.copytree(SITE_STATIC, assets, dirs_exist_ok=True)
    return sources


# `jupyter-book` without rfc3987_syntax (see the top of this file)
JUPYTER_BOOK = ('import sys; sys.modules.setdefault("rfc3987_syntax", None); '
                "from jupyter_book.cli.main import main; sys.exit(main())")


def build_site(out: Path, work: Path, solutions: bool = True) -> Path:
    solutions = solutions and any((ROOT / "solutions").glob("*.ipynb"))   # none in a student release
    stage = work / "src"
    stage.mkdir(parents=True, exist_ok=True)
    stage_site(stage, solutions)
    if importlib.util.find_spec("jupyter_book") is None:
        raise SystemExit("jupyter-book not found: install the course with its test extra "
                         "(make setup, or pip install -e '.[test]')")
    cmd = [sys.executable, "-c", JUPYTER_BOOK, "build", str(stage), "--path-output", str(work),
           "--builder", "html", "-W", "-n", "--keep-going"]
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    html_dir = work / "_build" / "html"
    if result.returncode != 0 or not (html_dir / "index.html").exists():
        log = result.stdout + result.stderr
        warnings = [line for line in log.splitlines() if "WARNING" in line or "ERROR" in line]
        raise SystemExit(f"{log[-4000:]}\njupyter-book build failed (exit {result.returncode}):\n"
                         + "\n".join(warnings or ["(no warning line; the log's end is above)"]))
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(html_dir, out)
    return out


# ---------------------------------------------------------------- command line

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    p_slides = sub.add_parser("slides", help="reveal.js decks of the lectures")
    p_slides.add_argument("--out", type=Path, default=ROOT / "build" / "slides")
    p_slides.add_argument("notebooks", nargs="*", type=Path,
                          help="lecture notebooks (default: lectures/*.ipynb)")
    p_site = sub.add_parser("site", help="the static HTML site of the whole course")
    p_site.add_argument("--out", type=Path, default=ROOT / "build" / "site")
    p_site.add_argument("--work", type=Path, default=ROOT / "build" / ".site-work",
                        help="staging folder and Sphinx doctrees (kept for incremental builds)")
    p_site.add_argument("--no-solutions", dest="solutions", action="store_false",
                        help="leave the solution notebooks out (a site for students)")
    args = parser.parse_args(argv)

    if args.what == "slides":
        notebooks = [nb.resolve() for nb in args.notebooks] or sorted((ROOT / "lectures").glob("*.ipynb"))
        decks = build_slides(args.out.resolve(), notebooks)
        for deck, slides in decks.items():
            print(f"{deck.name}: {slides} slides")
        print(f"open {_shown(args.out / 'index.html')}")
    else:
        out = build_site(args.out.resolve(), args.work.resolve(), args.solutions)
        print(f"site in {_shown(out)}: open {_shown(out / 'index.html')}")
    return 0


def _shown(path: Path) -> str:
    """`path` relative to the working directory when it is inside it."""
    path = path.resolve()
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


if __name__ == "__main__":
    sys.exit(main())
