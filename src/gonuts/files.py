"""The library's file edge: reading a file whole and writing one whole or not at all.

The core (:mod:`gonuts.record` and the rest) opens no files; :meth:`Record.load
<gonuts.record.Record.load>` and :meth:`Record.save <gonuts.record.Record.save>` come here.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def read_bytes(path: str | os.PathLike[str]) -> bytes:
    return Path(path).read_bytes()


def write_text_whole(path: str | os.PathLike[str], text: str, *, overwrite: bool) -> None:
    """Write ``text`` beside ``path`` and rename it into place, so a reader never sees half a
    file; an existing ``path`` is kept (:class:`FileExistsError`) unless ``overwrite``."""
    target = Path(path)
    if target.exists() and not overwrite:
        raise FileExistsError(f"{target} exists (overwrite=True replaces it)")
    fd, partial = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        if overwrite:
            os.replace(partial, target)
        else:
            os.link(partial, target)  # fails if the file appeared meanwhile: nothing clobbered
            os.unlink(partial)
    except BaseException:
        Path(partial).unlink(missing_ok=True)
        raise
