# The self-play league (ARCHITECTURE.md §9a): starting from a trained model
# (INIT, e.g. bc/model.h5 from pipelines/bc.mk: the frozen start), each
# iteration
#   1. plays GAMES hanchan with hydra-sp's league: the learner (the last
#      model) holds one seat, the others drawn as the learner itself, an
#      earlier model of the run (the pool: iterations 1 ... i-2, the last
#      six) or the frozen start, in the proportions MIX (0.5,0.3,0.2);
#      samples of the learner's seats only; rewarded by REWARD (placement,
#      or grp:PATH for per-kyoku GRP rewards, normalised by a running
#      standard deviation kept in iter-i/reward-state);
#   2. improves it with hydra-fit --mode ppo from those samples (one pass of
#      rollout batches, the LR's cosine and the schedule over the steps
#      the file allows): the league's schedule over HORIZON iterations (8;
#      --progress (i-1)/HORIZON:i/HORIZON, 1 past it, so that raising ITERS
#      continues the loop without remaking it), a KL anchor to the start (ANCHOR,
#      0.05 annealed over the first 30%), a critic-only warm-up of
#      VALUE_WARMUP steps in iteration 1, plus PPO_FLAGS;
#   3. plays the new model in the arena (1 vs 3, duplicate, SEEDS seeds)
#      against the best so far and against the fixed yardstick YARDSTICK
#      (the rule bot rulebot);
#   4. promotes it to best when the 95% interval of its placement points
#      against the best lies above zero, and records both arena results as
#      iter-i/league.json, one line of OUT/league.jsonl.
#
#   make -f pipelines/selfplay.mk INIT=bc/model.h5 OUT=sp/ [ITERS=3 GAMES=64 SEEDS=400]
#
# Iteration i lives in OUT/iter-i/: samples.bin, reward-state (with a GRP),
# run/ (metrics.jsonl, checkpoints, plots/), model.h5, arena.json and
# arena.txt (against the best), yard.json and yard.txt (against the
# yardstick), league.json and best.h5 (chosen from league.json, so from
# that iteration's arena result). Every stage is a file, so the loop
# resumes where it stopped, and raising ITERS continues it. OUT/league.jsonl
# is made anew from the iterations' league.json, never appended to, and
# OUT/best.h5 is the last iteration's best.h5. OUT/plots/league.png shows
# the strength over the iterations against both. SEEDS defaults to 400: at
# 100 seeds a 95% interval of the mean rank is about +-0.09 wide, too wide
# for the few hundredths an iteration moves. SEQUENTIAL=1 plays both
# arenas by hydra-eval --sequential (looks of 100, 200, 400 ... seeds up to
# SEEDS, stopping at the first whose interval of the mean rank excludes
# 2.5, 95% over the looks): a clear result costs a quarter of the games,
# and the time goes to self-play. Runs from any directory;
# programs from BIN as in bc.mk; DEVICE as in bc.mk.
#
# Crash safety and rebuilds follow pipelines/common.mk: every target is
# renamed into place when complete, so after `kill -9` a rerun makes exactly
# the targets that are missing. Iteration 0 depends on the file INIT, and
# the stages on the stamps of their settings:
#   OUT/.sp-init.settings   INIT (the path)
#   OUT/.sp-play.settings   GAMES TABLES TEMP SEED MIX REWARD
#   OUT/.sp-fit.settings    BATCH PPO_FLAGS ANCHOR VALUE_WARMUP HORIZON
#   OUT/.sp-arena.settings  SEEDS SEQUENTIAL
#   OUT/.sp-yard.settings   SEEDS SEQUENTIAL YARDSTICK
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
SEEDS  ?= 400
SEQUENTIAL ?=
SEED   ?= 0
BATCH  ?= 4096
PPO_FLAGS ?= --lr 1e-4
MIX    ?= 0.5,0.3,0.2
REWARD ?= placement
ANCHOR ?= 0.05
VALUE_WARMUP ?= 8
HORIZON ?= 8
YARDSTICK ?= rulebot
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
$(eval $(call settings,sp-play,GAMES TABLES TEMP SEED MIX REWARD))
$(eval $(call settings,sp-fit,BATCH PPO_FLAGS ANCHOR VALUE_WARMUP HORIZON))
$(eval $(call settings,sp-arena,SEEDS SEQUENTIAL))
$(eval $(call settings,sp-yard,SEEDS SEQUENTIAL YARDSTICK))

