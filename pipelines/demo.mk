# make demo: the main job of the toolkit on an embedded default, needing no
# downloaded data — the strength recipe of pipelines/strength.mk at the
# demo's size: generate games with the rule teacher rulebot (hydra-sp),
# check and encode them, augment, train a small network on the CPU
# (behaviour cloning, pipelines/bc.mk), train the global reward predictor
# on the same games (hydra-fit --mode grp), measure the clone in the arena
# against random players and the baseline rule bot, tune rulebot's numbers
# by self-play (hydra-tune, TUNE_SEEDS seeds, TUNE_SWEEPS sweeps) and
# fine-tune the clone on DISTIL_GAMES games of that tuned teacher
# (DISTIL_STEPS steps), improve it with a few
# PPO league iterations rewarded per kyoku by the GRP, each measured
# against the best so far and against rulebot (pipelines/selfplay.mk), and
# leave the checkpoints, plots and arena tables under OUT, with a review
# of the first game's seat 0 by the best model (OUT/review.html, a page
# for a browser: hydra-review), summarised in OUT/summary.txt, which ends
# with a plain line on whether the model beat the rule bot and a
# comparison with the shipped model (models/policy.h5) on the same arena's
# seeds. A second run reuses what is done.
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
#   OUT/.demo-grp.settings    GRP_EPOCHS
#   OUT/.demo-tune.settings   TUNE_SEEDS TUNE_SWEEPS
#   OUT/.demo-distil.settings DISTIL_GAMES DISTIL_STEPS
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
GRP_EPOCHS ?= 10
TUNE_SEEDS ?= 32
TUNE_SWEEPS ?= 1
DISTIL_GAMES ?= 50
DISTIL_STEPS ?= 200
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
$(eval $(call settings,demo-grp,GRP_EPOCHS))
$(eval $(call settings,demo-tune,TUNE_SEEDS TUNE_SWEEPS))
$(eval $(call settings,demo-distil,DISTIL_GAMES DISTIL_STEPS))

# logs.done: the number of games in OUT/logs
$(OUT)/logs.done: $(OUT)/.demo-logs.settings
	@echo "== 1/10 hydra-sp: $(GAMES) games of the rule teacher rulebot against itself, mjai logs"
	$(untmp)
	rm -rf $(OUT)/logs.tmp
	$(P)hydra-sp --games $(GAMES) --policy rulebot --seed 1 -j $(THREADS) \
		--log-dir $(OUT)/logs.tmp --no-samples
	rm -rf $@ $(OUT)/logs
	mv $(OUT)/logs.tmp $(OUT)/logs
	ls $(OUT)/logs | wc -l > $@.tmp
	$(commit)

# bc.mk and selfplay.mk run every time (FORCE): they know when to remake
$(OUT)/bc/model.h5: $(OUT)/logs.done FORCE
	@echo "== 2/10 behaviour cloning: check, encode, augment, train ($(STEPS) steps, $(ARCH))"
	$(BC) $(OUT)/bc/model.h5 $(OUT)/bc/eval.json $(OUT)/bc/run/plots/losses.png

$(OUT)/arena-random.json: $(OUT)/bc/model.h5 $(OUT)/.demo-arena.settings
	@echo "== 3/10 arena: the cloned model against three random players"
	$(untmp)
	$(P)hydra-eval -q --challenger $< --opponent random --seeds $(SEEDS) --seed 7 \
		--device $(DEVICE) -j $(THREADS) --table-out $(OUT)/arena-random.txt --json > $@.tmp
	$(commit)
	cat $(OUT)/arena-random.txt

$(OUT)/bc/arena.json: $(OUT)/bc/model.h5 FORCE
	@echo "== 4/10 arena: the cloned model against three baseline rule bots"
	$(BC) $(OUT)/bc/arena.json

$(OUT)/grp/grp.h5: $(OUT)/logs.done $(OUT)/.demo-grp.settings
	@echo "== 5/10 the global reward predictor on the same games ($(GRP_EPOCHS) epochs)"
	$(untmp)
	rm -rf $(OUT)/grp
	$(P)hydra-fit --mode grp --epochs $(GRP_EPOCHS) -q -o $(OUT)/grp $(OUT)/logs

