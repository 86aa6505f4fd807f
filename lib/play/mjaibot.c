/* The mjai bot protocol codec (mjaibot.h): seat views of events, protocol
 * lines ⇄ events, answers ⇄ actions. The external-bot policy is in
 * mjaiproc.c. */
#include "play/mjaibot.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tile.h"
#include "mjai/mjai.h"

/* ------------------------------------------------------------ seat views */

hy_status hy_mjaibot_view_event(hy_game *dst, const hy_event *ev, int seat, hy_diag *d)
{
	hy_event x = *ev;
	x.extra = NULL; /* fields outside the mjai event may tell secrets (seed) */
	x.line = 0;
	if (x.flags & HY_EVF_NAMES)
		for (int i = 0; i < 4; i++) {
			const char *s = ev->names[i] ? ev->names[i] : "";
			if (!(x.names[i] = hy_game_strdup(dst, s, strlen(s))))
				return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
		}
	switch (ev->type) {
	case HY_EV_START_GAME: {
		json_t *o = json_pack("{s:i}", "id", seat);
		char *txt = o ? json_dumps(o, JSON_COMPACT) : NULL;
		json_decref(o);
		if (!txt)
			return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
		x.extra = hy_game_strdup(dst, txt, strlen(txt));
		free(txt);
		if (!x.extra)
			return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
		break;
	}
	case HY_EV_START_KYOKU:
		if (x.flags & HY_EVF_TEHAIS)
			for (int s = 0; s < 4; s++)
				if (s != seat)
					memset(x.tehais[s], HY_TILE_UNKNOWN, 13);
		break;
	case HY_EV_TSUMO:
		if (x.actor != seat)
			x.pai = HY_TILE_UNKNOWN;
		break;
	default:
		break;
	}
	if (!hy_game_push(dst, &x))
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	return HY_OK;
}

int hy_mjaibot_start_id(const hy_event *ev)
{
	if (ev->type != HY_EV_START_GAME || !ev->extra)
		return -1;
	json_t *o = json_loads(ev->extra, 0, NULL);
	json_t *id = json_object_get(o, "id");
	int seat = json_is_integer(id) && json_integer_value(id) >= 0 &&
				   json_integer_value(id) <= 3
			   ? (int)json_integer_value(id)
			   : -1;
	json_decref(o);
	return seat;
}

/* ------------------------------------------------------------ lines */

