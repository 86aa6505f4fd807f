/* The four-player Tenhou game engine (ARCHITECTURE.md §2, §3): one table's state from
 * the deal to the end of the game, the legal actions of every seat in every
 * state, and the transitions.
 *
 * The engine does not own a wall. Whatever is drawn or revealed comes from
 * outside: self-play feeds tiles from a wall (engine/table.h), replay feeds
 * them from a log (engine/replay.h). The state machine:
 *
 *   hy_engine_start_kyoku → HY_PH_DRAW
 *   HY_PH_DRAW            hy_engine_draw(tile)        → HY_PH_TURN
 *   HY_PH_TURN            actor: discard, riichi, tsumo, ankan/kakan, kyuushu
 *   HY_PH_RIICHI          actor: the declaration discard (tenpai-keeping)
 *   HY_PH_CALL            after a discard: every seat with an option answers
 *                         (ron, pon, daiminkan, chi, pass); resolved by
 *                         priority ron > pon/daiminkan > chi once all answered
 *   HY_PH_CHANKAN         after a kakan (or an ankan, kokushi only): ron/pass
 *   HY_PH_KYOKU_END       the kyoku's result is in e->res;
 *                         hy_engine_next_kyoku → HY_PH_NEW_KYOKU or HY_PH_GAME_END
 *   HY_PH_NEW_KYOKU       waiting for hy_engine_start_kyoku
 *   HY_PH_GAME_END        final scores in e->scores, ranks in e->rank
 *
 * Seats are absolute 0–3; seat 0 is the East-1 dealer. Tiles are tile codes
 * (core/tile.h), red fives distinct. The engine never allocates. When
 * e->log is set, every transition appends its mjai event(s) to that game
 * (self-play logs); the replayer leaves it NULL. */
#ifndef HY_ENGINE_ENGINE_H
#define HY_ENGINE_ENGINE_H

#include <stdint.h>

#include "core/status.h"
#include "core/tile.h"
#include "events/event.h"
#include "hand/agari.h"

/* Action indices (ARCHITECTURE.md §2). */
enum {
	HY_A_DISCARD0 = 0,  /* 0–33 plain, 34–36 red fives */
	HY_A_RIICHI = 37,
	HY_A_CHI_LOW = 38,  /* called tile lowest of the run */
	HY_A_CHI_MID = 39,
	HY_A_CHI_HIGH = 40,
	HY_A_PON = 41,
	HY_A_KAN = 42,
	HY_A_WIN = 43,
	HY_A_KYUUSHU = 44,
	HY_A_PASS = 45,
	HY_A_COUNT = 46,
};

typedef enum hy_act_type {
	HY_ACT_NONE = 0,
	HY_ACT_DISCARD,
	HY_ACT_RIICHI,
	HY_ACT_CHI,
	HY_ACT_PON,
	HY_ACT_DAIMINKAN,
	HY_ACT_ANKAN,
	HY_ACT_KAKAN,
	HY_ACT_TSUMO,
	HY_ACT_RON,
	HY_ACT_KYUUSHU,
	HY_ACT_PASS,
} hy_act_type;

/* A concrete action. tile: the discarded tile (discard), the called tile
 * (chi, pon, daiminkan, ron), the added tile (kakan), one tile of the kind
 * (ankan). consumed: tiles taken from the hand (chi/pon 2, daiminkan 3,
 * kakan 3 = the pon's tiles, ankan 4). */
typedef struct hy_action {
	uint8_t type;  /* hy_act_type */
	uint8_t tile;
	uint8_t nconsumed;
	uint8_t consumed[4];
} hy_action;

typedef enum hy_phase {
	HY_PH_NEW_KYOKU = 0,
	HY_PH_DRAW,
	HY_PH_TURN,
	HY_PH_RIICHI,
	HY_PH_CALL,
	HY_PH_CHANKAN,
	HY_PH_KYOKU_END,
	HY_PH_GAME_END,
} hy_phase;

typedef enum hy_result_kind {
	HY_RES_NONE = 0,
	HY_RES_HORA,        /* one or two winners                   */
	HY_RES_EXHAUSTIVE,  /* wall ran out (noten payments/nagashi) */
	HY_RES_KYUUSHU,
	HY_RES_SUUFON,
	HY_RES_SUUCHA,
	HY_RES_SUUKAIKAN,
	HY_RES_SANCHAHOU,
} hy_result_kind;

/* One win as the scorer found it. */
typedef struct hy_win {
	uint8_t seat, from, tile;  /* from == seat for tsumo */
	uint8_t pao;               /* liable seat or HY_NO_SEAT */
	int16_t han, fu;
	int16_t yakuman;           /* multiples of yakuman (0 = none) */
	int32_t points;            /* total the winner receives, honba/sticks included */
	int32_t deltas[4];         /* this win's score changes */
	uint8_t nyaku;
	uint8_t yaku[24];          /* scorer's yaku ids */
	uint8_t yaku_han[24];
} hy_win;

