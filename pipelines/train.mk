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
# so an interrupted workflow resumes where it stopped, also after `kill -9`
# (every target is renamed into place when complete), and a changed input
# rebuilds only what depends on it: each stage depends on its inputs (the
# files under LOGS, by size, time and path) and on a stamp of the settings
# that shape it (OUT/.bc-*.settings; the rules are in pipelines/common.mk,
# the stamps listed in bc.mk), so changing ARCH, EPOCHS, STEPS, LR, BATCH,
# SHARD or VAL remakes that stage and those after it, and an unchanged rerun
# does nothing. Training is resumable too: the final target is
# $(OUT)/run/done, written only when hydra-fit exits 0; after an interrupt
# (Ctrl-C saves a checkpoint) the next run continues that run with --resume,
# unless an input or setting of the training changed since it started. An
# empty validation split is refused by hydra-encode, before anything is
# trained. A LOGS that does not exist or holds no file, and an OUT or LOGS
# with a space, are refused with a message.

OUT ?= work
VAL ?= 0.02
include $(dir $(abspath $(lastword $(MAKEFILE_LIST))))bc.mk

.PHONY: train
.DEFAULT_GOAL := train
train: $(OUT)/run/done
