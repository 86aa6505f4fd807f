/* Fu, han, points and payments of a winning hand (Tenhou rules). */
#include "hand/score.h"

#include <string.h>

#include "core/tile.h"

static const char *const limit_names[HY_LIMIT_COUNT] = {
	"", "mangan", "haneman", "baiman", "sanbaiman", "kazoe_yakuman", "yakuman",
};

const char *hy_limit_name(int limit)
{
	return limit >= 0 && limit < HY_LIMIT_COUNT ? limit_names[limit] : "?";
}

int hy_dora_from_indicator(int tile)
{
	int k = hy_tile_kind(tile);
	if (k < 0)
		return -1;
	if (k < 27)
		return k % 9 == 8 ? k - 8 : k + 1;
	if (k < 31)
		return k == 30 ? 27 : k + 1;
	return k == 33 ? 31 : k + 1;
}

int32_t hy_score_base(int han, int fu, int yakuman, int *limit)
{
	int lim;
	int32_t base;
	if (yakuman > 0) {
		lim = HY_LIMIT_YAKUMAN;
		base = 8000 * yakuman;
	} else if (han >= 13) {
		lim = HY_LIMIT_KAZOE, base = 8000;
	} else if (han >= 11) {
		lim = HY_LIMIT_SANBAIMAN, base = 6000;
	} else if (han >= 8) {
		lim = HY_LIMIT_BAIMAN, base = 4000;
	} else if (han >= 6) {
		lim = HY_LIMIT_HANEMAN, base = 3000;
	} else if (han >= 5) {
		lim = HY_LIMIT_MANGAN, base = 2000;
	} else {
		base = (int32_t)fu << (han + 2);
		lim = base >= 2000 ? HY_LIMIT_MANGAN : HY_LIMIT_NONE;
		if (base > 2000)
			base = 2000;
	}
	if (limit)
		*limit = lim;
	return base;
}

static inline int32_t ceil100(int32_t x) { return (x + 99) / 100 * 100; }

int32_t hy_score_value(int32_t base, int dealer, int tsumo, int32_t *ron,
		       int32_t *from_dealer, int32_t *from_other)
{
	int32_t r = 0, fd = 0, fo = 0, total;
	if (tsumo) {
		if (dealer) {
			fo = ceil100(2 * base);
			total = 3 * fo;
		} else {
			fd = ceil100(2 * base);
			fo = ceil100(base);
			total = fd + 2 * fo;
		}
	} else {
		r = ceil100(base * (dealer ? 6 : 4));
		total = r;
	}
	if (ron)
		*ron = r;
	if (from_dealer)
		*from_dealer = fd;
	if (from_other)
		*from_other = fo;
	return total;
}

/* ---------------------------------------------------------------- checks */

