#!/bin/sh
# Hostile inputs and a hostile environment: archive bombs under a memory
# limit, a full disk under every writer, output errors named as output
# errors, a stream cut inside its first header, --help to a full device.
. tests/shell/lib.sh
L="$T/tenhou"
gen_tenhou "$L" 6  # self-play games as mjlog and tenhou.net/6 (lib.sh)
cd "$T"
"$BIN/mjai-parse" "$L"/*.xml -o ev.bin || fail "mjai-parse"
"$BIN/hydra-encode" ev.bin -o s.bin || fail "hydra-encode"

# ---- 1. an archive entry larger than memory: a clean "out of memory", status 1
# (not under AddressSanitizer: its shadow memory needs more address space
# than any such limit allows)
if command -v /usr/bin/python3 >/dev/null && ! ldd "$BIN/mjai-parse" | grep -q libasan; then
	/usr/bin/python3 - <<'EOF' || fail "cannot make the bombs"
import io, tarfile, zipfile
N = 600 << 20
class Zeros(io.RawIOBase):
    def __init__(self, n): self.n = n
    def readable(self): return True
    def readinto(self, b):
        k = min(len(b), self.n); b[:k] = bytes(k); self.n -= k; return k
with zipfile.ZipFile("bomb.zip", "w", zipfile.ZIP_DEFLATED) as z:
    with z.open("big.json", "w", force_zip64=True) as f:
        for _ in range(600): f.write(bytes(1 << 20))
with tarfile.open("bomb.tar.gz", "w:gz") as t:
    ti = tarfile.TarInfo("big.json"); ti.size = N
    t.addfile(ti, io.BufferedReader(Zeros(N)))
EOF
	for b in bomb.zip bomb.tar.gz; do
		for p in mjai-parse hydra-encode; do
			( ulimit -v 500000; "$BIN/$p" $b > /dev/null 2> err ); st=$?
			[ $st -eq 1 ] || { cat err; fail "$p $b under ulimit -v exited $st, want 1"; }
			grep -q "$b:big.json: out of memory" err || { cat err; fail "$p $b message"; }
		done
	done
fi

# ---- 2. a full disk: status 1, the reason, no temporary left, no crash
if [ "$(id -u)" = 0 ] && mkdir full && mount -t tmpfs -o size=256k tmpfs full 2>/dev/null; then
	trap 'umount "$T/full" 2>/dev/null; rm -rf "$T"' EXIT
	enospc() { # what cmd...
		what=$1; shift
		"$@" > /dev/null 2> err; st=$?
		[ $st -eq 1 ] || { cat err; fail "$what on a full disk exited $st, want 1"; }
		grep -q "No space left on device" err || { cat err; fail "$what: no reason given"; }
		[ "$(wc -l < err)" -le 3 ] || { cat err; fail "$what: message over several lines"; }
		ls full | grep -q tmp && fail "$what left $(ls full)"
		rm -rf full/*
	}
	enospc "hydra-encode -o x.h5" "$BIN/hydra-encode" ev.bin -o full/x.h5
	grep -q "hydra-encode: full/x.h5: No space left" err || { cat err; fail "the output is not named"; }
	enospc "hydra-encode rotation" "$BIN/hydra-encode" ev.bin -o 'full/t-%02d.h5' --shard-size 300
	enospc "hydra-encode --val-output" "$BIN/hydra-encode" ev.bin -o x.bin \
		--val-fraction 0.99 --val-output full/v.h5
	enospc "hydra-encode -o x.bin" "$BIN/hydra-encode" ev.bin -o full/x.bin
	grep -q "hydra-encode: full/x.bin: cannot write sample stream: No space" err || { cat err; fail "stream output not named"; }
	enospc "hydra-augment -o" "$BIN/hydra-augment" --perms all s.bin -o full/a.h5
	enospc "mjai-parse -o" "$BIN/mjai-parse" ev.bin -o full/e.bin
	grep -q "mjai-parse: full/e.bin: cannot write event stream: No space" err || { cat err; fail "mjai-parse output not named"; }
	enospc "hydra-fit checkpoint" "$BIN/hydra-fit" --arch small --steps 1 --batch 8 --out full/run s.bin
	umount full
fi

# ---- 5. Tenhou scores out of range: an error naming the field, never a wrap
x=$(ls "$L"/*.xml | head -n 1)
sed 's/ten="\([0-9]*\),/ten="21474837,/' "$x" > big.xml
cmp -s "$x" big.xml && fail "could not edit ten"
expect_exit 1 "$BIN/mjai-parse" big.xml
expect_err "ten value 21474837,.* is out of range"
sed 's/owari="\([0-9-]*\),/owari="99999999,/' "$x" > big2.xml
expect_exit 1 "$BIN/mjai-parse" big2.xml
expect_err "bad owari '99999999,"
j=$(ls "$L"/*.json | head -n 1)
for v in 1e30 4294992296; do
	/usr/bin/python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
d['log'][0][1][0] = float(sys.argv[2]) if 'e' in sys.argv[2] else int(sys.argv[2])
json.dump(d, open('big.json', 'w'))" "$j" "$v" || fail "python"
	expect_exit 1 "$BIN/mjai-parse" big.json
	expect_err "big.json"
done

# ---- 6. checkpoint attributes get the ranges of their options on --resume
"$BIN/hydra-fit" -q --arch tiny --steps 2 --batch 8 --out run6 s.bin 2>/dev/null || fail "a run to resume"
if /usr/bin/python3 -c "import h5py" 2>/dev/null; then
	for a in train_threads:100000 step:-3 warmup:-1 total_steps:-5 train_batch:0; do
		cp -r run6 run6b
		ck=run6b/$(readlink run6b/latest)
		/usr/bin/python3 -c "
import h5py, sys
f = h5py.File(sys.argv[1], 'r+')
name, v = sys.argv[2].split(':')
f.attrs.modify(name, f.attrs[name].dtype.type(int(v)))
f.close()" "$ck" "$a" || fail "cannot edit $a"
		expect_exit 3 "$BIN/hydra-fit" -q --resume run6b --steps 4 s.bin
		expect_err "attribute '${a%%:*}' is out of range"
		rm -rf run6b
	done
fi

# ---- 7. leftovers: a save killed outright, a run that fails before training
touch run6/ckpt-00000009.h5.tmp-AbCdEf run6/latest.tmp.12345
expect_exit 0 "$BIN/hydra-fit" --resume run6 --steps 3 s.bin
expect_err "removed 'run6/ckpt-00000009.h5.tmp-AbCdEf', left by an interrupted save"
ls run6 | grep -q tmp && fail "stale temporaries kept: $(ls run6)"
head -c 3000 s.bin > cut.bin
expect_exit 1 "$BIN/hydra-fit" -q --arch tiny --out run7 cut.bin
[ -e run7 ] && fail "a failed run left '$(ls run7)' in its output directory"

# ---- 8. messages: output errors on stdout, short magic, --help to /dev/full
if [ -w /dev/full ]; then
	expect_exit 1 "$BIN/mjai-parse" ev.bin -o /dev/full
	"$BIN/mjai-parse" ev.bin > /dev/full 2> err && fail "mjai-parse > /dev/full exited 0"
	grep -q "standard output: cannot write event stream: No space" err || { cat err; fail "stdout error"; }
	"$BIN/mjai-parse" --json ev.bin > /dev/full 2> err && fail "--json > /dev/full exited 0"
	grep -q "cannot write mjai JSON: No space" err || { cat err; fail "json stdout error"; }
	for p in "$BIN"/*; do
		"$p" --help > /dev/full 2> err && fail "$(basename "$p") --help > /dev/full exited 0"
		grep -q "standard output: write error" err || { cat err; fail "$(basename "$p") --help message"; }
	done
fi
for n in 1 4 7; do
	head -c $n ev.bin > p.bin
	expect_exit 1 "$BIN/mjai-parse" p.bin
	expect_err "truncated event stream"
	head -c $n s.bin > p.bin
	expect_exit 1 "$BIN/hydra-augment" p.bin
	expect_err "truncated sample stream"
done
exit 0
