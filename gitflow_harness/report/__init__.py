"""`gfh report`: detectors over the event log (and git history), rendered as text, markdown or JSON."""
