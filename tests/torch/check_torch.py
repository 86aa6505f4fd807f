#!/usr/bin/python3
"""PyTorch cross-check of the C network (issue 7): builds the same
architecture in PyTorch, loads our checkpoint with h5py, runs the batch that
bench/nn_dump wrote, and compares outputs and losses (rel. err ≤ 1e-4) and
parameter gradients (rel. err ≤ 1e-3). Rel. err of a tensor is
max|ours − torch| / max|torch| (the scale of the tensor, so that entries near
zero do not dominate). Exit 0 pass, 1 fail, 77 skipped (no torch/h5py).

usage: check_torch.py DIR      (DIR holds ckpt.h5 and dump.h5 from nn_dump)
"""
import os
import sys

try:
    import h5py
    import numpy as np
    import torch
except ImportError as e:
    print(f"check-torch: skipped: {e} (install python3-torch python3-h5py)")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hydra_torch as ht  # noqa: E402


def rel(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-30))


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    d = sys.argv[1]
    torch.manual_seed(0)
    ck = h5py.File(os.path.join(d, "ckpt.h5"), "r")
    dump = h5py.File(os.path.join(d, "dump.h5"), "r")
    blocks, ch = int(ck.attrs["blocks"]), int(ck.attrs["channels"])
    net = ht.Net(blocks, ch).double()  # double: the reference is exact to ~1e-12
    tp = dict(net.named_parameters())
    names = []
    ck["params"].visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
    with torch.no_grad():
        for n in names:
            p = tp[ht.torch_name(n)]
            p.copy_(ht.ours_to_torch(n, ck["params"][n][()], p.shape))
    if len(names) != len(tp):
        print(f"check-torch: FAIL: checkpoint has {len(names)} tensors, torch net {len(tp)}")
        return 1
    g = lambda k: torch.as_tensor(dump[k][()])
    obs = g("obs").double()
    out = net(obs)
    total, parts = ht.losses(out, g("legal"), g("action"), g("value_target").double(),
                             g("grp"), g("tenpai_target").double(), g("tenpai_weight").double(),
                             g("danger_target").double(), g("danger_weight").double())
    total.backward()
    ok = True
    worst = {}
    for k, t in zip(["policy", "value", "grp", "tenpai", "danger"], out):
        worst["out/" + k] = rel(dump["out/" + k][()], t.detach().numpy())
    for k, v in parts.items():
        worst["loss/" + k] = rel(dump.attrs["loss_" + k], v.item())
    worst["loss/total"] = rel(dump.attrs["loss_total"], total.item())
    for k, v in worst.items():
        if not v <= 1e-4:
            ok = False
            print(f"check-torch: FAIL {k}: rel. err {v:.3g} > 1e-4")
    gworst, gname = 0.0, ""
    for n in names:
        p = tp[ht.torch_name(n)]
        ours = dump["grads/" + n][()]
        ref = ht.torch_to_ours(n, p.grad, ours.shape).numpy()
        e = rel(ours, ref)
        if e > gworst:
            gworst, gname = e, n
        if not e <= 1e-3:
            ok = False
            print(f"check-torch: FAIL gradient {n}: rel. err {e:.3g} > 1e-3")
    print(f"check-torch: {blocks}x{ch}, batch {obs.shape[0]}, torch {torch.__version__}: "
          f"worst output/loss rel. err {max(worst.values()):.2e} (≤ 1e-4), "
          f"worst gradient rel. err {gworst:.2e} on {gname} (≤ 1e-3), {len(names)} tensors: "
          + ("ok" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
