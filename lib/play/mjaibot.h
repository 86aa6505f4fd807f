/* The mjai bot protocol (mjai.app form) and the external-bot policy.
 *
 * Protocol: the server writes one line per decision of the bot's seat, a
 * JSON array of the mjai events since the bot's last answer as that seat
 * sees them: start_game carries "id": seat; start_kyoku's other hands and
 * other seats' tsumo tiles are "?"; fields outside the mjai event (a log's
 * `seed`, `meta`, ...) are not passed on. The bot answers every line with
 * exactly one JSON action line: an mjai event of its own seat (dahai, reach,
 * chi, pon, daiminkan, kakan, ankan, hora, ryukyoku for kyuushu kyuuhai) or
 * {"type":"none"} — which passes in a call window and is illegal on the
 * bot's own turn.
 *
 * The codec goes through jansson and lib/mjai (hy_mjai_format_event,
 * hy_mjai_parse_event); the external policy runs one child process per
 * (table, seat), `/bin/sh -c COMMAND` in a process group of its own, its
 * stdin a socket (written with MSG_NOSIGNAL, so a dead bot is EPIPE, never
 * SIGPIPE) and its stdout a pipe read with poll() under opts->bot_timeout.
 * A bot that exits, closes its output, times out, writes malformed JSON or
 * an illegal action fails the decision with a diagnostic naming the game,
 * the event it was answering and its line; it is never replaced by a legal
 * move. Its process is killed and reaped at once. */
#ifndef HY_PLAY_MJAIBOT_H
#define HY_PLAY_MJAIBOT_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"
#include "engine/engine.h"
#include "events/event.h"
#include "play/policy.h"

/* Appends event ev as absolute seat `seat` sees it to dst (strings copied
 * into dst). */
hy_status hy_mjaibot_view_event(hy_game *dst, const hy_event *ev, int seat, hy_diag *d);

/* The seat a start_game addresses ("id"), or -1 when it has none. */
int hy_mjaibot_start_id(const hy_event *ev);

/* One protocol line: the JSON array of events ev[0..n) (no newline), in a
 * malloc'd string *out of length *len. */
hy_status hy_mjaibot_format_batch(const hy_event *ev, size_t n, char **out, size_t *len,
				  hy_diag *d);

/* Parses one protocol line (a JSON array of mjai events; a single event
 * object is accepted too) and appends its events to g. HY_EDATA naming
 * `lineno` and the element on malformed input. */
hy_status hy_mjaibot_parse_batch(hy_game *g, const char *line, size_t len, uint32_t lineno,
				 hy_diag *d);

/* Seat's action a (legal in e) as an answer event; returns 0 for a pass
 * (answered as {"type":"none"}), 1 when *ev is filled. */
int hy_mjaibot_action_event(const hy_engine *e, int seat, const hy_action *a, hy_event *ev);

/* Seat's action a as one answer line (no newline) into buf; returns its
 * length, or -1 when it does not fit. */
int hy_mjaibot_format_answer(const hy_engine *e, int seat, const hy_action *a, char *buf,
			     size_t size);

/* What `hydra-bot --meta` puts beside an answer, in the layout of Mortal's
 * mjai bot (libriichi's Metadata) where a field exists there, so that
 * clients reading Mortal's metadata (Akagi and others) read ours:
 *   q_values      one number per legal action, in index order (the 46
 *                 indices are Mortal's too): here the policy's
 *                 log-probabilities, floored at −50, so that their softmax
 *                 — what such clients show — is the policy's distribution
 *   mask_bits     the legal actions, bit a for index a
 *   is_greedy     whether the answer is the policy's most probable action
 *   batch_size    1 (one decision per forward pass)
 *   eval_time_ns  the time the policy took, in nanoseconds
 *   shanten       of the seat's concealed hand as it is
 * and ours:
 *   probs         the probabilities themselves, in the order of q_values
 *   value         the policy's value in expected placement points (90,
 *                 45, 0, −135), for a policy that has one. */
typedef struct hy_mjaibot_meta {
	uint64_t mask;
	float prob[HY_ACTIONS];
	int greedy;
	int has_value;
	float value;        /* placement points / 100 (hy_choice.value) */
	uint64_t eval_ns;
	int shanten;
} hy_mjaibot_meta;

/* Adds "meta":{...} to the answer object in buf (len bytes, ending in
 * '}'); returns the new length, or -1 when it does not fit in size. */
int hy_mjaibot_add_meta(char *buf, int len, size_t size, const hy_mjaibot_meta *m);

/* A bot's answer line → the seat's concrete action and legal index in e.
 * HY_EDATA with *illegal = 0 for malformed JSON or a line that is no mjai
 * action; HY_EDATA with *illegal = 1 for a well-formed action that is not
 * legal now (another seat's, "none" on the own turn, an action while the
 * seat has no decision...). d->msg says why. `scratch` holds strings of the
 * parse (cleared here). */
hy_status hy_mjaibot_parse_answer(const hy_engine *e, int seat, const char *line, size_t len,
				  hy_game *scratch, hy_action *a, int *index, int *illegal,
				  hy_diag *d);

#endif
