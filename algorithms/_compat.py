"""metric-learn 0.7.0 with scikit-learn 1.7: imported on first use (it pulls in sklearn.neighbors,
~0.5-0.8 s that every job would otherwise pay), and its known, harmless deprecation warning
silenced."""

import contextlib
import warnings


@contextlib.contextmanager
def quiet_metric_learn():
    """Hide scikit-learn's FutureWarning about metric-learn's use of ``force_all_finite``
    (renamed ``ensure_all_finite`` in scikit-learn 1.6); every other warning still shows."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*force_all_finite.*", category=FutureWarning)
        yield


def metric_learn():
    """The ``metric_learn`` module, imported on first use."""
    import metric_learn as ml

    return ml
