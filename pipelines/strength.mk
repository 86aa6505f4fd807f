# The strength recipe (issue 20): from nothing to a model measured against
# its own start and against the rule teacher, on the CPU.
#   1. TEACHER_GAMES hanchan of the rule teacher (TEACHER, rulebot) against
#      itself on seeded walls: mjai logs (hydra-sp --log-dir);
#   2. behaviour cloning of those games (pipelines/bc.mk: checked events,
#      shards with a validation split, 6-way augmentation, ARCH trained
#      BC_STEPS steps): OUT/bc/model.h5, the league's frozen start;
#   3. the global reward predictor on the same logs (hydra-fit --mode grp,
#      GRP_EPOCHS epochs): OUT/grp/grp.h5 and its calibration;
#   4. a stronger teacher and its distillation (DISTIL=1, the default;
#      DISTIL= skips both, and the league starts from the BC start):
#      hydra-tune searches rulebot's numbers by duplicate arenas against
#      three TEACHER on TUNE_SEEDS seeds of master seed TUNE_SEED,
#      TUNE_SWEEPS sweeps (OUT/tune/teacher.params, `rulebot:PARAMS`);
#      DISTIL_GAMES games of that tuned teacher (hydra-sp samples, seed
#      DISTIL_SEED) fine-tune the BC start for DISTIL_STEPS steps at
#      DISTIL_LR: OUT/distil/model.h5, the league's start (TEACHER_PARAMS=FILE:
#      a tuned teacher found before, bench/learn/t1.params, and no search). The tuned
#      teacher is measured afresh on the final arenas' walls, since the
#      search's own figure is biased low;
#   5. the PPO league (pipelines/selfplay.mk) from the start: ITERS
#      iterations of GAMES games rewarded per kyoku by the GRP, each
#      candidate measured against the best so far and against TEACHER at
#      LEAGUE_SEEDS seeds (SEQUENTIAL=1: hydra-eval --sequential, up to them);
#   6. the final arenas at SEEDS seeds (400): the last model against three
#      copies of its BC start, the last model against three TEACHER, and,
#      for reference, the BC start against three TEACHER and (DISTIL=1)
#      the distilled start against three copies of the BC start and the
#      tuned teacher against three TEACHER;
#   7. OUT/summary.md: the table of the arenas (mean rank, its 95%
#      interval and the seeds, placement points, deal-in), whether each
#      interval lies below 2.5, and the league's records.
#
#   make -f pipelines/strength.mk OUT=strength [ITERS=6 GAMES=256 ...]
#
# bench/learn/learn.sh runs it with the wall time of each stage. Every stage is a
# file written under a temporary name and renamed (pipelines/common.mk), the
# sub-pipelines keep their own rules, and the stages depend on the stamps
# of their settings:
#   OUT/.st-teacher.settings  TEACHER TEACHER_GAMES SEED
#   OUT/.st-grp.settings      GRP_EPOCHS
#   OUT/.st-tune.settings     TEACHER TUNE_SEEDS TUNE_SEED TUNE_SWEEPS
#   OUT/.st-distil.settings   DISTIL_GAMES DISTIL_SEED DISTIL_STEPS DISTIL_LR
#   OUT/.st-final.settings    SEEDS
# Programs from BIN and DEVICE as in bc.mk. Every variable a sub-pipeline
# reads is passed to it explicitly (BATCH is the league's rollout batch,
# BC_BATCH the cloning's), since make hands command-line variables down.

include $(dir $(abspath $(lastword $(MAKEFILE_LIST))))common.mk
OUT     ?= strength
TEACHER ?= rulebot
TEACHER_GAMES ?= 2000
SEED    ?= 0
ARCH    ?= small
BC_STEPS ?= 6000
BC_SEEDS ?= 100
BC_BATCH ?= 256
GRP_EPOCHS ?= 20
DISTIL  ?= 1
TUNE_SEEDS ?= 800
TUNE_SEED ?= 1000
TUNE_SWEEPS ?= 4
DISTIL_GAMES ?= 1500
DISTIL_SEED ?= 7300
DISTIL_STEPS ?= 1800
DISTIL_LR ?= 2e-4
ITERS   ?= 6
GAMES   ?= 256
LEAGUE_SEEDS ?= 400
SEQUENTIAL ?=
BATCH   ?= 4096
TEACHER_PARAMS ?=
PPO_FLAGS ?= --lr 1e-4
SEEDS   ?= 400
$(call one-path,OUT)

SUB := $(MAKE) --no-print-directory BIN=$(BIN) DEVICE=$(DEVICE) THREADS=$(THREADS)

.PHONY: all teacher bc grp tune distil league final clean
all: $(OUT)/summary.md

$(eval $(call settings,st-teacher,TEACHER TEACHER_GAMES SEED))
$(eval $(call settings,st-grp,GRP_EPOCHS))
$(eval $(call settings,st-tune,TEACHER TUNE_SEEDS TUNE_SEED TUNE_SWEEPS))
$(eval $(call settings,st-distil,DISTIL_GAMES DISTIL_SEED DISTIL_STEPS DISTIL_LR))
$(eval $(call settings,st-final,SEEDS))

