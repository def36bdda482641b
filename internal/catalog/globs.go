package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gobwas/glob"
)

// RegionGlobs matches regions and zones against globs as the policy bundle does (lib.location_allowed:
// glob.match with no delimiters, so "eu-*" matches "eu-west-1" and "europe-*" matches
// "europe-west4-a").
type RegionGlobs []*glob.Pattern

// CompileRegionGlobs compiles patterns, given as argument. With known regions, each pattern must
// match one of them; the error lists the regions nearest to it.
func CompileRegionGlobs(argument string, patterns, known []string) (RegionGlobs, error) {
	out := make(RegionGlobs, 0, len(patterns))
	for i, p := range patterns {
		g, err := glob.Compile(p)
		if err != nil {
			return nil, &ArgumentError{Argument: fmt.Sprintf("%s[%d]", argument, i), Message: fmt.Sprintf("%q is not a glob: %v", p, err)}
		}
		if known != nil && !slices.ContainsFunc(known, g.Match) {
			regions := slices.Compact(slices.Sorted(slices.Values(known)))
			nearest := Nearest(p, regions)
			return nil, &ArgumentError{Argument: fmt.Sprintf("%s[%d]", argument, i), Message: fmt.Sprintf(
				"%q matches no region the catalog prices for the clouds asked; regions, nearest first: %s", p, strings.Join(nearest[:min(8, len(nearest))], ", "))}
		}
		out = append(out, g)
	}
	return out, nil
}

// Match reports whether a glob matches region.
func (g RegionGlobs) Match(region string) bool {
	return slices.ContainsFunc(g, func(p *glob.Pattern) bool { return p.Match(region) })
}
