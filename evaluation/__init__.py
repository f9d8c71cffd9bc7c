"""Evaluation protocols, one module per family (retrieval, ...)."""
