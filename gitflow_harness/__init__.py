"""gitflow-harness: a git-native harness for coding agents."""

# A literal on purpose: reading it through importlib.metadata costs ~50 ms per start.
__version__ = "0.1.0"
