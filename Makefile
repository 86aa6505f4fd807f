# Hydra-C — top-level build.
#
#   make [all]        programs in build/bin, library build/libhydra.a
#   make check        deps, build, the fast tier of the unit + program tests
#                     (T='t08* test_engine': only those; J=N jobs; SANITIZE=1:
#                     ASan+UBSan); per-test seconds and the five slowest
#   make check-full   the same, every test at full size (what CI runs)
#   make check-gpu    GPU ops vs the CPU reference (skipped without a GPU)
#   make check-torch  the model against PyTorch (skipped without python3-torch)
#   make demo         runs the pipeline on a default input
#   make deps         installs missing Debian packages (as root) or names them
#   make bench        benchmarks (bench/SUBJECT/*.sh), figures on stdout
#   make fuzz         libFuzzer harnesses of every parser (FUZZ_SECONDS=N each; clang)
#   make bench-gpu    GPU throughput and the data feed (skipped without a GPU)
#   make gpu-acceptance  check-gpu, hydra-fit on the GPU and the benchmarks in
#                     one run and one report (skipped without a GPU)
#   make install      PREFIX=/usr/local: binaries, man pages, pipelines and the
#                     shipped models (PREFIX/share/hydra/models)
#   make clean
#
# Options: NO_CUDA=1, NO_MPI=1, NO_ONNX=1, NO_DNNL=1, SANITIZE=1, CC=..., OPT=...

PREFIX    ?= /usr/local
CC        ?= cc
OPT       ?= -O2
SHARED    ?= $(abspath ../shared)

# Debian packages the project needs: named here and nowhere else.
DEB_PACKAGES := build-essential pkg-config zlib1g-dev libzstd-dev libarchive-dev \
	libhdf5-dev hdf5-tools libjansson-dev libexpat1-dev libssl-dev \
	libopenblas-dev libcmocka-dev zstd gzip tar zip unzip time python3 \
	gnuplot-nox jq procps libopenmpi-dev openmpi-bin \
	protobuf-c-compiler libprotobuf-c-dev libonnx-dev python3-onnx \
	libdnnl-dev chromium

PKGS := zlib libzstd libarchive jansson expat libcrypto hdf5 openblas
TEST_PKGS := cmocka

# ---------------------------------------------------------------- probes
PKG_FOUND := $(foreach p,$(PKGS) $(TEST_PKGS),$(if $(shell pkg-config --exists $(p) 2>/dev/null && echo y),$(p)))
PKG_MISSING := $(filter-out $(PKG_FOUND),$(PKGS) $(TEST_PKGS))

NVCC := $(if $(NO_CUDA),,$(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc)))
CUDA_HOME := $(if $(NVCC),$(patsubst %/bin/nvcc,%,$(NVCC)))
HAVE_CUDNN := $(if $(NVCC),$(if $(wildcard $(CUDA_HOME)/include/cudnn.h /usr/include/cudnn.h /usr/include/x86_64-linux-gnu/cudnn.h),y))
HAVE_CUBLAS := $(if $(NVCC),$(if $(wildcard $(CUDA_HOME)/include/cublas_v2.h),y))
HAVE_CUDA := $(if $(and $(NVCC),$(HAVE_CUDNN),$(HAVE_CUBLAS)),y)
# oneDNN (lib/nn/onednn.c, the CPU path of nn/cpupath.h): Debian's
# libdnnl-dev; NO_DNNL=1 leaves it out (the OpenBLAS path builds as ever)
HAVE_DNNL := $(if $(NO_DNNL),,$(if $(wildcard /usr/include/dnnl.h /usr/include/oneapi/dnnl/dnnl.h),y))

# MPI (lib/mpi, OpenMPI): pkg-config ompi-c, else mpicc --showme; NO_MPI=1 leaves it out
MPI_PC := $(if $(NO_MPI),,$(shell pkg-config --exists ompi-c 2>/dev/null && echo ompi-c))
MPI_CFLAGS := $(if $(NO_MPI),,$(if $(MPI_PC),$(shell pkg-config --cflags ompi-c),$(shell mpicc --showme:compile 2>/dev/null)))
MPI_LIBS := $(if $(NO_MPI),,$(if $(MPI_PC),$(shell pkg-config --libs ompi-c),$(shell mpicc --showme:link 2>/dev/null)))
HAVE_MPI := $(if $(MPI_LIBS),y)


