"""The Hydra-C network (ARCHITECTURE.md §7) in PyTorch, for the cross-check and the
benchmark: same architecture, same losses, and loading of our HDF5
checkpoints. Our parameter layouts differ from PyTorch's in three places
(lib/nn/backend.h): 3-tap conv weights are [Cout][3][Cin], 1x1 conv weights
[Cout][Cin], and the policy fc weight is [46][34][64] (tile-major)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

W_POLICY, W_VALUE, W_GRP, W_TENPAI, W_DANGER = 1.0, 0.5, 0.1, 0.05, 0.05
PRESETS = {"tiny": (2, 32), "small": (6, 64), "base": (12, 128), "full": (40, 256)}


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.gn1 = nn.GroupNorm(32, c, eps=1e-5)
        self.conv1 = nn.Conv1d(c, c, 3, padding=1, bias=False)
        self.gn2 = nn.GroupNorm(32, c, eps=1e-5)
        self.conv2 = nn.Conv1d(c, c, 3, padding=1, bias=False)
        self.se = nn.Module()
        self.se.fc1 = nn.Linear(c, c // 16)
        self.se.fc2 = nn.Linear(c // 16, c)

    def forward(self, x):
        y = self.conv2(F.mish(self.gn2(self.conv1(F.mish(self.gn1(x))))))
        mlp = lambda p: self.se.fc2(F.relu(self.se.fc1(p)))
        e = mlp(y.mean(2)) + mlp(y.max(dim=2).values)
        return x + y * torch.sigmoid(e)[:, :, None]


def _mod(**kw):
    m = nn.Module()
    for k, v in kw.items():
        setattr(m, k, v)
    return m


class Net(nn.Module):
    def __init__(self, blocks, c):
        super().__init__()
        self.stem = _mod(conv=nn.Conv1d(85, c, 3, padding=1, bias=False))
        self.blocks = nn.ModuleList([Block(c) for _ in range(blocks)])
        self.trunk = _mod(gn=nn.GroupNorm(32, c, eps=1e-5))
        self.policy = _mod(conv=nn.Conv1d(c, 64, 1), fc=nn.Linear(64 * 34, 46))
        self.value = _mod(fc1=nn.Linear(c, 512), fc2=nn.Linear(512, 1))
        self.grp = _mod(fc1=nn.Linear(c, 256), fc2=nn.Linear(256, 24))
        self.tenpai = _mod(fc1=nn.Linear(c, 64), fc2=nn.Linear(64, 3))
        self.danger = _mod(conv=nn.Conv1d(c, 3, 1))

    def forward(self, obs):
        x = self.stem.conv(obs)
        for b in self.blocks:
            x = b(x)
        h = F.mish(self.trunk.gn(x))
        g = h.mean(2)
        pol = self.policy.fc(F.mish(self.policy.conv(h)).flatten(1))
        val = self.value.fc2(F.relu(self.value.fc1(g))).squeeze(1)
        grp = self.grp.fc2(F.relu(self.grp.fc1(g)))
        ten = self.tenpai.fc2(F.relu(self.tenpai.fc1(g)))
        dan = self.danger.conv(h)
        return pol, val, grp, ten, dan


def losses(out, legal, action, vt, grp, ten_t, ten_w, dan_t, dan_w):
    """Per-head means and the weighted total, as lib/nn/model.c."""
    pol, val, grpl, ten, dan = out
    legal = legal.bool() | F.one_hot(action.long(), 46).bool()
    lp = F.log_softmax(pol.masked_fill(~legal, float("-inf")), dim=1)
    l_pol = -lp.gather(1, action.long()[:, None]).mean()
    l_val = ((val - vt) ** 2).mean()
    l_grp = F.cross_entropy(grpl, grp.long())
    nt, nd = ten_w.sum(), dan_w.sum()
    bt = F.binary_cross_entropy_with_logits(ten, ten_t, reduction="none")
    bd = F.binary_cross_entropy_with_logits(dan, dan_t, reduction="none")
    l_ten = (bt * ten_w).sum() / nt if nt > 0 else ten.sum() * 0
    l_dan = (bd * dan_w).sum() / nd if nd > 0 else dan.sum() * 0
    total = (W_POLICY * l_pol + W_VALUE * l_val + W_GRP * l_grp + W_TENPAI * l_ten
             + W_DANGER * l_dan)
    return total, dict(policy=l_pol, value=l_val, grp=l_grp, tenpai=l_ten, danger=l_dan)


def torch_name(ours):
    p = ours.split("/")
    if p[0] == "blocks":
        p[1] = str(int(p[1]))
    return ".".join(p)


def ours_to_torch(name, a, shape):
    """Our layout → PyTorch's, for a tensor of torch shape `shape`."""
    t = torch.as_tensor(a)
    if name == "policy/fc/weight":
        return t.permute(0, 2, 1).reshape(shape)
    if t.dim() == 3:  # 3-tap conv [Cout][3][Cin]
        return t.permute(0, 2, 1).contiguous()
    if len(shape) == 3:  # 1x1 conv
        return t.reshape(shape)
    return t.reshape(shape)


def torch_to_ours(name, t, ours_shape):
    if name == "policy/fc/weight":
        return t.reshape(46, 64, 34).permute(0, 2, 1).contiguous()
    if len(ours_shape) == 3:
        return t.permute(0, 2, 1).contiguous()
    return t.reshape(ours_shape)


def param_groups(net):
    """AdamW groups: weight decay on conv/linear weights only."""
    decay, no = [], []
    for n, p in net.named_parameters():
        (no if ("gn" in n.split(".")[-2] or n.endswith("bias")) else decay).append(p)
    return [dict(params=decay, weight_decay=0.01), dict(params=no, weight_decay=0.0)]