# a GRP reward: the normalisation carried from iteration to iteration
GRP := $(patsubst grp:%,%,$(filter grp:%,$(REWARD)))
# the pool of iteration $(1): the models of iterations 1 ... $(1)-2, the last six
pool = $(subst $(space),$(comma),$(strip $(foreach j,$(shell seq $$(( $(1) > 7 ? $(1) - 7 : 1 )) $$(( $(1) - 2 ))),$(OUT)/iter-$(j)/model.h5)))
comma := ,
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
$(OUT)/iter-0/reward-state: $(OUT)/iter-0/model.h5
	$(untmp)
	: > $@.tmp
	$(commit)

# $(1): the iteration, $(2): the one before it
# A PPO run resumed (its input a file, whose size gives its steps: a run
# killed after its last step but before run/done was written is done, and
# hydra-fit says "nothing to do" with status 2, as in bc.mk)
sp-resume = $(P)hydra-fit --mode ppo --resume $(OUT)/iter-$(1)/run $(PPO_FLAGS) \
	--device $(DEVICE) --out $(OUT)/iter-$(1)/run < $(OUT)/iter-$(1)/samples.bin

define ITERATION
$(OUT)/iter-$(1)/samples.bin: $(OUT)/iter-$(2)/model.h5 $(OUT)/iter-0/model.h5 \
		$(OUT)/iter-$(2)/reward-state $(if $(GRP),$(GRP)) \
		$(foreach j,$(subst $(comma), ,$(call pool,$(1))),$(j)) $(OUT)/.sp-play.settings
	$$(untmp)
	@rm -f $(OUT)/iter-$(1)/reward-state.tmp
	@mkdir -p $(OUT)/iter-$(1)
	$(if $(GRP),if [ -s $(OUT)/iter-$(2)/reward-state ]; then \
		cp $(OUT)/iter-$(2)/reward-state $(OUT)/iter-$(1)/reward-state.tmp; fi)
	$(P)hydra-sp --games $(GAMES) --seed $$$$(( $(SEED) + $(1) )) --tables $(TABLES) \
		--policy $(OUT)/iter-$(2)/model.h5 --start $(OUT)/iter-0/model.h5 \
		$(if $(call pool,$(1)),--pool $(call pool,$(1))) --mix $(MIX) \
		$(if $(GRP),--reward $(REWARD) --reward-state $(OUT)/iter-$(1)/reward-state.tmp) \
		--temperature $(TEMP) --device $(DEVICE) -o $$@.tmp
	$(if $(GRP),mv -f $(OUT)/iter-$(1)/reward-state.tmp $(OUT)/iter-$(1)/reward-state,\
		: > $(OUT)/iter-$(1)/reward-state)
	$$(commit)
$(OUT)/iter-$(1)/reward-state: $(OUT)/iter-$(1)/samples.bin ;

