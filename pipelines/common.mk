# Included by every pipeline: where this directory is (HERE), where the
# programs are (BIN: the build/bin of the checkout these files sit in, or
# the bin/ of the prefix they were installed under, `make install` putting
# them in PREFIX/share/hydra-c/pipelines/; else PATH), and the device and
# thread count every stage is given.
HERE   := $(dir $(abspath $(lastword $(MAKEFILE_LIST))))
BIN    ?= $(firstword $(patsubst %/mjai-parse,%,$(wildcard $(HERE)../build/bin/mjai-parse \
		$(HERE)../../../bin/mjai-parse)))
P      := $(if $(BIN),$(BIN)/,)
DEVICE ?= auto
THREADS ?= $(shell nproc 2>/dev/null || echo 1)
