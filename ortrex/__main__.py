"""``python -m ortrex``."""

from ortrex.cli import main

raise SystemExit(main())
