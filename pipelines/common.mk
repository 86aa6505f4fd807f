# Included by every pipeline: where this directory is (HERE), where the
# programs are (BIN: the build/bin of the checkout these files sit in, or
# the bin/ of the prefix they were installed under, `make install` putting
# them in PREFIX/share/hydra-c/pipelines/; else PATH), the device and
# thread count every stage is given, and the rules every pipeline keeps:
#
# Crash safety. A recipe writes its target under a temporary name beside it
# ($@.tmp) and renames it into place only when it is complete ($(commit):
# fsync, then rename), so that a target that exists is whole, also after
# `kill -9`; the programs do the same with the files they write (-o).
# A stage whose product is a directory (shards/, aug/, a run) writes it and
# then a stamp file listing what it made, the same way. A recipe first
# removes the temporaries a killed run of it may have left ($(untmp)).
# .DELETE_ON_ERROR removes a target whose recipe failed after touching it.
#
# Rebuilds. Each stage depends on its inputs and on a settings stamp,
# OUT/.STAGE.settings, one VARIABLE=value line per variable that shapes
# what the stage makes; the stamp is rewritten only when its content
# changes, so changing such a variable remakes that stage and those after
# it, and an unchanged rerun makes nothing. DEVICE, THREADS and BIN choose
# where and with what a stage runs, not what it makes: they are in no stamp.
#
# Paths. make cannot handle a path holding a space (or a colon) in a target:
# such an OUT, LOGS, INIT, RUN or LEAGUE is refused with a message.
HERE   := $(dir $(abspath $(lastword $(MAKEFILE_LIST))))
ME     := $(notdir $(firstword $(MAKEFILE_LIST)))
BIN    ?= $(firstword $(patsubst %/mjai-parse,%,$(wildcard $(HERE)../build/bin/mjai-parse \
		$(HERE)../../../bin/mjai-parse)))
P      := $(if $(BIN),$(BIN)/,)
DEVICE ?= auto
THREADS ?= $(shell nproc 2>/dev/null || echo 1)

.DEFAULT_GOAL := all
.PHONY: FORCE
FORCE:
.DELETE_ON_ERROR:

# the goals are only `clean`: the checks of the variables are skipped
CLEANING := $(if $(MAKECMDGOALS),$(if $(filter-out clean,$(MAKECMDGOALS)),,y))

# $(call one-path,VAR): refuses a path variable that holds a space or a colon
empty :=
space := $(empty) $(empty)
one-path = $(if $(or $(filter-out 0 1,$(words $($(1)))),$(findstring $(space),$($(1)))$(findstring :,$($(1)))),$(error \
	$(1)='$($(1))' holds a space or a colon: make cannot handle such paths in targets; \
	choose a path without (a link to it, for example)))

# $(call shq,TEXT): TEXT as one single-quoted shell word
shq = '$(subst ','\'',$(1))'

untmp  = @rm -rf $@.tmp $@.tmp-*
commit = sync $@.tmp && mv -f $@.tmp $@
# the recipe of a stamp: $@.tmp written, it replaces $@ only when different
replace-if-changed = if cmp -s $@.tmp $@; then rm -f $@.tmp; else $(commit); fi

# $(call settings,STAGE,VARIABLES): the rule of the stamp OUT/.STAGE.settings
define settings
$$(OUT)/.$(1).settings: FORCE
	@mkdir -p $$(@D)
	@printf '%s\n' $(foreach v,$(2),$$(call shq,$(v)=$$($(v)))) > $$@.tmp
	@$$(replace-if-changed)
endef

# $(call resumable,RUN): a shell test, true when the run directory RUN holds
# a checkpoint of a run started (RUN/.started) after every prerequisite of
# the target was last made: that run is continued with --resume; any other
# run is removed and started afresh ($(call fresh-run,RUN)).
resumable = [ -e $(1)/latest ] && [ -e $(1)/.started ] $(foreach p,$^,&& [ $(1)/.started -nt $(p) ])
fresh-run = rm -rf $(1) && mkdir -p $(1) && touch $(1)/.started
