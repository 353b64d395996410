"""Build step of the package (the metadata is in pyproject.toml).

The page's templates/ and static/ sit at the top of the repository, beside the package. Building the package
copies them into it, as app/templates and app/static, so that an installed wheel carries them. A checkout and an
editable install read them where they are (create_app in app/__init__.py looks in the package first).
"""

from __future__ import annotations

import os

from setuptools import setup
from setuptools.command.build_py import build_py

PACKAGE = "app"
PAGE_FOLDERS = ("templates", "static")


class BuildPyWithPage(build_py):
    """build_py that also copies the page's folders into the package in the build directory."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the folders in the checkout
        for name in PAGE_FOLDERS:
            self.copy_tree(name, os.path.join(self.build_lib, PACKAGE, name))

    def _page_files(self) -> list[tuple[str, str]]:
        """(source, built) for every file of the page's folders."""
        files = []
        for name in PAGE_FOLDERS:
            for folder, _, names in os.walk(name):
                for filename in names:
                    source = os.path.join(folder, filename)
                    files.append((source, os.path.join(self.build_lib, PACKAGE, source)))
        return sorted(files)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        if getattr(self, "editable_mode", False):
            return outputs
        return outputs + [built for _, built in self._page_files()]


setup(cmdclass={"build_py": BuildPyWithPage})
