# Plots, with gnuplot (Debian gnuplot-nox) and jq:
#
#   make -f pipelines/plots.mk RUN=run/            run/plots/losses.png, training.png
#                                                  (and ppo.png for a PPO run)
#   make -f pipelines/plots.mk LEAGUE=sp/league.jsonl   sp/plots/league.png
#
# The learning curves come from RUN/metrics.jsonl (hydra-fit), the strength
# plot from a league.jsonl (pipelines/selfplay.mk); each goes through a TSV
# beside the PNGs that a user can read or plot otherwise. Runs from any
# directory; the other pipelines call it for their runs.

HERE   := $(dir $(abspath $(lastword $(MAKEFILE_LIST))))
RUN    ?=
LEAGUE ?=
PLOTS  ?= $(if $(RUN),$(RUN)/plots,$(dir $(LEAGUE))plots)

.PHONY: all
.DELETE_ON_ERROR:
all: $(if $(RUN),$(PLOTS)/losses.png) $(if $(LEAGUE),$(PLOTS)/league.png)
$(if $(RUN)$(LEAGUE),,$(error give RUN=run-directory and/or LEAGUE=league.jsonl))

# one row per logged step; NaN where a step has no such value
COLUMNS := .step, .loss, .policy, .value, .grp, .tenpai, .danger, .acc, .lr, .grad_norm, \
	.samples_per_s, .val_loss, .val_acc, .approx_kl, .clip_frac, .entropy, .explained_var, \
	.surrogate
$(PLOTS)/metrics.tsv: $(RUN)/metrics.jsonl
	@mkdir -p $(@D)
	jq -r '[$(COLUMNS)] | map(if . == null then "NaN" else tostring end) | @tsv' $< > $@

$(PLOTS)/losses.png: $(PLOTS)/metrics.tsv $(HERE)metrics.gp
	ppo=$$(awk -F'\t' '$$14 != "NaN" {n++} END {print (n > 0) ? 1 : 0}' $<); \
	gnuplot -e "tsv='$<'; out='$(PLOTS)'; ppo=$$ppo" $(HERE)metrics.gp

$(PLOTS)/league.tsv: $(LEAGUE)
	@mkdir -p $(@D)
	jq -r '[.iter, .points, .lo, .hi, .rank, (if .promoted then 1 else 0 end)] | @tsv' $< > $@

$(PLOTS)/league.png: $(PLOTS)/league.tsv $(HERE)league.gp
	gnuplot -e "tsv='$<'; out='$(PLOTS)'" $(HERE)league.gp
