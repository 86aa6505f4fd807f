# Behaviour cloning, the whole workflow: logs → checked events → shards with a
# validation split by game → 6-way augmented shards → a trained run → its
# dataset metrics on the validation shards → an arena run against the rule
# bot → plots.
#
#   make -f pipelines/bc.mk LOGS=path/to/logs OUT=bc/ [ARCH=small EPOCHS=3 SEEDS=100]
#
# (STEPS=N trains N steps instead of EPOCHS epochs; LR=X sets hydra-fit's
# peak learning rate; FIT_FLAGS are more hydra-fit options, given to a
# resumed run too and in no stamp.)
#
# Runs from any directory; programs from BIN (default: the build/bin of the
# checkout this file is in, or the bin/ of the prefix it is installed under,
# else PATH). Every stage is a file to inspect (`mjai-parse --json
# OUT/events.bin`, OUT/events.checked (the rules check's report), `h5dump -H
# OUT/shards/val-0000.h5`, OUT/eval.txt, OUT/arena.txt, OUT/run/plots/*.png),
# so an interrupted workflow resumes where it stopped. DEVICE selects
# hydra-fit's and the arena's device (auto, cpu, cuda).
#
# Crash safety and rebuilds follow pipelines/common.mk: every target is
# renamed into place when complete, so after `kill -9` a rerun makes exactly
# the targets that are missing; directories (shards/, aug/) are remade whole,
# before the stamp that lists them (shards.done, augment.done). The stamps of
# settings, remade stage and all after it when they change:
#   OUT/.bc-events.settings  LOGS, and the size, time and path of every file
#                            mjai-parse reads under it: adding, removing or
#                            changing a log re-parses; a LOGS that does not
#                            exist or holds no file is an error
#   OUT/.bc-shards.settings  SHARD VAL
#   OUT/.bc-fit.settings     ARCH BATCH LR, and STEPS or EPOCHS
#   OUT/.bc-arena.settings   SEEDS SEED
# Training resumes with --resume (OUT/run/done, naming the final checkpoint,
# is written only when hydra-fit succeeds) when OUT/run holds a checkpoint
# of a run started after every input of the stage was made (OUT/run/.started);
# otherwise the run is removed and trained afresh. While it trains, its
# plots (OUT/run/plots/) are redrawn after each evaluation (hydra-fit
# --on-eval), so they can be watched; LIVE_PLOTS= (empty) turns that off.

include $(dir $(abspath $(lastword $(MAKEFILE_LIST))))common.mk
LOGS   ?=
OUT    ?= bc
ARCH   ?= small
EPOCHS ?= 3
STEPS  ?=
LR     ?=
BATCH  ?= 256
SHARD  ?= 100000
VAL    ?= 0.05
SEEDS  ?= 100
SEED   ?= 0
FIT_FLAGS ?=
LIVE_PLOTS ?= 1
# a plot refresh after each evaluation: a make of its own (not this one's
# jobs), quiet, its failure only said by hydra-fit
ON_EVAL = $(if $(LIVE_PLOTS),--on-eval 'env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	$(MAKE) -s -f $(HERE)plots.mk RUN=$(OUT)/run > /dev/null 2>&1')
$(call one-path,OUT)$(call one-path,LOGS)

.PHONY: all events check shards augment fit eval arena plots clean
all: $(OUT)/arena.json $(OUT)/eval.json $(OUT)/run/plots/losses.png

# LOGS, then one line "size time path" per file that mjai-parse reads under
# it (it skips names that start with a dot), sorted by path
$(OUT)/.bc-events.settings: FORCE
	@[ -n $(call shq,$(LOGS)) ] || { echo "$(ME): LOGS is not set: give LOGS=path/to/logs" >&2; exit 1; }
	@[ -e $(call shq,$(LOGS)) ] || { echo "$(ME): LOGS='$(LOGS)': No such file or directory" >&2; exit 1; }
	@mkdir -p $(@D)
	@{ echo LOGS=$(call shq,$(LOGS)); \
	   if [ -d $(call shq,$(LOGS)) ]; then \
		find -L $(call shq,$(LOGS)) -mindepth 1 \( -name '.*' -prune -o -type f -printf '%s %T@ %p\n' \); \
	   else find -L $(call shq,$(LOGS)) -maxdepth 0 -printf '%s %T@ %p\n'; \
	   fi | LC_ALL=C sort -k 3; } > $@.tmp
	@[ "$$(wc -l < $@.tmp)" -gt 1 ] || { rm -f $@.tmp; \
		echo "$(ME): LOGS='$(LOGS)' holds no log file" >&2; exit 1; }
	@$(replace-if-changed)