hy_status hy_mjaibot_format_batch(const hy_event *ev, size_t n, char **out, size_t *len,
				  hy_diag *d)
{
	*out = NULL;
	*len = 0;
	json_t *arr = json_array();
	if (!arr)
		return hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
	char stack[4096];
	hy_status s = HY_OK;
	for (size_t i = 0; i < n && s == HY_OK; i++) {
		int k = hy_mjai_format_event(&ev[i], stack, sizeof stack);
		if (k < 0) {
			s = hy_diag_set(d, HY_EUSAGE, 0, "event %zu (%s) cannot be written", i + 1,
					hy_ev_type_name(ev[i].type) ? hy_ev_type_name(ev[i].type) : "?");
			break;
		}
		json_error_t err;
		json_t *o = json_loadb(stack, (size_t)k, 0, &err);
		if (!o || json_array_append_new(arr, o))
			s = hy_diag_set(d, o ? HY_ENOMEM : HY_EUSAGE, 0,
					"event %zu: formatted JSON does not parse: %s", i + 1, err.text);
	}
	if (s == HY_OK) {
		*out = json_dumps(arr, JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (!*out)
			s = hy_diag_set(d, HY_ENOMEM, 0, "out of memory");
		else
			*len = strlen(*out);
	}
	json_decref(arr);
	return s;
}

hy_status hy_mjaibot_parse_batch(hy_game *g, const char *line, size_t len, uint32_t lineno,
				 hy_diag *d)
{
	json_error_t err;
	json_t *v = json_loadb(line, len, JSON_REJECT_DUPLICATES, &err);
	if (!v)
		return hy_diag_set(d, HY_EDATA, lineno, "invalid JSON: %s (column %d)", err.text,
				   err.column);
	hy_status s = HY_OK;
	if (!json_is_array(v) && !json_is_object(v)) {
		s = hy_diag_set(d, HY_EDATA, lineno, "not a JSON array of mjai events");
		goto out;
	}
	size_t n = json_is_array(v) ? json_array_size(v) : 1;
	for (size_t i = 0; i < n && s == HY_OK; i++) {
		json_t *o = json_is_array(v) ? json_array_get(v, i) : v;
		char *txt = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
		if (!txt) {
			s = hy_diag_set(d, HY_ENOMEM, lineno, "out of memory");
			break;
		}
		hy_event ev;
		hy_diag ed;
		hy_diag_init(&ed, NULL);
		if (hy_mjai_parse_event(g, txt, strlen(txt), lineno, &ev, &ed) != HY_OK)
			s = hy_diag_set(d, HY_EDATA, lineno, "event %zu: %s", i + 1, ed.msg);
		else if (!hy_game_push(g, &ev))
			s = hy_diag_set(d, HY_ENOMEM, lineno, "out of memory");
		free(txt);
	}
out:
	json_decref(v);
	return s;
}

/* ------------------------------------------------------------ answers */

int hy_mjaibot_action_event(const hy_engine *e, int seat, const hy_action *a, hy_event *ev)
{
	const hy_player *p = &e->p[seat];
	switch (a->type) {
	case HY_ACT_DISCARD:
		hy_event_blank(ev, HY_EV_DAHAI);
		ev->pai = a->tile;
		ev->tsumogiri = p->drawn != HY_TILE_NONE && p->drawn == a->tile;
		ev->flags |= HY_EVF_TSUMOGIRI;
		break;
	case HY_ACT_RIICHI:
		hy_event_blank(ev, HY_EV_REACH);
		break;
	case HY_ACT_CHI:
	case HY_ACT_PON:
	case HY_ACT_DAIMINKAN:
		hy_event_blank(ev, a->type == HY_ACT_CHI   ? HY_EV_CHI
				   : a->type == HY_ACT_PON ? HY_EV_PON
							   : HY_EV_DAIMINKAN);
		ev->target = e->actor;
		ev->pai = a->tile;
		ev->nconsumed = a->nconsumed;
		memcpy(ev->consumed, a->consumed, 4);
		break;
	case HY_ACT_ANKAN:
		hy_event_blank(ev, HY_EV_ANKAN);
		ev->nconsumed = a->nconsumed;
		memcpy(ev->consumed, a->consumed, 4);
		break;
	case HY_ACT_KAKAN:
		hy_event_blank(ev, HY_EV_KAKAN);
		ev->pai = a->tile;
		ev->nconsumed = a->nconsumed;
		memcpy(ev->consumed, a->consumed, 4);
		break;
	case HY_ACT_TSUMO:
		hy_event_blank(ev, HY_EV_HORA);
		ev->target = (uint8_t)seat;
		ev->pai = p->drawn;
		break;
	case HY_ACT_RON:
		hy_event_blank(ev, HY_EV_HORA);
		ev->target = e->actor;
		ev->pai = e->last_tile;
		break;
	case HY_ACT_KYUUSHU:
		hy_event_blank(ev, HY_EV_RYUKYOKU);
		ev->flags |= HY_EVF_ACTOR;
		break;
	default:
		return 0;
	}
	ev->actor = (uint8_t)seat;
	return 1;
}

int hy_mjaibot_format_answer(const hy_engine *e, int seat, const hy_action *a, char *buf,
			     size_t size)
{
	hy_event ev;
	if (hy_mjaibot_action_event(e, seat, a, &ev))
		return hy_mjai_format_event(&ev, buf, size);
	json_t *o = json_pack("{s:s}", "type", "none");
	char *txt = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	int n = -1;
	if (txt && strlen(txt) < size) {
		n = (int)strlen(txt);
		memcpy(buf, txt, (size_t)n + 1);
	}
	free(txt);
	return n;
}

/* printf at buf + *at; -1 in *at once it does not fit. */
static void putf(char *buf, size_t size, int *at, const char *fmt, ...)
{
	if (*at < 0)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf + *at, size - (size_t)*at, fmt, ap);
	va_end(ap);
	*at = n < 0 || (size_t)n >= size - (size_t)*at ? -1 : *at + n;
}

int hy_mjaibot_add_meta(char *buf, int len, size_t size, const hy_mjaibot_meta *m)
{
	if (len < 2 || buf[len - 1] != '}')
		return -1;
	int at = len - 1;
	putf(buf, size, &at, ",\"meta\":{\"q_values\":[");
	const char *sep = "";
	for (uint64_t b = m->mask; b; b &= b - 1) {
		double p = m->prob[__builtin_ctzll(b)];
		putf(buf, size, &at, "%s%.6g", sep, p > 0 ? fmax(log(p), -50.0) : -50.0);
		sep = ",";
	}
	putf(buf, size, &at, "],\"mask_bits\":%llu,\"is_greedy\":%s,\"batch_size\":1,"
	     "\"eval_time_ns\":%llu,\"shanten\":%d,\"probs\":[",
	     (unsigned long long)m->mask, m->greedy ? "true" : "false",
	     (unsigned long long)m->eval_ns, m->shanten);
	sep = "";
	for (uint64_t b = m->mask; b; b &= b - 1) {
		putf(buf, size, &at, "%s%.6g", sep, (double)m->prob[__builtin_ctzll(b)]);
		sep = ",";
	}
	putf(buf, size, &at, "]");
	if (m->has_value && isfinite(m->value))
		putf(buf, size, &at, ",\"value\":%.6g", 100.0 * (double)m->value);
	putf(buf, size, &at, "}}");
	return at;
}

