/* One seat's view of a game: the rules engine and the observation tracker
 * driven by the mjai events that seat sees (its own hand and draws; other
 * seats' hands and draws hidden as "?"), so that a policy can decide from
 * hy_engine + hy_obs_track exactly as it does in self-play.
 *
 * The engine needs every seat's concealed tiles; the view gives the other
 * seats placeholder tiles drawn from the tiles the seat cannot see, keeping
 * every tile code within its 4 copies (3 plain fives + 1 red). Whenever an
 * opponent reveals a tile (a discard, a call's consumed tiles, an added or
 * closed kan), a placeholder in its hand is replaced by that tile first and
 * any copy beyond four held by another opponent is exchanged for an unseen
 * code. A call on a discard is replayed from the state before the discard
 * with the caller's hand holding the called tiles, so that the engine's call
 * window opens exactly as in the real game. Wins and draws are not
 * recomputed from the placeholder hands: the scores come from the event's
 * `scores` (or `deltas`).
 *
 * What the view rejects (HY_EDATA), as events that cannot happen in the
 * seat's game: any event the engine does not allow in the state (a draw or
 * a discard out of turn, a tile the seat does not hold, a call of a tile
 * that was not just discarded, a kan or a reach the seat cannot make, an
 * indicator with no kan); a hora of the seat itself that the engine does
 * not allow (a hand that does not win on the tile, no yaku, furiten); a
 * hora by any seat whose tile is neither its own draw on its turn (target
 * = actor) nor the tile its target just discarded or added to a kan; a
 * second hora that is not another seat's ron on the same tile (double
 * ron, at most two); a ryukyoku where nothing ends the kyoku (not the
 * seat's first turn for nine terminals, the wall not empty, no abortive
 * draw, no tile just given for three rons); reach_accepted without that
 * seat's reach and its discard, or twice; end_kyoku without a hora or a
 * ryukyoku; a start_kyoku in the middle of a kyoku (end_game may come at
 * any time: a server ends a game early); any event but start_game after
 * end_game. The other seats' hands are not known, so
 * their wins are checked for the tile and the turn only.
 *
 * What the placeholders can influence is only the opponents' hidden state
 * (their waits, furiten, options in call windows, which the view passes);
 * the seat's own legal mask (hy_engine_legal_mask) and observation
 * (hy_obs_encode) equal those of a full-information replay of the same game
 * at every decision of the seat (tests/unit/test_mjaibot.c checks this on
 * every shared log). One condition: a log whose `dahai` events carry no
 * `tsumogiri` field leaves an opponent's tedashi unknowable from the seat;
 * the view then takes such a discard as taken from the hand.
 *
 * Protocol of use:
 *   hy_seatview v; hy_seatview_init(&v, seat);
 *   for each event the seat sees: hy_seatview_event(&v, ev, d);
 *   if (hy_seatview_legal(&v)) decide from &v.e, &v.trk
 * The struct is plain data (no allocation): copy it, embed it. */
#ifndef HY_PLAY_SEATVIEW_H
#define HY_PLAY_SEATVIEW_H

#include <stdint.h>

#include "core/status.h"
#include "encode/obs.h"
#include "engine/engine.h"
#include "events/event.h"

typedef struct hy_seatview {
	int seat;           /* the absolute seat 0–3 whose view this is      */
	hy_engine e;        /* the table as far as the seat can tell         */
	hy_obs_track trk;   /* public facts for hy_obs_encode                */
	int started;        /* start_game seen                               */
	int in_kyoku;       /* between start_kyoku and end_kyoku              */
	uint32_t nevents;   /* events applied                                */
	/* The state before the latest discard (with the discarder holding the
	 * tile), to replay that discard when someone calls it; the indicators
	 * fed since then. */
	hy_engine snap;
	int snap_ok;
	uint8_t snap_ind[5];
	int nsnap_ind;
	/* The tile a seat could win on by ron now: the seat that discarded it
	 * or added it to a kan (-1: none since), the tile, and the kan (0 a
	 * discard, 1 a kakan, 2 an ankan: kokushi only). */
	int give_seat;
	uint8_t give_tile, give_kan;
	/* The kyoku's result so far: 0, or the type of its first hora or
	 * ryukyoku event; the seats that won, whether by tsumo, and the state
	 * before the first win (a second ron is checked on it). */
	uint8_t result;
	uint8_t winners, win_tsumo;
	hy_engine pre_win;
	uint8_t reach_acc;  /* seats whose reach_accepted came this kyoku   */
} hy_seatview;

/* Starts a view for absolute seat 0–3 (a start_game event comes next). */
void hy_seatview_init(hy_seatview *v, int seat);

/* Applies one event as the seat sees it. HY_EDATA with a message when the
 * event cannot happen in the view's state (a broken or foreign log): the
 * view is then no longer trustworthy. */
hy_status hy_seatview_event(hy_seatview *v, const hy_event *ev, hy_diag *d);

/* The seat's 46-index legal mask now (0: no decision). */
uint64_t hy_seatview_legal(const hy_seatview *v);

/* The seat's observation now. */
void hy_seatview_obs(const hy_seatview *v, uint16_t obs[HY_OBS_SIZE]);

#endif
