# The self-play loop: starting from a trained model (INIT, e.g. bc/model.h5
# from pipelines/bc.mk), each iteration
#   1. plays GAMES hanchan with hydra-sp: the current model against a pool
#      (the rule bot and the best model so far), samples of its own
#      decisions only (--learner);
#   2. improves it with hydra-fit --mode ppo from those samples (one pass of
#      rollout batches, each --ppo-epochs times in minibatches);
#   3. plays the new model against the best so far in the arena
#      (1 vs 3, duplicate, SEEDS seeds);
#   4. promotes it to best when the 95% interval of its placement points lies
#      above zero (it beats the best), and records the arena result as
#      iter-i/league.json, one line of OUT/league.jsonl.
#
#   make -f pipelines/selfplay.mk INIT=bc/model.h5 OUT=sp/ [ITERS=3 GAMES=64 SEEDS=50]
#
# Iteration i lives in OUT/iter-i/: samples.bin, run/ (metrics.jsonl,
# checkpoints, plots/), model.h5, arena.json and arena.txt, league.json and
# best.h5 (chosen from league.json, so from that iteration's arena result).
# Every stage is a file, so the loop resumes where it stopped, and raising
# ITERS continues it. OUT/league.jsonl is made anew from the iterations'
# league.json, never appended to, and OUT/best.h5 is the last iteration's
# best.h5. OUT/plots/league.png shows the strength over the iterations.
# Runs from any directory; programs from BIN as in bc.mk; DEVICE as in bc.mk.
#
# Crash safety and rebuilds follow pipelines/common.mk: every target is
# renamed into place when complete, so after `kill -9` a rerun makes exactly
# the targets that are missing. Iteration 0 depends on the file INIT, and
# the stages on the stamps of their settings:
#   OUT/.sp-init.settings   INIT (the path)
#   OUT/.sp-play.settings   GAMES TABLES TEMP SEED
#   OUT/.sp-fit.settings    BATCH PPO_FLAGS
#   OUT/.sp-arena.settings  SEEDS
#   OUT/.sp-league.settings ITERS (league.jsonl, best.h5, the league plot)
# so a changed setting remakes its stage of every iteration and all after
# it. A PPO run resumes (--resume) under the rule of bc.mk.

include $(dir $(abspath $(lastword $(MAKEFILE_LIST))))common.mk
INIT   ?=
OUT    ?= sp
ITERS  ?= 3
GAMES  ?= 64
TABLES ?= 32
TEMP   ?= 1
SEEDS  ?= 50
SEED   ?= 0
BATCH  ?= 256
PPO_FLAGS ?= --ppo-epochs 4 --lr 1e-4
$(call one-path,OUT)$(call one-path,INIT)
ifeq ($(CLEANING),)
$(if $(INIT),,$(error INIT is not set: give INIT=model.h5, e.g. the model.h5 of pipelines/bc.mk))
$(if $(wildcard $(INIT)),,$(error INIT='$(INIT)': No such file))
endif

ITER_LIST := $(shell seq 1 $(ITERS))
LAST := $(OUT)/iter-$(ITERS)

.PHONY: all plots clean
all: $(OUT)/league.jsonl $(OUT)/best.h5 plots

$(eval $(call settings,sp-init,INIT))
$(eval $(call settings,sp-play,GAMES TABLES TEMP SEED))
$(eval $(call settings,sp-fit,BATCH PPO_FLAGS))
$(eval $(call settings,sp-arena,SEEDS))
$(eval $(call settings,sp-league,ITERS))

$(OUT)/iter-0/model.h5: $(INIT) $(OUT)/.sp-init.settings
	$(untmp)
	@mkdir -p $(@D)
	cp -L $(INIT) $@.tmp
	$(commit)
$(OUT)/iter-0/best.h5: $(OUT)/iter-0/model.h5
	$(untmp)
	cp $< $@.tmp
	$(commit)

# $(1): the iteration, $(2): the one before it
define ITERATION
$(OUT)/iter-$(1)/samples.bin: $(OUT)/iter-$(2)/model.h5 $(OUT)/iter-$(2)/best.h5 \
		$(OUT)/.sp-play.settings
	$$(untmp)
	$(P)hydra-sp --games $(GAMES) --seed $$$$(( $(SEED) + $(1) )) --tables $(TABLES) \
		--rotate $(OUT)/iter-$(2)/model.h5,baseline,$(OUT)/iter-$(2)/best.h5,baseline \
		--learner --temperature $(TEMP) --device $(DEVICE) -o $$@