typedef struct hy_result {
	uint8_t kind;       /* hy_result_kind */
	uint8_t nwin;       /* 0–2 */
	uint8_t tenpai[4];  /* exhaustive draw */
	uint8_t nagashi[4];
	hy_win win[2];
	int32_t deltas[4];  /* all payments of the kyoku (not the riichi deposits) */
} hy_result;

typedef struct hy_player {
	uint8_t cnt[34];     /* concealed tiles by kind, red fives included */
	uint8_t red[3];      /* concealed red fives by suit */
	uint8_t nconc;
	uint8_t nmelds;
	hy_meld melds[4];
	uint8_t meld_called[4];  /* called tile code (HY_TILE_NONE for ankan) */
	uint8_t meld_from[4];    /* absolute seat the tile came from */
	uint8_t nriver;
	uint8_t river[32];       /* tile codes */
	uint8_t river_flags[32]; /* HY_RIVER_* */
	uint64_t discarded;      /* kinds ever discarded (furiten) */
	uint64_t waits;          /* kinds that complete the 13-tile hand (after own discard) */
	uint8_t riichi;          /* 0 none, 1 declared (deposit pending), 2 accepted */
	uint8_t double_riichi;
	uint8_t ippatsu;
	uint8_t temp_furiten;
	uint8_t riichi_furiten;
	uint8_t drawn;           /* tile drawn this turn or HY_TILE_NONE */
	uint8_t nagashi_ok;      /* every discard terminal/honour, none called */
	uint8_t nkans;
	uint8_t pao_seat;        /* liable seat for daisangen/daisuushii or HY_NO_SEAT */
	uint64_t kuikae;         /* kinds forbidden for the discard after a call */
	uint64_t have;           /* kinds with cnt > 0 */
} hy_player;

enum {
	HY_RIVER_TSUMOGIRI = 1,
	HY_RIVER_RIICHI = 2,   /* the declaration tile */
	HY_RIVER_CALLED = 4,   /* called away */
};

typedef struct hy_rules {
	uint8_t length;     /* 1 = East only (tonpuusen), 2 = East+South (hanchan) */
	int32_t start_score;
	int32_t target;     /* 30000: agari-yame and extension threshold */
} hy_rules;

/* Default Tenhou hanchan: length 2, 25000 points, target 30000. */
void hy_rules_default(hy_rules *r);

typedef struct hy_engine {
	hy_rules rules;
	int32_t scores[4];
	uint8_t bakaze;      /* 0 E, 1 S, 2 W, 3 N */
	uint8_t kyoku;       /* 0–3 */
	uint8_t honba;
	uint8_t kyotaku;     /* riichi sticks on the table */
	uint8_t oya;
	uint8_t phase;       /* hy_phase */
	uint8_t actor;       /* seat on turn (or the discarder in HY_PH_CALL) */
	uint8_t last_tile;   /* discarded tile (CALL), added/kan tile (CHANKAN) */
	uint8_t live_left;   /* live draws left (70 after the deal) */
	uint8_t nkans;       /* kans this kyoku */
	uint8_t kan_seats;   /* bit mask of seats that made kans */
	uint8_t rinshan;     /* the actor's draw was a replacement draw */
	uint8_t draw_rinshan;/* the pending draw is a replacement draw */
	uint8_t pending_dora;/* daiminkan/kakan indicators to reveal at the discard */
	uint8_t ndora;       /* revealed indicators */
	uint8_t nind_known;  /* indicators fed in (≥ ndora) */
	uint8_t dora_ind[5];
	uint8_t nura;
	uint8_t ura[5];      /* ura indicators (hy_engine_set_ura) */
	uint8_t first_go;    /* no call (kans included) yet this kyoku; a seat's
			      * first turn is first_go && its river is empty */
	uint8_t ndiscards;   /* discards this kyoku (suufon renda) */
	uint8_t suufon_kind; /* wind of the first discard, or 255 */
	uint8_t after_call;  /* actor called (chi/pon): discard only */
	uint8_t chankan_ankan;/* CHANKAN phase came from an ankan */
	uint8_t riichi_seat; /* seat whose declaration tile is in the call window, or 255 */
	uint8_t abort_kan;   /* suukaikan pending after this discard */
	uint8_t end_game_pending;
	uint8_t call_pending;/* seats that still have to answer (bit mask) */
	uint8_t call_opts[4];/* seats' option masks (internal HY_O_* bits) */
	hy_action call_choice[4];
	hy_player p[4];
	hy_result res;
	int32_t final_scores[4];
	uint8_t rank[4];     /* final 0-based rank of each seat */
	hy_game *log;        /* mjai events are appended here when set */
	hy_status log_status;/* first failure appending to log */
} hy_engine;

