"""Lessons learned: pills, their graduation into requests, and whether they helped.

See docs/learning.md.
"""
