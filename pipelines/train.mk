# A whole supervised workflow as a Makefile: logs → checked events → shards
# (with a validation split by game) → 6-way augmented shards → a trained run.
#
#   make -f pipelines/train.mk LOGS=path/to/logs OUT=work/ [ARCH=small EPOCHS=3]
#
# Each stage is a file, so an interrupted workflow resumes where it stopped
# and a changed input rebuilds only what depends on it. Programs come from
# BIN (default build/bin). Every output is written atomically by the tools.

BIN    ?= build/bin
LOGS   ?= ../shared/data/logs/mjx-project_mjx/tests_py/resources/mjlog
OUT    ?= work
ARCH   ?= small
EPOCHS ?= 3
BATCH  ?= 256
SHARD  ?= 100000
VAL    ?= 0.02

.PHONY: all events check shards augment fit clean
all: fit

events: $(OUT)/events.bin
$(OUT)/events.bin:
	@mkdir -p $(OUT)
	$(BIN)/mjai-parse --keep-going --stats $(LOGS) -o $@

# the rules engine must accept every game before training on it
check: $(OUT)/events.checked
$(OUT)/events.checked: $(OUT)/events.bin
	$(BIN)/mjai-parse --check $< && touch $@

shards: $(OUT)/shards.done
$(OUT)/shards.done: $(OUT)/events.checked
	@mkdir -p $(OUT)/shards
	$(BIN)/hydra-encode --stats $(OUT)/events.bin -o '$(OUT)/shards/train-%04d.h5' \
		--shard-size $(SHARD) --val-fraction $(VAL) --val-output '$(OUT)/shards/val-%04d.h5'
	touch $@

augment: $(OUT)/augment.done
$(OUT)/augment.done: $(OUT)/shards.done
	@mkdir -p $(OUT)/aug
	for f in $(OUT)/shards/train-*.h5; do \
		$(BIN)/hydra-augment --perms all "$$f" -o $(OUT)/aug/$$(basename "$$f") || exit 1; \
	done
	touch $@

fit: $(OUT)/run/latest
$(OUT)/run/latest: $(OUT)/augment.done
	$(BIN)/hydra-fit --arch $(ARCH) --epochs $(EPOCHS) --batch $(BATCH) \
		$(addprefix --val ,$(wildcard $(OUT)/shards/val-*.h5)) \
		--out $(OUT)/run $(OUT)/aug/train-*.h5

clean:
	rm -rf $(OUT)
