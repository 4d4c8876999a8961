#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Report KUnit results from a console log, one line per case.

Usage: ktap-report.py LOG SUITE...

Reads the KTAP that KUnit prints for each SUITE (a "# Subtest: SUITE"
header, a "1..N" plan, then one "ok"/"not ok" line per case and one for the
suite). Prints every case, then "N passed, N failed, N skipped". Exits 1 if
any case failed, a suite is missing, or a suite reported fewer cases than it
planned (a crash mid-suite); skipped cases are reported as such, never as
passes.
"""
import re
import sys

RESULT = re.compile(r'^(not ok|ok) (\d+) (.+?)(?:\s+#\s*(SKIP|TODO)\b\s*(.*))?$', re.I)
PLAN = re.compile(r'^1\.\.(\d+)$')
SUBTEST = re.compile(r'^# Subtest: (.+)$')
# Console lines carry a "[ time]" prefix and KUnit indents nested results.
PREFIX = re.compile(r'^(?:\[\s*[\d.]+\]\s*)?')


def status_of(verdict, directive):
    if directive and directive.upper() == 'SKIP':
        return 'SKIP'
    return 'PASS' if verdict == 'ok' else 'FAIL'


def parse(lines, wanted):
    """Map each wanted suite to [plan, top-level cases, [(case, status, note)]].

    A parameterised case is a nested subtest: each parameter is reported as
    case[param], and the case's own line counts against the suite's plan.
    """
    suites = {}
    current = nested = None
    params = 0
    for raw in lines:
        line = PREFIX.sub('', raw.rstrip('\r\n')).strip()
        m = SUBTEST.match(line)
        if m:
            if current is None:
                current = m.group(1) if m.group(1) in wanted else None
                if current:
                    # A later copy (debugfs) replaces an earlier (console).
                    suites[current] = [None, 0, []]
            else:
                nested, params = m.group(1), 0
            continue
        if current is None:
            continue
        m = PLAN.match(line)
        if m and nested is None and suites[current][0] is None:
            suites[current][0] = int(m.group(1))
            continue
        m = RESULT.match(line)
        if not m:
            continue
        verdict, _, name, directive, note = m.groups()
        if nested is not None and name != nested:
            params += 1
            suites[current][2].append((f'{nested}[{name}]',
                                       status_of(verdict, directive), note or ''))
            continue
        if name == current:
            # The suite's own line ends it.
            current = None
            continue
        suites[current][1] += 1
        if nested is not None:
            # A parameterised case's own line: its parameters, if any
            # reported, carry the results.
            nested = None
            if params:
                continue
        suites[current][2].append((name, status_of(verdict, directive), note or ''))
    return suites


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    with open(sys.argv[1], errors='replace') as f:
        suites = parse(f, set(sys.argv[2:]))

    counts = {'PASS': 0, 'FAIL': 0, 'SKIP': 0}
    broken = []
    for suite in sys.argv[2:]:
        if suite not in suites:
            print(f'kunit: {suite}: no results (suite did not run)')
            broken.append(suite)
            continue
        plan, reported, cases = suites[suite]
        for name, status, note in cases:
            counts[status] += 1
            print(f'kunit: {suite}.{name}: {status}' + (f' ({note})' if note else ''))
        if plan is None or reported != plan:
            print(f'kunit: {suite}: {reported} of {plan} planned cases reported')
            broken.append(suite)

    print(f'kunit: {counts["PASS"]} passed, {counts["FAIL"]} failed, '
          f'{counts["SKIP"]} skipped' +
          (f', incomplete suites: {" ".join(broken)}' if broken else ''))
    sys.exit(1 if counts['FAIL'] or broken else 0)


if __name__ == '__main__':
    main()
