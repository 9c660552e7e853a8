"""head-planes and attention-maps: what their captions and pages say, asserted on what the figures
draw (read back from the artists of the Figure draw() returns) and on mha_ref, unrounded."""

import functools

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.text import Annotation
from scipy.spatial import ConvexHull

from mha_ref.example import expressiveness as ex
from figures.numbers import quantities
from mha_ref.example import toy

LANGS = ("zh", "en")
SHARP = ("position", "syntax", "rare")


# reading back head-planes ----------------------------------------------------------------------
@functools.cache
def _planes(query, lang="en"):
    """{panel label: axes} of head-planes drawn for one query (closed: the artists stay readable)."""
    from figures.gallery import head_planes
    fig = head_planes.draw(lang, query)
    plt.close(fig)
    return {ax.get_label(): ax for parent in fig.axes for ax in (parent, *parent.child_axes)}


def _arrows(ax) -> dict[str, Annotation]:
    return {a.get_label(): a for a in ax.texts if isinstance(a, Annotation)}


def _drawn_plane(ax):
    """(q [2], k [n, 2], the key drawn thick) as one panel draws them."""
    arrows = _arrows(ax)
    q = np.array(arrows["query"].xy)
    k = np.array([arrows[f"key {t}"].xy for t in toy.TOKENS])
    widths = [arrows[f"key {t}"].arrow_patch.get_linewidth() for t in toy.TOKENS]
    (thick,) = [j for j, w in enumerate(widths) if w == max(widths)]
    return q, k, thick


def _panel(axes, head):
    """The panel where a head's keys are drawn at a readable size (the diffuse head's magnified box)."""
    return axes["diffuse magnified" if head == "diffuse" else head]


def _angle(a, b) -> float:
    """Degrees between two vectors."""
    return float(np.degrees(np.arccos(np.clip(a @ b / np.linalg.norm(a) / np.linalg.norm(b), -1, 1))))


# head-planes: the arrows are mha_ref's q and k --------------------------------------------------
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("query", range(toy.N))
def test_planes_draw_each_heads_q_and_k_as_the_block_computes_them(query, lang):
    """The arrows are the trace's q and k, and those are x @ W + b on the head's own columns
    (computed here from the inputs and parameters, not read from the trace)."""
    x, p = toy.inputs(), toy.params()
    axes = _planes(query, lang)
    for i, head in enumerate(toy.HEADS):
        cols = slice(i * toy.D_K, (i + 1) * toy.D_K)
        q_ref = x[query] @ p.w_q[:, cols] + p.b_q[cols]
        k_ref = x @ p.w_k[:, cols]
        q, k, _ = _drawn_plane(_panel(axes, head))
        np.testing.assert_array_equal(q, toy.trace().q[i][query])
        np.testing.assert_array_equal(k, toy.trace().k[i])
        np.testing.assert_allclose(q, q_ref, atol=1e-12)
        np.testing.assert_allclose(k, k_ref, atol=1e-12)
    # the diffuse head is drawn twice: at the shared scale too, the same arrows
    np.testing.assert_array_equal(_drawn_plane(axes["diffuse"])[1], _drawn_plane(axes["diffuse magnified"])[1])


@pytest.mark.parametrize("query", range(toy.N))
def test_the_thick_key_has_the_largest_dot_product_and_the_largest_weight(query):
    """In every head and for every query: the key drawn thick is the one farthest along the query
    (largest q . k of the drawn arrows), and it is the key mha_ref gives the largest weight."""
    axes = _planes(query)
    for i, head in enumerate(toy.HEADS):
        q, k, thick = _drawn_plane(_panel(axes, head))
        dots = k @ q
        assert thick == int(dots.argmax()) == int(toy.trace().weights[i][query].argmax())
        assert np.sort(dots)[-1] > np.sort(dots)[-2]  # a strict winner, not a tie
        np.testing.assert_allclose(toy.head_plane(head).dots[query], dots, rtol=1e-12)


@pytest.mark.parametrize("query", range(toy.N))
def test_the_dashed_line_is_square_to_the_query_through_the_winner_and_no_key_lies_beyond(query):
    axes = _planes(query)
    for head in toy.HEADS:
        ax = _panel(axes, head)
        q, k, thick = _drawn_plane(ax)
        (level,) = [line for line in ax.lines if line.get_label() == "level"]
        assert level.get_linestyle() == "--"
        ends = np.column_stack(level.get_data())  # [2, 2]
        assert abs((ends[1] - ends[0]) @ q) < 1e-9 * np.linalg.norm(ends[1] - ends[0]) * np.linalg.norm(q)
        assert np.allclose(ends @ q, k[thick] @ q)  # the line is where q . point equals the winner's score
        others = np.delete(k, thick, axis=0)
        assert (others @ q < k[thick] @ q).all()  # every other key on the near side ...
        assert k[thick] @ q > 0  # ... the side the origin (score 0) is on


