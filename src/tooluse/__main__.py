"""`python -m tooluse`: the same as the `tooluse` command."""

from ._cli import main

raise SystemExit(main())