# ---------------------------------------------------------------- flags
PKG_CFLAGS := $(if $(PKG_FOUND),$(shell pkg-config --cflags $(filter $(PKGS),$(PKG_FOUND))))
PKG_LIBS   := $(if $(PKG_FOUND),$(shell pkg-config --libs $(filter $(PKGS),$(PKG_FOUND))))
CMOCKA_CFLAGS := $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS   := $(shell pkg-config --libs cmocka 2>/dev/null)

WARN      := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter
CFLAGS_ALL := -std=c11 -D_GNU_SOURCE -g $(OPT) $(WARN) -Ilib $(PKG_CFLAGS) -fopenmp $(CFLAGS)
# --as-needed: a program loads only the shared libraries it uses (mjai-parse no
# CUDA, no MPI), which keeps start-up fast and memory limits meaningful
LDLIBS_ALL := -Wl,--as-needed $(PKG_LIBS) -fopenmp -lm $(LDLIBS)
ifneq ($(HAVE_MPI),)
CFLAGS_ALL += -DHY_HAVE_MPI=1 $(MPI_CFLAGS)
LDLIBS_ALL += $(MPI_LIBS)
endif
ifneq ($(HAVE_DNNL),)
CFLAGS_ALL += -DHY_HAVE_DNNL=1
LDLIBS_ALL += -ldnnl
endif
ifneq ($(SANITIZE),)
CFLAGS_ALL += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDLIBS_ALL += -fsanitize=address,undefined
BUILD ?= build-san
else
BUILD ?= build
endif

# ---------------------------------------------------------------- sources
LIB_SRC  := $(sort $(shell find lib -name '*.c'))
LIB_CU   := $(if $(HAVE_CUDA),$(sort $(shell find lib -name '*.cu')))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(LIB_CU:%.cu=$(BUILD)/%.cu.o)
# CUDA objects exist only with a CUDA toolchain; then (and only then) the
# programs link the CUDA runtime, cuDNN, cuBLAS and cuBLASLt (linear layers,
# lib/nn/cuda/lt.cu).
# nvcc: SASS for sm_80 (A100) and sm_90 (H100), PTX of compute_90 for newer GPUs.
NVCC_FLAGS := -O2 -std=c++17 -Ilib -DHY_HAVE_CUDA=1 -DHY_HAVE_CUBLASLT=1 -Xcompiler -Wall \
	-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=[sm_90,compute_90]
ifneq ($(LIB_CU),)
CFLAGS_ALL += -DHY_HAVE_CUDA=1 -I$(CUDA_HOME)/include
LDLIBS_ALL += -L$(CUDA_HOME)/lib64 -lcudnn -lcublasLt -lcublas -lcudart -lstdc++
endif
CMD_SRC  := $(sort $(wildcard cmd/*.c))
PROGRAMS := $(CMD_SRC:cmd/%.c=%)
BINS     := $(PROGRAMS:%=$(BUILD)/bin/%)
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
UNITS    := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# benchmark drivers: bench/SUBJECT/NAME.c, built as $(BUILD)/bench/NAME
BENCH_SRC := $(sort $(wildcard bench/*/*.c))
BENCHES  := $(addprefix $(BUILD)/bench/,$(basename $(notdir $(BENCH_SRC))))
# gpu_bench's roof mode: bench/gpu/roof.cu (it times the CUDA backend's kernels
# alone, through lib/nn/cuda/internal.h), linked where the backend is built
BENCH_EXTRA_gpu_bench := $(if $(LIB_CU),$(BUILD)/bench/gpu/roof.cu.o)
LIBA     := $(BUILD)/libhydra.a

# ONNX export (lib/export/onnx.c, hydra-export): protoc-c generates the
# protobuf-c code at build time from the onnx.proto that Debian's libonnx-dev
# (or python3-onnx) installs, into $(BUILD)/gen; without protoc-c,
# libprotobuf-c or onnx.proto (or with NO_ONNX=1) the exporter is left out and
# says so. Its flags travel in their own stamp, so that they rebuild only it.
ONNX_PROTO ?= $(firstword $(wildcard /usr/include/onnx/onnx.proto \
	/usr/lib/python3/dist-packages/onnx/onnx.proto))
