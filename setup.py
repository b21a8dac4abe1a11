"""Build gonuts: the engine's hot modules compiled with mypyc where a C compiler works.

Everything else is in pyproject.toml. The modules listed in ``gonuts.build.COMPILED_MODULES``
are compiled to C extensions (the ``.py`` files are installed beside them); with no working
C compiler, or with ``GONUTS_PURE=1``, the package installs as pure Python, saying so in one
line. See the README, "Compiled engine".
"""

from __future__ import annotations

import ast
import os
import sys
import tempfile
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
SRC = ROOT / "src"


def compiled_modules() -> list[str]:
    """The source files of gonuts.build.COMPILED_MODULES (read, not imported)."""
    tree = ast.parse((SRC / "gonuts" / "build.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "COMPILED_MODULES":
            names = ast.literal_eval(node.value)
            return [str(Path("src", *name.split("."))) + ".py" for name in names]
    raise SystemExit("setup.py: COMPILED_MODULES not found in src/gonuts/build.py")


def notice(reason: str) -> None:
    print(f"gonuts: {reason}; installing the pure-Python engine", file=sys.stderr)


def compiler_works() -> bool:
    """Whether the C compiler this Python builds extensions with compiles a tiny file."""
    from setuptools._distutils.ccompiler import new_compiler  # noqa: PLC0415
    from setuptools._distutils.sysconfig import customize_compiler  # noqa: PLC0415

    compiler = new_compiler()
    customize_compiler(compiler)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp, "probe.c")
        source.write_text("int gonuts_probe(void) { return 0; }\n")
        try:
            compiler.compile([str(source)], output_dir=tmp)
        except Exception:  # any failure means: no usable compiler
            return False
    return True


BUILD_COMMANDS = {"build", "build_ext", "bdist_wheel", "editable_wheel", "install", "develop"}


def extensions() -> list[object]:
    if not BUILD_COMMANDS & set(sys.argv[1:]):
        return []  # metadata or a source archive: nothing is compiled, so skip mypyc's work
    if os.environ.get("GONUTS_PURE") == "1":
        notice("GONUTS_PURE=1")
        return []
    if not compiler_works():
        notice("no working C compiler")
        return []
    try:
        from mypyc.build import mypycify  # noqa: PLC0415
    except ImportError:
        notice("mypyc (mypy) is not installed")
        return []
    # follow-imports=silent: the modules the compiled ones import (gonuts.bots' package, which
    # reaches the NumPy and Gymnasium code) are read for their types but not checked here, so
    # an isolated build without those packages compiles; the compiled modules are checked.
    options = ["--follow-imports=silent"]
    return list(
        mypycify([*options, *compiled_modules()], opt_level="3", group_name="gonuts_engine")
    )


class BuildExtOrPure(build_ext):
    """Compile the extensions; if that fails anyway, leave them out (pure Python)."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # a compiler failure of any kind
            notice(f"compiling failed ({exc})")
            self.extensions = []


os.chdir(ROOT)  # mypycify takes paths relative to the project
setup(ext_modules=extensions(), cmdclass={"build_ext": BuildExtOrPure})
