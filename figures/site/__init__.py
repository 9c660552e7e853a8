"""The MkDocs layer, and nothing else: hooks.py (named in mkdocs.yml) hands each MkDocs event to
one module per feature: gen_figures.py (the gen-files script that renders the figures), markup.py
(a page's constructs as HTML), cards.py (error cards), cheatsheet.py (the reference page's
tables), cite.py ("Cite this page"), language.py (the language menu and search per language),
mathml.py (maths as MathML), material.py (Material's assets), offline.py (the offline copy)."""
