/* A review (review.h) as one JSON object: what `hydra-review --json`
 * prints and what the review page (html.h) embeds and draws.
 *
 *   format          "hydra-review/1"
 *   source, game    the log and the 0-based index of the game in it
 *   policy          the reviewing policy's spec; has_value: whether it
 *                   gives values
 *   seats           the reviewed seats; names: the four start_game names
 *                   ("" when the log has none)
 *   low_threshold   HY_REVIEW_LOW; final_scores
 *   reader          the wait reader's path (null: none, and no threats);
 *                   threat_threshold: the tenpai probability from which
 *                   an opponent not in riichi is listed
 *   summary         decisions, agree, agreement, mean_prob, low (the
 *                   reviewed seats together); per_seat: the same for each
 *                   reviewed seat; costliest: up to 10 {decision, cost},
 *                   costliest first
 *   kyoku[]         id, bakaze ("E".."N"), kyoku 1–4, honba, kyotaku, oya,
 *                   scores (at the start), deltas, result (text), first,
 *                   decisions (its decisions: decisions[first ..
 *                   first+decisions))
 *   decisions[]     id, kyoku, event (0-based index in the game), seat,
 *                   phase ("turn", "riichi": the declaration discard,
 *                   "call", "chankan"), live_left, honba, kyotaku,
 *                   dora_markers, hand (mjai tiles, without the drawn
 *                   one), drawn (or null), offered ({pai, from} in a call
 *                   window, else null), shanten, players (four: score,
 *                   riichi, river, river_flags: one digit per river tile,
 *                   1 tsumogiri + 2 riichi declaration + 4 called away;
 *                   melds: {type, tiles, called, from}), played and top[]
 *                   (actions: index, type (the mjai event type: dahai,
 *                   reach, chi, pon, daiminkan, ankan, kakan, hora,
 *                   ryukyoku, none), pai, consumed, label, prob), probs
 *                   ([index, probability] of every legal action), value
 *                   (expected placement points, or null), agree, low, cost;
 *                   with a reader, threats[]: the opponents in riichi or
 *                   read tenpai at the threshold or more, in turn order
 *                   ({seat, riichi, tenpai, deal_in: 34 probabilities by
 *                   tile kind, 1m..9m 1p..9p 1s..9s E S W N P F C, that a
 *                   discard of it deals in to that seat}; 4 decimals).
 * Probabilities and figures carry 6 significant digits. */
#ifndef HY_REVIEW_JSON_H
#define HY_REVIEW_JSON_H

#include <stddef.h>

#include "core/status.h"
#include "review/review.h"

/* Costliest departures listed in the summary. */
enum { HY_REVIEW_COSTLIEST = 10 };

/* The review as compact JSON text (no newline) in a malloc'd string *out of
 * length *len. HY_ENOMEM when it cannot be built. */
hy_status hy_review_json(const hy_review *r, char **out, size_t *len, hy_diag *d);

#endif
