"""bench: time the site build, cold, warm and after typical edits, against the floor (`python -m bench`)."""
