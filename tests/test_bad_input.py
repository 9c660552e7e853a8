"""Every bad input is refused, with a message that names the problem."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from figures.__main__ import main as figures_cli

import mha_ref
from mha_ref import costs
from figures.numbers import quantities
from mha_ref.example import one_head, toy
from mha_ref.attention import attention, init_params, mha_trace, multi_head_attention, multi_head_attention_loop
from figures.site import markup
from figures.text import constructs

ROOT = Path(__file__).resolve().parents[1]

BLOCKS = [multi_head_attention, multi_head_attention_loop]
BLOCK_IDS = ["batched", "loop"]


@pytest.fixture
def p8():
    return init_params(8, 2, seed=0)


@pytest.fixture
def x8():
    return np.random.default_rng(0).normal(size=(4, 8))


# --- the head count ---------------------------------------------------------------------------

def test_init_params_h_not_dividing_d_model():
    with pytest.raises(ValueError, match=r"h=3 does not divide d_model=8"):
        init_params(8, 3)


@pytest.mark.parametrize("block", BLOCKS, ids=BLOCK_IDS)
def test_block_h_not_dividing_d_model(block, p8, x8):
    with pytest.raises(ValueError, match=r"h=3 does not divide d_model=8"):
        block(x8, p8, 3)


@pytest.mark.parametrize("h", [0, -2])
def test_h_below_one(h, p8, x8):
    with pytest.raises(ValueError, match=rf"h must be at least 1, got h={h}"):
        init_params(8, h)
    for block in BLOCKS:
        with pytest.raises(ValueError, match=rf"h must be at least 1, got h={h}"):
            block(x8, p8, h)


@pytest.mark.parametrize("h,shown", [(2.0, r"2\.0"), (True, "True"), ("2", "'2'")])
def test_h_not_an_integer(h, shown, p8, x8):
    with pytest.raises(TypeError, match=rf"h must be an integer, got {shown}"):
        init_params(8, h)
    for block in BLOCKS:
        with pytest.raises(TypeError, match=rf"h must be an integer, got {shown}"):
            block(x8, p8, h)


def test_d_model_not_an_integer_or_too_small():
    with pytest.raises(TypeError, match=r"d_model must be an integer, got 8\.0"):
        init_params(8.0, 2)
    with pytest.raises(ValueError, match=r"d_model must be at least 1, got d_model=0"):
        init_params(0, 1)


# --- x ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("block", BLOCKS, ids=BLOCK_IDS)
@pytest.mark.parametrize("shape", [(8,), (1, 2, 4, 8)], ids=["1-D", "4-D"])
def test_x_of_wrong_rank(block, shape, p8):
    with pytest.raises(ValueError, match=r"x must be 2-D \[n, d_model\] or 3-D .*got shape " + str(shape).replace("(", r"\(").replace(")", r"\)")):
        block(np.ones(shape), p8, 2)


@pytest.mark.parametrize("block", BLOCKS, ids=BLOCK_IDS)
@pytest.mark.parametrize("width", [6, 12])
def test_x_of_wrong_width_for_params(block, width, p8):
    # h = 2 divides both widths, so the complaint must be the width mismatch itself
    x = np.ones((3, width))
    with pytest.raises(ValueError, match=rf"params\.w_q has shape \(8, 8\), expected \({width}, {width}\) for x of width d_model={width}"):
        block(x, p8, 2)


@pytest.mark.parametrize("block", BLOCKS, ids=BLOCK_IDS)
def test_x_with_no_tokens(block, p8):
    with pytest.raises(ValueError, match=r"x has no tokens"):
        block(np.ones((0, 8)), p8, 2)


@pytest.mark.parametrize("block", BLOCKS, ids=BLOCK_IDS)
def test_x_not_numeric(block, p8):
    with pytest.raises(TypeError, match=r"x must be a real numeric array"):
        block(np.full((2, 8), "a"), p8, 2)
    with pytest.raises(TypeError, match=r"x must be a real numeric array"):
        block(np.ones((2, 8)) * 1j, p8, 2)


@pytest.mark.parametrize("block", BLOCKS, ids=BLOCK_IDS)
def test_nan_in_x(block, p8, x8):
    x8[2, 3] = np.nan
    with pytest.raises(ValueError, match=r"x contains non-finite values"):
        block(x8, p8, 2)


# --- params -----------------------------------------------------------------------------------

@pytest.mark.parametrize("block", BLOCKS, ids=BLOCK_IDS)
def test_one_matrix_of_wrong_shape(block, p8, x8):
    bad = p8._replace(w_k=np.ones((8, 7)))
    with pytest.raises(ValueError, match=r"params\.w_k has shape \(8, 7\), expected \(8, 8\)"):
        block(x8, bad, 2)


@pytest.mark.parametrize("block", BLOCKS, ids=BLOCK_IDS)
def test_one_bias_of_wrong_length(block, p8, x8):
    bad = p8._replace(b_v=np.ones(7))
    with pytest.raises(ValueError, match=r"params\.b_v has shape \(7,\), expected \(8,\)"):
        block(x8, bad, 2)


@pytest.mark.parametrize("block", BLOCKS, ids=BLOCK_IDS)
def test_inf_in_a_weight_matrix(block, p8, x8):
    w_o = p8.w_o.copy()
    w_o[1, 1] = np.inf
    with pytest.raises(ValueError, match=r"params\.w_o contains non-finite values"):
        block(x8, p8._replace(w_o=w_o), 2)


# --- the mask ---------------------------------------------------------------------------------

@pytest.mark.parametrize("block", BLOCKS, ids=BLOCK_IDS)
def test_mask_of_wrong_shape(block, p8, x8):
    with pytest.raises(ValueError, match=r"mask of shape \(3, 3\) does not broadcast to the scores' shape"):
        block(x8, p8, 2, mask=np.ones((3, 3), dtype=bool))
    # a (batch, n, n) mask for an unbatched x is refused as well
    with pytest.raises(ValueError, match=r"mask of shape \(2, 4, 4\) does not broadcast"):
        block(x8, p8, 2, mask=np.ones((2, 4, 4), dtype=bool))


def test_attention_mask_of_wrong_shape():
    q = np.ones((2, 3))
    with pytest.raises(ValueError, match=r"mask of shape \(2, 3\) does not broadcast to the scores' shape \(2, 2\)"):
        attention(q, q, q, mask=np.ones((2, 3), dtype=bool))


@pytest.mark.parametrize("block", BLOCKS, ids=BLOCK_IDS)
def test_mask_not_boolean(block, p8, x8):
    with pytest.raises(TypeError, match=r"mask must be boolean .*got dtype int"):
        block(x8, p8, 2, mask=np.tril(np.ones((4, 4), dtype=int)))
    q = np.ones((4, 2))
    with pytest.raises(TypeError, match=r"mask must be boolean"):
        attention(q, q, q, mask=np.tril(np.ones((4, 4), dtype=int)))


# A mask row with no key is not refused: such a query reads nothing (tests/test_attention.py).

RAGGED_MASK = [[True] * 4, [True] * 3, [True] * 4, [True] * 4]


@pytest.mark.parametrize("block", BLOCKS, ids=BLOCK_IDS)
def test_ragged_mask_is_refused_by_name(block, p8, x8):
    message = r"mask must be a boolean array \(True = may attend\) with rows of one length: .*inhomogeneous"
    with pytest.raises(TypeError, match=message):
        block(x8, p8, 2, mask=RAGGED_MASK)
    with pytest.raises(TypeError, match=message):
        attention(np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 2)), mask=RAGGED_MASK)


# --- attention's own checks -------------------------------------------------------------------

def test_attention_q_and_k_with_different_d_k():
    with pytest.raises(ValueError, match=r"q and k must share their last axis d_k, got \(2, 3\) and \(2, 4\)"):
        attention(np.ones((2, 3)), np.ones((2, 4)), np.ones((2, 5)))


def test_attention_k_and_v_with_different_n():
    with pytest.raises(ValueError, match=r"k and v must have the same number of keys, got \(3, 2\) and \(4, 2\)"):
        attention(np.ones((2, 2)), np.ones((3, 2)), np.ones((4, 2)))


def test_attention_inputs_below_2_d():
    with pytest.raises(ValueError, match=r"q, k, v must be at least 2-D"):
        attention(np.ones(2), np.ones((2, 2)), np.ones((2, 2)))


def test_attention_non_finite():
    q = np.ones((2, 2))
    k = q.copy()
    k[0, 0] = -np.inf
    with pytest.raises(ValueError, match=r"k contains non-finite values"):
        attention(q, k, q)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, (np.inf, -np.inf)], ids=["nan", "inf", "-inf", "both infs"])
def test_non_finite_found_anywhere(bad):
    k = np.ones((3, 4))
    k.flat[[5, 7][:np.size(bad)]] = bad
    with pytest.raises(ValueError, match=r"k contains non-finite values"):
        attention(np.ones((2, 4)), k, np.ones((3, 2)))


def test_finite_values_whose_sum_overflows_are_accepted():
    from mha_ref import checks
    x = np.full((2, 4), 3e38, dtype=np.float32)  # each is finite; their sum is not
    assert checks.tokens(x) is x


def test_finiteness_check_makes_no_copy_of_a_large_input():
    import tracemalloc
    w = np.ones((1000, 1000), dtype=np.float32)  # 4 MB; np.isfinite's boolean copy would be 1 MB
    tracemalloc.start()
    try:
        attention(w[:1], w, w[:, :1])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 500_000, f"checking the inputs allocated {peak} bytes"


@pytest.mark.parametrize("shapes", [((2, 0), (3, 0), (3, 2)), ((2, 4), (0, 4), (0, 2))], ids=["d_k=0", "no keys"])
def test_attention_with_no_width_or_no_keys(shapes):
    q, k, v = (np.ones(s) for s in shapes)
    with pytest.raises(ValueError, match=r"d_k = 0|k has no keys"):
        attention(q, k, v)


def test_attention_batch_axes_that_do_not_broadcast():
    with pytest.raises(ValueError, match=r"the batch axes of q, k, v do not broadcast: \(2,\), \(3,\), \(3,\)"):
        attention(np.ones((2, 4, 5)), np.ones((3, 6, 5)), np.ones((3, 6, 7)))


@pytest.mark.parametrize("scale", [float("nan"), float("inf"), -float("inf"), -0.5, 10**400, "0.5", True, np.ones(2)],
                         ids=["nan", "inf", "-inf", "negative", "huge int", "str", "bool", "array"])
def test_attention_scale_not_a_finite_non_negative_number(scale):
    q = np.ones((2, 3))
    with pytest.raises((ValueError, TypeError), match=r"scale must be a finite real number >= 0"):
        attention(q, q, q, scale=scale)


# --- overflow: finite inputs whose scores do not fit the dtype --------------------------------

def _overflowing(dtype, size):
    p = init_params(8, 2, seed=0, dtype=np.float32)
    p = type(p)(*(a.astype(dtype) for a in p))
    x = np.random.default_rng(0).normal(size=(4, 8)).astype(dtype) * dtype(size)
    return x, p


@pytest.mark.parametrize("dtype,size", [(np.float32, 7e19), (np.float16, 735)], ids=["float32", "float16"])
@pytest.mark.parametrize("block", [multi_head_attention, multi_head_attention_loop, mha_trace],
                         ids=BLOCK_IDS + ["trace"])
def test_scores_that_overflow_are_refused_not_nan(block, dtype, size):
    x, p = _overflowing(dtype, size)
    assert np.all(np.isfinite(x))
    with pytest.raises(ValueError, match=r"scores overflowed " + np.dtype(dtype).name), \
            np.errstate(over="ignore"):  # numpy's own overflow warning may come first
        block(x, p, 2)


def test_attention_scores_that_overflow_are_refused_not_nan():
    q = np.ones((3, 2), dtype=np.float32) * np.float32(7e19)
    with pytest.raises(ValueError, match=r"scores overflowed float32"), np.errstate(over="ignore"):
        attention(q, q, q)


def _overflowing_projection(name):
    """float16 params whose one matrix is 3e4 times larger, and the x (entries of 50) that makes
    that projection overflow (50 * 3e4 > 65504, float16's largest) but not the same block without
    the factor."""
    p = init_params(8, 2, seed=0, dtype=np.float16)
    x = np.full((4, 8), 50, dtype=np.float16)
    assert np.isfinite(multi_head_attention(x, p, 2)[0]).all()
    return x, p._replace(**{name: getattr(p, name) * np.float16(3e4)})


@pytest.mark.parametrize("block", [multi_head_attention, multi_head_attention_loop, mha_trace], ids=BLOCK_IDS + ["trace"])
@pytest.mark.parametrize("name,message", [
    ("w_o", r"the output projection overflowed float16 \(concat @ w_o \+ b_o is inf or nan\): the inputs are too large"),
    ("w_v", r"the value projection overflowed float16 \(x @ w_v \+ b_v is inf or nan\)"),
])
def test_projection_that_overflows_float16_is_refused_not_inf(block, name, message):
    # W_V and W_O do not reach the scores, so the scores' own check cannot see these
    x, p = _overflowing_projection(name)
    with np.errstate(over="ignore", invalid="ignore"), pytest.raises(ValueError, match=message):
        block(x, p, 2)  # numpy's own overflow warning may come first; silenced above


@pytest.mark.parametrize("block,message", [(multi_head_attention, r"the attention scores overflowed float16"),
                                           (multi_head_attention_loop, r"the query projection overflowed float16")],
                         ids=BLOCK_IDS)
def test_query_projection_that_overflows_is_refused_naming_the_dtype(block, message):
    # the batched form meets the overflow first in the scores it makes of the queries, the loop in the queries
    x, p = _overflowing_projection("w_q")
    with np.errstate(over="ignore", invalid="ignore"), pytest.raises(ValueError, match=message):
        block(x, p, 2)


def test_large_inputs_that_fit_still_run():
    x, p = _overflowing(np.float32, 1e15)
    out, _ = multi_head_attention(x, p, 2)
    assert np.all(np.isfinite(out))


# --- split_heads and merge_heads, called on their own -----------------------------------------

@pytest.mark.parametrize("x, h, error, message", [
    (np.zeros(8), 2, ValueError, r"split_heads: x must have at least two axes \[\.\.\., n, d_model\], got shape \(8,\)"),
    (np.zeros((4, 8)), 3, ValueError, r"the head count h=3 does not divide d_model=8"),
    (np.zeros((4, 8)), 0, ValueError, r"the head count h must be at least 1, got h=0"),
    (np.zeros((4, 8)), 2.0, TypeError, r"h must be an integer, got 2\.0"),
    (np.zeros((4, 0)), 2, ValueError, r"d_model must be at least 1, got d_model=0")])
def test_split_heads_refuses_by_name(x, h, error, message):
    with pytest.raises(error, match=message):  # were a raw reshape error, and a ZeroDivisionError for h=0
        mha_ref.split_heads(x, h)


@pytest.mark.parametrize("x, message", [
    (np.zeros((4, 8)), r"merge_heads: x must have at least three axes \[\.\.\., h, n, d_k\], got shape \(4, 8\)"),
    (np.zeros((0, 4, 2)), r"merge_heads: x has no heads: shape \(0, 4, 2\) \(h = 0\)")])
def test_merge_heads_refuses_by_name(x, message):
    with pytest.raises(ValueError, match=message):
        mha_ref.merge_heads(x)


def test_split_and_merge_still_make_views_and_undo_each_other():
    x = np.arange(2 * 3 * 8.0).reshape(2, 3, 8)
    s = mha_ref.split_heads(x, 4)
    assert s.shape == (2, 4, 3, 2) and np.shares_memory(s, x)
    np.testing.assert_array_equal(mha_ref.merge_heads(s), x)


# --- size: scores that cannot fit are refused, saying how much they would need -----------------

@pytest.mark.parametrize("block", BLOCKS, ids=BLOCK_IDS)
def test_a_block_over_too_many_tokens_is_refused_before_asking_for_the_memory(block):
    """30,000 tokens and 8 heads: h x n x n float64 scores are 53.6 GiB (6.7 GiB a head), which
    numpy was asked for whole. x itself is small: the refusal comes before any n x n array."""
    p = init_params(8, 8)
    x = np.zeros((30_000, 8))
    with pytest.raises(ValueError) as e:
        block(x, p, 8)
    assert str(e.value) == ("attention over 30000 tokens with 8 heads would need about 53.6 GiB for its scores "
                            "(h x n x n float64); the limit is 1 GiB (mha_ref.checks.SCORES_LIMIT): use fewer tokens")
    with pytest.raises(ValueError, match=r"about 26\.8 GiB for its scores \(batch x h x n x n float32\)"):
        block(np.zeros((2, 30_000, 8), np.float32), init_params(8, 8, dtype=np.float32), 4)


def test_attention_over_too_many_keys_is_refused():
    q = np.zeros((30_000, 4))
    with pytest.raises(ValueError, match=r"^attention of 30000 queries over 30000 keys would need about 6\.7 GiB "
                                         r"for its scores \(n_q x n_k float64\); the limit is 1 GiB"):
        attention(q, q, q)


def test_the_limit_is_the_scores_size_exactly(monkeypatch):
    from mha_ref import checks
    x = np.zeros((16, 8))
    monkeypatch.setattr(checks, "SCORES_LIMIT", 2 * 16 * 16 * 8)  # two heads' float64 scores, and not a byte more
    multi_head_attention(x, init_params(8, 2), 2)
    with pytest.raises(ValueError, match=r"attention over 16 tokens with 4 heads"):
        multi_head_attention(x, init_params(8, 4), 4)


# --- params and dtypes ------------------------------------------------------------------------

@pytest.mark.parametrize("block", BLOCKS, ids=BLOCK_IDS)
@pytest.mark.parametrize("params", [None, {"w_q": np.eye(8)}, (np.eye(8),) * 4], ids=["None", "dict", "tuple"])
def test_params_not_mha_params(block, params, x8):
    with pytest.raises(TypeError, match=r"params must be an MHAParams \(see init_params\), got "):
        block(x8, params, 2)


@pytest.mark.parametrize("dtype", ["float32", np.dtype("float32"), "f4", np.float32])
def test_init_params_accepts_numpy_dtype_likes(dtype):
    p = init_params(8, 2, dtype=dtype)
    assert all(a.dtype == np.float32 for a in p)
    np.testing.assert_array_equal(p.w_q, init_params(8, 2, dtype=np.float32).w_q)


def test_init_params_float16_and_default_float64():
    assert init_params(8, 2, dtype="float16").w_o.dtype == np.float16
    assert init_params(8, 2).w_o.dtype == np.float64


@pytest.mark.parametrize("seed,error", [(-1, ValueError), ("a", TypeError), (1.5, TypeError), (True, TypeError),
                                        (None, TypeError)], ids=["-1", "str", "float", "bool", "None"])
def test_init_params_seed_not_a_whole_number(seed, error):
    with pytest.raises(error, match=rf"seed must be a whole number >= 0, got {re.escape(repr(seed))}$"):
        init_params(8, 2, seed=seed)


def test_init_params_seed_accepts_numpy_integers():
    np.testing.assert_array_equal(init_params(8, 2, seed=np.int64(3)).w_q, init_params(8, 2, seed=3).w_q)


@pytest.mark.parametrize("bias", ["no", "", 0, 1, None, np.array([True])], ids=["'no'", "''", "0", "1", "None", "array"])
@pytest.mark.parametrize("count", [lambda bias: init_params(8, 2, bias=bias),
                                   lambda bias: costs.param_count(8, 2, bias=bias),
                                   lambda bias: costs.head_param_count(8, 2, bias=bias),
                                   lambda bias: costs.kv_param_count(8, 2, 1, bias=bias)],
                         ids=["init_params", "param_count", "head_param_count", "kv_param_count"])
def test_bias_that_is_not_true_or_false_is_refused(count, bias):
    with pytest.raises(TypeError, match=r"bias must be True or False, got "):
        count(bias)


def test_bias_accepts_numpy_bools():
    assert init_params(8, 2, bias=np.bool_(False)).b_q is None
    assert costs.param_count(8, 2, bias=np.True_) == costs.param_count(8, 2)


@pytest.mark.parametrize("dtype", ["int32", int, "complex128", "nonsense", object])
def test_init_params_refuses_dtypes_that_are_not_real_floats(dtype):
    with pytest.raises(TypeError, match=r"dtype must be a real floating-point dtype"):
        init_params(8, 2, dtype=dtype)


# --- softmax ----------------------------------------------------------------------------------

@pytest.mark.parametrize("x,bad,where", [
    ([[0.0, 1.0], [np.nan, 2.0]], "nan", (1, 0)),
    ([1.0, np.inf, -np.inf], r"\+inf", (1,)),
    ([[-np.inf, -np.inf], [np.inf, np.nan]], "nan", (1, 1)),  # nan is named before +inf
])
def test_softmax_refuses_nan_and_plus_inf_naming_where(x, bad, where):
    with pytest.raises(ValueError, match=rf"softmax's x contains {bad} \(first at index {re.escape(str(where))}\): "
                                         r"each entry must be finite, or -inf for a masked one"):
        mha_ref.softmax(np.array(x))


@pytest.mark.parametrize("x,shown", [(np.array(["a", "b"]), "<U1"), (np.array([1j, 0]), "complex128"),
                                     ([[1.0, 2.0], [3.0]], None)], ids=["str", "complex", "ragged"])
def test_softmax_refuses_what_is_not_real_numbers(x, shown):
    message = r"softmax's x must be a real numeric array, got dtype " + shown if shown else \
        r"softmax's x must be a numeric array: .*inhomogeneous"
    with pytest.raises(TypeError, match=message):
        mha_ref.softmax(x)


# --- the running example and the quantities ---------------------------------------------------

@pytest.mark.parametrize("alpha", [-0.1, 1.5, float("nan")])
def test_blend_weights_outside_unit_interval(alpha):
    with pytest.raises(ValueError, match=r"the blend ratio must lie in \[0, 1\], got " + str(alpha).replace(".", r"\.")):
        toy.blend_weights(alpha)


def test_token_index_unknown_token():
    with pytest.raises(ValueError, match=r"unknown token 'dog'; the sentence is the cat ate and it ran"):
        toy.token_index("dog")


def test_head_index_unknown_head():
    with pytest.raises(ValueError, match=r"unknown head 'induction'"):
        toy.head_index("induction")


@pytest.mark.parametrize("query, head, message", [("dog", "position", r"unknown token 'dog'"),
                                                  ("it", "induction", r"unknown head 'induction'"),
                                                  (4, "position", r"unknown token 4")])
def test_worked_example_refuses_an_unknown_query_or_head(query, head, message):
    with pytest.raises(ValueError, match=message):
        one_head.worked_example(query, head)


@pytest.mark.parametrize("x, error, message", [
    (np.zeros((5, 8)), ValueError, r"x has shape \(5, 8\), expected \(6, 8\)"),
    (np.full((6, 8), np.nan), ValueError, r"x contains non-finite values"),
    ([["a"] * 8] * 6, TypeError, r"x must be a real numeric array"),
])
@pytest.mark.parametrize("compute", [lambda x: one_head.blend_output(0.5, "it", x), lambda x: one_head.two_head_output("it", x),
                                     one_head.blend_values], ids=["blend_output", "two_head_output", "blend_values"])
def test_the_output_blend_functions_refuse_inputs_of_another_shape(compute, x, error, message):
    with pytest.raises(error, match=message):
        compute(x)


def test_blend_output_refuses_a_ratio_outside_the_unit_interval():
    with pytest.raises(ValueError, match=r"the blend ratio must lie in \[0, 1\], got 1\.5"):
        one_head.blend_output(1.5)


def test_blend_twin_inputs_refuses_a_query_whose_two_rules_agree():
    assert one_head.rule_answers("ate") == ("cat", "cat")
    with pytest.raises(ValueError, match=r"for the query 'ate' both rules pick 'cat': there is no blend to undo"):
        one_head.blend_twin_inputs(0.5, "ate")


def test_quantities_unknown_name():
    with pytest.raises(KeyError, match=r"unknown value 'nope'; \(every name is a key of QUANTITIES in figures/numbers/quantities\.py\)"):
        quantities.value("nope")
    # a misspelt name: the nearest names, not all of them
    with pytest.raises(KeyError, match=r"unknown value 'gpt2\.parms'; did you mean 'gpt2\.params'( or '[\w.]+')*\? \(every"):
        quantities.value("gpt2.parms")


def test_an_unknown_figure_id_names_the_nearest_and_a_module_lacking_a_name_is_named(monkeypatch):
    import types
    from figures.engine import registry
    with pytest.raises(KeyError, match=r"unknown figure id 'four-head'; did you mean 'four-heads'"):
        registry.get("four-head")
    fake = types.ModuleType("figures.gallery.four_heads")
    fake.__file__ = str(registry.ROOT / "figures" / "gallery" / "four_heads.py")
    fake.CONTROL, fake.CAPTION_ZH, fake.draw = None, "图", lambda lang, value: None
    monkeypatch.setitem(sys.modules, "figures.gallery.four_heads", fake)
    with pytest.raises(registry.FigureError, match=r"figure 'four-heads' .* failed to import: figures/gallery/four_heads\.py "
                                                   r"does not define CAPTION_EN: every figure module gives CONTROL, "):
        registry.get("four-heads")


@pytest.mark.parametrize("names, said", [
    ({"CAPTION_EN": None}, "CAPTION_EN as text"),
    ({"CAPTION_ZH": "  "}, "CAPTION_ZH as text"),
    ({"draw": "not a function"}, "draw as a function"),
    ({"CAPTION_EN": 3, "draw": None}, "CAPTION_EN as text, draw as a function")])
def test_a_figure_module_whose_caption_is_not_text_or_draw_not_a_function_is_named(monkeypatch, names, said):
    import types
    from figures.engine import registry
    fake = types.ModuleType("figures.gallery.four_heads")
    fake.__file__ = str(registry.ROOT / "figures" / "gallery" / "four_heads.py")
    fake.CONTROL, fake.CAPTION_ZH, fake.CAPTION_EN, fake.draw = None, "图", "Figure", lambda lang, value: None
    for name, v in names.items():
        setattr(fake, name, v)
    monkeypatch.setitem(sys.modules, "figures.gallery.four_heads", fake)
    with pytest.raises(registry.FigureError) as e:
        registry.get("four-heads")
    assert f"figures/gallery/four_heads.py does not define {said}: every figure" in e.value.headline
    assert e.value.trace == ""


FIGURE_CALLING_THE_KIT_WRONGLY = (
    "from figures.kit.draw import weight_bars\n"
    "def draw(lang, value):\n"
    "    import matplotlib.pyplot as plt\n"
    "    fig, ax = plt.subplots()\n"
    "    weight_bars(ax, [0.5, 0.5], '#000000')  # two weights for six tokens\n"
    "    return fig\n")


def test_a_kit_helper_called_wrongly_names_the_figures_line_as_well_as_the_kits():
    """A figure's error names the innermost line of the checkout (here the kit's), and, when that is not
    the figure's own module, the line of the figure that made the call: the line its author wrote."""
    from figures.engine import registry
    namespace = {}
    exec(compile(FIGURE_CALLING_THE_KIT_WRONGLY, str(registry.ROOT / "figures/gallery/a_new_one.py"), "exec"), namespace)
    kit = (registry.ROOT / "figures/kit/draw.py").read_text(encoding="utf-8").splitlines()
    ticks = next(n for n, line in enumerate(kit, 1) if "ax.set_xticks(x, toy.TOKENS)" in line)
    try:
        namespace["draw"]("en", None)
    except ValueError as e:
        error = registry.FigureError.caught(e, "a-new-one", "en", None, "draw")
    assert error.headline.endswith(f"(figures/kit/draw.py, line {ticks}, called from figures/gallery/a_new_one.py, line 5)"), \
        error.headline
    # the figure's own line alone when the error arises there
    assert registry.located_at([(str(registry.ROOT / "figures/gallery/a_new_one.py"), 5)]) == \
        " (figures/gallery/a_new_one.py, line 5)"


