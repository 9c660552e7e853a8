"""`python -m figures.numbers.seeds`: every seed of page 4's model, its heads one line each
(mha_ref/tiny/lm_table.py), then what holds over the seeds (lm_heads.quantities), as kept on disk
(figures/keep/tiny_lm.py: trained and measured first if they are not)."""

from __future__ import annotations

from mha_ref.tiny import lm_heads, lm_table, lm_train

from ..keep import tiny_lm


def main() -> None:
    print(f"seeds {lm_train.SEEDS}; roles on {lm_train.CONFIG.held_out} held-out sentences, importance on "
          f"{lm_heads.IMPORTANCE_SENTENCES} training sentences, pruning on {lm_heads.PRUNE_SENTENCES} held-out ones.\n"
          f"top: most frequent top-key offset, its share; #: pruning step (least important first); roles "
          f"P positional, S syntactic, R rare; then syntactic relations and, after |, coref and repeat "
          f"(> dependent to head, < head to dependent: accuracy/baseline %); masked k: importance order "
          f"[{lm_heads.RANDOM_ORDERS} random orders' min median max]")
    for s in tiny_lm.all_seeds():
        print(lm_table.seed_table(s), flush=True)
    q = lm_heads.quantities(tiny_lm.all_seeds, tiny_lm.training_counts)
    print("over seeds: " + "; ".join(f"{name} = {q[name]():.4g}" for name in q))


if __name__ == "__main__":
    main()
