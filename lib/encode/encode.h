/* Game → samples (ARCHITECTURE.md §6): replays a game's mjai events with the rules
 * engine (engine/replay.h, through its per-event hook) and turns every
 * decision of a seat into one hy_sample with its labels.
 *
 * Which decisions become samples (the state is the one the event acts on):
 *   - own turn (after a draw or a chi/pon): the next action of the seat on
 *     turn — dahai → its tile code 0–36, reach → 37 (the declaration
 *     discard is then a second sample, masked to tenpai-keeping discards),
 *     ankan/kakan → 42, tsumo → 43, kyuushu ryukyoku → 44;
 *   - call window after a discard (or the chankan window after a kakan):
 *     every seat that could act — the caller's chi 38–40 / pon 41 /
 *     daiminkan 42; every winner of a (double) ron 43 (the three of a
 *     sanchahou too); pass 45 only when unambiguous: the window closed with
 *     nobody taking anything (next event a draw, or the exhaustive draw), or
 *     every option the seat had outranks the call that was made (ron or
 *     pon/kan declined when someone chis; ron declined when someone pons).
 *     Seats whose chance was interrupted (someone else's ron; a chi chance
 *     under someone's pon) and windows closed by an abortive draw give no
 *     sample;
 *   - a decision counts only when the seat had a choice: a legal mask with
 *     a single action (a riichi hand that can only discard its draw) is not
 *     a sample.
 * Every label must be in the legal mask; a violation is HY_EDATA naming
 * the game and the event. So is an event the engine finds illegal (the
 * replay issue); a replayed score change that differs from the log's is
 * only counted (stats.mismatches). Kyoku whose hands are not all known
 * (`?`) are skipped and counted: the engine replays only full logs.
 *
 * Labels besides obs/mask/action:
 *   game        hy_encode_game_id(g): a hash of the game's content
 *   step        index of the decision within the kyoku (all seats, counted
 *               before the seat filter, so it does not depend on it)
 *   kyoku_delta observer's score after the kyoku's result minus at its
 *               start (riichi deposits included)
 *   score       final score: the end_game event's scores when the log has
 *               them, else the last kyoku's scores with leftover riichi
 *               sticks to the top seat
 *   rank, grp   from the final scores, ties by seat order from the East-1
 *               dealer (seat 0)
 *   opp_*       always known here (full logs): HY_SAMPLE_F_OPP_KNOWN set;
 *               tenpai = the 13-tile hand waits on a kind it does not hold
 *               all 4 of (Tenhou's rule); waits minus such kinds. */
#ifndef HY_ENCODE_ENCODE_H
#define HY_ENCODE_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "encode/obs.h"
#include "engine/engine.h"
#include "events/event.h"
#include "samples/sample.h"

typedef struct hy_encode_opts {
	unsigned seats; /* bit mask of absolute seats to emit; 0 = all */
	/* Optional: called with each sample made, the engine and the observer
	 * track in the state it was made from (for a measurement that needs
	 * more than the sample: bench/learn/waits_logs.c scores rulebot's belief
	 * about the waits there). Nothing it does changes the samples. */
	void (*on_sample)(void *u, const hy_engine *e, const hy_obs_track *t, int seat,
		const hy_sample *s);
	void *u;
} hy_encode_opts;

typedef struct hy_encode_stats {
	uint64_t games, kyoku, skipped_kyoku, events;
	uint64_t samples;                /* emitted                        */
	uint64_t filtered;               /* decisions of filtered-out seats */
	uint64_t per_action[HY_ACTIONS]; /* emitted, by label              */
	uint64_t mismatches;             /* replay score differences       */
} hy_encode_stats;

typedef struct hy_encoder hy_encoder;

/* o may be NULL (all seats). */
hy_status hy_encoder_new(hy_encoder **enc, const hy_encode_opts *o);
void hy_encoder_free(hy_encoder *enc);

/* Encodes one game. On HY_OK *out points to *n samples (in decision
 * order), valid until the next call. On an error nothing is counted in
 * the stats but `games`, and d names the source, game and event. */
hy_status hy_encode_game(hy_encoder *enc, const hy_game *g, const hy_sample **out, size_t *n,
			 hy_diag *d);

const hy_encode_stats *hy_encoder_stats(const hy_encoder *enc);

/* Game id: a hash of the game's play, so that the same game has the same id
 * (and the same train/validation split) wherever and however it was read —
 * `logs/`, `./logs` or an absolute path, mjlog or tenhou.net/6 — and
 * different games differ; a game and its suit-permuted copies (augmentation)
 * share it. The smallest over the 6 suit permutations π (events/permute.h)
 * of the first 8 bytes, read little-endian, of SHA-256 (libcrypto) over
 * "hydra/game-content/2" with its NUL, then per event 48 bytes, every tile
 * mapped by π: type, actor (255 for a ryukyoku), target, pai, nconsumed,
 * consumed[4] (the first nconsumed in ascending order); for start_kyoku
 * bakaze, kyoku, honba, kyotaku, oya at 9–13; the dora marker of
 * start_kyoku/dora at 14; scores (4 × i32le at 16) of start_kyoku and
 * end_game, zero elsewhere; and after a start_kyoku its 52 tehai bytes,
 * each seat's 13 in ascending order; events in log order, except that a
 * run of dora events right before a dahai is hashed after it (a kan's
 * indicator stands before the discard that reveals it in the engine's logs,
 * after it in Tenhou's). Provenance (source, index, line),
 * presence flags, names, unknown fields, the order in which a log lists a
 * hand or a call's tiles, where a kan's indicator is listed around its
 * discard and the optional declarer of a ryukyoku do not
 * count, so a game has one id in every format (formats/samples.md).
 * HY_EIO if libcrypto fails. */
hy_status hy_encode_game_id(const hy_game *g, uint64_t *id, hy_diag *d);

/* Action classes for statistics: 0 discard (0–36), 1 riichi, 2 chi, 3 pon,
 * 4 kan, 5 win, 6 kyuushu, 7 pass. */
enum { HY_ACTION_CLASSES = 8 };
int hy_action_class(int action);
const char *hy_action_class_name(int cls);


/* Final labels from final scores: rank[seat] 0–3 (ties by seat order from
 * the East-1 dealer) and grp[seat], the placement permutation as seen from
 * that seat (ARCHITECTURE.md §6). Shared by the encoder and self-play. */
void hy_encode_final_labels(const int32_t scores[4], uint8_t rank[4], uint8_t grp[4]);

/* Opponent labels of a sample of `seat` from the full engine state:
 * opp_tenpai, opp_waits (kinds completing a tenpai opponent's 13-tile hand,
 * minus kinds it holds all 4 of: Tenhou's rule), the OPP_KNOWN flag, and
 * per tenpai opponent that cannot ron now (hy_player_furiten) its FURITEN
 * flag: the reader's labels treat its waits as dealing in to nobody. */
void hy_encode_opp_labels(const hy_engine *e, int seat, hy_sample *s);

#endif
