package main

import (
	"fmt"
	"io"
	"slices"
)

// figure is one measured value of a run: its name, its unit and its
// value.
type figure struct {
	name, unit string
	v          float64
}

// figures are a run's measured values, in the order they were made.
type figures []figure

// add adds a figure.
func (f *figures) add(name, unit string, v float64) {
	*f = append(*f, figure{name: name, unit: unit, v: v})
}

// spread is a figure over runs: its median (the mean of the two middle
// values for an even count), its least and its greatest value.
type spread struct {
	name, unit     string
	median, lo, hi float64
	n              int
}

// spreads returns each figure's spread over the runs, in the order of
// their first appearance.
func spreads(runs []figures) []spread {
	var names []string
	units := map[string]string{}
	vals := map[string][]float64{}
	for _, r := range runs {
		for _, f := range r {
			if _, ok := units[f.name]; !ok {
				names = append(names, f.name)
				units[f.name] = f.unit
			}
			vals[f.name] = append(vals[f.name], f.v)
		}
	}
	out := make([]spread, 0, len(names))
	for _, name := range names {
		v := slices.Clone(vals[name])
		slices.Sort(v)
		m := v[len(v)/2]
		if len(v)%2 == 0 {
			m = (v[len(v)/2-1] + v[len(v)/2]) / 2
		}
		out = append(out, spread{name: name, unit: units[name], median: m, lo: v[0], hi: v[len(v)-1], n: len(v)})
	}
	return out
}

// printSpreads prints each figure's median and range over the runs.
func printSpreads(out io.Writer, runs []figures) {
	fmt.Fprintf(out, "over %d runs: median (least-greatest)\n", len(runs))
	for _, s := range spreads(runs) {
		fmt.Fprintf(out, "  %-62s %s (%s-%s)", s.name, num(s.median), num(s.lo), num(s.hi))
		if s.unit != "" {
			fmt.Fprint(out, " "+s.unit)
		}
		if s.n != len(runs) {
			fmt.Fprintf(out, " [%d of %d runs]", s.n, len(runs))
		}
		fmt.Fprintln(out)
	}
}

// num shows a figure to about 3 significant digits: no decimal from 100,
// one from 10, two below.
func num(v float64) string {
	switch {
	case v >= 100 || v <= -100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10 || v <= -10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