def test_dot_products_are_the_scores_before_the_division():
    t = toy.trace()
    for i, head in enumerate(toy.HEADS):
        plane = toy.head_plane(head)
        np.testing.assert_allclose(plane.dots, t.scores[i] * np.sqrt(toy.D_K), rtol=1e-12)
        # the softmax keeps the order: largest dot product, largest weight, in every row
        assert (plane.dots.argmax(axis=1) == t.weights[i].argmax(axis=1)).all()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("query", range(toy.N))
def test_readout_and_titles_name_the_winner(query, lang):
    from figures.gallery import head_planes
    text = head_planes.readout(lang, query)
    axes = _planes(query, lang)
    for i, head in enumerate(toy.HEADS):
        win = toy.TOKENS[int(toy.trace().weights[i][query].argmax())]
        assert f"→ {win}" in text
        assert axes[head].get_title(loc="left").endswith(f"{toy.TOKENS[query]} → {win}")


# head-planes: the hull (what-it-costs) ---------------------------------------------------------
@pytest.mark.parametrize("head", toy.HEADS)
def test_the_hull_drawn_has_as_corners_exactly_the_keys_that_can_win(head):
    """The light patch's corners are the keys can_be_top finds (an LP per key), the same as qhull's
    vertices, walked round counter-clockwise: a convex outline."""
    axes = _planes(toy.token_index("it"))
    ax = _panel(axes, head)
    (hull,) = [p for p in ax.patches if p.get_label() == "hull"]
    corners = hull.get_xy()[:-1]  # closed: the first corner repeated at the end
    k = toy.trace().k[toy.head_index(head)]
    drawn = {int(np.flatnonzero((k == c).all(axis=1))[0]) for c in corners}
    assert drawn == set(np.flatnonzero(ex.can_be_top(k))) == set(ConvexHull(k).vertices)
    edges = np.roll(corners, -1, axis=0) - corners
    turns = edges[:, 0] * np.roll(edges, -1, axis=0)[:, 1] - edges[:, 1] * np.roll(edges, -1, axis=0)[:, 0]
    assert (turns > 0).all()


def test_syntax_keys_of_the_and_it_can_never_win_position_keys_all_can():
    """what-it-costs: in the syntax head the keys of the, and, it lie inside the triangle of cat, ate,
    ran, so no query at all makes them win; every position key is a corner, ran included, though no
    query of the sentence picks it."""
    names = lambda idx: {toy.TOKENS[j] for j in idx}  # noqa: E731
    syntax = toy.head_plane("syntax")
    assert names(syntax.corners) == {"cat", "ate", "ran"}
    inside = [toy.token_index(t) for t in ("the", "and", "it")]
    for j in inside:
        assert ex.key_margin(syntax.k, j).margin <= ex.MARGIN_TOL
    # an independent check of "some corner reaches farther, wherever a query points": many directions
    angles = np.linspace(0, 2 * np.pi, 3601)
    directions = np.column_stack([np.cos(angles), np.sin(angles)])
    reach = directions @ syntax.k.T  # [directions, n]
    assert (reach[:, syntax.corners].max(axis=1) > reach[:, inside].max(axis=1)).all()
    position = toy.head_plane("position")
    assert names(position.corners) == set(toy.TOKENS)
    ran = toy.token_index("ran")
    assert ran not in position.dots.argmax(axis=1)  # no query of the sentence asks for ran
    assert (position.k @ ex.key_margin(position.k, ran).query).argmax() == ran  # yet some query would


def test_hull_corners_is_counter_clockwise_on_other_keys_too():
    for seed, n in enumerate((3, 7, 30)):
        keys = np.random.default_rng(seed).normal(size=(n, 2))
        corners = ex.hull_corners(keys)
        assert set(corners) == set(ConvexHull(keys).vertices)
        assert list(corners) == _rotated(list(ConvexHull(keys).vertices), corners[0])  # qhull: ccw in 2-D


def _rotated(cycle, start):
    i = cycle.index(start)
    return cycle[i:] + cycle[:i]


