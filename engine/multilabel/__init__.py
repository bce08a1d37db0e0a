"""RTA: max-margin multilabel learning on random spanning trees (Marchand et al., NIPS 2014)."""
