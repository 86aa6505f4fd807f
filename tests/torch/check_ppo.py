#!/usr/bin/python3
"""PyTorch cross-check of the PPO loss of `hydra-fit --mode ppo` (issue 12):
loads the checkpoint and the batch that bench/ppo_dump wrote, runs the same
network in PyTorch (float64), forms the PPO loss there with autograd —

  p = softmax over legal actions, logp = log p[a], r = exp(logp - logp_old),
  A = (adv - mean) / (std + 1e-8) (std with 1/B),
  surr = min(r A, clamp(r, 1 - eps, 1 + eps) A), H = -sum p log p,
  total = mean(-surr) + vf_coef mean((v - ret)^2) - ent_coef mean(H)
          + 0.1 grp + 0.05 tenpai + 0.05 danger

— and compares the statistics and the total (rel. err <= 1e-4) and every
parameter gradient (rel. err <= 1e-4: float32 against float64 gives about
1e-6 here, and dropping the clip from the gradient gives 3e-3; rel. err of a tensor is
max|ours - torch| / max|torch|, as check_torch.py). Exit 0 pass, 1 fail,
77 skipped (no torch/h5py).

usage: check_ppo.py DIR      (DIR holds ckpt.h5 and ppo.h5 from ppo_dump)
"""
import os
import sys

try:
    import h5py
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError as e:
    print(f"check-torch: skipped: {e} (install python3-torch python3-h5py)")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hydra_torch as ht  # noqa: E402


def rel(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-30))


def ppo_loss(logits, value, legal, action, logp_old, adv, ret, eps, vf, ent):
    legal = legal.bool() | F.one_hot(action.long(), 46).bool()
    lsm = F.log_softmax(logits.masked_fill(~legal, float("-inf")), dim=1)
    lsm = torch.where(legal, lsm, torch.zeros_like(lsm))  # no -inf into autograd
    p = lsm.exp() * legal
    logp = lsm.gather(1, action.long()[:, None]).squeeze(1)
    ratio = torch.exp(logp - logp_old)
    a = (adv - adv.mean()) / (adv.std(unbiased=False) + 1e-8)
    surr = torch.min(ratio * a, torch.clamp(ratio, 1 - eps, 1 + eps) * a)
    entropy = -(p * lsm).sum(1)
    vloss = ((value - ret) ** 2).mean()
    loss = -surr.mean() + vf * vloss - ent * entropy.mean()
    with torch.no_grad():
        lr = logp - logp_old
        stats = dict(surrogate=surr.mean(), value=vloss, entropy=entropy.mean(),
                     approx_kl=((ratio - 1) - lr).mean(),
                     clip_frac=((ratio - 1).abs() > eps).double().mean())
    return loss, stats


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    d = sys.argv[1]
    ck = h5py.File(os.path.join(d, "ckpt.h5"), "r")
    dump = h5py.File(os.path.join(d, "ppo.h5"), "r")
    blocks, ch = int(ck.attrs["blocks"]), int(ck.attrs["channels"])
    net = ht.Net(blocks, ch).double()
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
    out = net(g("obs").double())
    _, aux = ht.losses(out, g("legal"), g("action"), g("value_target").double(), g("grp"),
                       g("tenpai_target").double(), g("tenpai_weight").double(),
                       g("danger_target").double(), g("danger_weight").double())
    eps, vf, ent = (float(dump.attrs[k]) for k in ("clip", "vf_coef", "ent_coef"))
    ploss, stats = ppo_loss(out[0], out[1], g("legal"), g("action"), g("logp_old").double(),
                            g("adv").double(), g("ret").double(), eps, vf, ent)
    total = (ploss + ht.W_GRP * aux["grp"] + ht.W_TENPAI * aux["tenpai"]
             + ht.W_DANGER * aux["danger"])
    total.backward()
    ok = True
    worst = {"out/policy": rel(dump["out/policy"][()], out[0].detach().numpy()),
             "out/value": rel(dump["out/value"][()], out[1].detach().numpy()),
             "ppo_loss": rel(dump.attrs["ppo_loss"], ploss.item()),
             "loss_total": rel(dump.attrs["loss_total"], total.item())}
    for k, v in stats.items():
        worst[k] = rel(dump.attrs[k], v.item())
    for k, v in worst.items():
        if not v <= 1e-4:
            ok = False
            print(f"check-torch: FAIL ppo {k}: rel. err {v:.3g} > 1e-4")
    cf = float(dump.attrs["clip_frac"])
    if not 0 < cf < 1:
        ok = False
        print(f"check-torch: FAIL ppo: clip fraction {cf} (both branches must be present)")
    gworst, gname = 0.0, ""
    for n in names:
        p = tp[ht.torch_name(n)]
        ours = dump["grads/" + n][()]
        ref = ht.torch_to_ours(n, p.grad, ours.shape).numpy()
        e = rel(ours, ref)
        if e > gworst:
            gworst, gname = e, n
        if not e <= 1e-4:
            ok = False
            print(f"check-torch: FAIL ppo gradient {n}: rel. err {e:.3g} > 1e-4")
    print(f"check-torch: PPO {blocks}x{ch}, batch {out[0].shape[0]}, clip fraction {cf:.2f}: "
          f"worst statistic/loss rel. err {max(worst.values()):.2e} (<= 1e-4), "
          f"worst gradient rel. err {gworst:.2e} on {gname} (<= 1e-4), {len(names)} tensors: "
          + ("ok" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
