"""Build the course's offline slides and static site (`make slides`, `make site`).

    python course/build.py slides [--out build/slides] [NOTEBOOK ...]
    python course/build.py site   [--out build/site] [--work build/.site-work]

slides: one reveal.js deck per lecture (`jupyter nbconvert --to slides`, template
    course/nbconvert/reveal_offline), written to OUT with a copy of the vendored reveal.js,
    MathJax 2, require.js, jQuery and widget renderer in OUT/vendor/, so the decks open from
    file:// with no network. Also writes OUT/index.html.
site: a Jupyter Book 1.x (Sphinx) site of the whole course -- course/intro.md, course/*.md,
    lectures/, exercises/, solutions/ -- with the outputs stored in the notebooks (nothing is
    executed). The files are staged in WORK/src (same layout as the repository, so relative
    links keep working), with _toc.yml generated from the folders (a new module needs no
    configuration edit) and _assets/ = course/vendor/{mathjax3,html-manager} +
    course/site_static/. The build runs with -W -n --keep-going: any warning fails it.
    The HTML ends up in OUT; WORK keeps Sphinx's doctrees for fast rebuilds.

Needs only the packages of the `test` extra (nbconvert, jupyter-book<2) and course/vendor/;
never the network. Uses no code from panpriv_teach.
"""
from __future__ import annotations

import argparse
import filecmp
import html
import shutil
import subprocess
import sys
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
COURSE = ROOT / "course"
VENDOR = COURSE / "vendor"
TEMPLATES = COURSE / "nbconvert"
SITE_STATIC = COURSE / "site_static"

NOTEBOOK_FOLDERS = [("Lectures", "lectures"), ("Exercises", "exercises"), ("Solutions", "solutions")]
SLIDES_VENDOR = ["reveal.js", "mathjax2", "requirejs", "jquery", "html-manager"]
SITE_VENDOR = ["mathjax3", "html-manager"]
# course/*.md that are not pages of the site
NOT_PAGES = {"intro.md", "README.md"}


def _bin(name: str) -> str:
    """The console script `name` of this Python's environment (the venv), else from PATH."""
    local = Path(sys.executable).parent / name
    if local.exists():
        return str(local)
    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} not found: install the course with its test extra "
                         f"(make setup, or pip install -e '.[test]')")
    return found


def _copy_vendor(names: list[str], dest: Path) -> None:
    for name in names:
        src = VENDOR / name
        if not src.is_dir():
            raise SystemExit(f"missing vendored asset {src}: see course/vendor/README.md")
        shutil.copytree(src, dest / name, dirs_exist_ok=True)


# ---------------------------------------------------------------- slides

SLIDES_OPTIONS = [
    f"--TemplateExporter.extra_template_basedirs={TEMPLATES}",
    "--template=reveal_offline",
    "--SlidesExporter.reveal_url_prefix=vendor/reveal.js",
    "--SlidesExporter.reveal_theme=white",  # 'simple' (the default) imports Google fonts
    "--SlidesExporter.reveal_scroll=True",  # long slides (figures, tables) scroll
    "--SlidesExporter.mathjax_url=vendor/mathjax2/MathJax.js?config=TeX-AMS_CHTML-full,Safe",
    "--SlidesExporter.require_js_url=vendor/requirejs/require.js",
    "--SlidesExporter.jquery_url=vendor/jquery/dist/jquery.min.js",
    "--SlidesExporter.widget_renderer_url=vendor/html-manager/dist/embed.js",
]


def build_slides(out: Path, notebooks: list[Path]) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    _copy_vendor(SLIDES_VENDOR, out / "vendor")
    if not notebooks:
        raise SystemExit("no lecture notebooks to convert")
    subprocess.run([_bin("jupyter-nbconvert"), "--to", "slides", *SLIDES_OPTIONS,
                    f"--output-dir={out}", *map(str, notebooks)], check=True, cwd=ROOT)
    decks = [out / f"{nb.stem}.slides.html" for nb in notebooks]
    missing = [d for d in decks if not d.exists()]
    if missing:
        raise SystemExit(f"nbconvert wrote no deck for {missing}")
    items = "\n".join(f'  <li><a href="{html.escape(d.name)}">{html.escape(d.stem.removesuffix(".slides"))}</a></li>'
                      for d in sorted(out.glob("*.slides.html")))
    (out / "index.html").write_text(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>panpriv-teach slides</title>"
        "</head>\n<body>\n<h1>panpriv-teach: lecture slides</h1>\n<p>Arrow keys move between slides; "
        "<kbd>s</kbd> opens the speaker view.</p>\n<ul>\n" + items + "\n</ul>\n</body></html>\n",
        encoding="utf-8")
    return decks


# ---------------------------------------------------------------- site

def course_pages() -> list[Path]:
    """course/*.md shown on the site, syllabus first."""
    pages = [p for p in sorted(COURSE.glob("*.md")) if p.name not in NOT_PAGES]
    return sorted(pages, key=lambda p: (p.stem != "syllabus", p.name))


def site_sources() -> dict[str, Path]:
    """Staging-relative path -> source file, for every page of the site."""
    sources = {"_config.yml": COURSE / "_config.yml", "intro.md": COURSE / "intro.md"}
    for page in course_pages():
        sources[f"course/{page.name}"] = page
    for _, folder in NOTEBOOK_FOLDERS:
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


def stage_site(stage: Path) -> dict[str, Path]:
    sources = site_sources()
    for rel, src in sources.items():
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


def build_site(out: Path, work: Path) -> Path:
    stage = work / "src"
    stage.mkdir(parents=True, exist_ok=True)
    stage_site(stage)
    cmd = [_bin("jupyter-book"), "build", str(stage), "--path-output", str(work),
           "--builder", "html", "-W", "-n", "--keep-going"]
    result = subprocess.run(cmd, cwd=ROOT)
    html_dir = work / "_build" / "html"
    if result.returncode != 0 or not (html_dir / "index.html").exists():
        raise SystemExit(f"jupyter-book build failed (exit {result.returncode}); see the warnings above")
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
    args = parser.parse_args(argv)

    t0 = time.perf_counter()
    if args.what == "slides":
        notebooks = [nb.resolve() for nb in args.notebooks] or sorted((ROOT / "lectures").glob("*.ipynb"))
        decks = build_slides(args.out.resolve(), notebooks)
        print(f"{len(decks)} decks in {args.out} ({time.perf_counter() - t0:.1f} s); "
              f"open {args.out / 'index.html'}")
    else:
        out = build_site(args.out.resolve(), args.work.resolve())
        print(f"site in {out} ({time.perf_counter() - t0:.1f} s); open {out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
