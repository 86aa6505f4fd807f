/* Internal to lib/tenhou: one kyoku of a Tenhou log in a neutral form, and
 * the builder that turns it into mjai events. Both front ends (mjlog.c,
 * tenhou6.c) fill an hy_tk_kyoku with the kyoku's actions in play order and
 * let the builder place the events whose position is a convention:
 *
 *   - tehais and every `consumed` are sorted by kind, a red five before the
 *     plain fives of its suit (Tenhou 136-id order, mjai-reviewer's order);
 *   - dora: an ankan reveals its indicator right after the ankan event; a
 *     daiminkan or kakan reveals it right after the next dahai (the
 *     replacement draw's discard), before anything else;
 *   - reach_accepted {actor} (no deltas / scores, as Mortal and convlog
 *     write it) right after the riichi discard (and its dora), unless that
 *     discard is ronned (or ends the kyoku in a triple-ron draw);
 *   - hora: pai = the winning tile, deltas from the log (honba and sticks
 *     included; pao respected), ura_markers when the winner is in riichi;
 *     one event per winner in log order;
 *   - ryukyoku: deltas from the log (zeros when the log has none).
 *
 * The builder replays every action on the four hands and refuses what is
 * impossible (a discard or consumed tile not in hand, a call of a tile that
 * was not just discarded), so that the front ends' input is checked in one
 * place. */
#ifndef HY_TENHOU_BUILDER_H
#define HY_TENHOU_BUILDER_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "core/tile.h"
#include "events/event.h"

typedef struct hy_tk_act {
	uint8_t type;        /* HY_EV_TSUMO, DAHAI, REACH, CHI, PON,
				DAIMINKAN, KAKAN, ANKAN                    */
	uint8_t actor, target, pai;
	uint8_t consumed[4];
	uint8_t nconsumed;
	uint8_t tsumogiri;
	uint32_t line;       /* provenance copied into the event            */
} hy_tk_act;

typedef struct hy_tk_hora {
	uint8_t actor, target; /* target == actor on tsumo                  */
	int32_t deltas[4];
	uint32_t line;
} hy_tk_hora;

enum { HY_TK_NONE = 0, HY_TK_HORA, HY_TK_RYUKYOKU };

typedef struct hy_tk_kyoku {
	uint8_t round;       /* 0–15: 4·bakaze + kyoku − 1                  */
	uint8_t honba, kyotaku, oya;
	int32_t scores[4];
	uint8_t tehais[4][13];
	uint8_t dora[5];     /* indicators in order of reveal               */
	uint8_t ndora;
	uint8_t ura[5];
	uint8_t nura;
	hy_tk_act *acts;
	size_t nacts, capacts;
	int end;             /* HY_TK_*                                      */
	hy_tk_hora hora[3];
	uint8_t nhora;
	int32_t ryu_deltas[4];
	uint8_t ryu_ron3;    /* triple-ron draw: the last riichi is void     */
	uint32_t line, end_line;
} hy_tk_kyoku;

/* Replay state of the four hands. */
typedef struct hy_tk_sim {
	uint8_t cnt[4][HY_TILE_CODES];
	uint8_t last_tsumo[4];  /* drawn tile still in hand, else NONE      */
	uint8_t disc_actor;     /* actor of the dahai just made, else NONE  */
	uint8_t disc_pai;
	uint8_t kan_pai;        /* kakan tile just added (chankan), else NONE */
} hy_tk_sim;

void hy_tk_kyoku_init(hy_tk_kyoku *k);
void hy_tk_kyoku_free(hy_tk_kyoku *k);
/* Forgets the kyoku's content (keeps the action buffer). */
void hy_tk_kyoku_reset(hy_tk_kyoku *k);
/* Appends an action; NULL on ENOMEM. */
hy_tk_act *hy_tk_kyoku_push(hy_tk_kyoku *k, const hy_tk_act *a);

/* Sort key of a tile code: kind order, red five first. */
static inline int hy_tk_tile_ord(int t)
{
	int k = hy_tile_kind(t);
	return k < 0 ? 255 : 2 * k + (hy_tile_is_red(t) ? 0 : 1);
}
void hy_tk_sort_tiles(uint8_t *t, int n);

/* "E1", "S3-2" style name of a round/honba into buf. */
const char *hy_tk_round_name(int round, int honba, char *buf, size_t size);

void hy_tk_sim_start(hy_tk_sim *s, const hy_tk_kyoku *k);
/* Applies one action; on an impossible action returns a static reason and
 * leaves s unspecified, else NULL. A tsumogiri dahai with pai NONE takes
 * the drawn tile. The act may be completed (pai of tsumogiri). */
const char *hy_tk_sim_apply(hy_tk_sim *s, hy_tk_act *a);

/* Appends the events of a complete kyoku (start_kyoku … end_kyoku) to g,
 * replaying it; *scores_out receives the scores after it (start − 1000 per
 * accepted riichi + all deltas), *sticks_out the riichi sticks left on the
 * table. HY_EDATA with d set (line = the offending action's line) when
 * the kyoku is inconsistent. */
hy_status hy_tk_emit_kyoku(hy_game *g, const hy_tk_kyoku *k, int32_t scores_out[4],
			   int *sticks_out, hy_diag *d);

/* Final scores of a game from the scores after its last kyoku and the
 * sticks left: the sticks go to the top player (ties: lower seat). */
void hy_tk_final_scores(const int32_t after[4], int sticks, int32_t out[4]);

#endif
