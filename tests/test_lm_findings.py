"""mha_ref.tiny.lm_findings: what page 4 reads from the kept measurements, checked against the syntactic
test itself and against the held-out sentences (the whole recount over the seeds is in
test_lm_heads.py, slow)."""

import pytest

from figures.keep import tiny_lm
from mha_ref import roles
from mha_ref.tiny import language, lm_findings, lm_heads, lm_train, voita


@pytest.mark.parametrize("arcs", [1, 7, 10, 186, 258, 1163])
def test_spare_arcs_are_the_hits_a_head_can_lose_and_still_pass(arcs):
    for offset_hits in range(0, arcs + 1, max(1, arcs // 9)):
        for hits in range(0, arcs + 1, max(1, arcs // 23)):
            a = roles.ArcScore(hits, arcs, -1, offset_hits)
            k = lm_findings.spare_arcs(a)
            if not voita.syntactic_on(a):
                assert k < 0
                continue
            assert voita.syntactic_on(a._replace(hits=hits - k))
            assert not voita.syntactic_on(a._replace(hits=hits - k - 1))


def test_a_verdict_is_near_its_bar_within_two_standard_errors():
    a = roles.ArcScore(102, 258, -2, 76)  # 10.08 points above the baseline: 0.08 above the bar
    assert lm_findings.spare_arcs(a) == 0 and lm_findings.near_bar(a)
    assert lm_findings.standard_error_pts(a) == pytest.approx(100 * (102 / 258 * 156 / 258 / 258) ** 0.5)
    far = roles.ArcScore(408, 424, -2, 183)
    assert not lm_findings.near_bar(far)


def _verdict(apart):
    m = roles.HeadMeasures(1, 1.0, -1, 1, False, 0, {}, ())
    return lm_heads.HeadVerdict(0, m, (), apart, ())


def test_repeat_ways_read_each_direction_with_the_syntactic_test():
    passing, failing = roles.ArcScore(80, 239, 6, 34), roles.ArcScore(40, 239, 6, 34)
    back, on = lm_findings.REPEAT_BACK, lm_findings.REPEAT_ON
    assert back.endswith(voita.DIRECTIONS[0]) and on.endswith(voita.DIRECTIONS[1])  # dependent (repeat) to head (first)
    assert lm_findings.repeat_ways(_verdict({back: passing, on: failing})) == (True, False)
    assert lm_findings.repeat_ways(_verdict({back: failing, on: passing})) == (False, True)
    assert lm_findings.repeat_ways(_verdict({})) == (False, False)


@pytest.mark.usefixtures("trained_lm")
def test_the_neighbour_ceiling_counts_the_held_out_words_that_have_a_neighbour():
    """Every held-out sentence ends with one <eos>: its first word has nothing before it and its last
    only <eos> after it, so as many words have a previous word as a next one; no head of any seed puts
    its top key one step back from a first word or one step on from a last one."""
    held = lm_train.held_out()
    words = [[t for t in s.tokens if t != language.EOS] for s in held]
    assert all(s.tokens[-1] == language.EOS and list(s.tokens).count(language.EOS) == 1 for s in held)
    with_previous = sum(len(w) - 1 for w in words)
    for s in tiny_lm.all_seeds():
        assert lm_findings.queries(s) == sum(map(len, words))
        assert lm_findings.with_neighbour(s) == with_previous
        for offset in (-1, 1):
            share = lm_findings.best_share_given(s, offset)
            assert share == pytest.approx(lm_heads.best_share(s, offset) / lm_findings.ceiling(s), rel=1e-12)
            assert share <= 1
