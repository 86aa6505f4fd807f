# Behaviour cloning, the whole workflow: logs → checked events → shards with a
# validation split by game → 6-way augmented shards → a trained run → its
# dataset metrics on the validation shards → an arena run against the rule
# bot → plots.
#
#   make -f pipelines/bc.mk LOGS=path/to/logs OUT=bc/ [ARCH=small EPOCHS=3 SEEDS=100]
#
# (STEPS=N trains N steps instead of EPOCHS epochs.)
#
# Runs from any directory; programs from BIN (default: the build/bin of the
# checkout this file is in, or the bin/ of the prefix it is installed under,
# else PATH). Every stage is a file to inspect (`mjai-parse --json
# OUT/events.bin`, `h5dump -H OUT/shards/val-0000.h5`, OUT/eval.txt,
# OUT/arena.txt, OUT/run/plots/*.png), so an interrupted workflow resumes
# where it stopped; training resumes with --resume (the stamp OUT/run/done
# is written only when hydra-fit succeeds). DEVICE selects hydra-fit's and
# the arena's device (auto, cpu, cuda).

include $(dir $(abspath $(lastword $(MAKEFILE_LIST))))common.mk
LOGS   ?=
OUT    ?= bc
ARCH   ?= small
EPOCHS ?= 3
STEPS  ?=
BATCH  ?= 256
SHARD  ?= 100000
VAL    ?= 0.05
SEEDS  ?= 100
SEED   ?= 0
FIT_FLAGS ?=

.PHONY: all events check shards augment fit eval arena plots clean
.DELETE_ON_ERROR:
all: $(OUT)/arena.json $(OUT)/eval.json $(OUT)/run/plots/losses.png

need-logs = $(if $(LOGS),,$(error LOGS is not set: give LOGS=path/to/logs))

events: $(OUT)/events.bin
$(OUT)/events.bin:
	$(need-logs)
	$(P)mjai-parse --keep-going --stats $(LOGS) -o $@

check: $(OUT)/events.checked
$(OUT)/events.checked: $(OUT)/events.bin
	$(P)mjai-parse --check $< && touch $@

shards: $(OUT)/shards.done
$(OUT)/shards.done: $(OUT)/events.checked
	$(P)hydra-encode --stats $(OUT)/events.bin -o '$(OUT)/shards/train-%04d.h5' \
		--shard-size $(SHARD) --val-fraction $(VAL) --val-output '$(OUT)/shards/val-%04d.h5'
	touch $@

augment: $(OUT)/augment.done
$(OUT)/augment.done: $(OUT)/shards.done
	for f in $(OUT)/shards/train-*.h5; do \
		$(P)hydra-augment --perms all "$$f" -o $(OUT)/aug/$$(basename "$$f") || exit 1; \
	done
	touch $@

VALS = $(addprefix --val ,$(wildcard $(OUT)/shards/val-*.h5))
fit: $(OUT)/run/done
$(OUT)/run/done: $(OUT)/augment.done
	if [ -e $(OUT)/run/latest ]; then \
		$(P)hydra-fit --resume $(OUT)/run --device $(DEVICE) $(FIT_FLAGS) $(VALS) \
			--out $(OUT)/run $(OUT)/aug/train-*.h5; \
	else \
		$(P)hydra-fit --arch $(ARCH) $(if $(STEPS),--steps $(STEPS),--epochs $(EPOCHS)) \
			--batch $(BATCH) --device $(DEVICE) \
			-j $(THREADS) $(FIT_FLAGS) $(VALS) --out $(OUT)/run $(OUT)/aug/train-*.h5; \
	fi
	touch $@

# the model as a file of its own (the run's latest checkpoint)
$(OUT)/model.h5: $(OUT)/run/done
	cp -L $(OUT)/run/latest $@

eval: $(OUT)/eval.json
$(OUT)/eval.json: $(OUT)/model.h5
	$(P)hydra-eval -q --model $< --device $(DEVICE) -j $(THREADS) \
		--data $(wildcard $(OUT)/shards/val-*.h5) --table-out $(OUT)/eval.txt --json > $@
	cat $(OUT)/eval.txt

arena: $(OUT)/arena.json
$(OUT)/arena.json: $(OUT)/model.h5
	$(P)hydra-eval -q --challenger $< --opponent baseline --seeds $(SEEDS) --seed $(SEED) \
		--device $(DEVICE) -j $(THREADS) --table-out $(OUT)/arena.txt --json > $@
	cat $(OUT)/arena.txt

plots: $(OUT)/run/plots/losses.png
$(OUT)/run/plots/losses.png: $(OUT)/run/done $(HERE)plots.mk
	$(MAKE) --no-print-directory -f $(HERE)plots.mk RUN=$(OUT)/run

clean:
	rm -rf $(OUT)
