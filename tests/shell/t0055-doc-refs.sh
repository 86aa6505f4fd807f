#!/bin/sh
# ARCHITECTURE.md's references resolve inside the repository: every "§N" or
# "§Na" that a tracked file cites is a section of ARCHITECTURE.md ("## N."
# or "### Na."), every link of its Contents names one of its headings (as
# GitHub makes the anchors), and every repository path it names in
# backquotes as lib/..., cmd/..., tests/..., pipelines/..., formats/... or
# bench/... exists.
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
for b in bad:
    print(b)
print("%d sections, %d Contents links checked" % (len(sections), len(links) if len(toc) > 1 else 0))
sys.exit(1 if bad else 0)
PYEOF
exit 0