def test_cli_a_figure_module_lacking_a_name_is_one_line_naming_its_file(tmp_path, monkeypatch, cli):
    """`python -m figures` on a figure module without CAPTION_EN: one line naming the module's file,
    and no offer of a traceback there is none of (the check is ours, not an exception's)."""
    import types
    from figures.engine import registry
    fake = types.ModuleType("figures.gallery.peak_dip")
    fake.__file__ = str(registry.ROOT / "figures" / "gallery" / "peak_dip.py")
    fake.CONTROL, fake.CAPTION_ZH, fake.draw = None, "图", lambda lang, value: None
    monkeypatch.setitem(sys.modules, "figures.gallery.peak_dip", fake)
    run = cli(str(tmp_path / "out"), tmp_path)
    _refused_in_one_line(run, "figure 'peak-dip'", "figures/gallery/peak_dip.py does not define CAPTION_EN")
    assert "--traceback" not in run.stderr


# --- costs ------------------------------------------------------------------------------------

def test_costs_refuse_bad_head_counts_and_contexts():
    with pytest.raises(ValueError, match=r"h=7 does not divide d_model=768"):
        costs.param_count(768, 7)
    with pytest.raises(ValueError, match=r"h=5 does not divide d_model=768"):
        costs.multiply_adds(1024, 768, 5)
    for n in (0, -1, 2.5, True):
        with pytest.raises((ValueError, TypeError), match=r"the context length n must be a whole number >= 1"):
            costs.multiply_adds(n, 768, 12)


