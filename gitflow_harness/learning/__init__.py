"""Lessons learned: pills, their graduation into requests, and whether they helped (DESIGN §8)."""
