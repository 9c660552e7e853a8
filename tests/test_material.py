"""Material as the site ships it (figures/site/material.py): its palette stylesheet without the rule
that made every page load recompute every element's style twice."""

import pytest

from figures.site import material

RULE = "[data-md-color-switching] *,[data-md-color-switching] :after{transition-duration:0s!important}"


def test_the_built_site_ships_materials_palette_without_the_switching_rule(site):
    sheets = material.palette_stylesheets(site)
    assert len(sheets) == 1
    css = sheets[0].read_text(encoding="utf-8")
    assert "data-md-color-switching" not in css
    assert "[data-md-color-scheme=slate]" in css  # the rest of the palette is still there


def test_the_rule_is_taken_out_once_and_the_rest_is_kept(tmp_path):
    sheet = tmp_path / "assets" / "stylesheets" / "palette.0123abcd.min.css"
    sheet.parent.mkdir(parents=True)
    sheet.write_text(f"a{{color:red}}{RULE}b{{color:blue}}", encoding="utf-8")
    assert material.without_switching_rule(tmp_path) == 1
    assert sheet.read_text(encoding="utf-8") == "a{color:red}b{color:blue}"
    assert material.without_switching_rule(tmp_path) == 0  # both languages' builds call it


def test_a_material_that_changed_is_named_not_silently_shipped(tmp_path):
    with pytest.raises(material.MaterialChanged, match="no Material palette stylesheet"):
        material.without_switching_rule(tmp_path)
    sheet = tmp_path / "assets" / "stylesheets" / "palette.0123abcd.min.css"
    sheet.parent.mkdir(parents=True)
    sheet.write_text("@media screen{body[data-md-color-switching]{x:y}", encoding="utf-8")  # unbalanced
    with pytest.raises(material.MaterialChanged, match="palette.0123abcd.min.css"):
        material.without_switching_rule(tmp_path)
