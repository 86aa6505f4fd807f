/* Yaku detection for one interpretation of a complete hand (Tenhou rules). */
#include "hand/yaku.h"

#include <string.h>

#include "core/tile.h"

static const char *const yaku_names[HY_YAKU_COUNT] = {
	"menzen_tsumo", "riichi", "ippatsu", "chankan", "rinshan_kaihou",
	"haitei_raoyue", "houtei_raoyui", "pinfu", "tanyao", "iipeikou",
	"seat_wind_east", "seat_wind_south", "seat_wind_west", "seat_wind_north",
	"round_wind_east", "round_wind_south", "round_wind_west", "round_wind_north",
	"haku", "hatsu", "chun", "double_riichi", "chiitoitsu", "chanta", "ittsuu",
	"sanshoku_doujun", "sanshoku_doukou", "sankantsu", "toitoi", "sanankou",
	"shousangen", "honroutou", "ryanpeikou", "junchan", "honitsu", "chinitsu",
	"renhou", "tenhou", "chiihou", "daisangen", "suuankou", "suuankou_tanki",
	"tsuuiisou", "ryuuiisou", "chinroutou", "chuuren_poutou",
	"junsei_chuuren_poutou", "kokushi_musou", "kokushi_musou_13", "daisuushii",
	"shousuushii", "suukantsu", "dora", "ura_dora", "aka_dora",
};

const char *hy_yaku_name(int id)
{
	return id >= 0 && id < HY_YAKU_COUNT ? yaku_names[id] : NULL;
}

int hy_yaku_from_name(const char *name)
{
	for (int i = 0; i < HY_YAKU_COUNT; i++)
		if (!strcmp(name, yaku_names[i]))
			return i;
	return -1;
}

static const char *const wait_names[HY_WAIT_COUNT] = {
	"ryanmen", "kanchan", "penchan", "shanpon", "tanki", "kokushi", "kokushi_13",
};

const char *hy_wait_name(int wait)
{
	return wait >= 0 && wait < HY_WAIT_COUNT ? wait_names[wait] : "?";
}

void hy_hand_query_init(hy_hand_query *q)
{
	memset(q, 0, sizeof *q);
	q->win_tile = HY_TILE_NONE;
	q->ron_from = HY_SEAT_NONE;
	q->pao_seat = HY_SEAT_NONE;
}

void hy_hand_info_build(const hy_hand_query *q, hy_hand_info *info)
{
	memset(info, 0, sizeof *info);
	for (int i = 0; i < q->ntiles; i++) {
		int k = hy_tile_kind(q->tiles[i]);
		info->c[k]++;
		info->all[k]++;
	}
	info->menzen = 1;
	for (int i = 0; i < q->nmelds; i++) {
		const hy_meld *m = &q->melds[i];
		for (int j = 0; j < m->ntiles; j++)
			info->all[hy_tile_kind(m->tiles[j])]++;
		if (hy_meld_is_open(m))
			info->menzen = 0;
	}
	for (int k = 0; k < 34; k++)
		if (info->all[k])
			info->present |= 1ull << k;
	info->win = (uint8_t)hy_tile_kind(q->win_tile);
	info->nmelds = q->nmelds;
}

int hy_interp_list(const hy_hand_info *info, const hy_agari_form *forms, int nforms,
		   hy_interp *out, int max)
{
	int n = 0, w = info->win;
	for (int i = 0; i < nforms; i++) {
		const hy_agari_form *f = &forms[i];
		if (f->shape == HY_AGARI_KOKUSHI) {
			if (n < max)
				out[n++] = (hy_interp){f, -1,
					info->c[w] == 2 ? HY_WAIT_KOKUSHI_13 : HY_WAIT_KOKUSHI};
			continue;
		}
		for (int b = 0; b < f->nblocks; b++) {
			const hy_block *bl = &f->blocks[b];
			if (bl->meld)
				continue;
			int wait;
			if (bl->type == HY_BLOCK_PAIR) {
				if (bl->kind != w)
					continue;
				wait = HY_WAIT_TANKI;
			} else if (bl->type == HY_BLOCK_TRIPLET) {
				if (bl->kind != w)
					continue;
				wait = HY_WAIT_SHANPON;
			} else {
				int pos = w - bl->kind;
				if (pos < 0 || pos > 2)
					continue;
				int num = bl->kind % 9;  /* 0 for a 123 run, 6 for 789 */
				if (pos == 1)
					wait = HY_WAIT_KANCHAN;
				else if ((pos == 0 && num == 6) || (pos == 2 && num == 0))
					wait = HY_WAIT_PENCHAN;
				else
					wait = HY_WAIT_RYANMEN;
			}
			/* identical blocks give identical interpretations */
			int dup = 0;
			for (int j = n - 1; j >= 0 && out[j].form == f; j--) {
				const hy_block *o = &f->blocks[out[j].win_block];
				if (o->type == bl->type && o->kind == bl->kind && out[j].wait == wait)
					dup = 1;
			}
			if (!dup && n < max)
				out[n++] = (hy_interp){f, (int8_t)b, (uint8_t)wait};
		}
	}
	return n;
}

