#!/usr/bin/python3
"""PyTorch side of bench/nn/nn.sh: training samples/s (forward + backward +
AdamW with clipping) of the same net, losses and optimiser as Hydra-C, on
random inputs, and peak RSS.   usage: bench_torch.py ARCH [BATCH [THREADS [STEPS]]]"""
import os
import resource
import sys
import time

try:
    import torch
except ImportError as e:
    print(f"pytorch: skipped: {e}")
    sys.exit(0)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hydra_torch as ht  # noqa: E402

arch = sys.argv[1]
B = int(sys.argv[2]) if len(sys.argv) > 2 else 256
T = int(sys.argv[3]) if len(sys.argv) > 3 else 2
steps = int(sys.argv[4]) if len(sys.argv) > 4 else 10
torch.set_num_threads(T)
torch.manual_seed(1)
blocks, ch = ht.PRESETS[arch]
net = ht.Net(blocks, ch)
opt = torch.optim.AdamW(ht.param_groups(net), lr=5e-4, betas=(0.9, 0.999), eps=1e-8)
obs = (torch.rand(B, 85, 34) < 0.2).float() * 0.5
legal = torch.rand(B, 46) < 0.2
action = torch.randint(0, 46, (B,))
vt = torch.randn(B)
grp = torch.randint(0, 24, (B,))
ten_t = (torch.rand(B, 3) < 0.3).float()
ten_w = torch.ones(B, 3)
dan_t = (torch.rand(B, 3, 34) < 0.1).float()
dan_w = ten_t[:, :, None].expand(B, 3, 34).contiguous()


def step():
    opt.zero_grad(set_to_none=False)
    loss, _ = ht.losses(net(obs), legal, action, vt, grp, ten_t, ten_w, dan_t, dan_w)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
    opt.step()
    return loss.item()


step()
t0 = time.perf_counter()
for _ in range(steps):
    loss = step()
dt = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"pytorch  {arch:<5} {blocks}x{ch} batch {B} threads {T}: {steps * B / dt:.1f} samples/s "
      f"({dt / steps:.3f} s/step), peak RSS {rss:.0f} MiB, loss {loss:.4f} (torch {torch.__version__})")