$(OUT)/iter-$(1)/run/done: $(OUT)/iter-$(1)/samples.bin $(OUT)/iter-$(2)/model.h5 \
		$(OUT)/.sp-fit.settings
	$$(untmp)
	if $$(call resumable,$(OUT)/iter-$(1)/run); then \
		$(P)hydra-fit --mode ppo --resume $(OUT)/iter-$(1)/run $(PPO_FLAGS) --device $(DEVICE) \
			--out $(OUT)/iter-$(1)/run < $$<; \
	else \
		$$(call fresh-run,$(OUT)/iter-$(1)/run) && \
		$(P)hydra-fit --mode ppo --init $(OUT)/iter-$(2)/model.h5 \
			--batch $(BATCH) $(PPO_FLAGS) --device $(DEVICE) -j $(THREADS) \
			--out $(OUT)/iter-$(1)/run < $$<; \
	fi
	readlink $(OUT)/iter-$(1)/run/latest > $$@.tmp
	$$(commit)

$(OUT)/iter-$(1)/model.h5: $(OUT)/iter-$(1)/run/done
	$$(untmp)
	cp -L $(OUT)/iter-$(1)/run/latest $$@.tmp
	$$(commit)

$(OUT)/iter-$(1)/arena.json: $(OUT)/iter-$(1)/model.h5 $(OUT)/iter-$(2)/best.h5 \
		$(OUT)/.sp-arena.settings
	$$(untmp)
	$(P)hydra-eval -q --challenger $$< --opponent $(OUT)/iter-$(2)/best.h5 \
		--seeds $(SEEDS) --seed $$$$(( 1000 + $(1) )) --device $(DEVICE) -j $(THREADS) \
		--table-out $(OUT)/iter-$(1)/arena.txt --json > $$@.tmp
	$$(commit)
	cat $(OUT)/iter-$(1)/arena.txt

# promoted when the whole 95% interval of the points is above zero
$(OUT)/iter-$(1)/league.json: $(OUT)/iter-$(1)/arena.json
	$$(untmp)
	jq -c '{iter: $(1), challenger: .challenger, opponent: .opponent, seeds: .seeds_counted, \
		points: .points.mean, lo: .points.lo, hi: .points.hi, rank: .rank.mean, \
		promoted: (.points.lo > 0)}' $$< > $$@.tmp
	$$(commit)
	cat $$@

$(OUT)/iter-$(1)/best.h5: $(OUT)/iter-$(1)/league.json $(OUT)/iter-$(1)/model.h5 \
		$(OUT)/iter-$(2)/best.h5
	$$(untmp)
	if [ "$$$$(jq -r .promoted $$<)" = true ]; then cp $(OUT)/iter-$(1)/model.h5 $$@.tmp; \
	else cp $(OUT)/iter-$(2)/best.h5 $$@.tmp; fi
	$$(commit)

$(OUT)/iter-$(1)/run/metrics.jsonl: $(OUT)/iter-$(1)/run/done ;
$(OUT)/iter-$(1)/run/plots/losses.png: $(OUT)/iter-$(1)/run/metrics.jsonl $(HERE)plots.mk \
		$(HERE)metrics.gp
	$(MAKE) --no-print-directory -f $(HERE)plots.mk RUN=$(OUT)/iter-$(1)/run
endef
$(foreach i,$(ITER_LIST),$(eval $(call ITERATION,$(i),$(shell expr $(i) - 1))))

# made anew from the iterations' records; never appended to
$(OUT)/league.jsonl: $(foreach i,$(ITER_LIST),$(OUT)/iter-$(i)/league.json) \
		$(OUT)/.sp-league.settings
	$(untmp)
	cat $(foreach i,$(ITER_LIST),$(OUT)/iter-$(i)/league.json) > $@.tmp
	$(commit)

$(OUT)/best.h5: $(LAST)/best.h5 $(OUT)/league.jsonl
	$(untmp)
	cp $(LAST)/best.h5 $@.tmp
	$(commit)

plots: $(OUT)/plots/league.png $(foreach i,$(ITER_LIST),$(OUT)/iter-$(i)/run/plots/losses.png)
$(OUT)/plots/league.png: $(OUT)/league.jsonl $(HERE)plots.mk $(HERE)league.gp
	$(MAKE) --no-print-directory -f $(HERE)plots.mk LEAGUE=$(OUT)/league.jsonl

clean:
	rm -rf $(OUT)
