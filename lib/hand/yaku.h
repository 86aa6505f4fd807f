/* Yaku of one interpretation of a complete hand, under the Tenhou rule set
 * (ARCHITECTURE.md §3): kuitan and atozuke allowed, kazoe yakuman at 13 han,
 * different yakuman add up, no double yakuman (kokushi 13-wait, suuankou
 * tanki, junsei chuuren and daisuushii count as one yakuman each).
 *
 * Yaku ids are Tenhou's (mjlog AGARI `yaku`/`yakuman` attributes); names are
 * romaji in snake_case. The winning hand and its conditions come in an
 * hy_hand_query; hy_score_hand (score.h) is the usual entry point. */
#ifndef HY_HAND_YAKU_H
#define HY_HAND_YAKU_H

#include <stdint.h>

#include "hand/agari.h"

enum hy_yaku_id {
	HY_YAKU_MENZEN_TSUMO = 0,
	HY_YAKU_RIICHI = 1,
	HY_YAKU_IPPATSU = 2,
	HY_YAKU_CHANKAN = 3,
	HY_YAKU_RINSHAN = 4,
	HY_YAKU_HAITEI = 5,
	HY_YAKU_HOUTEI = 6,
	HY_YAKU_PINFU = 7,
	HY_YAKU_TANYAO = 8,
	HY_YAKU_IIPEIKOU = 9,
	HY_YAKU_SEAT_WIND = 10,   /* 10–13: seat wind E, S, W, N */
	HY_YAKU_ROUND_WIND = 14,  /* 14–17: round wind E, S, W, N */
	HY_YAKU_HAKU = 18,
	HY_YAKU_HATSU = 19,
	HY_YAKU_CHUN = 20,
	HY_YAKU_DOUBLE_RIICHI = 21,
	HY_YAKU_CHIITOITSU = 22,
	HY_YAKU_CHANTA = 23,
	HY_YAKU_ITTSUU = 24,
	HY_YAKU_SANSHOKU = 25,
	HY_YAKU_SANSHOKU_DOUKOU = 26,
	HY_YAKU_SANKANTSU = 27,
	HY_YAKU_TOITOI = 28,
	HY_YAKU_SANANKOU = 29,
	HY_YAKU_SHOUSANGEN = 30,
	HY_YAKU_HONROUTOU = 31,
	HY_YAKU_RYANPEIKOU = 32,
	HY_YAKU_JUNCHAN = 33,
	HY_YAKU_HONITSU = 34,
	HY_YAKU_CHINITSU = 35,
	HY_YAKU_RENHOU = 36,      /* not in the Tenhou rule set; never awarded */
	HY_YAKU_TENHOU = 37,
	HY_YAKU_CHIIHOU = 38,
	HY_YAKU_DAISANGEN = 39,
	HY_YAKU_SUUANKOU = 40,
	HY_YAKU_SUUANKOU_TANKI = 41,
	HY_YAKU_TSUUIISOU = 42,
	HY_YAKU_RYUUIISOU = 43,
	HY_YAKU_CHINROUTOU = 44,
	HY_YAKU_CHUUREN = 45,
	HY_YAKU_JUNSEI_CHUUREN = 46,
	HY_YAKU_KOKUSHI = 47,
	HY_YAKU_KOKUSHI_13 = 48,
	HY_YAKU_DAISUUSHII = 49,
	HY_YAKU_SHOUSUUSHII = 50,
	HY_YAKU_SUUKANTSU = 51,
	HY_YAKU_DORA = 52,
	HY_YAKU_URA_DORA = 53,
	HY_YAKU_AKA_DORA = 54,
	HY_YAKU_COUNT = 55
};

/* romaji name of a yaku id ("riichi", "seat_wind_east", "kokushi_musou_13"),
 * or NULL for an id out of range. */
const char *hy_yaku_name(int id);
/* Id of a romaji name, or −1. */
int hy_yaku_from_name(const char *name);
/* 1 for ids 37–51 (yakuman). */
static inline int hy_yaku_is_yakuman(int id) { return id >= HY_YAKU_TENHOU && id <= HY_YAKU_SUUKANTSU; }