@pytest.mark.parametrize("d_model", [-3, 0, 2.5])
def test_crossover_context_refuses_bad_d_model(d_model):
    with pytest.raises((ValueError, TypeError), match=r"d_model"):
        costs.crossover_context(d_model)


def test_multiply_adds_accepts_numpy_integer_n():
    assert costs.multiply_adds(np.int64(4), 8, 2) == costs.multiply_adds(4, 8, 2)


# --- the figures CLI (python -m figures) ------------------------------------------------------

@pytest.fixture
def cli(capsys, monkeypatch):
    """cli(out, cwd, *more): `python -m figures --out OUT --only peak-dip ...` run from the folder cwd,
    in this process (figures/__main__.py's main, which `python -m figures` runs; a process of its
    own would spend two seconds importing before it refuses): its exit status and stderr."""
    def run(out: str, cwd: Path, *more: str) -> subprocess.CompletedProcess:
        monkeypatch.chdir(cwd)
        argv = ["--out", out, "--only", "peak-dip", *more]
        capsys.readouterr()
        try:
            status = figures_cli(argv)
        except SystemExit as e:  # argparse's own refusals
            status = e.code
        return subprocess.CompletedProcess(argv, status, "", capsys.readouterr().err)
    return run


def _refused_in_one_line(run: subprocess.CompletedProcess, *words: str) -> None:
    assert run.returncode != 0
    assert "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
    for word in words:
        assert word in run.stderr, run.stderr


