"""`python -m kernelpro.optimizer optimize ...`: the same commands as `kernelpro`."""
import sys

from kernelpro.profilers.cli import main

if __name__ == "__main__":
    sys.exit(main())