static hy_status check_query(const hy_hand_query *q, hy_diag *d)
{
	if (q->nmelds > 4)
		return hy_diag_set(d, HY_EDATA, 0, "%d melds (at most 4)", q->nmelds);
	if (q->ntiles != 14 - 3 * q->nmelds)
		return hy_diag_set(d, HY_EDATA, 0,
				   "%d concealed tiles with %d melds: a winning hand needs %d",
				   q->ntiles, q->nmelds, 14 - 3 * q->nmelds);
	int kinds[34] = {0}, red[3] = {0, 0, 0}, win_seen = 0, kans = 0;
	for (int i = 0; i < q->ntiles; i++) {
		int t = q->tiles[i], k = hy_tile_kind(t);
		if (k < 0)
			return hy_diag_set(d, HY_EDATA, 0, "bad tile code %d in the hand", t);
		kinds[k]++;
		if (hy_tile_is_red(t))
			red[t - HY_TILE_5MR]++;
		win_seen |= t == q->win_tile;
	}
	for (int i = 0; i < q->nmelds; i++) {
		const hy_meld *m = &q->melds[i];
		hy_status s = hy_meld_check(m, d);
		if (s != HY_OK)
			return s;
		for (int j = 0; j < m->ntiles && j < 4; j++) {
			int k = hy_tile_kind(m->tiles[j]);
			if (k < 0)  /* hy_meld_check rejects these */
				return hy_diag_set(d, HY_EDATA, 0, "bad meld tile");
			kinds[k]++;
			if (hy_tile_is_red(m->tiles[j]))
				red[m->tiles[j] - HY_TILE_5MR]++;
		}
		kans += m->ntiles == 4;
	}
	char name[8];
	for (int k = 0; k < 34; k++)
		if (kinds[k] > 4) {
			uint8_t t = (uint8_t)k;
			hy_mpsz_format(&t, 1, name, sizeof name);
			return hy_diag_set(d, HY_EDATA, 0, "%d tiles of %s (at most 4)", kinds[k], name);
		}
	for (int s = 0; s < 3; s++)
		if (red[s] > 1)
			return hy_diag_set(d, HY_EDATA, 0, "%d red fives of one suit (at most 1)", red[s]);
	if (hy_tile_kind(q->win_tile) < 0)
		return hy_diag_set(d, HY_EDATA, 0, "no winning tile");
	if (!win_seen)
		return hy_diag_set(d, HY_EDATA, 0, "the winning tile is not in the concealed hand");
	if (q->round_wind > 3 || q->seat_wind > 3)
		return hy_diag_set(d, HY_EDATA, 0, "bad round or seat wind");
	if (!q->tsumo && q->ron_from != HY_SEAT_NONE &&
	    (q->ron_from > 3 || q->ron_from == q->seat_wind))
		return hy_diag_set(d, HY_EDATA, 0, "bad discarder seat %d for seat %d",
				   q->ron_from, q->seat_wind);
	if (q->pao_seat != HY_SEAT_NONE && (q->pao_seat > 3 || q->pao_seat == q->seat_wind))
		return hy_diag_set(d, HY_EDATA, 0, "bad pao seat %d for seat %d",
				   q->pao_seat, q->seat_wind);
	if (q->ndora > 5 || q->nura > 5)
		return hy_diag_set(d, HY_EDATA, 0, "at most 5 dora and 5 ura indicators");
	for (int i = 0; i < q->ndora; i++)
		if (hy_tile_kind(q->dora[i]) < 0)
			return hy_diag_set(d, HY_EDATA, 0, "bad dora indicator code %d", q->dora[i]);
	for (int i = 0; i < q->nura; i++)
		if (hy_tile_kind(q->ura[i]) < 0)
			return hy_diag_set(d, HY_EDATA, 0, "bad ura indicator code %d", q->ura[i]);

	uint32_t f = q->flags;
	int menzen = 1;
	for (int i = 0; i < q->nmelds; i++)
		menzen &= !hy_meld_is_open(&q->melds[i]);
	int riichi = (f & (HY_WIN_RIICHI | HY_WIN_DOUBLE_RIICHI)) != 0;
	if (f & ~(uint32_t)0x1ff)
		return hy_diag_set(d, HY_EDATA, 0, "unknown condition flags 0x%x", (unsigned)f);
	if (riichi && !menzen)
		return hy_diag_set(d, HY_EDATA, 0, "riichi with an open hand");
	if ((f & HY_WIN_IPPATSU) && !riichi)
		return hy_diag_set(d, HY_EDATA, 0, "ippatsu without riichi");
	if ((f & (HY_WIN_HAITEI | HY_WIN_RINSHAN)) && !q->tsumo)
		return hy_diag_set(d, HY_EDATA, 0, "haitei and rinshan need a tsumo");
	if ((f & (HY_WIN_HOUTEI | HY_WIN_CHANKAN)) && q->tsumo)
		return hy_diag_set(d, HY_EDATA, 0, "houtei and chankan need a ron");
	if ((f & HY_WIN_RINSHAN) && !kans)
		return hy_diag_set(d, HY_EDATA, 0, "rinshan without a kan");
	if ((f & HY_WIN_RINSHAN) && (f & HY_WIN_HAITEI))
		return hy_diag_set(d, HY_EDATA, 0, "rinshan and haitei together");
	if (f & (HY_WIN_TENHOU | HY_WIN_CHIIHOU)) {
		if ((f & HY_WIN_TENHOU) && (f & HY_WIN_CHIIHOU))
			return hy_diag_set(d, HY_EDATA, 0, "tenhou and chiihou together");
		if (!q->tsumo || q->nmelds || riichi)
			return hy_diag_set(d, HY_EDATA, 0,
					   "tenhou/chiihou need a tsumo with no melds and no riichi");
		if (((f & HY_WIN_TENHOU) != 0) != (q->seat_wind == 0))
			return hy_diag_set(d, HY_EDATA, 0, "tenhou is the dealer's, chiihou the others'");
	}
	return HY_OK;
}