$(eval $(call settings,bc-shards,SHARD VAL))
$(eval $(call settings,bc-fit,ARCH BATCH LR $(if $(STEPS),STEPS,EPOCHS)))
$(eval $(call settings,bc-arena,SEEDS SEED))

events: $(OUT)/events.bin
$(OUT)/events.bin: $(OUT)/.bc-events.settings
	$(untmp)
	$(P)mjai-parse --keep-going --stats $(LOGS) -o $@

# the report of the rules check
check: $(OUT)/events.checked
$(OUT)/events.checked: $(OUT)/events.bin
	$(untmp)
	$(P)mjai-parse --check $< 2> $@.tmp || { cat $@.tmp >&2; exit 1; }
	cat $@.tmp >&2
	$(commit)

# shards.done and augment.done list the files of shards/ and aug/
shards: $(OUT)/shards.done
$(OUT)/shards.done: $(OUT)/events.checked $(OUT)/.bc-shards.settings
	$(untmp)
	rm -rf $@ $(OUT)/shards
	$(P)hydra-encode --stats $(OUT)/events.bin -o '$(OUT)/shards/train-%04d.h5' \
		--shard-size $(SHARD) --val-fraction $(VAL) --val-output '$(OUT)/shards/val-%04d.h5'
	ls $(OUT)/shards > $@.tmp
	$(commit)

augment: $(OUT)/augment.done
$(OUT)/augment.done: $(OUT)/shards.done
	$(untmp)
	rm -rf $@ $(OUT)/aug
	for f in $(OUT)/shards/train-*.h5; do \
		$(P)hydra-augment --perms all "$$f" -o $(OUT)/aug/$$(basename "$$f") || exit 1; \
	done
	ls $(OUT)/aug > $@.tmp
	$(commit)

VALS = $(addprefix --val ,$(wildcard $(OUT)/shards/val-*.h5))
RESUME = $(P)hydra-fit --resume $(OUT)/run --device $(DEVICE) $(FIT_FLAGS) $(ON_EVAL) $(VALS) \
	--out $(OUT)/run $(OUT)/aug/train-*.h5
# hydra-fit refuses to resume a run that has made all its steps (status 2,
# "nothing to do"): such a run, killed before run/done was written, is done
fit: $(OUT)/run/done
$(OUT)/run/done: $(OUT)/augment.done $(OUT)/shards.done $(OUT)/.bc-fit.settings
	$(untmp)
	if $(call resumable,$(OUT)/run); then \
		$(RESUME) || { s=$$?; [ $$s -eq 2 ] && $(RESUME) 2>&1 | grep -q 'nothing to do' || exit $$s; }; \
	else \
		$(call fresh-run,$(OUT)/run) && \
		$(P)hydra-fit --arch $(ARCH) $(if $(STEPS),--steps $(STEPS),--epochs $(EPOCHS)) \
			--batch $(BATCH) $(if $(LR),--lr $(LR)) --device $(DEVICE) \
			-j $(THREADS) $(FIT_FLAGS) $(ON_EVAL) $(VALS) --out $(OUT)/run \
			$(OUT)/aug/train-*.h5; \
	fi
	readlink $(OUT)/run/latest > $@.tmp
	$(commit)

# the model as a file of its own (the run's latest checkpoint)
$(OUT)/model.h5: $(OUT)/run/done
	$(untmp)
	cp -L $(OUT)/run/latest $@.tmp
	$(commit)

# hydra-eval writes the tables (--table-out) atomically, before the JSON
eval: $(OUT)/eval.json
$(OUT)/eval.json: $(OUT)/model.h5 $(OUT)/shards.done
	$(untmp)
	$(P)hydra-eval -q --model $< --device $(DEVICE) -j $(THREADS) \
		--data $(wildcard $(OUT)/shards/val-*.h5) --table-out $(OUT)/eval.txt --json > $@.tmp
	$(commit)
	cat $(OUT)/eval.txt

arena: $(OUT)/arena.json
$(OUT)/arena.json: $(OUT)/model.h5 $(OUT)/.bc-arena.settings
	$(untmp)
	$(P)hydra-eval -q --challenger $< --opponent baseline --seeds $(SEEDS) --seed $(SEED) \
		--device $(DEVICE) -j $(THREADS) --table-out $(OUT)/arena.txt --json > $@.tmp
	$(commit)
	cat $(OUT)/arena.txt

# hydra-fit writes metrics.jsonl; a resumed run may leave it as it was
plots: $(OUT)/run/plots/losses.png
$(OUT)/run/metrics.jsonl: $(OUT)/run/done ;
$(OUT)/run/plots/losses.png: $(OUT)/run/metrics.jsonl $(HERE)plots.mk $(HERE)metrics.gp
	$(MAKE) --no-print-directory -f $(HERE)plots.mk RUN=$(OUT)/run

clean:
	rm -rf $(OUT)
