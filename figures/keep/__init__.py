"""The site's machinery for keeping results on disk: the MHA_* switches (switches.py), where the
caches live and how a file is kept whole and sealed (disk.py), results as JSON (as_json.py) and the
digest of the code a result reaches (reach.py). Imports numpy and nothing of mha_ref."""