PROTOC_C := $(if $(NO_ONNX),,$(shell command -v protoc-c 2>/dev/null))
PBC_LIBS := $(if $(NO_ONNX),,$(shell pkg-config --libs libprotobuf-c 2>/dev/null))
HAVE_ONNX := $(if $(and $(PROTOC_C),$(PBC_LIBS),$(ONNX_PROTO)),y)
ONNX_GEN := $(BUILD)/gen/onnx
ONNX_FLAGS := $(if $(HAVE_ONNX),-DHY_HAVE_ONNX=1 -I$(ONNX_GEN) $(shell pkg-config --cflags libprotobuf-c))
ifneq ($(HAVE_ONNX),)
LIB_OBJ += $(ONNX_GEN)/onnx.pb-c.o
LDLIBS_ALL += $(PBC_LIBS)
endif
$(BUILD)/.onnx-flags: FORCE
	@mkdir -p $(@D)
	@if [ "$$(cat $@ 2>/dev/null)" != '$(ONNX_FLAGS) $(ONNX_PROTO)' ]; then echo '$(ONNX_FLAGS) $(ONNX_PROTO)' > $@; fi
$(ONNX_GEN)/onnx.pb-c.c $(ONNX_GEN)/onnx.pb-c.h &: $(ONNX_PROTO) $(BUILD)/.onnx-flags
	@mkdir -p $(ONNX_GEN)
	$(PROTOC_C) --proto_path=$(dir $(ONNX_PROTO)) --c_out=$(ONNX_GEN) $(ONNX_PROTO)
# generated code: compiled without our warning set
$(ONNX_GEN)/onnx.pb-c.o: $(ONNX_GEN)/onnx.pb-c.c $(BUILD)/.flags
	$(CC) -std=c11 -g $(OPT) $(ONNX_FLAGS) -c $< -o $@
$(BUILD)/lib/export/onnx.o $(BUILD)/tests/test_export.o: CFLAGS_ALL += $(ONNX_FLAGS)
$(BUILD)/lib/export/onnx.o $(BUILD)/tests/test_export.o: $(BUILD)/.onnx-flags \
	$(if $(HAVE_ONNX),$(ONNX_GEN)/onnx.pb-c.h)

ifeq ($(filter deps clean help,$(MAKECMDGOALS)),)
ifeq ($(MAKELEVEL),0)
$(info hydra: libraries found: $(or $(PKG_FOUND),none))
$(if $(PKG_MISSING),$(info hydra: libraries MISSING: $(PKG_MISSING) (run 'make deps')))
CUDA_WHY := $(if $(HAVE_CUDA),nvcc with cuDNN and cuBLAS found but this version has no CUDA sources,$(if $(NVCC),nvcc found but cuDNN/cuBLAS missing,no nvcc))
$(info hydra: CUDA backend: $(if $(NO_CUDA),not built (NO_CUDA=1),$(if $(LIB_CU),built with $(NVCC) (cuDNN and cuBLAS),not built ($(CUDA_WHY)): CPU only)))
$(info hydra: ONNX export: $(if $(HAVE_ONNX),built ($(PROTOC_C), $(ONNX_PROTO)),not built ($(if $(NO_ONNX),NO_ONNX=1,protoc-c, libprotobuf-c or onnx.proto missing: 'make deps'))))
$(info hydra: MPI: $(if $(NO_MPI),not built (NO_MPI=1),$(if $(HAVE_MPI),built ($(or $(MPI_PC),mpicc --showme)),not built (no ompi-c, no mpicc))))
$(info hydra: oneDNN CPU path: $(if $(NO_DNNL),not built (NO_DNNL=1),$(if $(HAVE_DNNL),built (-ldnnl; HYDRA_CPU_PATH or --cpu-path chooses),not built (libdnnl-dev missing: 'make deps'))))
endif
endif

# keep objects between runs (they are intermediate files to make)
.SECONDARY:

.PHONY: all check check-full check-gpu gpu-acceptance check-torch demo deps bench bench-gpu install clean test-run help
.DEFAULT_GOAL := all

all: $(BINS)

# Rebuild everything when the flags change.
FLAGS_STAMP := $(BUILD)/.flags
FLAGS_NOW := $(CC) $(CFLAGS_ALL) | $(LDLIBS_ALL) | $(NVCC) $(if $(LIB_CU),$(NVCC_FLAGS))
$(FLAGS_STAMP): FORCE
	@mkdir -p $(@D)
	@if [ "$$(cat $@ 2>/dev/null)" != '$(FLAGS_NOW)' ]; then echo '$(FLAGS_NOW)' > $@; fi
.PHONY: FORCE
FORCE:

