"""The lectures stay as the course ships them: under `make lab`, JupyterLab's file server
reports lectures/ as read-only and refuses to write there.

Opening, running and closing a lecture then never changes it: JupyterLab 4 shows a
read-only notebook with a lock in its toolbar, its autosave skips it, File › Save (Ctrl+S)
says to use Save As instead, and closing a notebook that was run offers "Save as", not
"Save". A run is kept with File › Save As… in my_work/. File permissions alone would not do
(a server run as root writes anyway), so the rule is the server's: `CourseContentsManager`,
which `panpriv_teach.classroom.workspace` configures for `make lab` only.
"""
from __future__ import annotations

from pathlib import Path

from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
from tornado.web import HTTPError
from traitlets import List, Unicode

READ_ONLY_MESSAGE = ("{path} is read-only: the lectures stay as the course ships them. To keep "
                     "your run, use File › Save As… and save it in my_work/ (for example "
                     "my_work/{name}).")


class CourseContentsManager(AsyncLargeFileManager):
    """JupyterLab's default contents manager, with the folders `read_only` (relative to the
    server's root; default: lectures) reported as not writable and protected from every
    write: save (and so new files and uploads), copy into them, rename and delete."""

    read_only = List(Unicode(), default_value=["lectures"],
                     help="folders, relative to the root, that JupyterLab may read but never "
                          "write").tag(config=True)

    def is_read_only(self, path: str) -> bool:
        """Whether `path` (an API path) is one of the read-only folders or inside one."""
        target = Path(self._get_os_path(path.strip("/"))).resolve()
        return any(target.is_relative_to(Path(self.root_dir, folder).resolve())
                   for folder in self.read_only)

    def _refuse(self, path: str) -> None:
        if self.is_read_only(path):
            path = path.strip("/")
            raise HTTPError(403, READ_ONLY_MESSAGE.format(path=path, name=Path(path).name),
                            reason="Read-only lecture")

    async def get(self, path, content=True, type=None, format=None, **kwargs):
        model = await super().get(path, content=content, type=type, format=format, **kwargs)
        if self.is_read_only(path):
            model["writable"] = False
        if model["type"] == "directory" and model.get("content"):
            for entry in model["content"]:
                if self.is_read_only(entry["path"]):
                    entry["writable"] = False
        return model

    async def save(self, model, path=""):
        self._refuse(path)
        return await super().save(model, path)

    async def delete_file(self, path):
        self._refuse(path)
        return await super().delete_file(path)

    async def rename_file(self, old_path, new_path):
        self._refuse(old_path)
        self._refuse(new_path)
        return await super().rename_file(old_path, new_path)

    async def copy(self, from_path, to_path=None):
        self._refuse(to_path if to_path is not None else from_path)   # a copy lands beside it
        return await super().copy(from_path, to_path)
