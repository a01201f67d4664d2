"""`python -m tooluse`: the same as the `tooluse` command."""

from .cli._main import main

raise SystemExit(main())