$(BUILD)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(BUILD)/%.cu.o: %.cu $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(NVCC_FLAGS) -MMD -MP -c $< -o $@

$(LIBA): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/bin/%: $(BUILD)/cmd/%.o $(LIBA)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(LIBA) $(LDLIBS_ALL)

$(BUILD)/tests/%.o: tests/unit/%.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) $(CMOCKA_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(LIBA)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(LIBA) $(CMOCKA_LIBS) $(LDLIBS_ALL)

define BENCH_RULE
$(BUILD)/bench/$(basename $(notdir $(1))): $(1) $(BENCH_EXTRA_$(basename $(notdir $(1)))) $(LIBA) $(FLAGS_STAMP)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS_ALL) -o $$@ $(1) $(BENCH_EXTRA_$(basename $(notdir $(1)))) $$(LIBA) $$(LDLIBS_ALL)
endef
$(foreach s,$(BENCH_SRC),$(eval $(call BENCH_RULE,$(s))))

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# ---------------------------------------------------------------- deps
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "hydra: all Debian packages present"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "hydra: installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	else \
	  echo "hydra: missing Debian packages; run as root:"; \
	  echo "  apt-get update && apt-get install -y$$missing"; exit 1; \
	fi

# ---------------------------------------------------------------- tests
# tests/run.sh: TIER fast (check) or full (check-full), T patterns, J jobs
# (default: the usable CPUs)
TIER ?= fast
check: deps
	@$(MAKE) --no-print-directory test-run TIER=fast

check-full: deps
	@$(MAKE) --no-print-directory test-run TIER=full

# the benchmark drivers too: a benchmark is a test (t1430, t1440 run them)
test-run: $(BINS) $(UNITS) $(BENCHES) $(BUILD)/tests/check_gpu
	@BUILD=$(BUILD) SHARED=$(SHARED) TIER=$(TIER) T='$(T)' J=$(J) sh tests/run.sh

# the CUDA backend against the CPU (tests/gpu/check_gpu.c; says "skipped"
# without a GPU), then hydra-fit on the GPU resumed on the CPU
$(BUILD)/tests/check_gpu: tests/gpu/check_gpu.c $(LIBA) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(LIBA) $(LDLIBS_ALL)

check-gpu: deps
	@$(MAKE) --no-print-directory all $(BUILD)/tests/check_gpu
	@BUILD=$(BUILD) SHARED=$(SHARED) sh tests/gpu.sh

# everything a GPU must pass and measure, one report (tests/gpu/acceptance.sh;
# "skipped: no GPU" without one)
gpu-acceptance: deps
	@$(MAKE) --no-print-directory all $(BUILD)/tests/check_gpu $(BUILD)/bench/gpu_bench \
		$(BUILD)/bench/feed_bench
	@BUILD=$(BUILD) sh tests/gpu/acceptance.sh

# GPU training and inference throughput, and the data feed (bench/gpu/gpu.sh)
bench-gpu: deps
	@$(MAKE) --no-print-directory all $(BUILD)/bench/gpu_bench $(BUILD)/bench/feed_bench
	@BUILD=$(BUILD) SHARED=$(SHARED) sh bench/gpu/gpu.sh
	@BUILD=$(BUILD) SHARED=$(SHARED) sh bench/data/feed.sh

# PyTorch cross-check of the model (Debian python3-torch, python3-h5py);
# skipped with a message when they are absent.
check-torch: deps
	@$(MAKE) --no-print-directory all $(BUILD)/bench/nn_dump
	@BUILD=$(BUILD) sh tests/torch/check.sh; rc=$$?; \
	if [ $$rc -eq 77 ]; then echo "check-torch: skipped"; exit 0; fi; exit $$rc

DEMO_OUT ?= demo-run
demo: deps
	@$(MAKE) --no-print-directory all
	@$(MAKE) --no-print-directory -f pipelines/demo.mk BIN=$(abspath $(BUILD))/bin OUT=$(DEMO_OUT)

# the benchmarks that run on their own; feed_procs.sh (run by feed.sh) and
# league.sh (a league from a given start) and ppo-signal.sh (issue 42 step 1,
# a variant of PPO by its flags) take arguments
BENCH_SCRIPTS := $(filter-out bench/data/feed_procs.sh bench/learn/league.sh bench/learn/ppo-signal.sh bench/learn/ppo-snr.sh,$(wildcard bench/*.sh bench/*/*.sh))
bench: deps
	@$(MAKE) --no-print-directory all $(BENCHES)
	@for b in $(BENCH_SCRIPTS); do BUILD=$(BUILD) SHARED=$(SHARED) sh $$b || exit 1; done

