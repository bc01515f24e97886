"""Classification metrics over predictions and labels (numpy on the host)."""

import numpy as np


def _labels(x):
    return np.asarray(x.tolist() if hasattr(x, "tolist") else x)


def accuracy(logits, target):
    """Fraction of rows whose arg-max equals the target."""
    pred = _labels(logits).argmax(axis=1)
    return float((pred == _labels(target)).mean()) if len(pred) else 0.0


def top_k_accuracy(logits, target, k=5):
    """Fraction of rows whose target is among the k largest logits."""
    scores = _labels(logits)
    k = min(k, scores.shape[1])
    top = np.argsort(-scores, axis=1, kind="stable")[:, :k]
    return float((top == _labels(target)[:, None]).any(axis=1).mean()) if len(top) else 0.0


def confusion_matrix(pred, target, classes):
    """[classes, classes] counts: row = true class, column = predicted class."""
    m = np.zeros((classes, classes), dtype=np.int64)
    np.add.at(m, (_labels(target), _labels(pred)), 1)
    return m


def precision_recall_f1(pred, target, classes):
    """Macro-averaged (precision, recall, f1); classes never predicted count as 0."""
    m = confusion_matrix(pred, target, classes)
    tp = np.diag(m).astype(np.float64)
    predicted = m.sum(axis=0)
    actual = m.sum(axis=1)
    precision = np.divide(tp, predicted, out=np.zeros_like(tp), where=predicted > 0)
    recall = np.divide(tp, actual, out=np.zeros_like(tp), where=actual > 0)
    denom = precision + recall
    f1 = np.divide(2 * precision * recall, denom, out=np.zeros_like(tp), where=denom > 0)
    return float(precision.mean()), float(recall.mean()), float(f1.mean())
