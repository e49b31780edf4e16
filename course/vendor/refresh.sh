#!/usr/bin/env bash
# Refresh the vendored browser assets in course/vendor/ from the npm registry.
# Needs node + npm (development only: `make slides` / `make site` never call npm).
# Usage: bash course/vendor/refresh.sh        (then rebuild, run tests/test_site.py, commit)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# Pinned versions: change them here, and in README.md beside this script.
REVEAL=4.6.1 MATHJAX2=2.7.9 MATHJAX3=3.2.2 REQUIREJS=2.3.8 JQUERY=3.7.1 HTMLMANAGER=1.0.15

cd "$WORK"
npm init -y >/dev/null
npm install --no-audit --no-fund --ignore-scripts --omit=optional --no-package-lock \
    "reveal.js@$REVEAL" "mathjax2@npm:mathjax@$MATHJAX2" "mathjax3@npm:mathjax@$MATHJAX3" \
    "requirejs@$REQUIREJS" "jquery@$JQUERY" "@jupyter-widgets/html-manager@$HTMLMANAGER" >/dev/null
N="$WORK/node_modules"

# copy FILE... from package $1 into vendor dir $2, keeping the package's relative paths
take() {
    local pkg="$1" dest="$2"; shift 2
    (cd "$N/$pkg" && for f in "$@"; do
        mkdir -p "$HERE/$dest/$(dirname "$f")"; cp "$f" "$HERE/$dest/$f"; done)
}

rm -rf "$HERE"/{reveal.js,mathjax2,mathjax3,requirejs,jquery,html-manager}

# reveal.js 4: what nbconvert's reveal template loads, with the "white" theme (local fonts, woff only)
take reveal.js reveal.js LICENSE dist/reveal.js dist/reveal.css dist/theme/white.css plugin/notes/notes.js \
    dist/theme/fonts/source-sans-pro/LICENSE dist/theme/fonts/source-sans-pro/source-sans-pro.css
(cd "$N/reveal.js" && take reveal.js reveal.js dist/theme/fonts/source-sans-pro/*.woff)

# MathJax 2 (nbconvert's templates call the MathJax 2 API): the TeX-AMS_CHTML-full configuration,
# the files it loads on demand (TeX extensions, CommonHTML fonts and autoloads, operator tables)
(cd "$N/mathjax2" && take mathjax2 mathjax2 LICENSE MathJax.js config/TeX-AMS_CHTML-full.js config/Safe.js \
    extensions/*.js extensions/TeX/*.js extensions/TeX/mhchem3/*.js \
    jax/output/CommonHTML/fonts/TeX/*.js jax/output/CommonHTML/autoload/*.js \
    jax/element/mml/optable/*.js fonts/HTML-CSS/TeX/woff/*.woff localization/en/*.js)

# MathJax 3 (Sphinx): one combined component with every TeX extension, and its woff2 fonts
(cd "$N/mathjax3" && take mathjax3 mathjax3 LICENSE es5/tex-chtml-full.js es5/output/chtml/fonts/woff-v2/*.woff)

# require.js (loads reveal.js in the decks) and jQuery (nbconvert's reveal template includes it)
take requirejs requirejs require.js
take jquery jquery LICENSE.txt dist/jquery.min.js

# the static ipywidgets renderer: the self-contained bundle (no require.js needed), its
# third-party notices, and the icon fonts it references (woff2 only)
(cd "$N/@jupyter-widgets/html-manager" && take @jupyter-widgets/html-manager html-manager \
    dist/embed.js dist/embed.js.LICENSE.txt dist/*.woff2)

du -sh "$HERE"