install: $(BINS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/hydra-c/pipelines
	install -m 755 $(BINS) $(DESTDIR)$(PREFIX)/bin
	install -m 644 $(wildcard man/*.1) $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 $(wildcard pipelines/*.mk pipelines/*.gp) $(DESTDIR)$(PREFIX)/share/hydra-c/pipelines
	install -d $(DESTDIR)$(PREFIX)/share/hydra/models
	install -m 644 $(wildcard models/*.h5 models/*.provenance models/README.md) \
		$(DESTDIR)$(PREFIX)/share/hydra/models

clean:
	rm -rf build build-san

help:
	@sed -n '3,20p' Makefile

# ---------------------------------------------------------------- fuzz
# (section owned by the fuzzing work; tests/fuzz/README.md)
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_ONLY="mjai evs_mem"]
# builds every harness tests/fuzz/fuzz_NAME.c with clang and libFuzzer
# (-fsanitize=fuzzer,address,undefined) in $(FUZZ_BUILD) and runs each for
# FUZZ_SECONDS (tests/fuzz/run.sh); a crash, leak or timeout becomes a file
# in tests/fuzz/regress/NAME/ and fails. `make check` replays those files and
# the seed corpus through $(BUILD)/fuzz/replay_NAME (the harness with
# tests/fuzz/replay.c, built with $(CC)) in tests/shell/t1410-fuzz-regress.sh.
FUZZ_SRC     := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_NAMES   := $(FUZZ_SRC:tests/fuzz/fuzz_%.c=%)
FUZZ_ONLY    ?= $(FUZZ_NAMES)
FUZZ_SECONDS ?= 60
FUZZ_BUILD   ?= build-fuzz
FUZZ_CC      ?= clang
FUZZ_DEB     := clang libclang-rt-14-dev libomp-14-dev
FUZZ_CFLAGS  := -std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer $(WARN) -Ilib \
	$(PKG_CFLAGS) -fopenmp -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_BUILD)/%.o)
FUZZ_REPLAYS := $(FUZZ_NAMES:%=$(BUILD)/fuzz/replay_%)

.PHONY: fuzz fuzz-deps fuzz-build fuzz-clean
test-run: $(FUZZ_REPLAYS)
clean: fuzz-clean

$(BUILD)/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(LIBA) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_ALL) -pthread -o $@ tests/fuzz/fuzz_$*.c tests/fuzz/replay.c $(LIBA) $(LDLIBS_ALL)

$(FUZZ_BUILD)/.flags: FORCE
	@mkdir -p $(@D)
	@if [ "$$(cat $@ 2>/dev/null)" != '$(FUZZ_CC) $(FUZZ_CFLAGS)' ]; then echo '$(FUZZ_CC) $(FUZZ_CFLAGS)' > $@; fi

$(FUZZ_BUILD)/lib/%.o: lib/%.c $(FUZZ_BUILD)/.flags
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c $< -o $@

$(FUZZ_BUILD)/libhydra.a: $(FUZZ_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_BUILD)/libhydra.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -pthread -o $@ $< $(FUZZ_BUILD)/libhydra.a \
		$(PKG_LIBS) -fopenmp -lm

-include $(shell find $(FUZZ_BUILD) -name '*.d' 2>/dev/null)

# clang and libFuzzer come from Debian, installed here (as root) for this
# target only, or named.
fuzz-deps:
	@missing=""; for p in $(FUZZ_DEB); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "hydra: installing for make fuzz:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	else \
	  echo "hydra: make fuzz needs Debian packages; run as root:"; \
	  echo "  apt-get update && apt-get install -y$$missing"; exit 1; \
	fi

# (tests/fuzz/ckpt.gen makes its seed checkpoint with hydra-fit)
fuzz-build: $(FUZZ_ONLY:%=$(FUZZ_BUILD)/fuzz_%) $(if $(filter ckpt,$(FUZZ_ONLY)),$(BUILD)/bin/hydra-fit)

fuzz: deps fuzz-deps
	@$(MAKE) --no-print-directory fuzz-build
	@FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) SHARED=$(SHARED) \
		HY_BIN=$(abspath $(BUILD)/bin) sh tests/fuzz/run.sh $(FUZZ_ONLY)

fuzz-clean:
	rm -rf $(FUZZ_BUILD)
