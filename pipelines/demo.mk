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

include $(dir $(abspath $(lastword $(MAKEFILE_LIST))))common.mk
OUT    ?= demo-run
GAMES  ?= 100
STEPS  ?= 400
SEEDS  ?= 16
ITERS  ?= 2
SP_GAMES ?= 24
SP_SEEDS ?= 8
SUB := $(MAKE) --no-print-directory BIN=$(BIN) DEVICE=$(DEVICE) THREADS=$(THREADS)

.PHONY: all
.DELETE_ON_ERROR:
all: $(OUT)/summary.txt
	@cat $<
	@echo "demo: everything is in '$(OUT)' (kept): models, plots, arena tables"

$(OUT)/logs.done:
	@echo "== 1/6 hydra-sp: $(GAMES) games of the rule bot against itself, mjai logs"
	$(P)hydra-sp --games $(GAMES) --policy baseline --seed 1 -j $(THREADS) \
		--log-dir $(OUT)/logs --no-samples
	touch $@

$(OUT)/bc/model.h5: $(OUT)/logs.done
	@echo "== 2/6 behaviour cloning: check, encode, augment, train ($(STEPS) steps, small)"
	$(SUB) -f $(HERE)bc.mk LOGS=$(OUT)/logs OUT=$(OUT)/bc ARCH=small STEPS=$(STEPS) \
		VAL=0.1 SEEDS=$(SEEDS) $(OUT)/bc/model.h5 $(OUT)/bc/eval.json \
		$(OUT)/bc/run/plots/losses.png

$(OUT)/arena-random.json: $(OUT)/bc/model.h5
	@echo "== 3/6 arena: the cloned model against three random players"
	$(P)hydra-eval -q --challenger $< --opponent random --seeds $(SEEDS) --seed 7 \
		--device $(DEVICE) -j $(THREADS) --table-out $(OUT)/arena-random.txt --json > $@
	cat $(OUT)/arena-random.txt

$(OUT)/bc/arena.json: $(OUT)/bc/model.h5
	@echo "== 4/6 arena: the cloned model against three rule bots"
	$(SUB) -f $(HERE)bc.mk LOGS=$(OUT)/logs OUT=$(OUT)/bc SEEDS=$(SEEDS) SEED=7 \
		$(OUT)/bc/arena.json

$(OUT)/sp/league.jsonl: $(OUT)/bc/model.h5
	@echo "== 5/6 self-play: $(ITERS) PPO iterations of $(SP_GAMES) games, arena vs the best"
	$(SUB) -f $(HERE)selfplay.mk INIT=$(OUT)/bc/model.h5 OUT=$(OUT)/sp ITERS=$(ITERS) \
		GAMES=$(SP_GAMES) SEEDS=$(SP_SEEDS) TABLES=16 all

$(OUT)/summary.txt: $(OUT)/arena-random.json $(OUT)/bc/arena.json $(OUT)/sp/league.jsonl
	@echo "== 6/6 summary"
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
	} > $@
