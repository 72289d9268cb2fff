"""Findings: the one verdict type (`Problem`), the bilingual catalog its words come from
(runbook_lib/data/findings.yaml, keyed by a code), the errors that carry a finding, and the one renderer that
turns a finding into text for a person.

The bottom layer. May import: nothing else of runbook_lib (only the standard library and PyYAML).
"""