/* ---------------------------------------------------------------- fu */

static int fu_of(const hy_hand_query *q, const hy_hand_info *h, const hy_interp *ip, int pinfu)
{
	const hy_agari_form *f = ip->form;
	if (f->shape == HY_AGARI_CHIITOI)
		return 25;
	if (f->shape == HY_AGARI_KOKUSHI)
		return 0;
	if (pinfu)
		return q->tsumo ? 20 : 30;
	int fu = 20;
	if (h->menzen && !q->tsumo)
		fu += 10;
	if (q->tsumo)
		fu += 2;
	for (int b = 0; b < 4; b++) {
		const hy_block *bl = &f->blocks[b];
		if (bl->type == HY_BLOCK_SEQ)
			continue;
		int k = bl->kind, v = 2;
		if (k >= 27 || k % 9 == 0 || k % 9 == 8)
			v *= 2;
		if (!bl->open && !(b == ip->win_block && !q->tsumo))
			v *= 2;
		if (bl->type == HY_BLOCK_QUAD)
			v *= 4;
		fu += v;
	}
	int pk = f->blocks[4].kind;
	if (pk >= 31)
		fu += 2;
	if (pk == 27 + q->seat_wind)
		fu += 2;
	if (pk == 27 + q->round_wind)
		fu += 2;
	if (ip->wait == HY_WAIT_KANCHAN || ip->wait == HY_WAIT_PENCHAN || ip->wait == HY_WAIT_TANKI)
		fu += 2;
	fu = (fu + 9) / 10 * 10;
	if (fu == 20)
		fu = 30;  /* open pinfu shape */
	return fu;
}

/* ---------------------------------------------------------------- scoring */

static void count_dora(const hy_hand_query *q, const hy_hand_info *h, int *dora, int *ura, int *aka)
{
	*dora = *ura = *aka = 0;
	for (int i = 0; i < q->ndora; i++)
		*dora += h->all[hy_dora_from_indicator(q->dora[i])];
	if (q->flags & (HY_WIN_RIICHI | HY_WIN_DOUBLE_RIICHI))
		for (int i = 0; i < q->nura; i++)
			*ura += h->all[hy_dora_from_indicator(q->ura[i])];
	for (int i = 0; i < q->ntiles; i++)
		*aka += hy_tile_is_red(q->tiles[i]);
	for (int i = 0; i < q->nmelds; i++)
		for (int j = 0; j < q->melds[i].ntiles; j++)
			*aka += hy_tile_is_red(q->melds[i].tiles[j]);
}

static int has_yaku(const hy_yaku_han *v, int n, int id)
{
	for (int i = 0; i < n; i++)
		if (v[i].id == id)
			return 1;
	return 0;
}

static void payments(const hy_hand_query *q, hy_hand_result *r)
{
	int seat = q->seat_wind, dealer = seat == 0;
	int mult = dealer ? 6 : 4;
	int32_t base = r->base, *dl = r->deltas;
	memset(r->deltas, 0, sizeof r->deltas);
	int payer = q->tsumo ? -1 : (q->ron_from == HY_SEAT_NONE ? (seat + 3) % 4 : q->ron_from);
	int pao = q->pao_seat;
	if (pao != HY_SEAT_NONE && r->yakuman &&
	    (has_yaku(r->yaku, r->nyaku, HY_YAKU_DAISANGEN) ||
	     has_yaku(r->yaku, r->nyaku, HY_YAKU_DAISUUSHII))) {
		/* Tenhou: on tsumo the liable player pays everything (every
		 * yakuman of the hand, and the honba: 2019103023gm-00a9-0000-
		 * f90e0fe9, daisangen + tsuuiisou, paoWho pays 64,900); on ron
		 * the liable player and the discarder split the value, the
		 * discarder paying the honba. */
		int32_t total = ceil100(base * mult);
		if (q->tsumo) {
			payer = pao;
			base = 0;
			dl[seat] += total;
			dl[pao] -= total;
		} else {
			int32_t half = total / 2;
			base = 0;
			dl[seat] += half;
			dl[pao] -= half;
			dl[seat] += total - half;
			dl[payer] -= total - half;
		}
	}
	int32_t ron, fd, fo;
	int32_t value = hy_score_value(r->base, dealer, q->tsumo, &ron, &fd, &fo);
	r->points = value;
	r->ron = ron;
	r->tsumo_dealer = fd;
	r->tsumo_other = fo;
	if (payer >= 0) {
		int32_t pay = base ? ceil100(base * mult) : 0;
		dl[seat] += pay + 300 * q->honba;
		dl[payer] -= pay + 300 * q->honba;
	} else {
		hy_score_value(base, dealer, 1, NULL, &fd, &fo);
		for (int s = 0; s < 4; s++) {
			if (s == seat)
				continue;
			int32_t pay = (s == 0 ? fd : fo) + 100 * q->honba;
			dl[s] -= pay;
			dl[seat] += pay;
		}
	}
	dl[seat] += 1000 * q->sticks;
}

