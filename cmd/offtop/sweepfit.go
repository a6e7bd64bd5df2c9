package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/offtop/offtop/internal/fit"
	"github.com/offtop/offtop/internal/scenarios"
	"github.com/offtop/offtop/internal/sizing"
	"github.com/offtop/offtop/internal/sweep"
)

// sweepColumns defines every column of the sweep table.
const sweepColumns = sweep.Columns

// checkSizing checks --repeat, --load, --fit and --hdr-log and fills c.Repeat and
// c.Load (the scenario's sweep load unless --load was given); it returns
// the one-line error, or "". attached: the latency rule picks without
// the model, so --fit needs no 4 sizes.
func checkSizing(seen map[string]bool, c *sweep.Config, repeat string, attached bool) string {
	n, err := sweep.ParseRepeat(repeat)
	if err != nil {
		why := strings.TrimPrefix(strings.TrimPrefix(err.Error(), sweep.ErrRepeat.Error()), ": ")
		return fmt.Sprintf("--repeat: %s: %s", why, quote(repeat))
	}
	c.Repeat = n
	if !seen["load"] {
		c.Load = scenarios.Sizing(c.Base.Scenario).SweepLoad
	} else if c.Load < -scenarios.MaxLoadSteps || c.Load > scenarios.MaxLoadSteps {
		return fmt.Sprintf("--load: out of range -%d..%d: %d", scenarios.MaxLoadSteps, scenarios.MaxLoadSteps, c.Load)
	}
	if c.Fit && (seen["loops"] || c.PerTask || c.Priority) {
		return "--fit: fits one configuration's sizes, not with --loops, --per-task or --priority"
	}
	if c.Fit && !attached {
		var obs []sizing.Obs
		for _, w := range c.Workers {
			obs = append(obs, sizing.Obs{Workers: w})
		}
		if k := sizing.FitSizes(obs); k < fit.MinPoints {
			return fmt.Sprintf("--fit: needs at least %d sizes of 1 or more workers, --workers has %d", fit.MinPoints, k)
		}
	}
	if c.HdrLog != "" {
		if err := os.MkdirAll(c.HdrLog, 0o755); err != nil {
			return fmt.Sprintf("--hdr-log: cannot make the directory: %v", err)
		}
		if err := sweep.CheckHdrLog(c.HdrLog); err != nil {
			return fmt.Sprintf("--hdr-log: cannot write there: %v", err)
		}
	}
	return ""
}
