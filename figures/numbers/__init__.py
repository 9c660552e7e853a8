"""The named numbers the pages print ({{ value NAME }}): quantities.py, the one registry, each
computed by mha_ref."""
