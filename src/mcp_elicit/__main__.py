import sys

from mcp_elicit.cli import main

sys.exit(main())
