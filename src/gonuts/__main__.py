import sys

from gonuts.cli import main

sys.exit(main())