# the teacher's logs: a directory, made whole under a temporary name
teacher: $(OUT)/teacher.done
$(OUT)/teacher.done: $(OUT)/.st-teacher.settings
	$(untmp)
	rm -rf $(OUT)/teacher $(OUT)/teacher.tmpdir
	$(P)hydra-sp --games $(TEACHER_GAMES) --policy $(TEACHER) --seed $(SEED) -j $(THREADS) \
		--tables 32 --log-dir $(OUT)/teacher.tmpdir --no-samples
	mv $(OUT)/teacher.tmpdir $(OUT)/teacher
	ls $(OUT)/teacher | wc -l > $@.tmp
	$(commit)

# bc.mk's own stamps decide what of it to remake
bc: $(OUT)/bc/model.h5
$(OUT)/bc/model.h5: $(OUT)/teacher.done FORCE
	$(SUB) -f $(HERE)bc.mk LOGS=$(OUT)/teacher OUT=$(OUT)/bc ARCH=$(ARCH) STEPS=$(BC_STEPS) \
		BATCH=$(BC_BATCH) SEEDS=$(BC_SEEDS) SEED=$(SEED) $(OUT)/bc/model.h5 $(OUT)/bc/eval.json $(OUT)/bc/arena.json

grp: $(OUT)/grp/grp.h5
$(OUT)/grp/grp.h5: $(OUT)/teacher.done $(OUT)/.st-grp.settings
	$(untmp)
	rm -rf $(OUT)/grp
	$(P)hydra-fit --mode grp --epochs $(GRP_EPOCHS) -o $(OUT)/grp $(OUT)/teacher

# the tuned teacher: hydra-tune writes the file atomically, none on failure;
# TEACHER_PARAMS=FILE takes a search done before (bench/learn/t1.params)
# instead, and no stage writes it
TUNED := $(if $(TEACHER_PARAMS),$(TEACHER_PARAMS),$(OUT)/tune/teacher.params)
tune: $(if $(DISTIL),$(TUNED))
ifeq ($(TEACHER_PARAMS),)
$(TUNED): $(OUT)/.st-tune.settings
	$(untmp)
	@mkdir -p $(@D)
	$(P)hydra-tune --opponent $(TEACHER) --seeds $(TUNE_SEEDS) --seed $(TUNE_SEED) \
		--sweeps $(TUNE_SWEEPS) -j $(THREADS) -o $@
else
$(TUNED):
	@test -s $@ || { echo "strength.mk: TEACHER_PARAMS '$@' is not a parameter file" >&2; exit 1; }
endif

# its games, then the BC start fine-tuned on them (a fresh run each time)
distil: $(if $(DISTIL),$(OUT)/distil/model.h5)
$(OUT)/distil/games.bin: $(TUNED) $(OUT)/.st-distil.settings
	$(untmp)
	@mkdir -p $(@D)
	$(P)hydra-sp --games $(DISTIL_GAMES) --policy rulebot:$(TUNED) --seed $(DISTIL_SEED) \
		-j $(THREADS) -o $@
$(OUT)/distil/model.h5: $(OUT)/distil/games.bin $(OUT)/bc/model.h5
	$(untmp)
	rm -rf $(OUT)/distil/run
	$(P)hydra-fit --init $(OUT)/bc/model.h5 --steps $(DISTIL_STEPS) --lr $(DISTIL_LR) \
		--device $(DEVICE) -j $(THREADS) -o $(OUT)/distil/run $<
	cp -L $(OUT)/distil/run/latest $@.tmp
	$(commit)

START := $(if $(DISTIL),$(OUT)/distil/model.h5,$(OUT)/bc/model.h5)
league: $(OUT)/league/league.jsonl
$(OUT)/league/league.jsonl: $(START) $(OUT)/grp/grp.h5 FORCE
	$(SUB) -f $(HERE)selfplay.mk INIT=$(START) OUT=$(OUT)/league ITERS=$(ITERS) \
		GAMES=$(GAMES) SEEDS=$(LEAGUE_SEEDS) BATCH=$(BATCH) PPO_FLAGS='$(PPO_FLAGS)' \
		REWARD=grp:$(OUT)/grp/grp.h5 YARDSTICK=$(TEACHER) HORIZON=$(ITERS) \
		SEQUENTIAL=$(SEQUENTIAL) all

FINAL := $(OUT)/league/iter-$(ITERS)/model.h5
$(FINAL): $(OUT)/league/league.jsonl ;

# $(call arena,CHALLENGER,OPPONENT,MASTER SEED)
arena = $(P)hydra-eval -q --challenger $(1) --opponent $(2) --seeds $(SEEDS) --seed $(3) \
	--device $(DEVICE) -j $(THREADS) --table-out $(basename $@).txt --json > $@.tmp

