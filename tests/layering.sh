#!/bin/sh
# The layering of lib/ (ARCHITECTURE.md §11), checked from the sources: every
# `#include "M/..."` of a file in lib/N/ names a module M that N may use
# (the table below), and a header whose first comment says "Private to lib/M"
# or "Internal to lib/M" is included only inside lib/M (from lib, cmd, bench
# and tests alike). The table itself must have no loop, name only modules of
# the table, and know every directory of lib/. cmd/, bench/ and tests/ may use
# any module. Run by tests/shell/t0050-layering.sh; by hand:
#     sh tests/layering.sh [TOP]        (TOP: the repository root, default .)
# Exit 0: all downward; 1: each violation on stderr, file:line first;
# 2: no lib/ under TOP.

# module: the modules it may use — ARCHITECTURE.md §11's "may use" column,
# bottom up.
LAYERS='
core:
io:      core
hand:    core
events:  core io
engine:  core hand events
tenhou:  core events
mjai:    core events
samples: core io events
docs:    core io events mjai tenhou
encode:  core hand events engine samples
nn:      core io samples
mpi:     core nn
data:    core io samples nn mpi
train:   core events samples encode nn mpi data
play:    core io hand events mjai engine samples encode nn mpi train data
export:  core io samples nn
review:  core events hand engine play
cli:     core io nn
'

cd "${1:-.}" || exit 2
[ -d lib ] || { echo "layering: no lib/ in '$(pwd)'" >&2; exit 2; }
export LC_ALL=C
out=$(mktemp "${TMPDIR:-/tmp}/hydra-layering.XXXXXX") || exit 2
trap 'rm -f "$out"' EXIT

# the table: every name it uses is a module of it, and it has no loop
echo "$LAYERS" | awk -F: '
	NF < 2 { next }
	{ gsub(/[ \t]/, "", $1); mod[$1] = 1; uses[$1] = $2 }
	END {
		for (m in uses) {
			n = split(uses[m], u, /[ \t]+/)
			for (i = 1; i <= n; i++)
				if (u[i] != "" && !(u[i] in mod))
					printf "layering: the table: %s may use \"%s\", no module of the table\n", m, u[i]
		}
	}' >> "$out"
echo "$LAYERS" | awk -F: 'NF >= 2 { gsub(/[ \t]/, "", $1); print $1, $1
	n = split($2, u, /[ \t]+/); for (i = 1; i <= n; i++) if (u[i] != "") print u[i], $1 }' |
	tsort > /dev/null 2>&1 ||
	echo "layering: the table has a loop (tsort): a module may not use one above it" >> "$out"

# every directory of lib/ is a module of the table
for d in lib/*/; do
	m=${d#lib/}; m=${m%/}
	echo "$LAYERS" | grep -q "^$m:" ||
		echo "layering: lib/$m/: a module the table does not know (add its row: what it may use)" >> "$out"
done

mods=$(echo "$LAYERS" | sed -n 's/^\([a-z0-9_]*\):.*/\1/p' | tr '\n' ' ')
dirs=$(for d in lib/*/; do m=${d#lib/}; printf '%s ' "${m%/}"; done)
priv=$(find lib -type f -name '*.h' -exec awk 'FNR == 1 &&
	/^\/\* (Private|Internal) to lib\// { print FILENAME }' {} + | tr '\n' ' ')

# every include of a module's header, from lib (checked against the table)
# and from cmd, bench and tests (checked for private headers only)
set --
for d in lib cmd bench tests; do [ -d "$d" ] && set -- "$@" "$d"; done
find "$@" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) \
	-exec awk -v layers="$LAYERS" -v mods="$mods" -v dirs="$dirs" -v priv="$priv" '
	BEGIN {
		n = split(layers, row, "\n")
		for (i = 1; i <= n; i++) {
			if (split(row[i], f, ":") < 2)
				continue
			gsub(/[ \t]/, "", f[1])
			uses[f[1]] = f[2]
			k = split(f[2], u, /[ \t]+/)
			for (j = 1; j <= k; j++)
				if (u[j] != "")
					ok[f[1], u[j]] = 1
		}
		k = split(mods " " dirs, u, / +/)
		for (j = 1; j <= k; j++)
			if (u[j] != "")
				ismod[u[j]] = 1
		k = split(priv, u, / +/)
		for (j = 1; j <= k; j++)
			if (u[j] != "") {
				split(u[j], p, "/")
				owner[substr(u[j], 5)] = p[2]	# "nn/ckptfile.h" -> nn
			}
	}
	FNR == 1 {
		split(FILENAME, p, "/")
		self = p[1] == "lib" ? p[2] : ""
	}
	/^[ \t]*#[ \t]*include[ \t]*["<][^">]*\// {
		inc = $0
		sub(/^[ \t]*#[ \t]*include[ \t]*["<]/, "", inc)
		sub(/[">].*/, "", inc)
		m = inc
		sub(/\/.*/, "", m)
		if (!(m in ismod))
			next
		if (self != "" && m != self && !((self, m) in ok)) {
			u_ = uses[self]
			gsub(/^[ \t]+|[ \t]+$/, "", u_)
			gsub(/[ \t]+/, ", ", u_)
			printf "layering: %s:%d: %s includes \"%s\": %s may use %s (ARCHITECTURE.md §11)\n",
				FILENAME, FNR, self, inc, self, u_ == "" ? "no module" : u_
		}
		if ((inc in owner) && self != owner[inc])
			printf "layering: %s:%d: includes \"%s\", private to lib/%s\n",
				FILENAME, FNR, inc, owner[inc]
	}' {} + >> "$out"

if [ -s "$out" ]; then
	sort -t: -k1,2 -k3,3n -u "$out" >&2
	echo "layering: $(sort -u "$out" | wc -l) violation(s)" >&2
	exit 1
fi
echo "layering: every include of lib/ goes down (tests/layering.sh)"