# the tuned teacher (hydra-tune writes it atomically), its games, the clone
# fine-tuned on them in a fresh run: the league's start
$(OUT)/tune/teacher.params: $(OUT)/.demo-tune.settings
	@echo "== 6/10 hydra-tune: rulebot's numbers tuned by self-play ($(TUNE_SEEDS) seeds a step, sweeps: $(TUNE_SWEEPS))"
	$(untmp)
	@mkdir -p $(@D)
	$(P)hydra-tune -q --seeds $(TUNE_SEEDS) --sweeps $(TUNE_SWEEPS) -j $(THREADS) -o $@
$(OUT)/distil/games.bin: $(OUT)/tune/teacher.params $(OUT)/.demo-distil.settings
	@echo "== 7/10 distillation: $(DISTIL_GAMES) games of the tuned teacher, the clone fine-tuned on them ($(DISTIL_STEPS) steps)"
	$(untmp)
	$(P)hydra-sp --games $(DISTIL_GAMES) --policy rulebot:$(OUT)/tune/teacher.params --seed 2 \
		-j $(THREADS) -o $@
$(OUT)/distil/model.h5: $(OUT)/distil/games.bin $(OUT)/bc/model.h5
	$(untmp)
	rm -rf $(OUT)/distil/run
	$(P)hydra-fit -q --init $(OUT)/bc/model.h5 --steps $(DISTIL_STEPS) --lr 2e-4 \
		--device $(DEVICE) -j $(THREADS) -o $(OUT)/distil/run $<
	cp -L $(OUT)/distil/run/latest $@.tmp
	$(commit)

$(OUT)/sp/league.jsonl: $(OUT)/grp/grp.h5 $(OUT)/distil/model.h5 FORCE
	@echo "== 8/10 league: $(ITERS) PPO iterations of $(SP_GAMES) games from the distilled clone, arenas vs the best and vs rulebot"
	$(SUB) -f $(HERE)selfplay.mk INIT=$(OUT)/distil/model.h5 OUT=$(OUT)/sp ITERS=$(ITERS) \
		GAMES=$(SP_GAMES) SEEDS=$(SP_SEEDS) TABLES=16 REWARD=grp:$(OUT)/grp/grp.h5 \
		YARDSTICK=rulebot HORIZON=$(ITERS) all

$(OUT)/review.html: $(OUT)/sp/best.h5 $(OUT)/logs.done
	@echo "== 9/10 review: the first game's seat 0 by the best model, a page for a browser"
	$(untmp)
	$(P)hydra-review --model $(OUT)/sp/best.h5 --seat 0 --device $(DEVICE) -j $(THREADS) \
		$(OUT)/logs/game-00000000.json.gz > $@.tmp
	$(commit)

# the shipped model (models/README.md) in the arena the verdict's model
# played: against rulebot on the same SP_SEEDS seeds at selfplay.mk's
# master seed of the yardstick, 5000; hydra-eval finds the shipped policy
# itself (no --challenger)
$(OUT)/shipped-vs-rulebot.json: $(OUT)/sp/iter-$(ITERS)/yard.json
	$(untmp)
	$(P)hydra-eval -q --opponent rulebot --seeds $(SP_SEEDS) --seed 5000 --device $(DEVICE) \
		-j $(THREADS) --json > $@.tmp
	$(commit)

# made by the recipe of bc/model.h5 and sp/league.jsonl
$(OUT)/bc/eval.json: $(OUT)/bc/model.h5 ;
$(OUT)/sp/best.h5: $(OUT)/sp/league.jsonl ;
$(OUT)/sp/iter-$(ITERS)/yard.json: $(OUT)/sp/league.jsonl ;

