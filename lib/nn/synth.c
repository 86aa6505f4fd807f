/* Synthetic, well-formed samples for tests and benchmarks (synth.h). */
#include "nn/synth.h"

#include <string.h>

void hy_nn_synth_samples(hy_rng *r, hy_sample *s, int n)
{
	/* f16 bits of 0, 0.25, 0.5, 1 */
	static const uint16_t vals[4] = {0x0000, 0x3400, 0x3800, 0x3c00};
	for (int i = 0; i < n; i++) {
		hy_sample *x = &s[i];
		memset(x, 0, sizeof *x);
		for (int j = 0; j < HY_OBS_SIZE; j++)
			x->obs[j] = hy_rng_below(r, 5) == 0 ? vals[1 + hy_rng_below(r, 3)] : vals[0];
		int legal = 2 + (int)hy_rng_below(r, 12);
		for (int k = 0; k < legal; k++)
			x->mask |= 1ull << hy_rng_below(r, HY_ACTIONS);
		do
			x->action = (uint8_t)hy_rng_below(r, HY_ACTIONS);
		while (!(x->mask >> x->action & 1));
		x->game = hy_rng_u64(r);
		x->rank = (uint8_t)hy_rng_below(r, 4);
		x->grp = (uint8_t)hy_rng_below(r, HY_GRP_CLASSES);
		x->seat = (uint8_t)hy_rng_below(r, 4);
		if (hy_rng_below(r, 4)) {
			x->flags = HY_SAMPLE_F_OPP_KNOWN;
			x->opp_tenpai = (uint8_t)hy_rng_below(r, 8);
			for (int o = 0; o < 3; o++)
				if (x->opp_tenpai >> o & 1)
					for (int k = 0; k < 3; k++)
						x->opp_waits[o] |= 1ull << hy_rng_below(r, 34);
		}
	}
}
