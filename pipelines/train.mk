# A whole supervised workflow as a Makefile: logs → checked events → shards
# (with a validation split by game) → 6-way augmented shards → a trained run.
#
#   make -f pipelines/train.mk LOGS=path/to/logs OUT=work/ [ARCH=small EPOCHS=3]
#
# Runs from any directory (paths are taken as given, relative to where make
# runs). Programs come from BIN: by default the build/bin of the checkout
# this file sits in, or the bin/ of the prefix it was installed under
# (`make install` puts it in PREFIX/share/hydra-c/pipelines/), or else PATH.
#
# Each stage is a file a user can inspect (`mjai-parse --json`, `h5dump`),
# so an interrupted workflow resumes where it stopped and a changed input
# rebuilds only what depends on it. Training is resumable too: the final
# target is $(OUT)/run/done, written only when hydra-fit exits 0; after an
# interrupt (Ctrl-C saves a checkpoint) the next run continues that run
# with --resume. An empty validation split is refused by hydra-encode, before
# anything is trained.

HERE   := $(dir $(abspath $(lastword $(MAKEFILE_LIST))))
BIN    ?= $(firstword $(patsubst %/mjai-parse,%,$(wildcard $(HERE)../build/bin/mjai-parse \
		$(HERE)../../../bin/mjai-parse)))
P      := $(if $(BIN),$(BIN)/,)
LOGS   ?=
OUT    ?= work
ARCH   ?= small
EPOCHS ?= 3
BATCH  ?= 256
SHARD  ?= 100000
VAL    ?= 0.02
FIT_FLAGS ?=

.PHONY: all events check shards augment fit clean
.DELETE_ON_ERROR:
all: fit

need-logs = $(if $(LOGS),,$(error LOGS is not set: make -f $(lastword $(MAKEFILE_LIST)) LOGS=path/to/logs))

events: $(OUT)/events.bin
$(OUT)/events.bin:
	$(need-logs)
	$(P)mjai-parse --keep-going --stats $(LOGS) -o $@

# the rules engine must accept every game before training on it
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

# A run that has a checkpoint but no done stamp was interrupted: resume it.
fit: $(OUT)/run/done
$(OUT)/run/done: $(OUT)/augment.done
	if [ -e $(OUT)/run/latest ]; then \
		$(P)hydra-fit --resume $(OUT)/run $(FIT_FLAGS) \
			$(addprefix --val ,$(wildcard $(OUT)/shards/val-*.h5)) \
			--out $(OUT)/run $(OUT)/aug/train-*.h5; \
	else \
		$(P)hydra-fit --arch $(ARCH) --epochs $(EPOCHS) --batch $(BATCH) $(FIT_FLAGS) \
			$(addprefix --val ,$(wildcard $(OUT)/shards/val-*.h5)) \
			--out $(OUT)/run $(OUT)/aug/train-*.h5; \
	fi
	touch $@

clean:
	rm -rf $(OUT)
