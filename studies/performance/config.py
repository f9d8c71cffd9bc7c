"""The performance study's config checks (``performance:`` block), beyond the schema."""

from __future__ import annotations

from tripletbench.harness.config import ConfigError, part, setting


def check(config: dict, libraries: bool = True) -> None:
    """``performance.sparse`` non-zeros within d, at least one input (Study.check); the
    ``table4_scaling`` sizes (:func:`_check_table4_scaling`)."""
    # performance
    if config.get("performance") is not None:
        dense = setting(config, "performance.dense_dims") or []
        sparse = setting(config, "performance.sparse") or []
        if not dense and not sparse:
            raise ConfigError(
                "config performance: dense_dims and sparse are both empty; the table would have "
                "no row"
            )
        for i, (d, nnz) in enumerate(sparse):
            if int(nnz) > int(d):
                raise ConfigError(
                    f"config performance.sparse[{i}]: {nnz} non-zeros per row of a {d}-d vector; "
                    f"at most d ({d})"
                )
    _check_table4_scaling(config)


MAX_FEATURE_BYTES = 256 * 2**30
"""The most memory the synthetic features of ``table4_scaling`` may take (the paper's size,
1,025,000 x 297, takes 2.3 GiB)."""


def _check_table4_scaling(config: dict) -> None:
    """``table4_scaling``: its ``methods`` among ``sdca_table4.methods``, two train and two test
    items per class, its features within :data:`MAX_FEATURE_BYTES`."""
    # table4_scaling
    scaling = config.get("table4_scaling")
    if scaling:
        rows = list((config.get("sdca_table4") or {}).get("methods") or {})
        for i, m in enumerate(setting(config, "table4_scaling.methods") or []):
            if m not in rows:
                raise ConfigError(
                    f"config table4_scaling.methods[{i}]: {m!r} is not a row of "
                    f"sdca_table4.methods {rows}"
                )
        n_gt = int(setting(config, "table4_scaling.n_ground_truth"))
        n_classes = int(setting(config, "table4_scaling.n_classes"))
        n_items = n_gt + int(setting(config, "table4_scaling.n_background"))
        d = int(setting(config, "table4_scaling.d"))
        if n_items * d * 8 > MAX_FEATURE_BYTES:
            raise ConfigError(
                f"config table4_scaling: n_ground_truth + n_background = {n_items:,} items of "
                f"d = {d} float64 features need {n_items * d * 8 / 2**30:,.0f} GiB, more than "
                f"{MAX_FEATURE_BYTES / 2**30:.0f} GiB; lower n_background or d"
            )
        per = n_gt // n_classes
        tf = float(setting(config, "sdca_table4.train_fraction"))
        train = part(per, tf) if per >= 2 else 0
        if per < 4 or train < 2 or per - train < 2:
            raise ConfigError(
                f"config table4_scaling.n_classes: {n_classes} classes of {n_gt} ground-truth "
                f"items leave {per} per class; Table 4's protocol needs two training and two "
                f"test items in each (train_fraction {tf})"
            )
