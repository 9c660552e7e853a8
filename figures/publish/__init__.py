"""What a reader takes away and how it is credited: the site's identity (identity.py, from
pyproject.toml), the attribution of each file (attribution.py) stamped into SVG, PNG and PDF
(stamp.py), the files written for the site and the CLI with their zips and CSV tables
(bundles.py), where each figure's code lives (provenance.py), and the site-wide figure numbers
(numbering.py)."""
