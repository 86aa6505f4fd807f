#!/bin/sh
# ARCHITECTURE.md's references resolve inside the repository: every "§N" or
# "§Na" that a tracked file cites is a section of ARCHITECTURE.md ("## N."
# or "### Na."), every link of its Contents names one of its headings (as
# GitHub makes the anchors), and every repository path it names in
# backquotes as lib/..., cmd/..., tests/..., pipelines/..., formats/... or
# bench/... exists; and its "Layout of the repository" table matches the
# tree: a row for every top-level entry of the checkout, and every folder of
# bench/ named in bench/'s row.
. tests/shell/lib.sh
need_cmd python3
cd "$TOP" || fail "cd $TOP"
git ls-files >/dev/null 2>&1 || skip "not a git checkout (skipped)"
git ls-files | grep -v '^tests/golden/\|\.png$\|\.h5$\|\.gz$\|\.zst$' > "$T/files"
python3 - "$T/files" <<'PYEOF' || fail "ARCHITECTURE.md references"
import os, re, sys
arch = open("ARCHITECTURE.md", encoding="utf-8").read()
heads = re.findall(r"^(#{2,4}) (.*)$", arch, re.M)
sections = set()
for _, t in heads:
    m = re.match(r"(\d+[a-z]?)\.", t)
    if m:
        sections.add(m.group(1))
def anchor(t):
    a = re.sub(r"[^\w\- ]", "", t.strip().lower())
    return a.replace(" ", "-")
anchors, seen = set(), {}
for _, t in heads:
    a = anchor(t)
    if a in seen:
        seen[a] += 1
        a = "%s-%d" % (a, seen[a])
    else:
        seen[a] = 0
    anchors.add(a)
bad = []
for path in open(sys.argv[1]).read().split():
    try:
        text = open(path, encoding="utf-8").read()
    except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
        continue
    for i, line in enumerate(text.split("\n"), 1):
        for m in re.finditer(r"§(\d+[a-z]?)", line):
            if m.group(1) not in sections:
                bad.append("%s:%d: §%s is no section of ARCHITECTURE.md" % (path, i, m.group(1)))
toc = arch.split("## Contents", 1)
if len(toc) < 2:
    bad.append("ARCHITECTURE.md: no Contents")
else:
    body = toc[1].split("\n## ", 1)[0]
    links = re.findall(r"\]\(#([^)]+)\)", body)
    if len(links) < 20:
        bad.append("ARCHITECTURE.md: only %d links in its Contents" % len(links))
    for a in links:
        if a not in anchors:
            bad.append("ARCHITECTURE.md: Contents link #%s names no heading" % a)
for m in re.finditer(r"`((?:lib|cmd|tests|pipelines|formats|bench|man)/[A-Za-z0-9_./-]+)`", arch):
    p = m.group(1).rstrip(".")
    if "*" in p or "NAME" in p or "NNNN" in p:
        continue
    if not os.path.exists(p):
        bad.append("ARCHITECTURE.md: `%s` does not exist" % p)
# the layout table against the tree
lay = re.search(r"^### Layout of the repository\n(.*?)\n\n", arch, re.S | re.M)
if not lay:
    bad.append("ARCHITECTURE.md: no 'Layout of the repository' table")
else:
    rows = {}
    for line in lay.group(1).splitlines():
        m = re.match(r"\| `([^`]+)` \|(.*)\|$", line)
        if m:
            rows[m.group(1)] = m.group(2)
    tracked = [l.strip() for l in open(sys.argv[1])]
    top = set(p.split("/")[0] + ("/" if "/" in p else "") for p in tracked)
    for t in sorted(top):
        named = t in rows or any(r.startswith(t) for r in rows)
        if not named:
            bad.append("ARCHITECTURE.md layout: no row for `%s`" % t)
    for r in rows:
        if not os.path.exists(r.rstrip("/")):
            bad.append("ARCHITECTURE.md layout: row `%s` is not in the tree" % r)
    subjects = sorted(set(p.split("/")[1] for p in tracked if p.startswith("bench/") and p.count("/") >= 2))
    for d in subjects:
        if "`%s/`" % d not in rows.get("bench/", ""):
            bad.append("ARCHITECTURE.md layout: bench/'s row does not name `%s/`" % d)
    loose = [p for p in tracked if p.startswith("bench/") and p.count("/") == 1 and p not in ("bench/RESULTS.md", "bench/tests.sh")]
    for p in loose:
        bad.append("bench/ holds %s outside a subject's folder" % p)
for b in bad:
    print(b)
print("%d sections, %d Contents links checked" % (len(sections), len(links) if len(toc) > 1 else 0))
sys.exit(1 if bad else 0)
PYEOF
exit 0