/* ---------------------------------------------------------------- helpers */

static inline int is_honor(int k) { return k >= 27; }

typedef struct ylist {
	hy_yaku_han *v;
	int n;
} ylist;

static void add(ylist *l, int id, int han)
{
	if (l->n < HY_YAKU_LIST_MAX)
		l->v[l->n++] = (hy_yaku_han){(uint8_t)id, (uint8_t)han};
}

static void sort_list(ylist *l)
{
	for (int i = 1; i < l->n; i++) {
		hy_yaku_han t = l->v[i];
		int j = i;
		for (; j > 0 && l->v[j - 1].id > t.id; j--)
			l->v[j] = l->v[j - 1];
		l->v[j] = t;
	}
}

/* Suits used by the hand: bit s for suit s (3 = honours). */
static int suit_mask(uint64_t present)
{
	int m = 0;
	for (int s = 0; s < 4; s++)
		m |= ((present >> (9 * s)) & (s < 3 ? 0x1ffull : 0x7full)) ? 1 << s : 0;
	return m;
}

static inline int only_kinds(uint64_t present, uint64_t allowed)
{
	return !(present & ~allowed);
}

static const uint64_t HONOURS = 0x7full << 27;
static const uint64_t TERMINALS = 1ull << 0 | 1ull << 8 | 1ull << 9 | 1ull << 17 |
				  1ull << 18 | 1ull << 26;
static const uint64_t GREENS = 1ull << 19 | 1ull << 20 | 1ull << 21 | 1ull << 23 |
			       1ull << 25 | 1ull << 32;

/* Yakuman that depend only on the tiles (any shape). */
static void yakuman_tiles(const hy_hand_info *h, ylist *l)
{
	if (only_kinds(h->present, HONOURS))
		add(l, HY_YAKU_TSUUIISOU, 13);
	if (only_kinds(h->present, GREENS))
		add(l, HY_YAKU_RYUUIISOU, 13);
	if (only_kinds(h->present, TERMINALS))
		add(l, HY_YAKU_CHINROUTOU, 13);
}

static void flags_yaku(const hy_hand_query *q, const hy_hand_info *h, ylist *l)
{
	uint32_t f = q->flags;
	if (f & HY_WIN_DOUBLE_RIICHI)
		add(l, HY_YAKU_DOUBLE_RIICHI, 2);
	else if (f & HY_WIN_RIICHI)
		add(l, HY_YAKU_RIICHI, 1);
	if (f & HY_WIN_IPPATSU)
		add(l, HY_YAKU_IPPATSU, 1);
	if (h->menzen && q->tsumo)
		add(l, HY_YAKU_MENZEN_TSUMO, 1);
	if (f & HY_WIN_CHANKAN)
		add(l, HY_YAKU_CHANKAN, 1);
	if (f & HY_WIN_RINSHAN)
		add(l, HY_YAKU_RINSHAN, 1);
	if ((f & HY_WIN_HAITEI) && q->tsumo)
		add(l, HY_YAKU_HAITEI, 1);
	if ((f & HY_WIN_HOUTEI) && !q->tsumo)
		add(l, HY_YAKU_HOUTEI, 1);
}

