"""Search: PIMC over sampled hidden worlds (``pimc``, ``PIMCAgent``), what a search may spend
(``budget``), its rollouts (``rollouts``), the leaf value of its depth-limited rollouts
(``leaf``), and a search from a spec's text (``parse``: ``parse_spec``, ``make_search``)."""
