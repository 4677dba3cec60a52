"""The end-of-turn ritual: the status box, the turn's evidence, and the Stop evaluator."""