/* Tanyao, honitsu/chinitsu, honroutou: tile-only ordinary yaku. */
static void tile_yaku(const hy_hand_info *h, ylist *l)
{
	if (only_kinds(h->present, ~(HONOURS | TERMINALS) & ((1ull << 34) - 1)))
		add(l, HY_YAKU_TANYAO, 1);
	int sm = suit_mask(h->present), suits = (sm & 1) + (sm >> 1 & 1) + (sm >> 2 & 1);
	if (suits == 1)
		add(l, (sm & 8) ? HY_YAKU_HONITSU : HY_YAKU_CHINITSU,
		    (sm & 8) ? 2 + h->menzen : 5 + h->menzen);
	if (only_kinds(h->present, HONOURS | TERMINALS))
		add(l, HY_YAKU_HONROUTOU, 2);
}

static int yakuhai_id(const hy_hand_query *q, int k, int *second)
{
	*second = -1;
	if (k >= 31)
		return HY_YAKU_HAKU + (k - 31);
	if (k < 27)
		return -1;
	int w = k - 27, id = -1;
	if (w == q->seat_wind)
		id = HY_YAKU_SEAT_WIND + w;
	if (w == q->round_wind) {
		if (id < 0)
			id = HY_YAKU_ROUND_WIND + w;
		else
			*second = HY_YAKU_ROUND_WIND + w;
	}
	return id;
}

/* Chuuren poutou on the concealed counts (no melds, one suit). */
static int chuuren(const hy_hand_info *h, int *junsei)
{
	if (h->nmelds)
		return 0;
	static const uint8_t base[9] = {3, 1, 1, 1, 1, 1, 1, 1, 3};
	int s = -1;
	for (int k = 0; k < 34; k++)
		if (h->c[k]) {
			if (k >= 27 || (s >= 0 && k / 9 != s))
				return 0;
			s = k / 9;
		}
	if (s < 0)
		return 0;
	for (int i = 0; i < 9; i++)
		if (h->c[9 * s + i] < base[i])
			return 0;
	*junsei = h->c[h->win] == base[h->win % 9] + 1;
	return 1;
}

/* ---------------------------------------------------------------- detect */

static int detect_kokushi(const hy_hand_query *q, const hy_interp *ip, ylist *l)
{
	add(l, ip->wait == HY_WAIT_KOKUSHI_13 ? HY_YAKU_KOKUSHI_13 : HY_YAKU_KOKUSHI, 13);
	(void)q;
	return 1;
}

static int detect_chiitoi(const hy_hand_query *q, const hy_hand_info *h, ylist *l)
{
	yakuman_tiles(h, l);  /* only tsuuiisou is possible */
	if (l->n)
		return l->n;
	flags_yaku(q, h, l);
	add(l, HY_YAKU_CHIITOITSU, 2);
	tile_yaku(h, l);
	return 0;
}