/* Conditions of a win (hy_hand_query.flags). */
enum {
	HY_WIN_RIICHI = 1 << 0,
	HY_WIN_DOUBLE_RIICHI = 1 << 1,  /* implies riichi */
	HY_WIN_IPPATSU = 1 << 2,
	HY_WIN_HAITEI = 1 << 3,         /* tsumo on the last wall tile */
	HY_WIN_HOUTEI = 1 << 4,         /* ron on the last discard */
	HY_WIN_RINSHAN = 1 << 5,        /* tsumo on a kan replacement tile */
	HY_WIN_CHANKAN = 1 << 6,        /* ron on an added kan */
	HY_WIN_TENHOU = 1 << 7,         /* dealer's first draw */
	HY_WIN_CHIIHOU = 1 << 8,        /* non-dealer's first draw, no calls */
};

enum { HY_SEAT_NONE = 255 };

/* A winning hand and its conditions. Seats are seat winds: 0 = East (the
 * dealer), 1 = South, 2 = West, 3 = North. */
typedef struct hy_hand_query {
	uint8_t tiles[14];   /* concealed tiles incl. the winning tile (codes, reds allowed) */
	uint8_t ntiles;      /* 14 − 3·nmelds */
	uint8_t nmelds;
	hy_meld melds[4];
	uint8_t win_tile;    /* tile code of the winning tile; one of tiles[] */
	uint8_t tsumo;       /* 1 tsumo, 0 ron */
	uint8_t ron_from;    /* ron: seat of the discarder (HY_SEAT_NONE: kamicha) */
	uint8_t round_wind;  /* 0–3 = E S W N */
	uint8_t seat_wind;   /* 0–3; 0 is the dealer */
	uint8_t pao_seat;    /* seat liable for daisangen/daisuushii, or HY_SEAT_NONE */
	uint8_t ndora, nura;
	uint8_t dora[5];     /* dora indicators (tile codes) */
	uint8_t ura[5];      /* ura dora indicators; counted only with riichi */
	uint32_t flags;      /* HY_WIN_* */
	uint16_t honba;      /* 300 per honba (100 from each on tsumo) */
	uint16_t sticks;     /* riichi sticks on the table, 1000 each to the winner */
} hy_hand_query;

/* Fills q with an empty ron query (East round, East seat, no pao). */
void hy_hand_query_init(hy_hand_query *q);

typedef struct hy_yaku_han {
	uint8_t id;   /* hy_yaku_id */
	uint8_t han;  /* 13 for a yakuman */
} hy_yaku_han;

enum { HY_YAKU_LIST_MAX = 24 };

typedef enum hy_wait {
	HY_WAIT_RYANMEN,
	HY_WAIT_KANCHAN,
	HY_WAIT_PENCHAN,
	HY_WAIT_SHANPON,
	HY_WAIT_TANKI,
	HY_WAIT_KOKUSHI,     /* single kokushi wait */
	HY_WAIT_KOKUSHI_13,  /* 13-sided kokushi wait */
	HY_WAIT_COUNT
} hy_wait;

const char *hy_wait_name(int wait);

/* Facts about the whole hand that do not depend on the interpretation. */
typedef struct hy_hand_info {
	uint8_t c[34];     /* concealed counts incl. the winning tile */
	uint8_t all[34];   /* concealed plus meld tiles */
	uint64_t present;  /* bit k: kind k in the hand or its melds */
	uint8_t win;       /* winning kind */
	uint8_t menzen;    /* no open meld (ankan allowed) */
	uint8_t nmelds;
} hy_hand_info;

/* Builds info from a query; the query must be valid (hy_score_hand checks). */
void hy_hand_info_build(const hy_hand_query *q, hy_hand_info *info);

/* The wait of an interpretation: the concealed block of form f that the
 * winning tile completes (win_block; −1 for kokushi). */
typedef struct hy_interp {
	const hy_agari_form *form;
	int8_t win_block;
	uint8_t wait;       /* hy_wait */
} hy_interp;

/* Every (form, winning block) interpretation of forms[0..nforms): writes up
 * to max into out, returns the number written. */
int hy_interp_list(const hy_hand_info *info, const hy_agari_form *forms, int nforms,
		   hy_interp *out, int max);

/* Yaku of one interpretation (no dora), ascending id. Returns the number of
 * yakuman (0 for an ordinary hand; then out holds the ordinary yaku, maybe
 * none). n is written to *n. */
int hy_yaku_detect(const hy_hand_query *q, const hy_hand_info *info, const hy_interp *ip,
		   hy_yaku_han *out, int *n);

#endif