/* An answer event → the concrete action it names; HY_ACT_NONE if it names
 * none. */
static hy_action event_action(const hy_event *ev)
{
	hy_action a = {.type = HY_ACT_NONE, .tile = ev->pai, .nconsumed = ev->nconsumed};
	memcpy(a.consumed, ev->consumed, 4);
	switch (ev->type) {
	case HY_EV_DAHAI: a.type = HY_ACT_DISCARD; break;
	case HY_EV_REACH: a.type = HY_ACT_RIICHI; break;
	case HY_EV_CHI: a.type = HY_ACT_CHI; break;
	case HY_EV_PON: a.type = HY_ACT_PON; break;
	case HY_EV_DAIMINKAN: a.type = HY_ACT_DAIMINKAN; break;
	case HY_EV_KAKAN: a.type = HY_ACT_KAKAN; break;
	case HY_EV_ANKAN:
		a.type = HY_ACT_ANKAN;
		a.tile = (uint8_t)hy_tile_kind(ev->consumed[0]);
		break;
	case HY_EV_HORA:
		a.type = ev->target == ev->actor ? HY_ACT_TSUMO : HY_ACT_RON;
		break;
	case HY_EV_RYUKYOKU: a.type = HY_ACT_KYUUSHU; break;
	default: break;
	}
	return a;
}

hy_status hy_mjaibot_parse_answer(const hy_engine *e, int seat, const char *line, size_t len,
				  hy_game *scratch, hy_action *a, int *index, int *illegal,
				  hy_diag *d)
{
	*illegal = 0;
	*index = -1;
	json_error_t err;
	json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &err);
	if (!o)
		return hy_diag_set(d, HY_EDATA, 0, "invalid JSON: %s (column %d)", err.text,
				   err.column);
	json_t *ty = json_object_get(o, "type");
	int none = json_is_string(ty) && !strcmp(json_string_value(ty), "none");
	int object = json_is_object(o);
	json_decref(o);
	if (!object)
		return hy_diag_set(d, HY_EDATA, 0, "not a JSON object");
	uint64_t mask = hy_engine_legal_mask(e, seat);
	if (none) {
		*a = (hy_action){.type = HY_ACT_PASS};
		*illegal = 1;
		if (!mask)
			return hy_diag_set(d, HY_EDATA, 0, "the seat has no decision");
		if (!(mask >> HY_A_PASS & 1))
			return hy_diag_set(d, HY_EDATA, 0, "\"none\" on the seat's own turn");
		*illegal = 0;
		*index = HY_A_PASS;
		return HY_OK;
	}
	hy_game_clear(scratch);
	hy_event ev;
	hy_diag ed;
	hy_diag_init(&ed, NULL);
	if (hy_mjai_parse_event(scratch, line, len, 0, &ev, &ed) != HY_OK)
		return hy_diag_set(d, HY_EDATA, 0, "not an mjai action: %s", ed.msg);
	*a = event_action(&ev);
	*illegal = 1;
	if (a->type == HY_ACT_NONE)
		return hy_diag_set(d, HY_EDATA, 0, "'%s' is not an action", hy_ev_type_name(ev.type));
	if (ev.actor != seat && !(ev.type == HY_EV_RYUKYOKU && !(ev.flags & HY_EVF_ACTOR)))
		return hy_diag_set(d, HY_EDATA, 0, "actor %d is not the bot's seat %d", ev.actor,
				   seat);
	if (!mask)
		return hy_diag_set(d, HY_EDATA, 0, "the seat has no decision");
	if (a->type == HY_ACT_TSUMO && a->tile == HY_TILE_NONE)
		a->tile = e->p[seat].drawn;
	if (a->type == HY_ACT_RON && a->tile == HY_TILE_NONE)
		a->tile = e->last_tile;
	if ((a->type == HY_ACT_TSUMO && a->tile != e->p[seat].drawn) ||
	    (a->type == HY_ACT_RON && a->tile != e->last_tile))
		return hy_diag_set(d, HY_EDATA, 0, "not the winning tile");
	if (a->type == HY_ACT_RON && ev.target != e->actor)
		return hy_diag_set(d, HY_EDATA, 0, "target %d did not discard", ev.target);
	if ((a->type == HY_ACT_CHI || a->type == HY_ACT_PON || a->type == HY_ACT_DAIMINKAN) &&
	    ev.target != e->actor)
		return hy_diag_set(d, HY_EDATA, 0, "target %d did not discard", ev.target);
	if (!hy_engine_is_legal(e, seat, a))
		return hy_diag_set(d, HY_EDATA, 0, "not among the seat's legal actions");
	int k = hy_engine_index_of(e, seat, a);
	if (k < 0 || !(mask >> k & 1))
		return hy_diag_set(d, HY_EDATA, 0, "not among the seat's legal actions");
	*illegal = 0;
	*index = k;
	return HY_OK;
}
