"""Compares two files of JSON lines event by event (field order and
whitespace aside). Usage: jsoneq.py A B. Exit 1 naming the first difference."""
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]


a, b = load(sys.argv[1]), load(sys.argv[2])
for i, (x, y) in enumerate(zip(a, b)):
    if x != y:
        print(f"{sys.argv[1]}:{i + 1}: {x}\n{sys.argv[2]}:{i + 1}: {y}", file=sys.stderr)
        sys.exit(1)
if len(a) != len(b):
    print(f"{len(a)} events vs {len(b)} events", file=sys.stderr)
    sys.exit(1)
