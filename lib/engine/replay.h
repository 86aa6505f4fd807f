/* Replay check: applies a game's mjai events to the engine, checking each
 * against the legal set, and compares every hora/ryukyoku score change with
 * the one the engine computes (and the scores of each start_kyoku with the
 * engine's running scores, and the end_game scores with the replayed final
 * scores: the last kyoku's, leftover riichi sticks to the top seat).
 *
 * Problems are not errors: each one is handed to rep->issue (when set) and
 * counted; after an illegal event the rest of that kyoku is skipped (the
 * state is no longer trustworthy). A kyoku whose hands are not all known
 * (`?` tiles, a player's-view log) is skipped and counted. This is what
 * `mjai-parse --check` runs. */
#ifndef HY_ENGINE_REPLAY_H
#define HY_ENGINE_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "events/event.h"

struct hy_engine;

typedef enum hy_replay_issue_kind {
	HY_REPLAY_ILLEGAL,   /* an event the rules do not allow in that state */
	HY_REPLAY_DELTAS,    /* computed score changes differ from the log's  */
	HY_REPLAY_SCORES,    /* start_kyoku scores differ from the running ones */
	HY_REPLAY_FINAL,     /* end_game scores differ from the replayed final ones */
} hy_replay_issue_kind;

typedef struct hy_replay_issue {
	uint8_t kind;        /* hy_replay_issue_kind */
	size_t event;        /* index of the event in the game */
	uint32_t line;       /* its source line (0 = unknown) */
	const hy_game *game;
	/* What was wrong: for ILLEGAL the event and the state that made it
	 * illegal; for DELTAS computed vs logged with yaku/han/fu found. */
	char msg[768];
} hy_replay_issue;

typedef struct hy_replay_report {
	/* Counters, added to by every hy_replay_game call. */
	uint64_t games, events, kyoku, hora, ryukyoku;
	uint64_t illegal, mismatch, skipped_kyoku;
	/* Optional: called for every issue; a status other than HY_OK stops
	 * the replay and is returned. */
	hy_status (*issue)(void *ctx, const hy_replay_issue *is);
	void *ctx;
	/* Optional: called before each event i of the game is applied, with
	 * the engine in the state the event acts on, and once more after the
	 * last event with i == g->n. live is 1 when the event will be replayed
	 * (inside a kyoku whose hands are known and that had no illegal event
	 * so far), 0 when it is skipped. Events consumed together with an
	 * earlier one (the second hora of a double ron) are not announced on
	 * their own. A status other than HY_OK stops the replay and is
	 * returned. Shares ctx with issue. Leaving it NULL changes nothing. */
	hy_status (*before)(void *ctx, const struct hy_engine *e, const hy_game *g, size_t i,
			    int live);
} hy_replay_report;

/* The round fields of a start_kyoku event (wind, kyoku, honba, sticks,
 * dealer, scores) into e, phase NEW_KYOKU: what replay and a seat's view of
 * a game (lib/play/seatview) do at each start_kyoku. */
void hy_replay_set_round(struct hy_engine *e, const hy_event *ev);

/* Replays one game. Returns HY_OK when the replay ran to the end (issues are
 * in rep), or the status an issue callback returned. */
hy_status hy_replay_game(const hy_game *g, hy_replay_report *rep, hy_diag *d);

#endif
