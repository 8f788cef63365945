#!/usr/bin/env python3
"""Instructions per command for each function, from the two callgrind outputs that
scripts/callgrind-commands.sh keeps with CALLGRIND_KEEP=dir (500 and 2,500 commands): the difference
divided by 2,000, so start-up and shutdown cancel (docs/performance.md, "A relaxed push/pop, stage by
stage").

    scripts/callgrind-functions.py DIR/small.out DIR/large.out [rows] | swift demangle --simplified

Inclusive is a function's own cost plus that of the calls it makes to other functions (a call to
itself is not counted twice); self is its own. These are `callgrind_annotate --inclusive=yes` and
`--inclusive=no` with each function's rows merged across the source files its inlined code comes from.
"""
import collections
import re
import sys


def load(path):
    names = {}
    own = collections.Counter()
    inclusive = collections.Counter()
    function = callee = None
    pending_call = False

    def name(token):
        # Callgrind compresses names: "(12) name" defines id 12, "(12)" refers to it.
        match = re.match(r"\((\d+)\)(?: (.*))?", token)
        if not match:
            return token
        if match.group(2) is not None:
            names[match.group(1)] = match.group(2)
        return names[match.group(1)]

    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("fn="):
            function = name(line[3:])
        elif line.startswith("cfn="):
            callee = name(line[4:])
        elif line.startswith("calls="):
            pending_call = True
        elif line[:1].isdigit() or line[:1] in "+-*":
            parts = line.split()
            if len(parts) < 2:
                continue
            cost = int(parts[1])
            if pending_call:
                if callee != function:
                    inclusive[function] += cost
                pending_call = False
            else:
                own[function] += cost
        elif line.startswith(("fl=", "fi=", "fe=", "cfi=", "cfl=", "ob=", "cob=")):
            value = line.split("=", 1)[1]
            if value.startswith("("):
                name(value)
    for function, cost in own.items():
        inclusive[function] += cost
    return own, inclusive


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    small, large = load(sys.argv[1]), load(sys.argv[2])
    rows = int(sys.argv[3]) if len(sys.argv) > 3 else 60
    for title, index in (("inclusive", 1), ("self", 0)):
        before, after = small[index], large[index]
        per_command = sorted(
            (((after[f] - before[f]) / 2000, f) for f in set(before) | set(after)), reverse=True)
        print(f"== {title}, instructions per command")
        for cost, function in per_command[:rows]:
            print(f"{cost:10.0f}  {function}")


main()