def test_cli_out_that_is_a_file(tmp_path, cli):
    (tmp_path / "notes.txt").write_text("mine")
    _refused_in_one_line(cli("notes.txt", tmp_path), "notes.txt", "is a file")
    _refused_in_one_line(cli("notes.txt/figs", tmp_path), "notes.txt/figs", "cannot create")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_cli_out_that_cannot_be_created(cli):
    # /proc refuses new folders even to root, so this holds whoever runs the suite
    _refused_in_one_line(cli("/proc/mha-figures-test", ROOT), "/proc/mha-figures-test", "cannot create")


def test_cli_out_not_writable(tmp_path, cli):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("this user (root) may write into a read-only folder")
        _refused_in_one_line(cli(str(locked), tmp_path), "locked", "not writable")
    finally:
        locked.chmod(0o755)


def test_cli_empty_out_writes_nothing_into_the_current_folder(tmp_path, cli):
    _refused_in_one_line(cli("", tmp_path), "--out", "empty")
    _refused_in_one_line(cli("  ", tmp_path), "--out", "empty")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("out", ["/", "//", "/tmp/.."])
def test_cli_out_that_is_the_root_of_the_file_system(tmp_path, out, cli):
    _refused_in_one_line(cli(out, tmp_path), f"--out {out!r} is the root of the file system")
    assert not Path("/zh").exists() and not Path("/en").exists()


