"""A local web page to play Dagong and Dabang against the agents and to watch game records.

    python -m cardenv.web [--port 8000] [--host 127.0.0.1] [--checkpoint PATH ...] [--records DIR]

then open http://127.0.0.1:8000/. The server (``cardenv.web.server``) runs on Python's standard
library; the page (``cardenv/web/static``) is plain HTML, CSS and JavaScript, with no build step
and nothing fetched from elsewhere. Agents act on the server; the page is sent only what the
person's seat may know (``cardenv.web.sessions``), with each game's extras (score, notes, last
trick, rules panel: ``cardenv.web.extras``); the shipped checkpoints and leagues are found from
any working folder (``cardenv.web.paths``). ``docs/web.md`` describes the page, the JSON API and
the no-leak guarantee.
"""

from cardenv.web.server import App, make_server

__all__ = ["App", "make_server"]
