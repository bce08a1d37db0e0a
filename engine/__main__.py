"""``python -m engine``: the command line."""

from engine.cli import main

raise SystemExit(main())
