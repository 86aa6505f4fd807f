/* In-memory mjai events and games (ARCHITECTURE.md §4).
 *
 * One hy_event holds any mjai event; optional fields carry a presence bit in
 * `flags` so that JSON → binary → JSON is exact. Fields a type does not know
 * (e.g. `seed`, `meta`, `logs`, `yakus`) are kept verbatim as one compact
 * JSON object text in `extra`, so nothing is lost. Strings (names, extra)
 * are owned by the hy_game that holds the event.
 *
 * A hy_game is the unit every parser produces and every consumer takes: the
 * events from start_game to end_game (or a fragment, when the log has none),
 * with its provenance (source name, 0-based game index within the source). */
#ifndef HY_EVENTS_EVENT_H
#define HY_EVENTS_EVENT_H

#include <stddef.h>
#include <stdint.h>

#include "core/status.h"

typedef enum hy_ev_type {
	HY_EV_NONE = 0,
	HY_EV_START_GAME,
	HY_EV_START_KYOKU,
	HY_EV_TSUMO,
	HY_EV_DAHAI,
	HY_EV_CHI,
	HY_EV_PON,
	HY_EV_DAIMINKAN,
	HY_EV_KAKAN,
	HY_EV_ANKAN,
	HY_EV_DORA,
	HY_EV_REACH,
	HY_EV_REACH_ACCEPTED,
	HY_EV_HORA,
	HY_EV_RYUKYOKU,
	HY_EV_END_KYOKU,
	HY_EV_END_GAME,
	HY_EV_TYPE_COUNT
} hy_ev_type;

/* Presence bits for optional fields. */
enum {
	HY_EVF_TSUMOGIRI = 1u << 0,  /* dahai.tsumogiri given                  */
	HY_EVF_SCORES = 1u << 1,     /* scores[4] given (any type)            */
	HY_EVF_DELTAS = 1u << 2,     /* deltas[4] given (any type)            */
	HY_EVF_URA = 1u << 3,        /* ura_markers given (hora)              */
	HY_EVF_KYOTAKU = 1u << 4,    /* start_kyoku.kyotaku given             */
	HY_EVF_HONBA = 1u << 5,      /* start_kyoku.honba given               */
	HY_EVF_BAKAZE = 1u << 6,     /* start_kyoku.bakaze given              */
	HY_EVF_KYOKU = 1u << 7,      /* start_kyoku.kyoku given               */
	HY_EVF_NAMES = 1u << 8,      /* start_game.names given                */
	HY_EVF_URA_ALIAS = 1u << 9,  /* ura given as `uradora_markers`        */
	HY_EVF_KAN_ALIAS = 1u << 10, /* daiminkan given as type `kan`         */
	HY_EVF_TEHAIS = 1u << 11,    /* start_kyoku.tehais given              */
	HY_EVF_ACTOR = 1u << 12,     /* actor given where optional (ryukyoku) */
};

#define HY_NO_SEAT 255

typedef struct hy_event {
	uint8_t type;        /* hy_ev_type                                   */
	uint8_t actor;       /* 0–3 or HY_NO_SEAT                            */
	uint8_t target;      /* 0–3 or HY_NO_SEAT                            */
	uint8_t pai;         /* tile code (core/tile.h) or HY_TILE_NONE      */
	uint8_t consumed[4]; /* tile codes                                   */
	uint8_t nconsumed;   /* 0–4                                          */
	uint8_t tsumogiri;   /* 0/1, valid with HY_EVF_TSUMOGIRI             */
	uint16_t flags;      /* HY_EVF_*                                     */
	/* start_kyoku; dora_marker also for dora */
	uint8_t bakaze;      /* tile code of a wind (27–30)                  */
	uint8_t kyoku;       /* 1–4                                          */
	uint8_t honba;
	uint8_t kyotaku;
	uint8_t oya;         /* 0–3                                          */
	uint8_t dora_marker; /* tile code                                    */
	uint8_t nura;        /* 0–5                                          */
	uint8_t ura[5];      /* hora.ura_markers                             */
	int32_t scores[4];
	int32_t deltas[4];
	uint8_t tehais[4][13];
	uint32_t line;       /* provenance: 1-based source line/record, 0 = ? */
	const char *names[4];/* start_game, with HY_EVF_NAMES                */
	const char *extra;   /* unknown fields: compact JSON object, or NULL */
} hy_event;

typedef struct hy_game {
	const char *source;  /* owned copy of the source name                */
	uint32_t index;      /* 0-based game index within the source         */
	hy_event *ev;
	size_t n, cap;
	/* owned strings */
	char **strs;
	size_t nstrs, capstrs;
} hy_game;

/* Where parsers deliver games. `game` receives each complete, valid game (the
 * callee may keep nothing: g is reused after the call); `bad` receives the
 * diagnostic of a game that failed to parse or validate — returning HY_OK
 * skips that game and goes on (--keep-going), any other status stops the
 * parse with that status. A NULL `bad` stops at the first bad game. */
typedef struct hy_game_sink {
	hy_status (*game)(void *ctx, hy_game *g);
	hy_status (*bad)(void *ctx, const hy_diag *d);
	void *ctx;
} hy_game_sink;

/* Name of a type as in mjai JSON ("start_game", ...), or NULL. */
const char *hy_ev_type_name(int type);
/* mjai type name (len bytes) → type; "kan" maps to HY_EV_DAIMINKAN (the
 * caller notes the alias). Returns HY_EV_NONE when unknown. */
hy_ev_type hy_ev_type_from_name(const char *s, size_t len);

/* A blank event of a type: seats and tiles set to "none", counts zero. */
void hy_event_blank(hy_event *e, hy_ev_type type);

void hy_game_init(hy_game *g);
void hy_game_free(hy_game *g);
/* Empties the game for reuse (keeps allocations). */
void hy_game_clear(hy_game *g);
/* Sets the provenance (copies the name). */
hy_status hy_game_set_source(hy_game *g, const char *source, uint32_t index);
/* Appends a copy of e; returns a pointer to the stored event or NULL (ENOMEM).
 * Pointers are invalidated by the next push. */
hy_event *hy_game_push(hy_game *g, const hy_event *e);
/* Copies len bytes of s into storage owned by g (NUL-terminated). */
const char *hy_game_strdup(hy_game *g, const char *s, size_t len);

#endif