# jq programs of the summary: a league line, and the plain verdict
DEMO_LEAGUE := def r: if . == null then "n/a" else (. * 1000 | round / 1000) end; "  iteration \(.iter): vs best \(.rank|r) [\(.rank_lo|r), \(.rank_hi|r)] (\(.seeds) seeds), vs rulebot \(.yard_rank|r) [\(.yard_lo|r), \(.yard_hi|r)] (\(.yard_seeds) seeds)\(if .promoted then ", promoted" else "" end)"
DEMO_VS := def r: . * 1000 | round / 1000; def ci: if .rank.hi == null then "no interval" else "[\(.rank.lo|r), \(.rank.hi|r)]" end; "  \(.challenger): mean rank \(.rank.mean|r) \(ci) against 3 x rulebot, \(.seeds_counted) seeds at master seed 5000"
DEMO_VERDICT := def r: . * 1000 | round / 1000; if .rank.hi == null then "verdict: not decided: \(.seeds_counted) seeds give no interval" elif .rank.hi < 2.5 then "verdict: the model BEAT the rule bot rulebot (mean rank \(.rank.mean|r), 95% interval [\(.rank.lo|r), \(.rank.hi|r)] below 2.5, \(.seeds_counted) seeds)" else "verdict: the model did NOT beat the rule bot rulebot (mean rank \(.rank.mean|r), 95% interval [\(.rank.lo|r), \(.rank.hi|r)] not below 2.5, \(.seeds_counted) seeds)" end
$(OUT)/summary.txt: $(OUT)/arena-random.json $(OUT)/bc/arena.json $(OUT)/bc/eval.json \
		$(OUT)/sp/league.jsonl $(OUT)/sp/best.h5 $(OUT)/sp/iter-$(ITERS)/yard.json \
		$(OUT)/review.html $(OUT)/tune/teacher.params $(OUT)/shipped-vs-rulebot.json
	@echo "== 10/10 summary"
	$(untmp)
	{ echo "demo summary ($(OUT))"; \
	  echo; \
	  printf '%-34s %s\n' "games generated (rulebot)" "$(GAMES), logs in $(OUT)/logs"; \
	  sed -n 's/^# hydra-tune: /tuned teacher: /p' $(OUT)/tune/teacher.params; \
	  jq -r '"validation top-1 / top-3 accuracy  \(.accuracy.all.top1*1000|round/1000) / \(.accuracy.all.top3*1000|round/1000)"' $(OUT)/bc/eval.json; \
	  echo; \
	  printf '%-28s %-10s %-22s %s\n' "arena (1 vs 3, duplicate)" "mean rank" "points (95% CI)" "seeds"; \
	  for a in random:$(OUT)/arena-random.json baseline:$(OUT)/bc/arena.json; do \
	    jq -r --arg who "$${a%%:*}" '"cloned model vs \($$who)" as $$l | [$$l, (.rank.mean*1000|round/1000), (if .points.lo == null then "\(.points.mean*10|round/10) (no interval)" else "\(.points.mean*10|round/10) [\(.points.lo*10|round/10), \(.points.hi*10|round/10)]" end), .seeds_counted] | @tsv' "$${a#*:}"; \
	  done | awk -F'\t' '{printf "%-28s %-10s %-22s %s\n", $$1, $$2, $$3, $$4}'; \
	  echo; \
	  echo "league iterations (the candidate's mean rank [95% interval] against the best so far and against rulebot):"; \
	  jq -r '$(DEMO_LEAGUE)' $(OUT)/sp/league.jsonl; \
	  echo; \
	  jq -r '$(DEMO_VERDICT)' $(OUT)/sp/iter-$(ITERS)/yard.json; \
	  echo; \
	  echo "plots:"; \
	  ls $(OUT)/bc/run/plots/*.png $(OUT)/sp/plots/*.png $(OUT)/sp/iter-*/run/plots/*.png | sed 's/^/  /'; \
	  echo "models: $(OUT)/bc/model.h5 (cloned), $(OUT)/distil/model.h5 (fine-tuned on the tuned teacher), $(OUT)/sp/best.h5 (best after self-play)"; \
	  echo "tuned teacher: rulebot:$(OUT)/tune/teacher.params (play it: hydra-eval --challenger rulebot:$(OUT)/tune/teacher.params)"; \
	  echo "review: $(OUT)/review.html (game 1, seat 0, by the best model: open it in a browser)"; \
	  echo; \
	  echo "this demo's model against the shipped one (models/README.md), the same arena and seeds (lower is better):"; \
	  jq -r '$(DEMO_VS)' $(OUT)/sp/iter-$(ITERS)/yard.json $(OUT)/shipped-vs-rulebot.json; \
	  jq -r -s 'def r: . * 1000 | round / 1000; (.[0].rank.mean - .[1].rank.mean) as $$d | "  the shipped model ranks \($$d|fabs|r) \(if $$d > 0 then "better" elif $$d < 0 then "worse" else "the same" end) on these seeds; models/README.md gives its figures at 400 seeds"' \
	    $(OUT)/sp/iter-$(ITERS)/yard.json $(OUT)/shipped-vs-rulebot.json; \
	} > $@.tmp
	$(commit)