static int detect_standard(const hy_hand_query *q, const hy_hand_info *h, const hy_interp *ip,
			   ylist *l)
{
	const hy_agari_form *f = ip->form;
	const hy_block *pair = &f->blocks[4];
	int nseq = 0, ntrip = 0, nquad = 0, nanko = 0;
	int dragons = 0, winds = 0, chanta_ok = 1, honors = is_honor(pair->kind);
	int seq_at[27] = {0}, trip_at[34] = {0};
	for (int b = 0; b < 4; b++) {
		const hy_block *bl = &f->blocks[b];
		int k = bl->kind;
		if (bl->type == HY_BLOCK_SEQ) {
			nseq++;
			seq_at[k]++;
			if (k % 9 != 0 && k % 9 != 6)
				chanta_ok = 0;
			continue;
		}
		ntrip++;
		nquad += bl->type == HY_BLOCK_QUAD;
		trip_at[k] = 1;
		if (!bl->open && !(b == ip->win_block && !q->tsumo))
			nanko++;
		dragons += k >= 31;
		winds += k >= 27 && k < 31;
		honors |= is_honor(k);
		if (!hy_tile_is_yaochu(k))
			chanta_ok = 0;
	}
	if (!hy_tile_is_yaochu(pair->kind))
		chanta_ok = 0;

	/* yakuman */
	yakuman_tiles(h, l);
	if (dragons == 3)
		add(l, HY_YAKU_DAISANGEN, 13);
	if (nanko == 4)
		add(l, ip->wait == HY_WAIT_TANKI ? HY_YAKU_SUUANKOU_TANKI : HY_YAKU_SUUANKOU, 13);
	int junsei = 0;
	if (chuuren(h, &junsei))
		add(l, junsei ? HY_YAKU_JUNSEI_CHUUREN : HY_YAKU_CHUUREN, 13);
	if (winds == 4)
		add(l, HY_YAKU_DAISUUSHII, 13);
	else if (winds == 3 && pair->kind >= 27 && pair->kind < 31)
		add(l, HY_YAKU_SHOUSUUSHII, 13);
	if (nquad == 4)
		add(l, HY_YAKU_SUUKANTSU, 13);
	if (l->n)
		return l->n;

	/* ordinary yaku */
	flags_yaku(q, h, l);
	int menzen = h->menzen;
	int pair_yakuhai = pair->kind >= 31 || pair->kind == 27 + q->seat_wind ||
			   pair->kind == 27 + q->round_wind;
	if (menzen && nseq == 4 && !pair_yakuhai && ip->wait == HY_WAIT_RYANMEN)
		add(l, HY_YAKU_PINFU, 1);
	tile_yaku(h, l);
	if (menzen) {
		int peiko = 0;
		for (int k = 0; k < 27; k++)
			peiko += seq_at[k] / 2;
		if (peiko == 2)
			add(l, HY_YAKU_RYANPEIKOU, 3);
		else if (peiko == 1)
			add(l, HY_YAKU_IIPEIKOU, 1);
	}
	for (int b = 0; b < 4; b++) {
		const hy_block *bl = &f->blocks[b];
		if (bl->type == HY_BLOCK_SEQ)
			continue;
		int second, id = yakuhai_id(q, bl->kind, &second);
		if (id >= 0)
			add(l, id, 1);
		if (second >= 0)
			add(l, second, 1);
	}
	if (chanta_ok && nseq > 0)
		add(l, honors ? HY_YAKU_CHANTA : HY_YAKU_JUNCHAN,
		    honors ? 1 + menzen : 2 + menzen);
	for (int s = 0; s < 3; s++)
		if (seq_at[9 * s] && seq_at[9 * s + 3] && seq_at[9 * s + 6])
			add(l, HY_YAKU_ITTSUU, 1 + menzen);
	for (int n = 0; n < 7; n++)
		if (seq_at[n] && seq_at[9 + n] && seq_at[18 + n])
			add(l, HY_YAKU_SANSHOKU, 1 + menzen);
	for (int n = 0; n < 9; n++)
		if (trip_at[n] && trip_at[9 + n] && trip_at[18 + n])
			add(l, HY_YAKU_SANSHOKU_DOUKOU, 2);
	if (nquad == 3)
		add(l, HY_YAKU_SANKANTSU, 2);
	if (ntrip == 4)
		add(l, HY_YAKU_TOITOI, 2);
	if (nanko == 3)
		add(l, HY_YAKU_SANANKOU, 2);
	if (dragons == 2 && pair->kind >= 31)
		add(l, HY_YAKU_SHOUSANGEN, 2);
	return 0;
}

int hy_yaku_detect(const hy_hand_query *q, const hy_hand_info *info, const hy_interp *ip,
		   hy_yaku_han *out, int *n)
{
	ylist l = {out, 0};
	int yakuman;
	switch (ip->form->shape) {
	case HY_AGARI_KOKUSHI: yakuman = detect_kokushi(q, ip, &l); break;
	case HY_AGARI_CHIITOI: yakuman = detect_chiitoi(q, info, &l); break;
	default: yakuman = detect_standard(q, info, ip, &l); break;
	}
	if (q->flags & (HY_WIN_TENHOU | HY_WIN_CHIIHOU)) {
		if (!yakuman)
			l.n = 0;
		add(&l, (q->flags & HY_WIN_TENHOU) ? HY_YAKU_TENHOU : HY_YAKU_CHIIHOU, 13);
		yakuman++;
	}
	sort_list(&l);
	*n = l.n;
	return yakuman;
}