@pytest.mark.parametrize("keys, error, match", [
    (np.zeros((4, 3)), ValueError, r"keys must lie in a plane"),
    (np.zeros(4), ValueError, r"keys must be \[n, d_k\]"),
    ([["a", "b"], ["c", "d"]], TypeError, r"keys must be a real numeric array"),
    ([[0.0, np.nan], [1.0, 1.0]], ValueError, r"keys contains non-finite"),
])
def test_hull_corners_refuses_bad_keys_by_name(keys, error, match):
    with pytest.raises(error, match=match):
        ex.hull_corners(keys)


def test_head_plane_refuses_an_unknown_head():
    with pytest.raises(ValueError, match="unknown head 'induction'"):
        toy.head_plane("induction")


# head-planes: what the page says about each head's shape --------------------------------------
def test_position_keys_form_a_half_circle_and_each_query_is_its_key_turned_back_one_step():
    plane = toy.head_plane("position")
    step = np.degrees(toy.STEP)
    angles = np.degrees(np.unwrap(np.arctan2(plane.k[:, 1], plane.k[:, 0])))
    np.testing.assert_allclose(np.diff(angles), step, atol=step / 8)  # about the same angle, word to word
    assert angles[-1] - angles[0] == pytest.approx(180, abs=5)  # a half circle
    for i in range(1, toy.N):  # the query points straight at the previous word's key
        assert _angle(plane.q[i], plane.k[i - 1]) < 3
    # the: its query points into empty space (far from every key), and its own key is the nearest
    gaps = [_angle(plane.q[0], kj) for kj in plane.k]
    assert int(np.argmin(gaps)) == 0 and min(gaps) > step / 2


def test_syntax_only_cat_ate_ran_have_keys_and_each_query_aims_at_its_target():
    plane = toy.head_plane("syntax")
    lengths = np.linalg.norm(plane.k, axis=1)
    targets = sorted(set(toy.SYNTAX_TARGET.values()), key=toy.TOKENS.index)
    assert targets == ["cat", "ate", "ran"]  # nothing attaches to the, and, it
    long = [toy.token_index(t) for t in targets]
    short = [j for j in range(toy.N) if j not in long]
    assert lengths[short].max() < 0.1 * lengths[long].min()  # shrunk almost to the origin
    for a in long:  # each pointing its own way
        for b in long:
            assert a == b or _angle(plane.k[a], plane.k[b]) > 90
    for i, token in enumerate(toy.TOKENS):
        assert _angle(plane.q[i], plane.k[toy.token_index(toy.SYNTAX_TARGET[token])]) < 5


def test_rare_queries_share_a_direction_keys_lie_on_a_line_in_order_of_rarity():
    plane = toy.head_plane("rare")
    assert max(_angle(a, b) for a in plane.q for b in plane.q) < 10
    centred = plane.k - plane.k.mean(axis=0)
    s = np.linalg.svd(centred, compute_uv=False)
    assert s[1] < 0.05 * s[0]  # close to one straight line
    along = plane.k @ plane.q.mean(axis=0)  # how far each key reaches in the queries' direction
    assert list(np.argsort(along)) == list(np.argsort(toy.rarity()))  # rarer, farther
    assert (plane.dots.argmax(axis=1) == toy.token_index("cat")).all()  # every query picks cat


def test_diffuse_arrows_are_short_scores_close_and_weights_even():
    plane = toy.head_plane("diffuse")
    largest = quantities.value("planes.diffuse_max_dot")
    assert largest == np.abs(plane.dots).max()
    sharp = quantities.value("planes.sharp_min_top_dot")
    assert sharp == min(toy.head_plane(h).dots.max(axis=1).min() for h in SHARP)
    assert largest < sharp / 50
    w = toy.trace().weights[toy.head_index("diffuse")]
    assert (w.max(axis=1) - w.min(axis=1)).max() < 0.02  # every key about the same weight


def test_diffuse_head_at_the_shared_scale_is_a_dot_and_the_box_magnifies_as_it_says():
    """At the other panels' scale the diffuse arrows stay within a fifteenth of the panel; the box
    shows them larger by the factor its note prints (measured on the laid-out figure)."""
    from figures.gallery import head_planes
    fig = head_planes.draw("en", toy.token_index("it"))
    fig.canvas.draw()
    axes = {ax.get_label(): ax for parent in fig.axes for ax in (parent, *parent.child_axes)}
    main, box = axes["diffuse"], axes["diffuse magnified"]
    plane = toy.head_plane("diffuse")
    half = main.get_ylim()[1]
    assert main.get_xlim() == axes["position"].get_xlim() and main.get_ylim() == axes["position"].get_ylim()
    assert np.abs(np.vstack([plane.q, plane.k])).max() < half / 15

    def per_unit(ax):  # pixels per data unit, up
        return ax.get_window_extent().height / np.ptp(ax.get_ylim())
    zoom = per_unit(box) / per_unit(main)
    (note,) = [t for t in main.texts if "larger" in t.get_text()]
    assert note.get_text() == f"box: {zoom:.0f}× larger"
    plt.close(fig)


