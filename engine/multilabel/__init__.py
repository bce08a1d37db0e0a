"""RTA: max-margin multilabel learning on random spanning trees.

"Multilabel Structured Output Learning with Random Spanning Trees of Max-Margin Markov Networks"
(Marchand, Su, Morvant, Rousu & Shawe-Taylor, NIPS 2014).
"""
