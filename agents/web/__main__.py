"""``python -m agents.web``: the web table (``siete-table``)."""

from agents.web import main

raise SystemExit(main())
