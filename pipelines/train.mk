# A whole supervised workflow as a Makefile: logs → checked events → shards
# (with a validation split by game) → 6-way augmented shards → a trained run.
#
#   make -f pipelines/train.mk LOGS=path/to/logs OUT=work/ [ARCH=small EPOCHS=3]
#
# The training half of pipelines/bc.mk, whose stages it uses (that file
# says how they work; bc.mk adds the dataset and arena evaluations and the
# plots). Runs from any directory (paths are taken as given, relative to
# where make runs). Programs come from BIN: by default the build/bin of the
# checkout this file sits in, or the bin/ of the prefix it was installed
# under (`make install` puts it in PREFIX/share/hydra-c/pipelines/), or
# else PATH.
#
# Each stage is a file a user can inspect (`mjai-parse --json`, `h5dump`),
# so an interrupted workflow resumes where it stopped and a changed input
# rebuilds only what depends on it. Training is resumable too: the final
# target is $(OUT)/run/done, written only when hydra-fit exits 0; after an
# interrupt (Ctrl-C saves a checkpoint) the next run continues that run
# with --resume. An empty validation split is refused by hydra-encode, before
# anything is trained.

OUT ?= work
VAL ?= 0.02
include $(dir $(abspath $(lastword $(MAKEFILE_LIST))))bc.mk

.PHONY: train
.DEFAULT_GOAL := train
train: $(OUT)/run/done
