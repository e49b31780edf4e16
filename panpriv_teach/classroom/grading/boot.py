"""Start a grading process on the course's own sources: run as a script, never imported,

    python -I -B -S .../grading/boot.py MODULE:FUNCTION OPTIONS_JSON

- `-I -S`: no user site, no PYTHON* variables, no .pth file: nothing planted in the Python
  environment runs; `-B`: no bytecode is written;
- the package panpriv_teach is imported from its source files only: no bytecode file is
  read for it (not even one in __pycache__ carrying the source's time stamp and size), and
  a module that is not a .py source (a planted extension module or bare .pyc) is refused.
  A script is always compiled from its source, so this one is too;
- sys.path is the course folder, then OPTIONS_JSON's "path" (the Python environment's
  folders, as the process that started this one had them).

It then calls MODULE.FUNCTION(options) and exits with the integer it returns.
"""
import json
import os
import sys
from importlib.machinery import PathFinder, SourceFileLoader

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


class _SourceOnly(SourceFileLoader):
    def path_stats(self, path):
        raise OSError("no bytecode is read for the course's modules")


class _CourseSources:
    """Finds panpriv_teach's modules and loads them from source only."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name != "panpriv_teach" and not name.startswith("panpriv_teach."):
            return None
        spec = PathFinder.find_spec(name, path)
        if spec is None:
            return None
        if type(spec.loader) is not SourceFileLoader:
            raise ImportError(f"{name} is not a .py source file ({spec.origin}): refused")
        spec.loader = _SourceOnly(spec.loader.name, spec.loader.path)
        return spec


def main() -> int:
    target, options = sys.argv[1], json.loads(sys.argv[2])
    sys.path[:] = list(dict.fromkeys([ROOT, *options["path"], *sys.path]))
    sys.meta_path.insert(0, _CourseSources)
    module, _, function = target.partition(":")
    __import__(module)
    return getattr(sys.modules[module], function)(options)


if __name__ == "__main__":
    sys.exit(main())
