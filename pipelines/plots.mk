# Plots, with gnuplot (Debian gnuplot-nox) and jq:
#
#   make -f pipelines/plots.mk RUN=run/            run/plots/losses.png, training.png
#                                                  (and ppo.png for a PPO run)
#   make -f pipelines/plots.mk LEAGUE=sp/league.jsonl   sp/plots/league.png
#   make -f pipelines/plots.mk LEAGUE=sp/league.jsonl RUNS="sp/iter-1/run sp/iter-2/run"
#                                                  and sp/plots/all/losses.png,
#                                                  training.png, ppo.png: the
#                                                  iterations' PPO runs as one
#                                                  curve, steps continued
#
# The learning curves come from RUN/metrics.jsonl (hydra-fit), the strength
# plot from a league.jsonl (pipelines/selfplay.mk); each goes through a TSV
# beside the PNGs that a user can read or plot otherwise. Runs from any
# directory; the other pipelines call it for their runs. Crash-safe as every
# pipeline (pipelines/common.mk): gnuplot draws into a temporary directory
# beside the PNGs, whose files are renamed into place, the target last; a
# plot is remade when its data, its gnuplot script or this file changes.

include $(dir $(abspath $(lastword $(MAKEFILE_LIST))))common.mk
RUN    ?=
LEAGUE ?=
RUNS   ?=
PLOTS  ?= $(if $(RUN),$(RUN)/plots,$(dir $(LEAGUE))plots)
$(call one-path,RUN)$(call one-path,LEAGUE)$(call one-path,PLOTS)

.PHONY: all
all: $(if $(RUN),$(PLOTS)/losses.png) $(if $(LEAGUE),$(PLOTS)/league.png) \
	$(if $(RUNS),$(PLOTS)/all/losses.png)
$(if $(RUN)$(LEAGUE),,$(error give RUN=run-directory and/or LEAGUE=league.jsonl))

# $(call draw,SCRIPT,GNUPLOT-VARIABLES): runs a gnuplot script that writes
# PNGs into the directory `out`, then renames them beside $@, $@ last
define draw
	$(untmp)
	mkdir -p $@.tmp
	gnuplot -e "$(2); out='$@.tmp'" $(1)
	for f in $@.tmp/*.png; do \
		[ "$${f##*/}" = $(@F) ] || { sync "$$f" && mv -f "$$f" $(@D)/; } || exit 1; \
	done
	sync $@.tmp/$(@F) && mv -f $@.tmp/$(@F) $@
	rmdir $@.tmp
endef

# one row per logged step; NaN where a step has no such value
COLUMNS := .step, .loss, .policy, .value, .grp, .tenpai, .danger, .acc, .lr, .grad_norm, \
	.samples_per_s, .val_loss, .val_acc, .approx_kl, .clip_frac, .entropy, .explained_var, \
	.surrogate, .val_policy, .val_value, .val_grp, .val_tenpai, .val_danger
$(PLOTS)/metrics.tsv: $(RUN)/metrics.jsonl $(HERE)plots.mk
	$(untmp)
	@mkdir -p $(@D)
	jq -r '[$(COLUMNS)] | map(if . == null then "NaN" else tostring end) | @tsv' $< > $@.tmp
	$(commit)

$(PLOTS)/losses.png: $(PLOTS)/metrics.tsv $(HERE)metrics.gp $(HERE)plots.mk
	$(call draw,$(HERE)metrics.gp,tsv='$<'; \
		ppo=$$(awk -F'\t' '$$14 != "NaN" {n++} END {print (n > 0) ? 1 : 0}' $<))

# RUNS in a row: each run's rows with its steps moved past the runs before
# it (so a league's iterations make one curve)
$(PLOTS)/all/metrics.tsv: $(foreach r,$(RUNS),$(r)/metrics.jsonl) $(HERE)plots.mk
	$(untmp)
	@mkdir -p $(@D)
	off=0; for r in $(RUNS); do \
		jq -r '[$(COLUMNS)] | map(if . == null then "NaN" else tostring end) | @tsv' \
			$$r/metrics.jsonl | awk -F'\t' -v OFS='\t' -v off=$$off '{ $$1 += off; print }' \
			|| exit 1; \
		off=$$((off + $$(jq -s 'map(.step) | max' $$r/metrics.jsonl))); \
	done > $@.tmp
	$(commit)

$(PLOTS)/all/losses.png: $(PLOTS)/all/metrics.tsv $(HERE)metrics.gp $(HERE)plots.mk
	$(call draw,$(HERE)metrics.gp,tsv='$<'; \
		ppo=$$(awk -F'\t' '$$14 != "NaN" {n++} END {print (n > 0) ? 1 : 0}' $<))

# league.gp's columns
LEAGUE_COLUMNS := [.iter, .points, .lo, .hi, .rank, (if .promoted then 1 else 0 end), .rank_lo, \
	.rank_hi, .yard_rank, .yard_lo, .yard_hi]
$(PLOTS)/league.tsv: $(LEAGUE) $(HERE)plots.mk
	$(untmp)
	@mkdir -p $(@D)
	jq -r '$(LEAGUE_COLUMNS) | map(if . == null then "NaN" else tostring end) | @tsv' \
		$< > $@.tmp
	$(commit)

$(PLOTS)/league.png: $(PLOTS)/league.tsv $(HERE)league.gp $(HERE)plots.mk
	$(call draw,$(HERE)league.gp,tsv='$<')