/* Starts a game (scores, E1, dealer seat 0); emits start_game when logging.
 * Phase becomes HY_PH_NEW_KYOKU. */
void hy_engine_init(hy_engine *e, const hy_rules *r, hy_game *log);

/* Deals a kyoku with the engine's round/honba/sticks/dealer: hands[seat]
 * holds 13 tile codes; dora_indicator is the first indicator. Replay may
 * override round fields with hy_engine_set_round first. */
hy_status hy_engine_start_kyoku(hy_engine *e, const uint8_t hands[4][13], int dora_indicator,
				hy_diag *d);
/* Sets round, honba, sticks, dealer and scores (replay of start_kyoku). */
void hy_engine_set_round(hy_engine *e, int bakaze, int kyoku, int honba, int kyotaku, int oya,
			 const int32_t scores[4]);

/* Draw for the seat on turn (HY_PH_DRAW). */
hy_status hy_engine_draw(hy_engine *e, int tile, hy_diag *d);
/* Feeds the next dora indicator (kan dora), revealed when the rules say. */
hy_status hy_engine_feed_indicator(hy_engine *e, int tile, hy_diag *d);
/* Number of indicators the engine wants fed but has not yet (kans made). */
int hy_engine_indicators_wanted(const hy_engine *e);

/* Seats that must decide now (bit mask; 0 in DRAW/KYOKU_END/NEW_KYOKU/GAME_END). */
unsigned hy_engine_deciders(const hy_engine *e);
/* The 46-index legal mask of a seat (0 when the seat has no decision). */
uint64_t hy_engine_legal_mask(const hy_engine *e, int seat);
/* The same mask derived from hy_engine_legal_actions (tests compare). */
uint64_t hy_engine_legal_mask_slow(const hy_engine *e, int seat);
/* Every concrete legal action of a seat (red/plain variants separately);
 * returns the count (≤ max). */
int hy_engine_legal_actions(const hy_engine *e, int seat, hy_action *out, int max);
/* Maps a legal index to its concrete action (red five kept when possible;
 * kan: the lowest kind). HY_EUSAGE when the index is not legal. */
hy_status hy_engine_action_of(const hy_engine *e, int seat, int index, hy_action *a);
/* The index of a concrete action. */
int hy_engine_index_of(const hy_engine *e, int seat, const hy_action *a);
/* 1 if a is among the seat's legal actions (consumed compared as multisets). */
int hy_engine_is_legal(const hy_engine *e, int seat, const hy_action *a);

/* Applies a seat's decision. In CALL/CHANKAN phases each answering seat
 * calls this once; the window is resolved after the last answer. HY_EUSAGE
 * (with a message) when illegal. May leave the phase in DRAW (caller draws),
 * KYOKU_END, or a decision phase. */
hy_status hy_engine_act(hy_engine *e, int seat, const hy_action *a, hy_diag *d);

/* hy_engine_act without the legality check, for an action that came from
 * hy_engine_legal_actions or hy_engine_action_of in this very state
 * (self-play's fast path). */
hy_status hy_engine_apply(hy_engine *e, int seat, const hy_action *a, hy_diag *d);

/* After KYOKU_END: applies the game-end rules and moves to the next kyoku
 * (HY_PH_NEW_KYOKU) or ends the game (HY_PH_GAME_END, sticks to the top,
 * ranks set). Emits end_kyoku (and end_game). */
void hy_engine_next_kyoku(hy_engine *e);

/* Ura indicators for scoring riichi wins; set before a hora resolves
 * (self-play: from the wall; replay: from the hora event). */
void hy_engine_set_ura(hy_engine *e, const uint8_t *ura, int n);

/* Helpers usable by callers. */
int hy_engine_is_tenpai(const hy_player *p);
/* A concealed tile (code) into / out of a player's hand: counts, red fives,
 * the kinds held. Nothing else (waits, furiten) is updated. */
void hy_player_add(hy_player *p, int t);
void hy_player_remove(hy_player *p, int t);
/* Whether the player cannot ron now (§3's three rules): a wait of its last
 * 13-tile hand is among its own discards, or temporary or riichi furiten. */
static inline int hy_player_furiten(const hy_player *p)
{
	return (p->waits & p->discarded) || p->temp_furiten || p->riichi_furiten;
}
/* Tile count check: the engine's visible accounting of a kind (concealed +
 * melds + rivers not called + indicators) for invariant tests. */
void hy_engine_count_tiles(const hy_engine *e, uint8_t cnt[HY_TILE_CODES]);
/* Describes the state in a short line (for diagnostics). */
int hy_engine_describe(const hy_engine *e, char *buf, int size);

#endif
