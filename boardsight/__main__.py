import sys

from boardsight.cli import main

sys.exit(main())