# attention-maps --------------------------------------------------------------------------------
def _maps(lang="en"):
    """{map key: (image array, axes)} of attention-maps as drawn."""
    from figures.engine import registry
    fig = registry.get("attention-maps").draw(lang, None)
    plt.close(fig)
    return {ax.images[0].get_label(): (np.asarray(ax.images[0].get_array()), ax) for ax in fig.axes if ax.images}


@pytest.mark.parametrize("lang", LANGS)
def test_maps_are_mha_refs_weights_and_the_blend_at_its_middle_stop(lang):
    from figures.gallery import attention_maps
    maps = _maps(lang)
    assert list(maps) == [*toy.HEADS, "blend"]
    for i, head in enumerate(toy.HEADS):
        np.testing.assert_array_equal(maps[head][0], toy.trace().weights[i])
    assert attention_maps.blend_ratio() == 0.5
    np.testing.assert_array_equal(maps["blend"][0], toy.blend_weights(0.5))
    assert "0.50" in maps["blend"][1].get_title(loc="left")
    for weights, _ in maps.values():
        assert weights.shape == (toy.N, toy.N)
        np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=0, atol=1e-12)  # every row sums to one


@pytest.mark.parametrize("lang", LANGS)
def test_map_cells_print_their_weight_and_leave_only_zeros_blank(lang):
    for weights, ax in _maps(lang).values():
        printed = {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text() for t in ax.texts}
        assert len(printed) == toy.N * toy.N
        for (q, k), text in printed.items():
            assert text == ("" if f"{weights[q, k]:.2f}" == "0.00" else f"{weights[q, k]:.2f}")
        labels = [t.get_text() for t in ax.get_xticklabels()]
        assert labels == list(toy.TOKENS) and [t.get_text() for t in ax.get_yticklabels()] == list(toy.TOKENS)


def test_map_patterns_the_caption_names():
    maps = {key: w for key, (w, _) in _maps().items()}
    top = {key: w.argmax(axis=1) for key, w in maps.items()}
    assert list(top["position"]) == [max(q - 1, 0) for q in range(toy.N)]  # below the diagonal; the on it
    assert [toy.TOKENS[k] for k in top["syntax"]] == [toy.SYNTAX_TARGET[t] for t in toy.TOKENS]
    assert (top["rare"] == toy.token_index("cat")).all()
    for head in SHARP:
        assert maps[head].max(axis=1).min() >= 0.85  # every row of the three heads is sharp
    assert np.ptp(maps["diffuse"]) < 0.02  # an even grey


def test_the_blended_rows_of_cat_it_ran_split_between_the_two_rules_answers():
    w = _maps()["blend"][0]
    position, syntax = (toy.trace().weights[toy.head_index(h)].argmax(axis=1) for h in ("position", "syntax"))
    split = [toy.TOKENS[q] for q in range(toy.N) if w[q].max() < 0.6]
    assert split == ["cat", "it", "ran"]
    for token in split:
        q = toy.token_index(token)
        two = set(np.argsort(w[q])[-2:])
        assert two == {position[q], syntax[q]} and w[q, list(two)].sum() > 0.85
    peak = quantities.value("maps.blend_split_peak")
    assert peak == max(w[toy.token_index(t)].max() for t in split)


def test_maps_table_holds_every_cell():
    from figures.gallery import attention_maps
    head, rows = attention_maps.data("en")
    assert head[2:] == list(toy.TOKENS) and len(rows) == 5 * toy.N
    maps = {key: w for key, (w, _) in _maps().items()}
    for (key, _, _), block in zip(attention_maps.maps("en"), np.split(np.array(rows, dtype=object), 5)):
        assert [r[1] for r in block] == list(toy.TOKENS)
        assert np.allclose([[float(c) for c in r[2:]] for r in block], maps[key], atol=0.005)


def test_planes_table_holds_every_arrow_and_corner():
    from figures.gallery import head_planes
    _, rows = head_planes.data("en")
    assert len(rows) == toy.H * toy.N
    for i, head in enumerate(toy.HEADS):
        plane = toy.head_plane(head)
        block = rows[i * toy.N:(i + 1) * toy.N]
        assert np.allclose([[float(c) for c in r[2:6]] for r in block], np.hstack([plane.q, plane.k]), atol=0.005)
        assert [r[6] == "yes" for r in block] == [j in plane.corners for j in range(toy.N)]
