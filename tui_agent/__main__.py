import sys

from tui_agent.cli import main

sys.exit(main())