$(OUT)/iter-$(1)/run/done: $(OUT)/iter-$(1)/samples.bin $(OUT)/iter-$(2)/model.h5 \
		$(OUT)/.sp-fit.settings
	$$(untmp)
	if $$(call resumable,$(OUT)/iter-$(1)/run); then \
		$(call sp-resume,$(1)) || { s=$$$$?; [ $$$$s -eq 2 ] && \
			$(call sp-resume,$(1)) 2>&1 | grep -q 'nothing to do' || exit $$$$s; }; \
	else \
		$$(call fresh-run,$(OUT)/iter-$(1)/run) && \
		$(P)hydra-fit --mode ppo --init $(OUT)/iter-$(2)/model.h5 \
			--batch $(BATCH) --progress $$$$(echo "$(2) $(1) $(HORIZON)" | \
			awk '{a = $$$$1 / $$$$3; b = $$$$2 / $$$$3; \
				printf "%.6f:%.6f", (a > 1 ? 1 : a), (b > 1 ? 1 : b)}') \
			$(if $(filter 0,$(ANCHOR)),,--anchor $(OUT)/iter-0/model.h5 --anchor-coef $(ANCHOR)) \
			$(if $(filter 1,$(1)),--value-warmup $(VALUE_WARMUP)) \
			$(PPO_FLAGS) --device $(DEVICE) -j $(THREADS) \
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
		--seeds $(SEEDS) $(if $(SEQUENTIAL),--sequential) --seed $$$$(( 1000 + $(1) )) \
		--device $(DEVICE) -j $(THREADS) \
		--table-out $(OUT)/iter-$(1)/arena.txt --json > $$@.tmp
	$$(commit)
	cat $(OUT)/iter-$(1)/arena.txt

$(OUT)/iter-$(1)/yard.json: $(OUT)/iter-$(1)/model.h5 $(OUT)/.sp-yard.settings
	$$(untmp)
	$(P)hydra-eval -q --challenger $$< --opponent $(YARDSTICK) \
		--seeds $(SEEDS) $(if $(SEQUENTIAL),--sequential) --seed 5000 --device $(DEVICE) \
		-j $(THREADS) \
		--table-out $(OUT)/iter-$(1)/yard.txt --json > $$@.tmp
	$$(commit)
	cat $(OUT)/iter-$(1)/yard.txt

# promoted when the whole 95% interval of the points against the best is
# above zero; the yardstick's result is recorded beside it
$(OUT)/iter-$(1)/league.json: $(OUT)/iter-$(1)/arena.json $(OUT)/iter-$(1)/yard.json
	$$(untmp)
	jq -c -s '.[0] as $$$$a | .[1] as $$$$y | {iter: $(1), challenger: $$$$a.challenger, \
		opponent: $$$$a.opponent, seeds: $$$$a.seeds_counted, points: $$$$a.points.mean, \
		lo: $$$$a.points.lo, hi: $$$$a.points.hi, rank: $$$$a.rank.mean, \
		rank_lo: $$$$a.rank.lo, rank_hi: $$$$a.rank.hi, promoted: ($$$$a.points.lo > 0), \
		conf: $$$$a.confidence, yardstick: $$$$y.opponent, yard_seeds: $$$$y.seeds_counted, \
		yard_rank: $$$$y.rank.mean, yard_lo: $$$$y.rank.lo, yard_hi: $$$$y.rank.hi, \
		yard_points: $$$$y.points.mean, yard_conf: $$$$y.confidence}' $$^ > $$@.tmp
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

plots: $(OUT)/plots/league.png $(OUT)/plots/all/losses.png \
	$(foreach i,$(ITER_LIST),$(OUT)/iter-$(i)/run/plots/losses.png)
$(OUT)/plots/league.png: $(OUT)/league.jsonl $(HERE)plots.mk $(HERE)league.gp
	$(MAKE) --no-print-directory -f $(HERE)plots.mk LEAGUE=$(OUT)/league.jsonl
# the iterations' PPO runs as one curve (plots/all/: losses, training, ppo)
$(OUT)/plots/all/losses.png: $(foreach i,$(ITER_LIST),$(OUT)/iter-$(i)/run/metrics.jsonl) \
		$(OUT)/league.jsonl $(HERE)plots.mk $(HERE)metrics.gp
	$(MAKE) --no-print-directory -f $(HERE)plots.mk LEAGUE=$(OUT)/league.jsonl \
		RUNS="$(foreach i,$(ITER_LIST),$(OUT)/iter-$(i)/run)"

clean:
	rm -rf $(OUT)
