"""``python -m gonuts.train``: the command line of the self-play trainer."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from gonuts.train.cli import add_arguments, run


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gonuts.train", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
