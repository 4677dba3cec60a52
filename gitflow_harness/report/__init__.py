"""`gfh report`: detectors over the event log and git history, as text, markdown or JSON."""
