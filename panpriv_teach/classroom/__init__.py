"""The classroom machinery around the course's library: the notebook pipeline
(`notebooks`: exercises generated from solutions, execution), the students' copies
(`workspace`), the student release (`release`), the nbgrader export (`nbgrader_export`),
the scoreboard of `check` (`scoreboard`) and the grader (`grading`). None of it is imported
by the library itself; the commands of `python -m panpriv_teach` use it.
"""
import sys

# jsonschema, which nbformat imports, compiles rfc3987_syntax's IRI grammar when it loads:
# 1.5 s of CPU at the start of every command that reads a notebook. A notebook's schema
# checks no IRI, so the commands do without it: importing it raises ImportError, which
# jsonschema expects of an optional checker. (A process that imported it before keeps it.)
sys.modules.setdefault("rfc3987_syntax", None)


def main_without_iri_grammar(module: str) -> str:
    """Source for `python -c`: run `module`'s console-script `main()`, as its command does,
    in a process that does without that grammar too (JupyterLab's server, nbval's pytest)."""
    return (f'import sys; sys.modules.setdefault("rfc3987_syntax", None); '
            f"from {module} import main; sys.exit(main())")
