"""Evaluation in duplicate deal pairs: the pairs and their statistics (``duplicate``), one
evaluation (``evaluate``), a league with ratings (``league``, ``ratings``, ``league_report``),
where one agent wins or loses against another (``compare``), tables of results (``report``),
progress lines (``progress``) and the same chunks as Ray tasks (``remote``)."""
