/* A review (review.h) as one self-contained HTML page that a player reads:
 * no network resource; the review's JSON (json.h) embedded in the page and
 * drawn by a small script: tiles as inline SVG symbols (one per face,
 * drawn once), the summary (figures, per seat, the costliest departures
 * as links), then every decision by kyoku with its situation (dora
 * indicators, the four seats' scores, rivers with tsumogiri, riichi and
 * called tiles, melds; the hand with the drawn tile apart and a bar of
 * the policy's probability under each tile on the seat's own turn), the
 * policy's top actions with probabilities beside the action played, the
 * value, and a mark on a low-probability play. Keyboard: left/right (k/j)
 * decision, up/down (p/n) kyoku, l the next low-probability play, s the
 * seat shown, Home/End; links #dN (decision N, 0-based) and #kN (kyoku N).
 * Narrow screens (phones) get a single column with smaller tiles.
 *
 * The DOM after the script ran, for tests: one article.dec per decision
 * (id dN), #s-decisions, #s-agreement ("71.2%": agreement ×100, one
 * decimal), #s-mean-prob (three decimals), #s-low, and body[data-ready]
 * = the number of decisions drawn. */
#ifndef HY_REVIEW_HTML_H
#define HY_REVIEW_HTML_H

#include <stdio.h>

#include "core/status.h"
#include "review/review.h"

/* Writes the page to f. HY_EIO on a write error, HY_ENOMEM. */
hy_status hy_review_write_html(const hy_review *r, FILE *f, hy_diag *d);

#endif
