"""Prints the counts of a pytest JUnit XML report: 'N passed, N failed, N errors, N skipped'
(and with -v the skip reasons)."""

import sys
import xml.etree.ElementTree as ET

root = ET.parse(sys.argv[1]).getroot()
suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
tests = sum(int(s.get("tests", 0)) for s in suites)
failures = sum(int(s.get("failures", 0)) for s in suites)
errors = sum(int(s.get("errors", 0)) for s in suites)
skipped = sum(int(s.get("skipped", 0)) for s in suites)
passed = tests - failures - errors - skipped
print(f"{passed} passed, {failures} failed, {errors} errors, {skipped} skipped")

# Why tests were skipped, most frequent first (with -v: `counts.py report.xml -v`).
if "-v" in sys.argv[2:]:
    reasons = {}
    for case in root.iter("testcase"):
        for s in case.findall("skipped"):
            reason = (s.get("message") or "").strip()
            reasons[reason] = reasons.get(reason, 0) + 1
    for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1]):
        print(f"  skipped {n:4d}: {reason}")
