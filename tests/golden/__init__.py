"""Golden playthroughs of both games (see ``playthrough.py``)."""