DISTIL_ARENAS := $(if $(DISTIL),$(OUT)/distil-vs-start.json $(OUT)/tuned-vs-teacher.json)
final: $(OUT)/final-vs-start.json $(OUT)/final-vs-teacher.json $(OUT)/start-vs-teacher.json \
	$(DISTIL_ARENAS)
$(OUT)/final-vs-start.json: $(FINAL) $(OUT)/bc/model.h5 $(OUT)/.st-final.settings
	$(untmp)
	$(call arena,$(FINAL),$(OUT)/bc/model.h5,9000)
	$(commit)
	cat $(basename $@).txt
$(OUT)/final-vs-teacher.json: $(FINAL) $(OUT)/.st-final.settings
	$(untmp)
	$(call arena,$(FINAL),$(TEACHER),9100)
	$(commit)
	cat $(basename $@).txt
$(OUT)/start-vs-teacher.json: $(OUT)/bc/model.h5 $(OUT)/.st-final.settings
	$(untmp)
	$(call arena,$(OUT)/bc/model.h5,$(TEACHER),9100)
	$(commit)
	cat $(basename $@).txt

$(OUT)/distil-vs-start.json: $(OUT)/distil/model.h5 $(OUT)/bc/model.h5 $(OUT)/.st-final.settings
	$(untmp)
	$(call arena,$(OUT)/distil/model.h5,$(OUT)/bc/model.h5,9000)
	$(commit)
	cat $(basename $@).txt
$(OUT)/tuned-vs-teacher.json: $(TUNED) $(OUT)/.st-final.settings
	$(untmp)
	$(call arena,rulebot:$(TUNED),$(TEACHER),9100)
	$(commit)
	cat $(basename $@).txt

# one row per arena: the interval and the number of seeds side by side
ROW = jq -r --arg name "$(1)" '"| \($$name) | \(.rank.mean*10000|round/10000) | " + \
	(if .rank.lo == null then "interval not available" else \
	"[\(.rank.lo*10000|round/10000), \(.rank.hi*10000|round/10000)]" end) + \
	" | \(.seeds_counted) | \(.points.mean*100|round/100) | \(.rates.challenger.deal_in*10000|round/10000) | " + \
	(if .rank.hi != null and .rank.hi < 2.5 then "yes" else "no" end) + " |"' $(2)
LEAGUE_LINE := def r: if . == null then "-" else (. * 1000 | round / 1000) end; def pc: if . == null then "95" else (. * 10000 | round / 100 | tostring) end; "- iteration \(.iter): vs best \(.rank|r) [\(.rank_lo|r), \(.rank_hi|r)] (\(.seeds) seeds, \(.conf|pc)%), vs $(TEACHER) \(.yard_rank|r) [\(.yard_lo|r), \(.yard_hi|r)] (\(.yard_seeds) seeds, \(.yard_conf|pc)%)\(if .promoted then ", promoted" else "" end)"
$(OUT)/summary.md: $(OUT)/final-vs-start.json $(OUT)/final-vs-teacher.json \
		$(OUT)/start-vs-teacher.json $(DISTIL_ARENAS) $(OUT)/league/league.jsonl $(OUT)/grp/grp.h5
	$(untmp)
	{ echo "# strength ($(OUT)): $(ITERS) league iterations of $(GAMES) games from a $(ARCH) clone of $(TEACHER)$(if $(DISTIL), fine-tuned on $(DISTIL_GAMES) games of rulebot tuned by self-play against $(TEACHER))"; \
	  echo; \
	  echo "| arena (1 vs 3, duplicate) | mean rank | 95% interval | seeds | placement points | deal-in | interval below 2.5 |"; \
	  echo "|---|---|---|---|---|---|---|"; \
	  $(call ROW,final model vs 3 x its BC start,$(OUT)/final-vs-start.json); \
	  $(call ROW,final model vs 3 x $(TEACHER),$(OUT)/final-vs-teacher.json); \
	  $(call ROW,BC start vs 3 x $(TEACHER),$(OUT)/start-vs-teacher.json); \
	  $(if $(DISTIL),$(call ROW,league start (BC start distilled from the tuned teacher) vs 3 x its BC start,$(OUT)/distil-vs-start.json); \
	  $(call ROW,tuned teacher rulebot:$(TUNED) vs 3 x $(TEACHER),$(OUT)/tuned-vs-teacher.json);) \
	  echo; \
	  echo "league (each candidate: mean rank vs the best so far and vs $(TEACHER), each interval with its seeds and level: 95%, or 1 - 0.05/looks with SEQUENTIAL=1, 95% over the looks):"; \
	  echo; \
	  jq -r '$(LEAGUE_LINE)' $(OUT)/league/league.jsonl; \
	} > $@.tmp
	$(commit)
	@cat $@
	@if [ "$$(jq -r '.rank.hi < 2.5' $(OUT)/final-vs-teacher.json)" = true ]; then \
		echo "strength: the final model beat the rule bot $(TEACHER) (95% interval below 2.5)"; \
	else echo "strength: the final model did NOT beat the rule bot $(TEACHER) (95% interval not below 2.5)"; fi

clean:
	rm -rf $(OUT)
