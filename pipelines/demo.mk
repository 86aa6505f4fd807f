# make demo: the main job of the toolkit on an embedded default, needing no
# downloaded data: generate games with the rule bot (hydra-sp), check and
# encode them, augment, train a small network on the CPU (behaviour cloning,
# pipelines/bc.mk), measure it in the arena against random players and the
# rule bot, improve it with a few PPO self-play iterations
# (pipelines/selfplay.mk), and leave the checkpoints, plots and arena tables
# under OUT, summarised in OUT/summary.txt. A second run reuses what is done.
#
#   make -f pipelines/demo.mk OUT=demo-run [GAMES=100 STEPS=400 ITERS=2]
#
# Sized for about 10 minutes on 2 cores; DEVICE=auto uses a GPU when the
# CUDA backend is built and one is usable.
#
# Crash safety and rebuilds follow pipelines/common.mk: every target is
# renamed into place when complete (the logs are generated into
# OUT/logs.tmp/, renamed to OUT/logs/ whole), so after `kill -9` a rerun
# makes exactly what is missing. The stamps of settings:
#   OUT/.demo-logs.settings   GAMES
#   OUT/.demo-arena.settings  SEEDS (the arena against random players)
# bc.mk and selfplay.mk run on every call, given ARCH STEPS VAL SEEDS and ITERS
# SP_GAMES SP_SEEDS, and decide for themselves what to remake (their stamps
# are under OUT/bc/ and OUT/sp/).
include $(dir $(abspath $(lastword $(MAKEFILE_LIST))))common.mk
OUT    ?= demo-run
GAMES  ?= 100
ARCH   ?= small
STEPS  ?= 400
VAL    ?= 0.1
SEEDS  ?= 16
ITERS  ?= 2
SP_GAMES ?= 24
SP_SEEDS ?= 8
$(call one-path,OUT)
SUB := $(MAKE) --no-print-directory BIN=$(BIN) DEVICE=$(DEVICE) THREADS=$(THREADS)
BC  := $(SUB) -f $(HERE)bc.mk LOGS=$(OUT)/logs OUT=$(OUT)/bc ARCH=$(ARCH) STEPS=$(STEPS) \
	VAL=$(VAL) SEEDS=$(SEEDS) SEED=7

.PHONY: all
all: $(OUT)/summary.txt
	@cat $<
	@echo "demo: everything is in '$(OUT)' (kept): models, plots, arena tables"

$(eval $(call settings,demo-logs,GAMES))
$(eval $(call settings,demo-arena,SEEDS))

# logs.done: the number of games in OUT/logs
$(OUT)/logs.done: $(OUT)/.demo-logs.settings
	@echo "== 1/6 hydra-sp: $(GAMES) games of the rule bot against itself, mjai logs"
	$(untmp)
	rm -rf $(OUT)/logs.tmp
	$(P)hydra-sp --games $(GAMES) --policy baseline --seed 1 -j $(THREADS) \
		--log-dir $(OUT)/logs.tmp --no-samples
	rm -rf $@ $(OUT)/logs
	mv $(OUT)/logs.tmp $(OUT)/logs
	ls $(OUT)/logs | wc -l > $@.tmp
	$(commit)

# bc.mk and selfplay.mk run every time (FORCE): they know when to remake
$(OUT)/bc/model.h5: $(OUT)/logs.done FORCE
	@echo "== 2/6 behaviour cloning: check, encode, augment, train ($(STEPS) steps, $(ARCH))"
	$(BC) $(OUT)/bc/model.h5 $(OUT)/bc/eval.json $(OUT)/bc/run/plots/losses.png

$(OUT)/arena-random.json: $(OUT)/bc/model.h5 $(OUT)/.demo-arena.settings
	@echo "== 3/6 arena: the cloned model against three random players"
	$(untmp)
	$(P)hydra-eval -q --challenger $< --opponent random --seeds $(SEEDS) --seed 7 \
		--device $(DEVICE) -j $(THREADS) --table-out $(OUT)/arena-random.txt --json > $@.tmp
	$(commit)
	cat $(OUT)/arena-random.txt

$(OUT)/bc/arena.json: $(OUT)/bc/model.h5 FORCE
	@echo "== 4/6 arena: the cloned model against three rule bots"
	$(BC) $(OUT)/bc/arena.json

$(OUT)/sp/league.jsonl: $(OUT)/bc/model.h5 FORCE
	@echo "== 5/6 self-play: $(ITERS) PPO iterations of $(SP_GAMES) games, arena vs the best"
	$(SUB) -f $(HERE)selfplay.mk INIT=$(OUT)/bc/model.h5 OUT=$(OUT)/sp ITERS=$(ITERS) \
		GAMES=$(SP_GAMES) SEEDS=$(SP_SEEDS) TABLES=16 all

# made by the recipe of bc/model.h5 and sp/league.jsonl
$(OUT)/bc/eval.json: $(OUT)/bc/model.h5 ;
$(OUT)/sp/best.h5: $(OUT)/sp/league.jsonl ;

$(OUT)/summary.txt: $(OUT)/arena-random.json $(OUT)/bc/arena.json $(OUT)/bc/eval.json \
		$(OUT)/sp/league.jsonl $(OUT)/sp/best.h5
	@echo "== 6/6 summary"
	$(untmp)
	{ echo "demo summary ($(OUT))"; \
	  echo; \
	  printf '%-34s %s\n' "games generated (rule bot)" "$(GAMES), logs in $(OUT)/logs"; \
	  jq -r '"validation top-1 / top-3 accuracy  \(.accuracy.all.top1*1000|round/1000) / \(.accuracy.all.top3*1000|round/1000)"' $(OUT)/bc/eval.json; \
	  echo; \
	  printf '%-28s %-10s %-22s %s\n' "arena (1 vs 3, duplicate)" "mean rank" "points (95% CI)" "games"; \
	  for a in random:$(OUT)/arena-random.json baseline:$(OUT)/bc/arena.json; do \
	    jq -r --arg who "$${a%%:*}" '"cloned model vs \($$who)" as $$l | [$$l, (.rank.mean*1000|round/1000), "\(.points.mean*10|round/10) [\(.points.lo*10|round/10), \(.points.hi*10|round/10)]", .games] | @tsv' "$${a#*:}"; \
	  done | awk -F'\t' '{printf "%-28s %-10s %-22s %s\n", $$1, $$2, $$3, $$4}'; \
	  echo; \
	  echo "self-play iterations (candidate vs the best so far):"; \
	  jq -r '"  iteration \(.iter): mean rank \(.rank*1000|round/1000), points \(.points*10|round/10) [\(.lo*10|round/10), \(.hi*10|round/10)]\(if .promoted then ", promoted" else "" end)"' $(OUT)/sp/league.jsonl; \
	  echo; \
	  echo "plots:"; \
	  ls $(OUT)/bc/run/plots/*.png $(OUT)/sp/plots/*.png $(OUT)/sp/iter-*/run/plots/*.png | sed 's/^/  /'; \
	  echo "models: $(OUT)/bc/model.h5 (cloned), $(OUT)/sp/best.h5 (best after self-play)"; \
	} > $@.tmp
	$(commit)