@pytest.mark.parametrize("more", [[], ["--traceback"]])
def test_cli_figure_that_fails_to_import_is_one_line(tmp_path, capsys, monkeypatch, more):
    monkeypatch.setitem(sys.modules, "figures.gallery.peak_dip", None)  # importing it now raises ImportError
    assert figures_cli(["--out", str(tmp_path), "--only", "peak-dip", "--no-cache", *more]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: figure 'peak-dip' (every language, every frame) failed to import: ModuleNotFoundError")
    assert ("Traceback (most recent call last)" in err) == bool(more)
    assert len(err.splitlines()) == 1 or more
    assert list(tmp_path.iterdir()) == []


def test_cli_counts_repeated_ids_and_languages_once(tmp_path, capsys):
    assert figures_cli(["--out", str(tmp_path), "--lang", "en,zh,en", "--only", "peak-dip", "peak-dip"]) == 0
    assert re.search(r"wrote 2 files? to", capsys.readouterr().err)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.svg")) == \
        ["en/peak-dip.svg", "zh/peak-dip.svg"]



# --- the page constructs ----------------------------------------------------------------------

def test_a_value_whose_computation_fails_is_not_called_unknown(monkeypatch):
    monkeypatch.setitem(quantities.QUANTITIES, "broken.key", lambda: {}["missing"])
    monkeypatch.setitem(quantities.QUANTITIES, "broken.zero", lambda: 1 / 0)
    with pytest.raises(constructs.MarkupError, match=r"p\.en\.md:1: the value 'broken\.key' failed: KeyError: 'missing'") as e:
        markup.expand("see {{ value broken.key }}", "en", str, "p.en.md")
    assert "unknown" not in str(e.value)
    with pytest.raises(constructs.MarkupError, match=r"p\.en\.md:1: the value 'broken\.zero' failed: ZeroDivisionError"):
        markup.expand("see {{ value broken.zero .2f }}", "en", str, "p.en.md")
    # a misspelt name is still the unknown one
    with pytest.raises(constructs.MarkupError, match=r"p\.en\.md:1: unknown value 'brokn'"):
        markup.expand("see {{ value brokn }}", "en", str, "p.en.md")


CODE_PAGE = """# Writing constructs {#constructs}

A page shows {{ value toy.n }} tokens; to write a construct literally, put it in code:
`{{ value no.such.name }}`, ``a `{{` inside``, or a block:

```markdown
{{ figure peak-dip }}
the value {{ value toy.n }} stays as written
```

~~~~
{{ figure no-such-figure }}
```
{{ table nope }}
~~~~

- in a list:

    ```
    {{ references }}
    ```
"""


def test_constructs_inside_code_are_left_as_written():
    text, placed = markup.expand(CODE_PAGE, "en", str, "constructs.en.md")
    assert placed == []
    n = quantities.value("toy.n")
    assert text == CODE_PAGE.replace("shows {{ value toy.n }} tokens", f"shows {n} tokens")


def test_a_figure_inside_code_is_not_numbered(tmp_path):
    from figures.publish import numbering
    for lang in ("zh", "en"):
        (tmp_path / f"a.{lang}.md").write_text("# a {#a}\n\n```\n{{ figure peak-dip }}\n```\n\n"
                                               "{{ figure width-slices }}\n", encoding="utf-8")
    assert list(numbering.figure_numbers(tmp_path, ["a.md"], ["zh", "en"])) == ["width-slices"]


# --- the split without the transpose, the causal mask (the-code's teaching figures) --------------

def test_the_wrong_split_refuses_what_the_right_one_could_not_take():
    from mha_ref.example.reshape import split_heads_without_transpose
    with pytest.raises(ValueError, match=r"h=3 does not divide d_model=8"):
        split_heads_without_transpose(np.zeros((4, 8)), 3)
    with pytest.raises(ValueError, match=r"x must have at least two axes"):
        split_heads_without_transpose(np.zeros(8), 2)
    with pytest.raises(TypeError, match=r"x must be a real numeric array"):
        split_heads_without_transpose(np.array([["a", "b"]]), 1)
    with pytest.raises(TypeError, match=r"h must be an integer"):
        split_heads_without_transpose(np.zeros((4, 8)), 2.0)
    with pytest.raises(ValueError, match=r"x contains non-finite values"):
        split_heads_without_transpose(np.full((4, 8), np.nan), 2)


def test_provenance_and_weights_refuse_bad_arguments():
    from mha_ref.example import reshape
    with pytest.raises(ValueError, match=r"the number of tokens n must be a whole number >= 1"):
        reshape.provenance(reshape.split_heads_without_transpose, n=0)
    with pytest.raises(ValueError, match=r"h=3 does not divide d_model=8"):
        reshape.provenance(reshape.split_heads_without_transpose, h=3)
    with pytest.raises(ValueError, match=r"split must be split_heads or split_heads_without_transpose"):
        reshape.weights(np.transpose)


@pytest.mark.parametrize("n, error, message", [(0, ValueError, "must be a whole number >= 1"),
                                                (2.5, TypeError, "must be a whole number >= 1"),
                                                (True, TypeError, "must be a whole number >= 1")])
def test_causal_mask_refuses_a_count_that_is_not_one(n, error, message):
    from mha_ref.example import causal
    with pytest.raises(error, match=rf"the number of tokens n {message}"):
        causal.causal_mask(n)
    with pytest.raises(error, match=rf"the number of tokens n {message}"):
        causal.allowed_weights(n)
# --- kv_heads (grouped-query attention) -------------------------------------------------------

KV_ENTRIES = [mha_trace, multi_head_attention, multi_head_attention_loop]
KV_IDS = ["trace", "batched", "loop"]


@pytest.fixture
def p12():
    return init_params(12, 6, seed=0)


@pytest.fixture
def x12():
    return np.random.default_rng(0).normal(size=(4, 12))


@pytest.mark.parametrize("block", KV_ENTRIES, ids=KV_IDS)
@pytest.mark.parametrize("kv_heads", [4, 5, 7, 12])
def test_kv_heads_not_dividing_h(block, kv_heads, p12, x12):
    message = rf"kv_heads={kv_heads} does not divide the head count h=6"
    with pytest.raises(ValueError, match=message):
        block(x12, p12, 6, kv_heads=kv_heads)
    with pytest.raises(ValueError, match=message):
        init_params(12, 6, kv_heads=kv_heads)
    for count in (lambda: costs.param_count(12, 6, kv_heads=kv_heads), lambda: costs.kv_param_count(12, 6, kv_heads),
                  lambda: costs.kv_cache_per_token(12, 6, kv_heads)):
        with pytest.raises(ValueError, match=message):
            count()


@pytest.mark.parametrize("block", KV_ENTRIES, ids=KV_IDS)
@pytest.mark.parametrize("kv_heads", [0, -3])
def test_kv_heads_below_one(block, kv_heads, p12, x12):
    message = rf"kv_heads, the number of key/value heads, must be at least 1, got kv_heads={kv_heads}"
    with pytest.raises(ValueError, match=message):
        block(x12, p12, 6, kv_heads=kv_heads)
    with pytest.raises(ValueError, match=message):
        init_params(12, 6, kv_heads=kv_heads)
    with pytest.raises(ValueError, match=message):
        costs.kv_cache_per_token(12, 6, kv_heads)


@pytest.mark.parametrize("block", KV_ENTRIES, ids=KV_IDS)
@pytest.mark.parametrize("kv_heads,shown", [(2.0, r"2\.0"), (True, "True"), ("2", "'2'")])
def test_kv_heads_not_a_whole_number(block, kv_heads, shown, p12, x12):
    message = rf"kv_heads must be a whole number >= 1 \(or None for h\), got {shown}"
    with pytest.raises(TypeError, match=message):
        block(x12, p12, 6, kv_heads=kv_heads)
    with pytest.raises(TypeError, match=message):
        init_params(12, 6, kv_heads=kv_heads)


@pytest.mark.parametrize("block", KV_ENTRIES, ids=KV_IDS)
def test_kv_heads_is_keyword_only(block, p12, x12):
    with pytest.raises(TypeError):
        block(x12, p12, 6, None, 2)  # mask, then kv_heads, by position: refused
    with pytest.raises(TypeError):
        init_params(12, 6, 2)


@pytest.mark.parametrize("block", KV_ENTRIES, ids=KV_IDS)
def test_plain_params_given_kv_heads_name_it(block, p12, x12):
    """Full-width W_K with kv_heads=2: the message says what kv_heads expects."""
    with pytest.raises(ValueError, match=r"params\.w_k has shape \(12, 12\), expected \(12, 4\) for x of width "
                                         r"d_model=12 with kv_heads=2 key/value heads of d_k=2"):
        block(x12, p12, 6, kv_heads=2)


@pytest.mark.parametrize("block", KV_ENTRIES, ids=KV_IDS)
def test_grouped_params_without_kv_heads_say_which_kv_heads_fits(block, x12):
    grouped = init_params(12, 6, kv_heads=3, seed=0)
    with pytest.raises(ValueError, match=r"params\.w_k has shape \(12, 6\), expected \(12, 12\) for x of width "
                                         r"d_model=12; 3 key/value heads of d_k=2 need kv_heads=3"):
        block(x12, grouped, 6)
    with pytest.raises(ValueError, match=r"params\.w_k has shape \(12, 6\), expected \(12, 4\) .* kv_heads=2 "):
        block(x12, grouped, 6, kv_heads=2)  # the wrong kv_heads for these params


@pytest.mark.parametrize("block", KV_ENTRIES, ids=KV_IDS)
def test_grouped_bias_of_the_wrong_width_names_kv_heads(block, x12):
    grouped = init_params(12, 6, kv_heads=3, seed=0)
    with pytest.raises(ValueError, match=r"params\.b_v has shape \(12,\), expected \(6,\) for kv_heads=3 "
                                         r"key/value heads of d_k=2"):
        block(x12, grouped._replace(b_v=np.zeros(12)), 6, kv_heads=3)
    with pytest.raises(ValueError, match=r"params\.w_v has shape \(12, 4\), expected \(12, 6\)"):
        block(x12, grouped._replace(w_v=np.zeros((12, 4))), 6, kv_heads=3)


def test_cache_and_byte_counts_refuse_bad_numbers():
    with pytest.raises(ValueError, match=r"layers must be a whole number >= 1, got 0"):
        costs.kv_cache_per_token(12, 6, 2, layers=0)
    with pytest.raises(TypeError, match=r"layers must be a whole number >= 1, got '32'"):
        costs.kv_cache_per_token(12, 6, 2, layers="32")
    with pytest.raises(ValueError, match=r"count must be a whole number >= 1, got -4"):
        costs.bytes_of(-4)
    with pytest.raises(TypeError, match=r"dtype must be a real floating-point dtype .* got 'int16'"):
        costs.bytes_of(4, "int16")
    assert costs.bytes_of(4, "float32") == 16 and costs.bytes_of(np.int64(4)) == 8