hy_status hy_score_hand(const hy_hand_query *q, hy_hand_result *r, hy_diag *d)
{
	memset(r, 0, sizeof *r);
	r->outcome = HY_HAND_INCOMPLETE;
	hy_status s = check_query(q, d);
	if (s != HY_OK)
		return s;
	hy_hand_info h;
	hy_hand_info_build(q, &h);
	hy_agari_form forms[HY_AGARI_MAX];
	int nf = hy_agari_decompose(h.c, q->melds, q->nmelds, forms, HY_AGARI_MAX);
	if (nf <= 0)
		return HY_OK;
	if (nf > HY_AGARI_MAX)
		nf = HY_AGARI_MAX;
	hy_interp ips[4 * HY_AGARI_MAX];
	int ni = hy_interp_list(&h, forms, nf, ips, 4 * HY_AGARI_MAX);
	r->outcome = HY_HAND_NO_YAKU;

	int dora, ura, aka;
	count_dora(q, &h, &dora, &ura, &aka);
	int best = -1;
	int32_t best_points = -1;
	int best_han = -1, best_fu = -1;
	for (int i = 0; i < ni; i++) {
		hy_yaku_han v[HY_YAKU_LIST_MAX];
		int n, yakuman = hy_yaku_detect(q, &h, &ips[i], v, &n);
		if (n == 0)
			continue;
		int han = 0, fu = 0, limit;
		for (int j = 0; j < n; j++)
			han += v[j].han;
		if (!yakuman) {
			han += dora + ura + aka;
			fu = fu_of(q, &h, &ips[i], has_yaku(v, n, HY_YAKU_PINFU));
		}
		int32_t base = hy_score_base(han, fu, yakuman, &limit);
		int32_t points = hy_score_value(base, q->seat_wind == 0, q->tsumo, NULL, NULL, NULL);
		if (points > best_points || (points == best_points &&
		    (han > best_han || (han == best_han && fu > best_fu)))) {
			best = i;
			best_points = points, best_han = han, best_fu = fu;
			r->outcome = HY_HAND_WIN;
			r->nyaku = (uint8_t)n;
			memcpy(r->yaku, v, (size_t)n * sizeof v[0]);
			r->han = (uint8_t)(han > 255 ? 255 : han);
			r->fu = (uint8_t)fu;
			r->yakuman = (uint8_t)yakuman;
			r->limit = (uint8_t)limit;
			r->base = base;
		}
	}
	if (best < 0)
		return HY_OK;
	const hy_interp *ip = &ips[best];
	r->shape = ip->form->shape;
	r->wait = ip->wait;
	r->form = *ip->form;
	r->win_block = ip->win_block;
	if (!r->yakuman) {
		r->dora = (uint8_t)dora, r->ura = (uint8_t)ura, r->aka = (uint8_t)aka;
		static const int ids[3] = {HY_YAKU_DORA, HY_YAKU_URA_DORA, HY_YAKU_AKA_DORA};
		int cnt[3] = {dora, ura, aka};
		for (int j = 0; j < 3; j++)
			if (cnt[j] && r->nyaku < HY_YAKU_LIST_MAX)
				r->yaku[r->nyaku++] = (hy_yaku_han){(uint8_t)ids[j], (uint8_t)cnt[j]};
	}
	payments(q, r);
	return HY_OK;
}
