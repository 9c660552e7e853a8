"""The site's machinery for keeping results on disk: the MHA_* switches (switches.py), where the
caches live and how a file is kept whole and sealed (disk.py), results as JSON (as_json.py), the
digest of the code a result reaches (reach.py), and page 4's model trained and measured once per
seed, kept (tiny_lm.py: the one module here that imports mha_ref)."""
